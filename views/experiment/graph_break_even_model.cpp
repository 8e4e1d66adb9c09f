// The table of experiment 4 (graph_break_even_model.h).
#include "views/experiment/graph_break_even_model.h"

#include "core/run/measurement.h"

namespace lowerscope {

namespace {

// The quantity a column shows of a row, and how it reads.
std::optional<double> valueOf(const GraphBreakEvenRow& r, int column) {
    switch (column) {
    case GraphBreakEvenModel::Fixed:
    case GraphBreakEvenModel::MineFixed:
        return r.fixedMs;
    case GraphBreakEvenModel::StreamPath:
    case GraphBreakEvenModel::MineStreamPath:
        return r.streamPathUs;
    case GraphBreakEvenModel::GraphPath:
    case GraphBreakEvenModel::MineGraphPath:
        return r.graphPathUs;
    case GraphBreakEvenModel::Predicted:
    case GraphBreakEvenModel::MinePredicted:
        return r.predicted;
    case GraphBreakEvenModel::Measured:
    case GraphBreakEvenModel::MineMeasured:
        return r.measured;
    default:
        return std::nullopt;
    }
}

QString textOf(const GraphBreakEvenRow& r, int column) {
    const std::optional<double> v = valueOf(r, column);
    switch (column) {
    case GraphBreakEvenModel::Fixed:
    case GraphBreakEvenModel::MineFixed:
        return v ? QString::fromStdString(formatDuration(*v)) : QStringLiteral("–");
    case GraphBreakEvenModel::StreamPath:
    case GraphBreakEvenModel::MineStreamPath:
    case GraphBreakEvenModel::GraphPath:
    case GraphBreakEvenModel::MineGraphPath:
        return v ? QString::fromStdString(formatDuration(*v / 1000)) : QStringLiteral("–");
    case GraphBreakEvenModel::Predicted:
    case GraphBreakEvenModel::MinePredicted:
        // None: the graph saves nothing per path, so no number of replays pays for building it.
        return v ? QString::number(*v, 'f', *v >= 100 ? 0 : 1) : QObject::tr("never");
    case GraphBreakEvenModel::Measured:
    case GraphBreakEvenModel::MineMeasured:
        if (!v) return QObject::tr("not within R measured");
        return r.crossing ? QObject::tr("%1 (crossing ≈ %2)").arg(*v, 0, 'f', 0).arg(*r.crossing, 0, 'f', 1)
                          : QString::number(*v, 'f', 0);
    default:
        return {};
    }
}

} // namespace

bool GraphBreakEvenModel::isMineColumn(int c) {
    return c == MineFixed || c == MineStreamPath || c == MineGraphPath || c == MinePredicted ||
           c == MineMeasured;
}

void GraphBreakEvenModel::setRecorded(const GraphBreakEvenReadout& recorded) {
    beginResetModel();
    m_recorded = recorded;
    m_mine.reset();
    endResetModel();
}

void GraphBreakEvenModel::setMine(const std::optional<GraphBreakEvenReadout>& mine) {
    m_mine = mine;
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

const GraphBreakEvenRow* GraphBreakEvenModel::mineRow(int row) const {
    if (!m_mine || row < 0 || row >= rowCount()) return nullptr;
    for (const GraphBreakEvenRow& r : m_mine->rows)
        if (r.pathLength == m_recorded.rows[size_t(row)].pathLength) return &r;
    return nullptr;
}

int GraphBreakEvenModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_recorded.rows.size());
}

int GraphBreakEvenModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GraphBreakEvenModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const GraphBreakEvenRow& rec = m_recorded.rows[size_t(index.row())];
    const int c = index.column();
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (c == PathLength) {
        if (role == Qt::DisplayRole) return QString::number(rec.pathLength);
        if (role == ValueRole) return rec.pathLength;
        if (role == Qt::ToolTipRole) return tr("N = %1 launches of the kernel per path").arg(rec.pathLength);
        return {};
    }
    const GraphBreakEvenRow* row = isMineColumn(c) ? mineRow(index.row()) : &rec;
    if (role == Qt::DisplayRole) return row ? textOf(*row, c) : QStringLiteral("–");
    if (role == ValueRole) {
        const std::optional<double> v = row ? valueOf(*row, c) : std::nullopt;
        return v ? QVariant(*v) : QVariant();
    }
    return {};
}

QVariant GraphBreakEvenModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Fixed:
        case MineFixed:
            return tr("Capture + instantiate + upload of the graph: paid once (median, host wall)");
        case StreamPath:
        case MineStreamPath:
            return tr("Host wall time per path of N launches from the stream, steady state");
        case GraphPath:
        case MineGraphPath:
            return tr("Host wall time per replay of the path as one graph, steady state");
        case Predicted:
        case MinePredicted:
            return tr("R* = fixed cost / (stream − graph per path)");
        case Measured:
        case MineMeasured:
            return tr("The smallest R measured at which the graph's total is at most the stream's");
        default:
            return tr("N: launches per path");
        }
    }
    if (role != Qt::DisplayRole) return {};
    const QString who = isMineColumn(section) ? tr("this GPU") : tr("recorded");
    switch (section) {
    case PathLength:
        return tr("N");
    case Fixed:
    case MineFixed:
        return tr("fixed cost\n%1").arg(who);
    case StreamPath:
    case MineStreamPath:
        return tr("stream / path\n%1").arg(who);
    case GraphPath:
    case MineGraphPath:
        return tr("graph / path\n%1").arg(who);
    case Predicted:
    case MinePredicted:
        return tr("predicted R*\n%1").arg(who);
    case Measured:
    case MineMeasured:
        return tr("measured R*\n%1").arg(who);
    default:
        return {};
    }
}

} // namespace lowerscope
