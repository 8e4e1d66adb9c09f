#include "views/code/ptx_model.h"

#include "views/common/theme.h"

namespace lowerscope {

PtxModel::PtxModel(QObject* parent) : QAbstractTableModel(parent) {}

void PtxModel::setListing(std::shared_ptr<const void> owner, const PtxListing* listing, std::vector<int> sourceLines) {
    beginResetModel();
    m_owner = std::move(owner);
    m_listing = listing;
    const size_t n = listing ? listing->lines.size() : 0;
    m_sourceLines = std::move(sourceLines);
    m_sourceLines.resize(n, 0);
    m_highlighted.assign(n, 0);
    endResetModel();
}

void PtxModel::clear() { setListing(nullptr, nullptr, {}); }

void PtxModel::setSourceLines(std::vector<int> sourceLines) {
    m_sourceLines = std::move(sourceLines);
    m_sourceLines.resize(size_t(rowCount()), 0);
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void PtxModel::setHighlighted(const std::vector<int>& ptxLines) {
    std::fill(m_highlighted.begin(), m_highlighted.end(), 0);
    for (int l : ptxLines)
        if (l >= 1 && size_t(l) <= m_highlighted.size()) m_highlighted[size_t(l - 1)] = 1;
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void PtxModel::setStale(bool stale) {
    if (stale == m_stale) return;
    m_stale = stale;
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString PtxModel::text() const {
    if (!m_listing) return {};
    std::string s;
    for (const PtxLine& l : m_listing->lines) {
        s += l.text;
        s += '\n';
    }
    return QString::fromStdString(s);
}

QModelIndex PtxModel::indexForPtxLine(int line, int column) const {
    if (line < 1 || line > rowCount()) return {};
    return index(line - 1, column);
}

QModelIndex PtxModel::indexForSourceLine(int line) const {
    if (line <= 0) return {};
    for (size_t i = 0; i < m_sourceLines.size(); ++i)
        if (m_sourceLines[i] == line) return index(int(i), 0);
    return {};
}

QModelIndexList PtxModel::indexesForSourceLine(int line) const {
    QModelIndexList out;
    if (line <= 0) return out;
    for (size_t i = 0; i < m_sourceLines.size(); ++i)
        if (m_sourceLines[i] == line) out.push_back(index(int(i), 0));
    return out;
}

int PtxModel::sourceLineForIndex(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return 0;
    return sourceLineForPtxLine(index.row() + 1);
}

int PtxModel::sourceLineForPtxLine(int line) const {
    if (line < 1 || size_t(line) > m_sourceLines.size()) return 0;
    return m_sourceLines[size_t(line - 1)];
}

std::vector<int> PtxModel::highlightedLines() const {
    std::vector<int> out;
    for (size_t i = 0; i < m_highlighted.size(); ++i)
        if (m_highlighted[i]) out.push_back(int(i) + 1);
    return out;
}

int PtxModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_listing ? 0 : int(m_listing->lines.size());
}

int PtxModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PtxModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const size_t row = size_t(index.row());
    const PtxLine& l = m_listing->lines[row];
    const int src = m_sourceLines[row];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case LineColumn: return l.line;
        case SourceLineColumn: return src > 0 ? QVariant(src) : QVariant(QString());
        case TextColumn: return QString::fromStdString(l.text);
        }
        return {};
    case Qt::BackgroundRole:
        if (m_highlighted[row]) return Theme::highlight();
        if (src > 0) return Theme::band(src, m_stale);
        return {};
    case PtxLineRole: return int(row) + 1;
    case SourceLineRole: return src;
    case IsInstructionRole: return l.isInstruction;
    case HighlightedRole: return bool(m_highlighted[row]);
    case BandColorRole: return src > 0 ? Theme::band(src, m_stale) : QColor();
    }
    return {};
}

QVariant PtxModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case LineColumn: return tr("PTX line");
    case SourceLineColumn: return tr("Source line");
    case TextColumn: return tr("Text");
    }
    return {};
}

} // namespace lowerscope
