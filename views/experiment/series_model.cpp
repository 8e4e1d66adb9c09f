// The series table (series_model.h).
#include "views/experiment/series_model.h"

#include "core/run/measurement.h"

namespace lowerscope {

namespace {

QString duration(double ms) {
    return QString::fromStdString(formatDuration(ms));
}

QString ratioText(const SeriesRow& r, int row) {
    if (row == 0) return QStringLiteral("1 (reference)");
    if (!r.hasRatio) return QStringLiteral("–");
    QString s = QStringLiteral("%1 (%2–%3)")
                    .arg(r.ratio, 0, 'f', 3)
                    .arg(r.ratioLow, 0, 'f', 3)
                    .arg(r.ratioHigh, 0, 'f', 3);
    if (!r.significant) s += QObject::tr(", not significant");
    return s;
}

} // namespace

void SeriesModel::setSeries(const SeriesSummary& recorded) {
    beginResetModel();
    m_series = recorded;
    m_mine.reset();
    endResetModel();
}

void SeriesModel::setMine(const std::optional<SeriesSummary>& mine) {
    beginResetModel();
    m_mine = mine;
    endResetModel();
}

const SeriesRow* SeriesModel::mineRow(int row) const {
    if (!m_mine || row < 0 || row >= int(m_series.points.size())) return nullptr;
    for (const auto& p : m_mine->points)
        if (p.label == m_series.points[size_t(row)].label) return &p;
    return nullptr;
}

int SeriesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_series.points.size());
}

int SeriesModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return m_mine ? ColumnCount : MineMedian;
}

QVariant SeriesModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const SeriesRow& p = m_series.points[size_t(index.row())];
    const SeriesRow* mine = mineRow(index.row());
    if (role == MedianMsRole) {
        if (index.column() == Median) return p.medianMs;
        if (index.column() == MineMedian && mine) return mine->medianMs;
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Point ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                       : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Point && !p.value.empty())
        return tr("value %1").arg(QString::fromStdString(p.value));
    if (role != Qt::DisplayRole) return {};
    const QString unknown = QStringLiteral("–");
    switch (index.column()) {
    case Point:
        return QString::fromStdString(p.label);
    case Registers:
        return p.registers >= 0 ? QString::number(p.registers) : unknown;
    case Spills:
        return p.spillBytes >= 0 ? QString::number(p.spillBytes) : unknown;
    case Occupancy:
        return p.occupancy >= 0 ? QStringLiteral("%1 %").arg(100 * p.occupancy, 0, 'f', 0) : unknown;
    case Median:
        return duration(p.medianMs);
    case Interval:
        return QStringLiteral("%1 – %2").arg(duration(p.ciLowMs), duration(p.ciHighMs));
    case Ratio:
        return ratioText(p, index.row());
    case MineMedian:
        return mine ? QStringLiteral("%1 (%2 – %3)")
                          .arg(duration(mine->medianMs), duration(mine->ciLowMs), duration(mine->ciHighMs))
                    : unknown;
    case MineRatio:
        return mine ? ratioText(*mine, index.row()) : unknown;
    default:
        return {};
    }
}

QVariant SeriesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
    switch (section) {
    case Point:
        return tr("Point");
    case Registers:
        return tr("Registers");
    case Spills:
        return tr("Spills (B)");
    case Occupancy:
        return tr("Occupancy");
    case Median:
        return m_mine ? tr("Median (recorded)") : tr("Median");
    case Interval:
        return tr("95 % CI");
    case Ratio:
        return tr("vs first (95 % CI)");
    case MineMedian:
        return tr("Median on this GPU (95 % CI)");
    case MineRatio:
        return tr("vs first on this GPU");
    default:
        return {};
    }
}

} // namespace lowerscope
