#include "views/code/sass_model.h"

#include "core/parse/control.h"
#include "views/code/opcode_style.h"
#include "views/common/theme.h"

#include <QFileInfo>

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace lowerscope {

namespace {
// LDL/STL: local memory, where spilled registers (and local arrays) live.
bool isLocalMemory(const SassInstruction& ins) { return ins.mnemonic == "LDL" || ins.mnemonic == "STL"; }
} // namespace



SassModel::SassModel(QObject* parent) : QAbstractTableModel(parent) {}

void SassModel::setFunction(std::shared_ptr<const void> owner, const SassFunction* function,
                            std::vector<int> sourceLines) {
    beginResetModel();
    m_owner = std::move(owner);
    m_function = function;
    const size_t n = function ? function->instructions.size() : 0;
    m_sourceLines = std::move(sourceLines);
    m_sourceLines.resize(n, 0);
    m_sourceLabels.clear();
    m_categories.assign(n, uint8_t(InstrCategory::Misc));
    m_highlighted.assign(n, 0);
    m_filterMatches.clear(); // the filter pane matches the new rows again after the reset
    m_filterDescription.clear();
    m_currentRow = -1;
    m_maxLive = 0;
    m_profile.clear(); // a profile belongs to one build's rows: the pane sets it again if it fits
    m_kernelSamples = 0;
    m_maxRowSamples = 0;
    // A listing uses a few dozen distinct mnemonics: look each up in the opcode table once.
    std::unordered_map<std::string_view, uint8_t> categoryOf;
    for (size_t i = 0; i < n; ++i) {
        const SassInstruction& ins = function->instructions[i];
        auto [it, fresh] = categoryOf.try_emplace(ins.mnemonic, uint8_t(0));
        if (fresh) it->second = uint8_t(sassCategory(ins.mnemonic));
        m_categories[i] = it->second;
        m_maxLive = std::max(m_maxLive, ins.live.gpr);
    }
    endResetModel();
}

void SassModel::clear() { setFunction(nullptr, nullptr, {}); }

void SassModel::setProfile(std::vector<ProfileTotals> rows, uint64_t kernelSamples) {
    if (rows.size() != size_t(rowCount())) rows.clear();
    // The pane clears on every reload: without a profile before or after, nothing changes (and a
    // 100k-row listing's first paint gets no extra signal).
    if (rows.empty() && m_profile.empty()) return;
    m_profile = std::move(rows);
    m_kernelSamples = m_profile.empty() ? 0 : kernelSamples;
    m_maxRowSamples = 0;
    for (const auto& t : m_profile) m_maxRowSamples = std::max(m_maxRowSamples, t.sampleTotal());
    if (rowCount() > 0) emit dataChanged(index(0, ExecutedColumn), index(rowCount() - 1, SectorsColumn));
}

void SassModel::setSourceLines(std::vector<int> sourceLines) {
    m_sourceLines = std::move(sourceLines);
    m_sourceLines.resize(size_t(rowCount()), 0);
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void SassModel::setSourceLabels(std::vector<QString> labels) {
    m_sourceLabels = std::move(labels);
    if (m_sourceLabels.size() != size_t(rowCount())) m_sourceLabels.clear();
    if (rowCount() > 0) emit dataChanged(index(0, SourceLineColumn), index(rowCount() - 1, SourceLineColumn));
}

void SassModel::setHighlighted(const std::vector<uint32_t>& addresses, std::optional<uint32_t> current) {
    if (!m_function) return;
    std::fill(m_highlighted.begin(), m_highlighted.end(), 0);
    for (uint32_t a : addresses) {
        const int row = m_function->indexOf(a);
        if (row >= 0) m_highlighted[size_t(row)] = 1;
    }
    m_currentRow = current ? m_function->indexOf(*current) : -1;
    // The whole table repaints only its visible rows; one signal is cheaper than tracking ranges.
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void SassModel::setStale(bool stale) {
    if (stale == m_stale) return;
    m_stale = stale;
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void SassModel::setFilterMatches(std::vector<char> matches, const QString& description) {
    if (matches.size() != size_t(rowCount())) matches.clear();
    const QString text = matches.empty() ? QString() : description;
    if (matches == m_filterMatches && text == m_filterDescription) return;
    const bool rowsChanged = matches != m_filterMatches;
    m_filterMatches = std::move(matches);
    m_filterDescription = text;
    if (rowsChanged && rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::ForegroundRole, FilterMatchRole});
    emit filterChanged();
}

int SassModel::filterMatchCount() const {
    return int(std::count(m_filterMatches.begin(), m_filterMatches.end(), char(1)));
}

const SassInstruction* SassModel::instruction(int row) const {
    if (!m_function || row < 0 || row >= int(m_function->instructions.size())) return nullptr;
    return &m_function->instructions[size_t(row)];
}

QModelIndex SassModel::indexForAddress(uint32_t address, int column) const {
    if (!m_function) return {};
    const int row = m_function->indexOf(address);
    return row < 0 ? QModelIndex() : index(row, column);
}

QModelIndex SassModel::indexForSourceLine(int line) const {
    if (line <= 0) return {};
    auto it = std::find(m_sourceLines.begin(), m_sourceLines.end(), line);
    return it == m_sourceLines.end() ? QModelIndex() : index(int(it - m_sourceLines.begin()), 0);
}

QModelIndexList SassModel::indexesForSourceLine(int line) const {
    QModelIndexList out;
    if (line <= 0) return out;
    for (size_t i = 0; i < m_sourceLines.size(); ++i)
        if (m_sourceLines[i] == line) out.push_back(index(int(i), 0));
    return out;
}

int SassModel::sourceLineForIndex(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this || size_t(index.row()) >= m_sourceLines.size()) return 0;
    return m_sourceLines[size_t(index.row())];
}

std::vector<int> SassModel::highlightedRows() const {
    std::vector<int> rows;
    for (size_t i = 0; i < m_highlighted.size(); ++i)
        if (m_highlighted[i]) rows.push_back(int(i));
    return rows;
}

int SassModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_function) return 0;
    return int(m_function->instructions.size());
}

int SassModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

static QString operandsText(const SassInstruction& ins) {
    QString s;
    for (size_t i = 0; i < ins.operands.size(); ++i) {
        if (i) s += QLatin1String(", ");
        s += QString::fromStdString(ins.operands[i].text);
    }
    return s;
}

// "file:line ← file:line …", innermost first; file names, or the whole paths for the Line column
// (whose cell may show its file name elided).
static QString chainText(const SourceLoc& loc, bool fullPaths = false) {
    if (!loc.valid()) return {};
    auto name = [fullPaths](const std::string& file) {
        const QString path = QString::fromStdString(file);
        return fullPaths ? path : QFileInfo(path).fileName();
    };
    QString s = QStringLiteral("%1:%2").arg(name(loc.file)).arg(loc.line);
    for (const SourceFrame& f : loc.inlinedAt) s += QStringLiteral(" \u2190 %1:%2").arg(name(f.file)).arg(f.line);
    return s;
}

namespace {

// 1 − thread instructions / (32 × warp instructions): the share of lanes that sat out an executed
// warp instruction (branch divergence or a partial warp); -1 without both counts.
double divergenceOf(const ProfileTotals& t) {
    const uint64_t warps = t.count("smsp__sass_inst_executed");
    if (warps == 0 || !t.counts.count("smsp__sass_thread_inst_executed")) return -1;
    return std::clamp(1.0 - double(t.count("smsp__sass_thread_inst_executed")) / (32.0 * double(warps)), 0.0, 1.0);
}

// Global sectors per global load/store request (1 request = one warp instruction); -1 when the row
// made no global requests. 4 sectors per request is a fully coalesced 32-bit access.
double sectorsPerRequestOf(const ProfileTotals& t) {
    const uint64_t requests = t.count("smsp__sass_inst_executed_op_global_ld") + t.count("smsp__sass_inst_executed_op_global_st");
    if (requests == 0) return -1;
    return double(t.count("smsp__sass_sectors_mem_global")) / double(requests);
}

} // namespace


