#include "views/compare/diff_model.h"

#include "views/code/source_pane.h"

#include "views/common/theme.h"

#include <QBrush>
#include <QFont>
#include <QFontDatabase>

#include <cmath>

namespace lowerscope {

QColor diffStatusColor(DiffStatus status) {
    const bool dark = Theme::isDark();
    switch (status) {
    case DiffStatus::Equal: return {};
    case DiffStatus::Changed: return dark ? QColor(0x5a, 0x4a, 0x12) : QColor(0xff, 0xf0, 0xb3);
    case DiffStatus::Added: return dark ? QColor(0x1d, 0x4d, 0x2a) : QColor(0xd4, 0xf5, 0xd9);
    case DiffStatus::Removed: return dark ? QColor(0x5c, 0x22, 0x26) : QColor(0xfb, 0xd5, 0xd7);
    }
    return {};
}

namespace {

QString hexAddress(uint32_t address) { return QStringLiteral("%1").arg(address, 4, 16, QLatin1Char('0')); }

QString signedText(double v, int decimals = 0) {
    if (v == 0) return QStringLiteral("0");
    QString s = QString::number(v, 'f', decimals);
    return v > 0 ? QLatin1Char('+') + s : s;
}

QFont monoFont() { return QFontDatabase::systemFont(QFontDatabase::FixedFont); }

} // namespace

// ------------------------------------------------------------------------------ SassDiffModel

SassDiffModel::SassDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void SassDiffModel::setDiff(SassDiff diff, SassFunction a, SassFunction b) {
    m_profileRows.clear();
    m_profileOfRow.clear();
    m_hasProfiles = false;
    beginResetModel();
    m_diff = std::move(diff);
    m_a = std::move(a);
    m_b = std::move(b);
    endResetModel();
}

void SassDiffModel::clear() { setDiff({}, {}, {}); }

void SassDiffModel::setLabels(const QString& a, const QString& b) {
    m_labelA = a;
    m_labelB = b;
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

QModelIndex SassDiffModel::indexForSourceLine(int line) const {
    if (line <= 0) return {};
    for (size_t r = 0; r < m_diff.rows.size(); ++r)
        if (m_diff.rows[r].source.line == line) return index(int(r), 0);
    return {};
}

int SassDiffModel::sourceLineForIndex(const QModelIndex& idx) const {
    if (!idx.isValid() || idx.row() >= int(m_diff.rows.size())) return 0;
    return m_diff.rows[size_t(idx.row())].source.line;
}

int SassDiffModel::rowForA(int i) const {
    return i >= 0 && i < int(m_diff.rowOfA.size()) ? m_diff.rowOfA[size_t(i)] : -1;
}

int SassDiffModel::rowForB(int i) const {
    return i >= 0 && i < int(m_diff.rowOfB.size()) ? m_diff.rowOfB[size_t(i)] : -1;
}

int SassDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_diff.rows.size());
}

void SassDiffModel::setProfileRows(std::vector<ProfileRowDelta> rows) {
    // No profile before or after (every recompute of a diff without profiles): nothing changed,
    // so no dataChanged over every row of a long listing.
    if (rows.empty() && !m_hasProfiles) return;
    m_profileRows = std::move(rows);
    m_hasProfiles = !m_profileRows.empty();
    m_profileOfRow.assign(m_diff.rows.size(), -1);
    for (size_t i = 0; i < m_profileRows.size(); ++i) {
        const int r = m_profileRows[i].row;
        if (r >= 0 && r < int(m_profileOfRow.size())) m_profileOfRow[size_t(r)] = int(i);
    }
    if (!m_diff.rows.empty()) emit dataChanged(index(0, ExecutedColumn), index(rowCount() - 1, SamplesColumn));
    emit headerDataChanged(Qt::Horizontal, ExecutedColumn, SamplesColumn);
}

int SassDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SassDiffModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const DiffRow& row = m_diff.rows[size_t(index.row())];
    const SassInstruction* ia =
        row.a >= 0 && row.a < int(m_a.instructions.size()) ? &m_a.instructions[size_t(row.a)] : nullptr;
    const SassInstruction* ib =
        row.b >= 0 && row.b < int(m_b.instructions.size()) ? &m_b.instructions[size_t(row.b)] : nullptr;
    const int pi = index.row() < int(m_profileOfRow.size()) ? m_profileOfRow[size_t(index.row())] : -1;
    const ProfileRowDelta* prof = pi >= 0 ? &m_profileRows[size_t(pi)] : nullptr;
    auto arrow = [](uint64_t a, uint64_t b) {
        return QStringLiteral("%1 → %2").arg(QString::fromStdString(formatCount(a)), QString::fromStdString(formatCount(b)));
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ExecutedColumn: return prof ? arrow(prof->executedA, prof->executedB) : QString();
        case SamplesColumn:
            return prof && (prof->samplesA || prof->samplesB) ? arrow(prof->samplesA, prof->samplesB) : QString();
        case StatusColumn: return QString(QChar("=~+-"[int(row.status)]));
        case SourceLineColumn: return row.source.line > 0 ? QVariant(row.source.line) : QVariant(QString());
        case AddressAColumn: return ia ? hexAddress(ia->address) : QString();
        case InstructionAColumn: return ia ? QString::fromStdString(ia->text) : QString();
        case AddressBColumn: return ib ? hexAddress(ib->address) : QString();
        case InstructionBColumn: return ib ? QString::fromStdString(ib->text) : QString();
        }
        return {};
    case Qt::ToolTipRole: {
        if (prof && (index.column() == ExecutedColumn || index.column() == SamplesColumn)) {
            return tr("Warp instructions executed: %1 → %2 (%3)\nStall samples: %4 → %5")
                .arg(prof->executedA)
                .arg(prof->executedB)
                .arg(prof->executedA ? QStringLiteral("%1 %").arg(100.0 * (double(prof->executedB) - double(prof->executedA)) /
                                                                   double(prof->executedA), 0, 'f', 1)
                                     : QStringLiteral("new"))
                .arg(prof->samplesA)
                .arg(prof->samplesB);
        }
        QString tip = QString::fromLatin1(diffStatusName(row.status));
        if (row.source.line > 0)
            tip += QStringLiteral(" · %1:%2").arg(QString::fromStdString(row.source.file)).arg(row.source.line);
        return tip;
    }
    case Qt::BackgroundRole: {
        QColor c = diffStatusColor(row.status);
        return c.isValid() ? QVariant(QBrush(c)) : QVariant();
    }
    case Qt::FontRole:
        if (index.column() != SourceLineColumn) return monoFont();
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == StatusColumn) return int(Qt::AlignCenter);
        if (index.column() == SourceLineColumn || index.column() == ExecutedColumn || index.column() == SamplesColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case ExecutedDeltaRole:
        return prof ? QVariant(qlonglong(prof->executedB) - qlonglong(prof->executedA)) : QVariant();
    case SamplesDeltaRole:
        return prof ? QVariant(qlonglong(prof->samplesB) - qlonglong(prof->samplesA)) : QVariant();
    case StatusRole: return int(row.status);
    case SourceLineRole: return row.source.line;
    case IndexARole: return row.a;
    case IndexBRole: return row.b;
    }
    return {};
}

QVariant SassDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case StatusColumn: return QString();
    case SourceLineColumn: return tr("Line");
    case AddressAColumn: return tr("Addr %1").arg(m_labelA);
    case InstructionAColumn: return m_labelA;
    case AddressBColumn: return tr("Addr %1").arg(m_labelB);
    case InstructionBColumn: return m_labelB;
    case ExecutedColumn: return tr("Executed %1 → %2").arg(m_labelA, m_labelB);
    case SamplesColumn: return tr("Stall samples %1 → %2").arg(m_labelA, m_labelB);
    }
    return {};
}

// ----------------------------------------------------------------------------- LineDeltaModel

LineDeltaModel::LineDeltaModel(QObject* parent) : QAbstractTableModel(parent) {}

void LineDeltaModel::setDeltas(std::vector<LineDelta> deltas) {
    beginResetModel();
    m_deltas = std::move(deltas);
    endResetModel();
}

const LineDelta* LineDeltaModel::deltaForLine(int line) const {
    if (line <= 0) return nullptr;
    for (const auto& d : m_deltas)
        if (d.source.line == line) return &d;
    return nullptr;
}

QString LineDeltaModel::marginText(const LineDelta& d) {
    QStringList parts;
    if (d.instructionDelta() != 0) parts << tr("%1 ins").arg(signedText(d.instructionDelta()));
    if (d.stallDelta() != 0) parts << tr("%1 stall").arg(signedText(d.stallDelta()));
    if (d.maxLiveDelta() != 0) parts << tr("%1 live").arg(signedText(d.maxLiveDelta()));
    return parts.join(QStringLiteral(", "));
}

