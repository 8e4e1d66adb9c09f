#pragma once
// The table of experiment 4 (issue 15): one row per path length N of the recorded CUDA Graph
// break-even document, its fixed cost (capture + instantiate + upload), host time per path from the
// stream and as a graph replay, the predicted and the measured break-even R*; and, once the user
// has rerun it on their GPU, the same five numbers of their run beside each recorded one (matched
// by N). Fed with core/experiment/graph_break_even.h's readout (already read defensively).

#include "core/experiment/graph_break_even.h"

#include <QAbstractTableModel>
#include <optional>

namespace lowerscope {

class GraphBreakEvenModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Recorded and this GPU side by side per quantity; the view hides the Mine columns until a rerun.
    enum Columns {
        PathLength,
        Fixed,
        MineFixed,
        StreamPath,
        MineStreamPath,
        GraphPath,
        MineGraphPath,
        Predicted,
        MinePredicted,
        Measured,
        MineMeasured,
        ColumnCount
    };
    // The number behind a cell: ms for Fixed, µs per path for StreamPath / GraphPath, R for the
    // break-evens (Measured: the smallest R that wins); invalid when there is none.
    enum Roles { ValueRole = Qt::UserRole + 1 };

    explicit GraphBreakEvenModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setRecorded(const GraphBreakEvenReadout& recorded);
    // The user's rerun; rows are matched by N. nullopt removes it.
    void setMine(const std::optional<GraphBreakEvenReadout>& mine);
    const GraphBreakEvenReadout& recorded() const { return m_recorded; }
    const std::optional<GraphBreakEvenReadout>& mine() const { return m_mine; }
    static bool isMineColumn(int column);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const GraphBreakEvenRow* mineRow(int row) const;

    GraphBreakEvenReadout m_recorded;
    std::optional<GraphBreakEvenReadout> m_mine;
};

} // namespace lowerscope