QVariant SassModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const size_t row = size_t(index.row());
    const SassInstruction& ins = m_function->instructions[row];
    const int line = m_sourceLines[row];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case AddressColumn: return QStringLiteral("%1").arg(ins.address, 4, 16, QLatin1Char('0'));
        case SourceLineColumn:
            if (line > 0) return line;
            return row < m_sourceLabels.size() ? m_sourceLabels[row] : QString();
        case PredicateColumn: return QString::fromStdString(ins.predicate);
        case OpcodeColumn: return QString::fromStdString(ins.opcode);
        case OperandsColumn: return operandsText(ins);
        case ControlColumn: return ins.hasEncoding ? QString::fromStdString(controlText(ins.control)) : QString();
        case LiveColumn: return ins.live.gpr >= 0 ? QVariant(ins.live.gpr) : QVariant(QString());
        case ExecutedColumn:
            if (m_profile.empty() || !m_profile[row].counts.count("smsp__sass_inst_executed")) return QString();
            return QString::fromStdString(formatCount(m_profile[row].count("smsp__sass_inst_executed")));
        case StallsColumn: {
            if (m_profile.empty() || m_kernelSamples == 0) return QString();
            const uint64_t n = m_profile[row].sampleTotal();
            if (n == 0) return QString();
            const auto reasons = stallReasons(m_profile[row]);
            return QStringLiteral("%1% %2").arg(100.0 * double(n) / double(m_kernelSamples), 0, 'f', 1)
                .arg(reasons.empty() ? QString() : QString::fromStdString(reasons.front().first));
        }
        case DivergenceColumn: {
            const double d = m_profile.empty() ? -1 : divergenceOf(m_profile[row]);
            return d < 0 ? QString() : QStringLiteral("%1%").arg(100 * d, 0, 'f', 0);
        }
        case SectorsColumn: {
            const double s = m_profile.empty() ? -1 : sectorsPerRequestOf(m_profile[row]);
            return s < 0 ? QString() : QString::number(s, 'f', 1);
        }
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == OpcodeColumn)
            return QStringLiteral("%1 (%2)\n%3%4").arg(QString::fromStdString(ins.text),
                                                      QLatin1String(categoryLabel(InstrCategory(m_categories[row]))),
                                                      sassDescription(ins.mnemonic),
                                                      isLocalMemory(ins) ? tr("\nLocal memory: a register spill (see the "
                                                                              "Resources pane's spill bytes) or a local array")
                                                                         : QString());
        if (index.column() == LiveColumn && ins.live.gpr >= 0)
            return QStringLiteral("live: %1 GPR, %2 predicate, %3 uniform").arg(ins.live.gpr).arg(ins.live.pred).arg(ins.live.ugpr);
        if (index.column() == SectorsColumn && !m_profile.empty() && sectorsPerRequestOf(m_profile[row]) >= 0) {
            const ProfileTotals& t = m_profile[row];
            const uint64_t requests =
                t.count("smsp__sass_inst_executed_op_global_ld") + t.count("smsp__sass_inst_executed_op_global_st");
            return tr("global requests: %1\nsectors: %2 (%3 per request)\nideal sectors: %4 (%5 per request): "
                      "more than ideal means uncoalesced access")
                .arg(requests)
                .arg(t.count("smsp__sass_sectors_mem_global"))
                .arg(sectorsPerRequestOf(t), 0, 'f', 2)
                .arg(t.count("smsp__sass_sectors_mem_global_ideal"))
                .arg(double(t.count("smsp__sass_sectors_mem_global_ideal")) / double(requests), 0, 'f', 2);
        }
        if ((index.column() == ExecutedColumn || index.column() == StallsColumn || index.column() == DivergenceColumn) &&
            !m_profile.empty()) {
            const ProfileTotals& t = m_profile[row];
            QString tip = tr("instructions executed (warps): %1\nthread instructions: %2\npredicated-on threads: %3")
                              .arg(t.count("smsp__sass_inst_executed"))
                              .arg(t.count("smsp__sass_thread_inst_executed"))
                              .arg(t.count("smsp__sass_thread_inst_executed_pred_on"));
            const uint64_t n = t.sampleTotal();
            if (n > 0) {
                tip += tr("\nstall samples: %1").arg(n);
                for (const auto& [r, k] : stallReasons(t))
                    tip += QStringLiteral("\n  %1  %2 (%3%)").arg(QString::fromStdString(r)).arg(k).arg(100.0 * double(k) / double(n), 0, 'f', 1);
            }
            return tip;
        }
        if (ins.source.valid()) return chainText(ins.source, index.column() == SourceLineColumn);
        return {};
    case Qt::ForegroundRole: {
        QColor c = index.column() == OpcodeColumn ? Theme::categoryColor(InstrCategory(m_categories[row])) : QColor();
        if (fadedRow(row)) {
            // Filtered out: the text recedes but stays legible (Theme::fadedTextAlpha keeps 3:1).
            if (!c.isValid()) c = Theme::editorText();
            c.setAlphaF(float(Theme::fadedTextAlpha()));
        }
        return c.isValid() ? QVariant(c) : QVariant();
    }
    case Qt::BackgroundRole:
        if (m_highlighted[row])
            return int(row) == m_currentRow ? Theme::current_() : Theme::highlight();
        // Spill traffic (local memory) stands out in the opcode cell (issue 35 item 11).
        if (index.column() == OpcodeColumn && isLocalMemory(ins)) return Theme::isDark() ? QColor(110, 60, 20) : QColor(255, 214, 160);
        if (line > 0) return Theme::band(line, m_stale);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == SourceLineColumn || index.column() == LiveColumn || index.column() == ExecutedColumn ||
            index.column() == DivergenceColumn || index.column() == SectorsColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case AddressRole: return QVariant::fromValue(ins.address);
    case SourceLineRole: return line;
    case PtxLineRole: return ins.ptxLine;
    case CategoryRole: return int(m_categories[row]);
    case HighlightedRole: return bool(m_highlighted[row]);
    case CurrentRole: return int(row) == m_currentRow;
    case BandColorRole: return line > 0 ? Theme::band(line, m_stale) : QColor();
    case LiveGprRole: return ins.live.gpr;
    case MaxLiveGprRole: return m_maxLive;
    case InlineChainRole: return chainText(ins.source);
    case StallRole: return ins.hasEncoding ? ins.control.stall : -1;
    case FilterMatchRole: return !fadedRow(row);
    case DivergenceRole: return m_profile.empty() ? -1.0 : divergenceOf(m_profile[row]);
    case SectorsPerRequestRole: return m_profile.empty() ? -1.0 : sectorsPerRequestOf(m_profile[row]);
    case ExecutedRole:
        if (m_profile.empty() || !m_profile[row].counts.count("smsp__sass_inst_executed")) return -1;
        return QVariant::fromValue(qulonglong(m_profile[row].count("smsp__sass_inst_executed")));
    case StallSamplesRole: {
        QVariantList out;
        if (!m_profile.empty())
            for (const auto& [r, k] : stallReasons(m_profile[row]))
                out.push_back(QVariantList{QString::fromStdString(r), QVariant::fromValue(qulonglong(k))});
        return out;
    }
    case MaxRowSamplesRole: return QVariant::fromValue(qulonglong(m_maxRowSamples));
    }
    return {};
}

QVariant SassModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == ControlColumn)
        return tr("Control codes: stall cycles, yield, write/read barriers, wait mask and operand reuse, drawn as a "
                  "graphic. Widen the column to read them as text (B0-----:R-:W2:Y:S01); hover a cell for its meaning.");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case AddressColumn: return tr("Address");
    case SourceLineColumn: return tr("Line");
    case PredicateColumn: return tr("Pred");
    case OpcodeColumn: return tr("Opcode");
    case OperandsColumn: return tr("Operands");
    case ControlColumn: return tr("Control");
    case LiveColumn: return tr("Live GPR");
    case ExecutedColumn: return tr("Executed");
    case StallsColumn: return tr("Stalls");
    case DivergenceColumn: return tr("Idle lanes");
    case SectorsColumn: return tr("Sect/req");
    }
    return {};
}

} // namespace lowerscope
