#pragma once
// Dependency arrows beside the SASS table (hotspot's branch column idea): the core hands the edges
// (KernelModel::deps) and the lanes (core/analysis/lanes.h); this widget only paints.
//
// Modes: the selected instruction's arrows (every producer of what it reads, every consumer of
// what it writes), or every edge whose span meets the rows in view, each in its lane so arrows do
// not overlap; a producer's consumers of one resource class share one lane (a trunk with a branch
// into each consumer), so fan-out never widens the gutter. Colour by resource class (R blue, P orange, UR/UP green, scoreboard purple),
// opacity by distance (near = strong), loop-carried edges dashed. Hover an arrow for its
// register/scoreboard and distance; click an arrow to jump to its other end.
// Painting queries only the edges meeting the visible rows (LaneLayout::edgesInRows), so a frame
// costs O(visible edges · log n) on a 100,000-instruction listing.
//
// Rows here are instruction indices of the function; a row mapper translates them to the
// attached view's rows (identity unless the view shows a filtered proxy).

#include "core/analysis/lanes.h"
#include "core/model.h"

#include <QPointer>
#include <QVector>
#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

class QAbstractItemView;

namespace lowerscope {

class ArrowGutter : public QWidget {
    Q_OBJECT
public:
    // One arrow as painted: `edge` indexes the deps given to setKernel.
    struct Arrow {
        int edge = -1;
        int fromRow = 0; // producer instruction index
        int toRow = 0;   // consumer instruction index
        int lane = 0;
        DepKind kind = DepKind::Register;
        bool operator==(const Arrow&) const = default;
    };

    explicit ArrowGutter(QWidget* parent = nullptr);

    // The table the gutter sits beside: its vertical scrolling and row geometry drive the paint.
    void setView(QAbstractItemView* view);
    QAbstractItemView* view() const;
    // The function and its dependency edges (both owned by `owner`, which the gutter keeps alive).
    // Null function clears.
    void setKernel(std::shared_ptr<const void> owner, const SassFunction* function, const std::vector<DepEdge>* deps);
    // Instruction index ↔ view row (return -1 when not shown). Defaults: identity.
    void setRowMapper(std::function<int(int)> instructionToRow, std::function<int(int)> rowToInstruction);

    int selectedRow() const { return m_selected; }
    bool showAllEdges() const { return m_showAll; }
    int laneCount() const; // lanes of the current mode's layout
    int maxLanes() const { return m_maxLanes; }
    // Lanes drawn at full spacing side by side (the gutter's width). A layout with more lanes is
    // squeezed into that width at a smaller pitch (≥ 1 px), so lanes keep distinct positions.
    void setMaxLanes(int lanes);
    // Filters (the SASS pane's arrow menu): resource classes shown, and "only the highlighted
    // register" (edges whose resource overlaps the register picked by clicking an operand; all
    // edges while nothing is highlighted). Lanes are laid out again for what remains.
    void setKindVisible(DepKind kind, bool visible);
    bool kindVisible(DepKind kind) const { return m_kindMask & (1u << unsigned(kind)); }
    void setOnlyHighlightedRegister(bool on);
    bool onlyHighlightedRegister() const { return m_onlyRegister; }
    // Horizontal position of a lane's vertical segment, in gutter coordinates (0 = innermost lane).
    int laneX(int lane) const;

    // Indices into deps of the selected instruction's edges: producers of what it reads (to ==
    // selected) and consumers of what it writes (from == selected). Ascending.
    std::vector<int> selectedEdges() const;
    // The arrows a paint of instruction rows [firstRow, lastRow] draws in the current mode,
    // appended to `out` (reused, no allocation when it has capacity).
    void arrowsInRows(int firstRow, int lastRow, std::vector<Arrow>& out) const;
    // Tooltip text for the arrows under `pos` (widget coordinates); "" when none.
    QString toolTipAt(const QPoint& pos) const;
    // Rows (instruction indices) of the current register highlight.
    const std::vector<int>& highlightedDefs() const { return m_defRows; }
    const std::vector<int>& highlightedUses() const { return m_useRows; }
    const RegRange& highlightedRegister() const { return m_register; }
    bool hasRegisterHighlight() const { return m_hasRegister; }

    // Instruction rows [first, last] currently visible in the view; (0, -1) without a view.
    std::pair<int, int> visibleRows() const;

    QSize sizeHint() const override;

    // Colour of a resource class (also used by the legend and the screenshot tool).
    static QColor kindColor(DepKind kind);
    // Opacity 0..1 for an edge of `distance` instructions: near edges strong, far edges faint.
    static double distanceOpacity(int distance);

public slots:
    void setSelectedRow(int row);
    void setShowAllEdges(bool on);
    // Highlights every definition and use of `reg` in the function (overlapping ranges count).
    void highlightRegister(lowerscope::RegRange reg);
    void clearRegisterHighlight();

signals:
    void registerHighlighted(QVector<int> defRows, QVector<int> useRows);
    void rowActivated(int row); // an arrow was clicked: jump to this instruction

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    void relayout(); // lanes of the edges that pass the filters
    bool edgePassesFilter(const DepEdge& edge) const;
    void rebuildSelection();
    void updateWidth();
    // Viewport y of the centre of instruction row `row`; nullopt-like INT_MIN when hidden.
    int rowCentreY(int row) const;
    int viewportOffset() const;

    QPointer<QAbstractItemView> m_view;
    std::shared_ptr<const void> m_owner;
    const SassFunction* m_function = nullptr;
    const std::vector<DepEdge>* m_deps = nullptr;
    std::function<int(int)> m_toRow;
    std::function<int(int)> m_toInstruction;

    // All-edges mode: the lane layout of every edge (rows = instruction indices), and the index
    // into deps of each laid-out edge.
    LaneLayout m_all;
    std::vector<int> m_allDep;
    // Adjacency (CSR) of laid-out edges by instruction, for the selected mode.
    std::vector<int> m_adjStart;
    std::vector<int> m_adj;
    // Selected mode.
    int m_selected = -1;
    LaneLayout m_sel;
    std::vector<int> m_selDep;
    bool m_showAll = false;
    int m_maxLanes = 24;
    unsigned m_kindMask = 0xF; // bit per DepKind
    bool m_onlyRegister = false;

    RegRange m_register;
    bool m_hasRegister = false;
    std::vector<int> m_defRows;
    std::vector<int> m_useRows;

    mutable std::vector<int> m_queryBuffer;
    mutable std::vector<Arrow> m_arrowBuffer;
};

// The register named at character `position` of an operand text ("R4", "UR6", "P0"; in "R2.64"
// the R2), or a range with count 0 when the position is not on a register (RZ, PT, constants).
// Used to turn a click on an operand into highlightRegister().
RegRange registerAtTextPosition(const QString& text, int position);

} // namespace lowerscope
