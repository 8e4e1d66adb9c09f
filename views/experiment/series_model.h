#pragma once
// The table of a parameter series (issue 15): one row per point (label, registers, spills,
// occupancy, median, 95 % interval, ratio to the first point), and, once the user has rerun the
// series on their GPU, their median and ratio beside the recorded ones (matched by label).
// Fed with core/experiment/series.h's SeriesSummary (already read defensively).

#include "core/experiment/series.h"

#include <QAbstractTableModel>
#include <optional>

namespace lowerscope {

class SeriesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns {
        Point,
        Registers,
        Spills,
        Occupancy,
        Median,
        Interval,
        Ratio,
        MineMedian,
        MineRatio,
        ColumnCount
    };
    enum Roles { MedianMsRole = Qt::UserRole + 1 }; // the median in ms (Median / MineMedian columns)

    explicit SeriesModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setSeries(const SeriesSummary& recorded);
    // The user's rerun; rows are matched by label. nullopt removes the columns.
    void setMine(const std::optional<SeriesSummary>& mine);
    const SeriesSummary& series() const { return m_series; }
    const std::optional<SeriesSummary>& mine() const { return m_mine; }
    // The rerun's row for recorded row `row`, or nullptr.
    const SeriesRow* mineRow(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    SeriesSummary m_series;
    std::optional<SeriesSummary> m_mine;
};

} // namespace lowerscope