QString LineDeltaModel::compactText(const LineDelta& d) { return compactLineDeltaText(d); }

QModelIndex LineDeltaModel::indexForSourceLine(int line) const {
    for (size_t r = 0; r < m_deltas.size(); ++r)
        if (m_deltas[r].source.line == line) return index(int(r), 0);
    return {};
}

int LineDeltaModel::sourceLineForIndex(const QModelIndex& idx) const {
    if (!idx.isValid() || idx.row() >= int(m_deltas.size())) return 0;
    return m_deltas[size_t(idx.row())].source.line;
}

int LineDeltaModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_deltas.size()); }
int LineDeltaModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LineDeltaModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const LineDelta& d = m_deltas[size_t(index.row())];
    auto live = [](int v) { return v < 0 ? QVariant(QStringLiteral("–")) : QVariant(v); };
    int delta = 0;
    bool isDelta = false;
    switch (index.column()) {
    case InstructionsDeltaColumn: delta = d.instructionDelta(); isDelta = true; break;
    case StallDeltaColumn: delta = d.stallDelta(); isDelta = true; break;
    case LiveDeltaColumn: delta = d.maxLiveDelta(); isDelta = true; break;
    default: break;
    }
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case LineColumn:
            return d.source.line > 0 ? QStringLiteral("%1:%2")
                                           .arg(QString::fromStdString(d.source.file).section(QLatin1Char('/'), -1))
                                           .arg(d.source.line)
                                     : tr("(no line)");
        case InstructionsAColumn: return d.a.instructions;
        case InstructionsBColumn: return d.b.instructions;
        case StallAColumn: return d.a.stallCycles;
        case StallBColumn: return d.b.stallCycles;
        case LiveAColumn: return live(d.a.maxLiveGpr);
        case LiveBColumn: return live(d.b.maxLiveGpr);
        default: return signedText(delta);
        }
    case Qt::ForegroundRole:
        if (isDelta && delta != 0) return QBrush(delta > 0 ? QColor(0xc0, 0x39, 0x2b) : QColor(0x1e, 0x8e, 0x3e));
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == LineColumn ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    case SourceLineRole: return d.source.line;
    case DeltaRole: return isDelta ? QVariant(delta) : QVariant();
    }
    return {};
}

QVariant LineDeltaModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Line", "Ins A", "Ins B", "Δ ins", "Stall A", "Stall B", "Δ stall",
                                  "Live A", "Live B", "Δ live"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

// ------------------------------------------------------------------------- ResourceDeltaModel

ResourceDeltaModel::ResourceDeltaModel(QObject* parent) : QAbstractTableModel(parent) {}

void ResourceDeltaModel::setRows(std::vector<ResourceDelta> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

void ResourceDeltaModel::setLabels(const QString& a, const QString& b) {
    m_labelA = a;
    m_labelB = b;
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int ResourceDeltaModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int ResourceDeltaModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ResourceDeltaModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const ResourceDelta& r = m_rows[size_t(index.row())];
    const bool pct = r.name.find('%') != std::string::npos;
    auto value = [&](double v) -> QVariant {
        if (v < 0) return tr("n/a");
        return pct ? QString::number(v, 'f', 1) : QString::number(v, 'f', 0);
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(r.name);
        case AColumn: return value(r.a);
        case BColumn: return value(r.b);
        case DeltaColumn: return r.known() ? signedText(r.delta(), pct ? 1 : 0) : QString();
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == DeltaColumn && r.known() && r.delta() != 0) {
            // More registers, spills or shared is a cost; more occupancy / blocks is a gain.
            bool gainWhenUp = r.name.find("occupancy") != std::string::npos || r.name.find("blocks") != std::string::npos;
            bool good = (r.delta() > 0) == gainWhenUp;
            return QBrush(good ? QColor(0x1e, 0x8e, 0x3e) : QColor(0xc0, 0x39, 0x2b));
        }
        return {};
    case DeltaValueRole: return r.delta();
    }
    return {};
}

QVariant ResourceDeltaModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Resource");
    case AColumn: return m_labelA;
    case BColumn: return m_labelB;
    case DeltaColumn: return tr("Δ (B − A)");
    }
    return {};
}

} // namespace lowerscope
