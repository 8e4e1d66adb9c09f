#pragma once
// The CFG pane: basic blocks as nodes showing their instructions (each collapsible to its header),
// edges styled by kind (fall-through grey, taken blue, back edges dashed red, exits dotted), laid
// out by Graphviz dot (core/analysis/graph_layout.h) on a worker thread. Each layout has a job id; a
// result that is not the newest job's is dropped. Nodes are tinted with the source-line colour
// bands of the other panes (Theme::band), and the blocks of the current selection are outlined.
// Without Graphviz (LOWERSCOPE_HAVE_GRAPHVIZ unset) blocks are stacked in address order.
//
// Readable at any zoom (issue 17): a block longer than a few instructions is drawn compact — its
// first and last instructions and a "⋯ N more" line between, which expands it when clicked (an
// expanded block ends in "▴ fewer", which compacts it again). A new kernel is fitted to the view
// once its layout is done (never magnified past 1:1; a graph that would shrink below 20 % is shown
// from its top, as wide as fits, between 20 % and 1:1). A bar above the graph: Fit (Ctrl+0), Zoom to selection (the blocks of the linked
// selection), and "All instructions" (every block expanded).

#include "core/model.h"

#include <QGraphicsView>
#include <QPointer>
#include <QSet>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <vector>

class QAction;

namespace lowerscope {

class CfgBlockItem;
class Workspace;
struct ListingKey;

class CfgView : public QGraphicsView {
    Q_OBJECT
public:
    explicit CfgView(QWidget* parent = nullptr);
    // The CFG pane of `workspace` (observed, not owned): shows its current kernel, outlines the
    // blocks of its selection, and a click on a block or an instruction selects it there.
    explicit CfgView(Workspace* workspace, QWidget* parent = nullptr);
    ~CfgView() override;

    // Shows the CFG of `function` (both owned by `owner`, kept alive while shown). `sourceLines[i]`
    // is the document source line of instruction i (0 = none; empty vector: the instructions' own
    // call-site lines) and picks the node colours. Starts a layout job and returns its id.
    quint64 setKernel(std::shared_ptr<const void> owner, const SassFunction* function, const Cfg* cfg,
                      std::vector<int> sourceLines = {});
    void clear();

    quint64 currentJob() const { return m_job; }
    bool isLayoutPending() const { return m_pending; }
    QString lastError() const { return m_error; }
    double lastLayoutMs() const { return m_layoutMs; }   // wall time of the last applied layout job
    double lastLayoutCpuMs() const { return m_layoutCpuMs; } // its worker thread's CPU time
    int nodeCount() const;  // block nodes in the scene (exit stubs not counted)
    int edgeCount() const;  // edge items in the scene (exit edges included)
    int exitCount() const;  // exit stubs in the scene: one per drawn Exit edge
    // Scene rectangle of block `id`'s node; null when absent.
    QRectF blockRect(int id) const;
    // Scene rectangle of the exit stub that Exit edge `edgeIndex` (an index into Cfg::edges) ends
    // at; null when there is none.
    QRectF exitRect(int edgeIndex) const;
    // Scene point the arrow head of edge `edgeIndex` points at; nullopt when it was not drawn.
    std::optional<QPointF> edgeTip(int edgeIndex) const;

    void setAllCollapsed(bool collapsed); // relayouts
    void setBlockCollapsed(int id, bool collapsed);
    bool isBlockCollapsed(int id) const { return m_collapsed.contains(id); }
    // How a block is drawn: header only, compact (first and last instructions and the count
    // between; the default for blocks of more than kCompactAbove instructions), or in full.
    enum class BlockView { Collapsed, Compact, Expanded };
    static constexpr int kCompactAbove = 3;
    BlockView blockView(int id) const;
    void setBlockExpanded(int id, bool expanded); // relayouts
    void setAllExpanded(bool expanded);           // relayouts; the "All instructions" toggle
    // The text lines drawn in block `id` below its header (instructions, "⋯ N more", "▴ fewer").
    QStringList blockLines(int id) const;
    // Scene y of the centre of line `line` (0 = the header) of block `id`; NaN when absent.
    double blockLineY(int id, int line) const;

    // Zoom. fitToView shows the whole graph, magnified no more than 1:1; when that would take a
    // scale below kMinFitScale it shows the top of the graph as wide as fits (kMinFitScale … 1).
    // zoomToSelection shows the blocks holding the linked selection; false when there are none.
    static constexpr double kMinFitScale = 0.2;
    void fitToView();
    bool zoomToSelection();
    double zoom() const;
    QAction* fitAction() const { return m_fitAction; }
    QAction* zoomToSelectionAction() const { return m_zoomAction; }
    QAction* allInstructionsAction() const { return m_allAction; }
    QWidget* toolBar() const { return m_bar; }
    // Outlines the blocks holding these addresses (the linked selection) and scrolls to the first.
    void setHighlightedAddresses(const std::vector<uint32_t>& addresses);

signals:
    void layoutFinished(quint64 job, bool ok);
    void blockActivated(quint32 startAddress);   // a block header was clicked
    void instructionActivated(quint32 address);  // an instruction line of an expanded block was clicked

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

public:
    // One line drawn below a block's header (used by the block items; not an API).
    struct Line;

private:
    void reloadFromWorkspace();
    void createBar();
    quint64 startLayout();
    std::vector<Line> linesOf(const BasicBlock& block) const;
    CfgBlockItem* blockAt(const QPoint& pos) const;
    void fitIfPending();

    QPointer<Workspace> m_workspace;
    std::unique_ptr<ListingKey> m_shown; // what reloadFromWorkspace() last showed
    std::shared_ptr<const void> m_owner;
    const SassFunction* m_function = nullptr;
    const Cfg* m_cfg = nullptr;
    std::vector<int> m_sourceLines;
    QSet<int> m_collapsed;
    QSet<int> m_expanded;
    bool m_allExpanded = false;
    bool m_fitPending = false; // a new kernel: fit once laid out and shown
    QWidget* m_bar = nullptr;
    QAction* m_fitAction = nullptr;
    QAction* m_zoomAction = nullptr;
    QAction* m_allAction = nullptr;
    std::vector<CfgBlockItem*> m_blocks; // by block id order of the CFG
    int m_edgeItems = 0;
    std::map<int, QRectF> m_exitRects;           // Exit edge index → its stub's scene rect
    std::vector<std::optional<QPointF>> m_edgeTips; // per Cfg edge: its arrow tip, when drawn
    quint64 m_job = 0;
    bool m_pending = false;
    QString m_error;
    double m_layoutMs = 0;
    double m_layoutCpuMs = 0;
    std::vector<uint32_t> m_highlight;
};

} // namespace lowerscope
