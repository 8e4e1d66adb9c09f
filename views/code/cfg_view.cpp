// The CFG pane (cfg_view.h). Over 600 lines because it owns the whole scene: Graphviz layout on a
// worker, compact/expanded blocks, edges, fit/zoom and the selection link to the other panes.
#include "views/code/cfg_view.h"

#include "views/common/theme.h"
#include "views/common/workspace.h"

#if defined(LOWERSCOPE_HAVE_GRAPHVIZ)
#include "core/analysis/graph_layout.h"
#endif

#include <QAction>
#include <QElapsedTimer>
#include <QFontDatabase>
#include <QFutureWatcher>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QToolButton>
#include <QWheelEvent>
#include <QtConcurrent>

#include <algorithm>
#include <ctime>
#include <limits>
#include <map>

namespace lowerscope {

namespace {
constexpr int kMaxChars = 64;   // longer instruction texts are elided in the node
constexpr double kPad = 5;

QFont cfgFont() {
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    f.setPointSize(8);
    return f;
}

// What a worker needs: plain data only (the UI-side objects are never touched off the UI thread).
struct LayoutInput {
    struct Node {
        int id;
        double w, h;
    };
    std::vector<Node> nodes;
    std::vector<CfgEdge> edges;
};
struct LayoutOutput {
    bool ok = false;
    QString error;
    double width = 0, height = 0;
    std::map<int, QRectF> nodes;                // block id → rect
    // Exit stubs keyed by the index of their Exit edge in the input: the layout gives every Exit
    // edge a stub of its own, all with id -1, so keying them by id would keep only one.
    std::map<int, QRectF> exits;
    std::vector<QPainterPath> paths;            // per input edge (empty: not laid out, not drawn)
    std::vector<std::pair<QPointF, QPointF>> heads; // per input edge: (from, tip) of the arrow head
    double ms = 0;
    double cpuMs = 0; // CPU time of the worker thread (wall time suffers on a loaded machine)
};

double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

LayoutOutput runLayout(const LayoutInput& in) {
    QElapsedTimer timer;
    timer.start();
    const double cpu0 = threadCpuMs();
    LayoutOutput out;
#if defined(LOWERSCOPE_HAVE_GRAPHVIZ)
    std::vector<LayoutBlock> blocks;
    blocks.reserve(in.nodes.size());
    for (const auto& n : in.nodes) blocks.push_back(LayoutBlock{n.id, {}, n.w, n.h});
    std::vector<LayoutEdge> edges;
    edges.reserve(in.edges.size());
    for (const auto& e : in.edges) edges.push_back(LayoutEdge{e.from, e.to, e.kind});
    GraphLayoutOptions options;
    options.nodeSepPt = 20;
    options.rankSepPt = 30;
    const GraphLayout g = layoutGraph(blocks, edges, options);
    out.ok = g.ok;
    out.error = QString::fromStdString(g.error);
    out.width = g.width;
    out.height = g.height;
    for (const NodeLayout& n : g.nodes) {
        const QRectF rect(n.x - n.width / 2, n.y - n.height / 2, n.width, n.height);
        if (n.id == kExitNodeId) out.exits[n.exitEdge] = rect;
        else out.nodes[n.id] = rect;
    }
    out.paths.resize(in.edges.size());
    out.heads.resize(in.edges.size());
    // g.edges is the input order, less any edge the layout left out (Exit edges without exit
    // stubs): walk both so each path lands on its own input edge's index.
    size_t next = 0;
    for (size_t i = 0; i < in.edges.size() && next < g.edges.size(); ++i) {
        const EdgeLayout& e = g.edges[next];
        if (e.from != in.edges[i].from || e.to != in.edges[i].to || e.kind != in.edges[i].kind) continue;
        ++next;
        QPainterPath path;
        if (!e.points.empty()) {
            path.moveTo(e.points[0].x, e.points[0].y);
            for (size_t i = 1; i + 2 < e.points.size(); i += 3)
                path.cubicTo(e.points[i].x, e.points[i].y, e.points[i + 1].x, e.points[i + 1].y, e.points[i + 2].x,
                             e.points[i + 2].y);
        }
        const QPointF end = path.elementCount() ? path.currentPosition() : QPointF();
        QPointF tip = e.hasArrow ? QPointF(e.arrowTip.x, e.arrowTip.y) : end;
        QPointF base = e.hasArrow ? end : (path.elementCount() > 1 ? path.pointAtPercent(0.97) : end);
        out.paths[i] = path;
        out.heads[i] = {base, tip};
    }
#else
    // No Graphviz: blocks stacked in address order; edges as arcs on the right side; each Exit
    // edge ends at a stub of its own left of its block (as with dot, one stub per Exit edge).
    constexpr double left = 80; // room for the exit stubs
    double y = 0, width = 0;
    for (const auto& n : in.nodes) {
        out.nodes[n.id] = QRectF(left, y, n.w, n.h);
        y += n.h + 24;
        width = std::max(width, n.w);
    }
    std::map<int, int> exitsOf; // block id → stubs placed so far
    for (size_t i = 0; i < in.edges.size(); ++i) {
        const CfgEdge& e = in.edges[i];
        const auto from = out.nodes.find(e.from);
        if (from == out.nodes.end()) {
            out.paths.emplace_back();
            out.heads.emplace_back();
            continue;
        }
        const QRectF a = from->second;
        if (e.to == -1) {
            const int k = exitsOf[e.from]++;
            const QRectF stub(10, a.center().y() - 5 + k * 14, 40, 10);
            out.exits[int(i)] = stub;
            QPainterPath path(QPointF(a.left(), a.center().y()));
            path.lineTo(stub.right() + 6, stub.center().y());
            out.paths.push_back(path);
            out.heads.emplace_back(QPointF(stub.right() + 6, stub.center().y()), QPointF(stub.right(), stub.center().y()));
            continue;
        }
        const auto to = out.nodes.find(e.to);
        if (to == out.nodes.end()) {
            out.paths.emplace_back();
            out.heads.emplace_back();
            continue;
        }
        const QRectF b = to->second;
        QPainterPath path(QPointF(a.right(), a.center().y()));
        const double bulge = left + width + 20 + std::abs(b.center().y() - a.center().y()) * 0.1;
        path.cubicTo(bulge, a.center().y(), bulge, b.center().y(), b.right() + 6, b.center().y());
        out.paths.push_back(path);
        out.heads.emplace_back(QPointF(b.right() + 6, b.center().y()), QPointF(b.right(), b.center().y()));
    }
    out.ok = true;
    out.width = left + width * 2;
    out.height = y + 20;
#endif
    out.ms = double(timer.nsecsElapsed()) / 1e6;
    out.cpuMs = threadCpuMs() - cpu0;
    return out;
}
} // namespace

// One drawn line of a block below its header.
struct CfgView::Line {
    enum Kind { Instruction, More, Fewer };
    QString text;
    Kind kind = Instruction;
    uint32_t lo = 1, hi = 0; // addresses the line stands for (an empty range for "fewer")
};

// One basic block: a header line and (unless collapsed) its lines.
class CfgBlockItem : public QGraphicsItem {
public:
    CfgBlockItem(int id, const QRectF& rect, QString header, std::vector<CfgView::Line> lines,
                 std::vector<uint32_t> addresses, QColor fill, bool collapsed)
        : m_id(id), m_rect(rect), m_header(std::move(header)), m_lines(std::move(lines)),
          m_addresses(std::move(addresses)), m_fill(fill), m_collapsed(collapsed) {
        setPos(rect.topLeft());
        m_rect.moveTopLeft(QPointF(0, 0));
        setAcceptHoverEvents(false);
        setCursor(Qt::PointingHandCursor);
    }
    int id() const { return m_id; }
    bool collapsed() const { return m_collapsed; }
    uint32_t startAddress() const { return m_addresses.empty() ? 0 : m_addresses.front(); }
    const std::vector<uint32_t>& addresses() const { return m_addresses; }
    const std::vector<CfgView::Line>& lines() const { return m_lines; }
    // Highlights the lines standing for any of `sorted` addresses; `any` outlines the block.
    void setHighlighted(const std::vector<uint32_t>& sorted, bool any) {
        m_highlightRows.assign(m_lines.size(), 0);
        for (size_t i = 0; i < m_lines.size(); ++i) {
            const auto it = std::lower_bound(sorted.begin(), sorted.end(), m_lines[i].lo);
            m_highlightRows[i] = it != sorted.end() && *it <= m_lines[i].hi;
        }
        m_highlighted = any;
        update();
    }
    // Index of the line at item y; -1 for the header (or below the last line).
    int lineAt(double y) const {
        const QFontMetricsF fm(cfgFont());
        const int line = int((y - kPad - 2) / fm.height()) - 1;
        if (line < 0 || m_collapsed || size_t(line) >= m_lines.size()) return -1;
        return line;
    }
    // Item y of the centre of line `line` (-1 = the header).
    double lineCentreY(int line) const {
        const QFontMetricsF fm(cfgFont());
        return line < 0 ? kPad + fm.height() / 2 : kPad + (line + 1) * fm.height() + 2 + fm.height() / 2;
    }
    QRectF boundingRect() const override { return m_rect.adjusted(-2, -2, 2, 2); }
    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override {
        const QFont font = cfgFont();
        const QFontMetricsF fm(font);
        p->setFont(font);
        p->setPen(QPen(m_highlighted ? Theme::current_().darker(160) : QColor(120, 120, 120), m_highlighted ? 2.5 : 1));
        p->setBrush(m_fill);
        p->drawRoundedRect(m_rect, 3, 3);
        const QColor text = Theme::editorText();
        QRectF line(kPad, kPad, m_rect.width() - 2 * kPad, fm.height());
        QFont bold = font;
        bold.setBold(true);
        p->setFont(bold);
        p->setPen(text);
        p->drawText(line, Qt::AlignLeft | Qt::AlignVCenter, m_header);
        p->setFont(font);
        if (m_collapsed) return;
        p->setPen(QColor(150, 150, 150));
        p->drawLine(QPointF(2, kPad + fm.height() + 1), QPointF(m_rect.width() - 2, kPad + fm.height() + 1));
        QFont italic = font;
        italic.setItalic(true);
        for (size_t i = 0; i < m_lines.size(); ++i) {
            line.moveTop(kPad + double(i + 1) * fm.height() + 2);
            if (i < m_highlightRows.size() && m_highlightRows[i]) p->fillRect(line.adjusted(-2, 0, 2, 0), Theme::highlight());
            const bool control = m_lines[i].kind != CfgView::Line::Instruction;
            // The "⋯ N more" / "▴ fewer" lines look like links: they expand or compact the block.
            p->setFont(control ? italic : font);
            p->setPen(control ? QColor(Theme::isDark() ? QColor(120, 170, 255) : QColor(30, 80, 200)) : text);
            p->drawText(line, (control ? Qt::AlignHCenter : Qt::AlignLeft) | Qt::AlignVCenter, m_lines[i].text);
        }
        p->setFont(font);
    }

private:
    int m_id;
    QRectF m_rect;
    QString m_header;
    std::vector<CfgView::Line> m_lines;
    std::vector<uint32_t> m_addresses;
    QColor m_fill;
    bool m_collapsed;
    bool m_highlighted = false;
    std::vector<char> m_highlightRows;
};

CfgView::CfgView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    setRenderHint(QPainter::Antialiasing, true);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setBackgroundBrush(Theme::editorPaper());
    createBar();
}

void CfgView::createBar() {
    m_fitAction = new QAction(tr("Fit"), this);
    m_fitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_fitAction->setToolTip(tr("Show the whole graph (Ctrl+0)"));
    m_zoomAction = new QAction(tr("Zoom to selection"), this);
    m_zoomAction->setToolTip(tr("Zoom to the blocks of the selected source line or instruction"));
    m_allAction = new QAction(tr("All instructions"), this);
    m_allAction->setCheckable(true);
    m_allAction->setToolTip(tr("Show every instruction of every block (off: first and last, with the count between)"));
    connect(m_fitAction, &QAction::triggered, this, &CfgView::fitToView);
    connect(m_zoomAction, &QAction::triggered, this, [this] { zoomToSelection(); });
    connect(m_allAction, &QAction::toggled, this, &CfgView::setAllExpanded);
    for (QAction* a : {m_fitAction, m_zoomAction, m_allAction}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(a);
    }
    // The bar sits in a top viewport margin, so it never covers the graph.
    m_bar = new QWidget(this);
    m_bar->setObjectName(QStringLiteral("cfgBar"));
    m_bar->setAutoFillBackground(true);
    auto* lay = new QHBoxLayout(m_bar);
    lay->setContentsMargins(2, 1, 2, 1);
    lay->setSpacing(2);
    for (QAction* a : {m_fitAction, m_zoomAction, m_allAction}) {
        auto* b = new QToolButton(m_bar);
        b->setDefaultAction(a);
        b->setAutoRaise(true);
        lay->addWidget(b);
    }
    lay->addStretch(1);
    setViewportMargins(0, m_bar->sizeHint().height(), 0, 0);
}

void CfgView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    const QRect inner = contentsRect();
    m_bar->setGeometry(inner.left(), inner.top(), inner.width(), m_bar->sizeHint().height());
    fitIfPending();
}

void CfgView::showEvent(QShowEvent* event) {
    QGraphicsView::showEvent(event);
    fitIfPending();
}

double CfgView::zoom() const { return transform().m11(); }

void CfgView::fitIfPending() {
    // A pane behind a tab has no real size yet: fit when it is first seen.
    if (!m_fitPending || m_pending || !isVisible() || viewport()->width() < 60 || viewport()->height() < 60) return;
    m_fitPending = false;
    fitToView();
}

void CfgView::fitToView() {
    const QRectF r = scene()->itemsBoundingRect().adjusted(-10, -10, 10, 10);
    if (r.isEmpty()) return;
    const QSizeF vp = viewport()->size();
    const double sw = vp.width() / r.width(), sh = vp.height() / r.height();
    resetTransform();
    const double all = std::min({sw, sh, 1.0});
    if (all >= kMinFitScale) {
        scale(all, all);
        centerOn(r.center());
        return;
    }
    // Too big to read whole: its top (the entry), as wide as fits at a readable scale.
    const double s = std::clamp(std::min(sw, 1.0), kMinFitScale, 1.0);
    scale(s, s);
    centerOn(QPointF(r.center().x(), r.top() + vp.height() / (2 * s)));
}

bool CfgView::zoomToSelection() {
    QRectF united;
    for (const CfgBlockItem* b : m_blocks)
        if (!b->addresses().empty() &&
            std::any_of(m_highlight.begin(), m_highlight.end(), [b](uint32_t a) {
                return std::binary_search(b->addresses().begin(), b->addresses().end(), a);
            }))
            united = united.united(b->sceneBoundingRect());
    if (united.isEmpty()) return false;
    const QRectF r = united.adjusted(-30, -30, 30, 30);
    const QSizeF vp = viewport()->size();
    // Close enough to read, but not so close that one small block fills the pane.
    const double s = std::clamp(std::min(vp.width() / r.width(), vp.height() / r.height()), kMinFitScale, 1.5);
    resetTransform();
    scale(s, s);
    centerOn(r.center());
    return true;
}

CfgView::CfgView(Workspace* workspace, QWidget* parent) : CfgView(parent) {
    m_workspace = workspace;
    if (!workspace) return;
    connect(workspace, &Workspace::snapshotChanged, this, &CfgView::reloadFromWorkspace);
    connect(workspace, &Workspace::kernelChanged, this, &CfgView::reloadFromWorkspace);
    connect(workspace, &Workspace::attributionChanged, this, &CfgView::reloadFromWorkspace);
    connect(workspace, &Workspace::selectionChanged, this, [this] {
        if (m_workspace && !m_workspace->selection().hover)
            setHighlightedAddresses(m_workspace->selection().sassAddresses);
    });
    connect(this, &CfgView::blockActivated, workspace, &Workspace::selectSassAddress);
    connect(this, &CfgView::instructionActivated, workspace, &Workspace::selectSassAddress);
    reloadFromWorkspace();
}

CfgView::~CfgView() = default;

void CfgView::reloadFromWorkspace() {
    const SnapshotPtr snap = m_workspace ? m_workspace->snapshot() : nullptr;
    const KernelModel* k = snap ? m_workspace->kernel() : nullptr;
    // A new build arrives as snapshotChanged and kernelChanged: lay it out once.
    if (m_workspace) {
        auto key = std::make_unique<ListingKey>(m_workspace->listingKey());
        if (m_shown && key->sameAs(*m_shown)) return;
        m_shown = std::move(key);
    }
    if (!k) {
        clear();
        return;
    }
    // Nodes take the colours of the source lines the other panes show.
    setKernel(snap, &k->sass, &k->cfg, m_workspace->sassSourceLines());
}

void CfgView::clear() {
    scene()->clear();
    m_blocks.clear();
    m_edgeItems = 0;
    m_exitRects.clear();
    m_edgeTips.clear();
    m_owner.reset();
    m_function = nullptr;
    m_cfg = nullptr;
    ++m_job; // drops any running layout's result
    m_pending = false;
}

quint64 CfgView::setKernel(std::shared_ptr<const void> owner, const SassFunction* function, const Cfg* cfg,
                           std::vector<int> sourceLines) {
    clear();
    if (!function || !cfg) return m_job;
    m_owner = std::move(owner);
    m_function = function;
    m_cfg = cfg;
    m_sourceLines = std::move(sourceLines);
    m_collapsed.clear();
    m_expanded.clear();
    m_fitPending = true; // a new graph opens fitted to the view
    // Big graphs start collapsed: headers only, so the overall shape is readable at once.
    if (cfg->blocks.size() > 60)
        for (const BasicBlock& b : cfg->blocks) m_collapsed.insert(b.id);
    return startLayout();
}

quint64 CfgView::startLayout() {
    const quint64 job = ++m_job;
    if (!m_cfg || !m_function) return job;
    const QFontMetricsF fm(cfgFont());
    LayoutInput in;
    in.nodes.reserve(m_cfg->blocks.size());
    for (const BasicBlock& b : m_cfg->blocks) {
        // Widths measured on the strings as drawn (bold header, elided lines), not a char count:
        // proportional fallbacks and bold advances differ from '0'.
        QFont bold = cfgFont();
        bold.setBold(true);
        double width = QFontMetricsF(bold).horizontalAdvance(QStringLiteral("B0000  0000\u20130000  0000 instr  L0000  loop 0"));
        const std::vector<Line> shown = linesOf(b);
        for (const Line& l : shown) width = std::max(width, fm.horizontalAdvance(l.text));
        const int lines = 1 + int(shown.size());
        in.nodes.push_back({b.id, width + 2 * kPad + 6, lines * fm.height() + 2 * kPad + (lines > 1 ? 2 : 0)});
    }
    in.edges = m_cfg->edges;
    m_pending = true;
    auto* watcher = new QFutureWatcher<LayoutOutput>(this);
    connect(watcher, &QFutureWatcher<LayoutOutput>::finished, this, [this, watcher, job] {
        watcher->deleteLater();
        if (job != m_job) return; // superseded: a newer layout (or kernel) is on its way
        m_pending = false;
        const LayoutOutput out = watcher->result();
        m_layoutMs = out.ms;
        m_layoutCpuMs = out.cpuMs;
        m_error = out.error;
        scene()->clear();
        m_blocks.clear();
        m_edgeItems = 0;
        m_exitRects.clear();
        m_edgeTips.assign(m_cfg->edges.size(), std::nullopt);
        if (!out.ok) {
            scene()->addText(tr("CFG layout failed: %1").arg(out.error));
            emit layoutFinished(job, false);
            return;
        }
        // Edges first, so nodes paint over their ends.
        static const QColor colors[] = {QColor(120, 120, 120), QColor(40, 100, 220), QColor(210, 50, 50), QColor(150, 150, 150)};
        for (size_t i = 0; i < out.paths.size() && i < m_cfg->edges.size(); ++i) {
            if (out.paths[i].isEmpty()) continue; // not laid out: nothing to draw, not counted
            const CfgEdgeKind kind = m_cfg->edges[i].kind;
            QPen pen(colors[int(kind)], kind == CfgEdgeKind::FallThrough || kind == CfgEdgeKind::Exit ? 1.2 : 1.6);
            if (kind == CfgEdgeKind::Back) pen.setStyle(Qt::DashLine);
            if (kind == CfgEdgeKind::Exit) pen.setStyle(Qt::DotLine);
            auto* item = scene()->addPath(out.paths[i], pen);
            item->setData(0, QStringLiteral("edge"));
            item->setToolTip(QStringLiteral("%1 edge").arg(kind == CfgEdgeKind::FallThrough ? tr("fall-through")
                                                           : kind == CfgEdgeKind::Taken     ? tr("taken")
                                                           : kind == CfgEdgeKind::Back      ? tr("back (loop)")
                                                                                            : tr("exit")));
            // Arrow head at the target.
            const auto [base, tip] = out.heads[i];
            QLineF dir(tip, base);
            if (dir.length() < 0.1) dir = QLineF(tip, tip - QPointF(0, 6));
            dir.setLength(7);
            QLineF left = dir, right = dir;
            left.setAngle(dir.angle() + 25);
            right.setAngle(dir.angle() - 25);
            QPolygonF head;
            head << tip << left.p2() << right.p2();
            auto* h = new QGraphicsPolygonItem(head, item);
            h->setBrush(pen.color());
            h->setPen(Qt::NoPen);
            m_edgeTips[i] = tip;
            ++m_edgeItems;
        }
        for (const BasicBlock& b : m_cfg->blocks) {
            const auto it = out.nodes.find(b.id);
            if (it == out.nodes.end()) continue;
            // Node colour: the band of the block's most frequent source line.
            std::map<int, int> count;
            std::vector<uint32_t> addresses;
            for (int i = b.firstIndex; i <= b.lastIndex && size_t(i) < m_function->instructions.size(); ++i) {
                const SassInstruction& ins = m_function->instructions[size_t(i)];
                const int line = size_t(i) < m_sourceLines.size() ? m_sourceLines[size_t(i)] : ins.source.callSite().line;
                if (line > 0) ++count[line];
                addresses.push_back(ins.address);
            }
            int best = 0, bestCount = 0;
            for (const auto& [line, c] : count)
                if (c > bestCount) best = line, bestCount = c;
            const QColor fill = best > 0 ? Theme::band(best) : Theme::editorPaper();
            QString header = QStringLiteral("B%1  %2\u2013%3  %4 instr").arg(b.id)
                                 .arg(b.startAddress, 4, 16, QLatin1Char('0')).arg(b.endAddress, 4, 16, QLatin1Char('0'))
                                 .arg(b.lastIndex - b.firstIndex + 1);
            if (best > 0) header += QStringLiteral("  L%1").arg(best);
            if (b.loopDepth > 0) header += QStringLiteral("  loop %1").arg(b.loopDepth);
            auto* item = new CfgBlockItem(b.id, it->second, header, linesOf(b), std::move(addresses), fill, m_collapsed.contains(b.id));
            item->setToolTip(tr("Click: select the block or instruction in the listing \u00b7 click \u201c\u22ef more\u201d: "
                                "show all its instructions \u00b7 double-click: collapse to the header or open again"));
            scene()->addItem(item);
            m_blocks.push_back(item);
        }
        // One exit stub per Exit edge, each where the layout put it, so every EXIT's edge ends
        // at a box of its own (keyed by the edge's index, not by the shared id -1).
        QFont exitFont = cfgFont();
        exitFont.setPointSizeF(exitFont.pointSizeF() * 0.85);
        for (const auto& [edge, rect] : out.exits) {
            auto* e = scene()->addEllipse(rect, QPen(QColor(150, 150, 150)), QBrush(Theme::marginPaper()));
            auto* t = new QGraphicsSimpleTextItem(tr("exit"), e);
            t->setFont(exitFont);
            t->setPos(rect.center() - t->boundingRect().center());
            t->setBrush(Theme::editorText());
            e->setData(0, QStringLiteral("exit"));
            e->setData(1, edge);
            if (size_t(edge) < m_cfg->edges.size())
                e->setToolTip(tr("exit of B%1").arg(m_cfg->edges[size_t(edge)].from));
            m_exitRects[edge] = rect;
        }
        scene()->setSceneRect(QRectF(-10, -10, out.width + 20, out.height + 20));
        setHighlightedAddresses(m_highlight);
        fitIfPending();
        emit layoutFinished(job, true);
    });
    watcher->setFuture(QtConcurrent::run([in = std::move(in)] { return runLayout(in); }));
    return job;
}

int CfgView::nodeCount() const { return int(m_blocks.size()); }
int CfgView::edgeCount() const { return m_edgeItems; }
int CfgView::exitCount() const { return int(m_exitRects.size()); }

QRectF CfgView::exitRect(int edgeIndex) const {
    const auto it = m_exitRects.find(edgeIndex);
    return it == m_exitRects.end() ? QRectF() : it->second;
}

std::optional<QPointF> CfgView::edgeTip(int edgeIndex) const {
    if (edgeIndex < 0 || size_t(edgeIndex) >= m_edgeTips.size()) return std::nullopt;
    return m_edgeTips[size_t(edgeIndex)];
}

QRectF CfgView::blockRect(int id) const {
    for (const CfgBlockItem* b : m_blocks)
        if (b->id() == id) return b->sceneBoundingRect().adjusted(2, 2, -2, -2);
    return {};
}

std::vector<CfgView::Line> CfgView::linesOf(const BasicBlock& b) const {
    std::vector<Line> out;
    if (!m_function || m_collapsed.contains(b.id)) return out;
    const int first = b.firstIndex;
    const int last = std::min(b.lastIndex, int(m_function->instructions.size()) - 1);
    if (last < first) return out;
    auto instruction = [this](int i) {
        const SassInstruction& ins = m_function->instructions[size_t(i)];
        QString text = QStringLiteral("%1  %2").arg(ins.address, 4, 16, QLatin1Char('0')).arg(QString::fromStdString(ins.text));
        if (text.size() > kMaxChars) text = text.left(kMaxChars - 1) + QChar(0x2026);
        return Line{text, Line::Instruction, ins.address, ins.address};
    };
    const int count = last - first + 1;
    const bool expanded = m_allExpanded || m_expanded.contains(b.id);
    if (count <= kCompactAbove || expanded) {
        for (int i = first; i <= last; ++i) out.push_back(instruction(i));
        if (count > kCompactAbove && !m_allExpanded) out.push_back(Line{tr("\u25b4 fewer"), Line::Fewer, 1, 0});
        return out;
    }
    out.push_back(instruction(first));
    out.push_back(Line{tr("\u22ef %n more", nullptr, count - 2), Line::More, m_function->instructions[size_t(first + 1)].address,
                       m_function->instructions[size_t(last - 1)].address});
    out.push_back(instruction(last));
    return out;
}

CfgView::BlockView CfgView::blockView(int id) const {
    if (m_collapsed.contains(id)) return BlockView::Collapsed;
    if (m_cfg)
        for (const BasicBlock& b : m_cfg->blocks)
            if (b.id == id && b.lastIndex - b.firstIndex + 1 <= kCompactAbove) return BlockView::Expanded;
    return m_allExpanded || m_expanded.contains(id) ? BlockView::Expanded : BlockView::Compact;
}

void CfgView::setBlockExpanded(int id, bool expanded) {
    if (expanded == m_expanded.contains(id) && !m_collapsed.contains(id)) return;
    m_collapsed.remove(id);
    if (expanded) m_expanded.insert(id);
    else m_expanded.remove(id);
    startLayout();
}

void CfgView::setAllExpanded(bool expanded) {
    if (m_allAction->isChecked() != expanded) {
        m_allAction->setChecked(expanded); // toggled() comes back here
        return;
    }
    m_allExpanded = expanded;
    m_expanded.clear();
    if (expanded) m_collapsed.clear();
    startLayout();
}

QStringList CfgView::blockLines(int id) const {
    QStringList out;
    for (const CfgBlockItem* b : m_blocks)
        if (b->id() == id)
            for (const Line& l : b->lines()) out << l.text;
    return out;
}

double CfgView::blockLineY(int id, int line) const {
    for (const CfgBlockItem* b : m_blocks)
        if (b->id() == id) return b->mapToScene(QPointF(0, b->lineCentreY(line - 1))).y();
    return std::numeric_limits<double>::quiet_NaN();
}

void CfgView::setAllCollapsed(bool collapsed) {
    m_collapsed.clear();
    if (collapsed && m_cfg)
        for (const BasicBlock& b : m_cfg->blocks) m_collapsed.insert(b.id);
    startLayout();
}

void CfgView::setBlockCollapsed(int id, bool collapsed) {
    if (collapsed == m_collapsed.contains(id)) return;
    if (collapsed) m_collapsed.insert(id);
    else m_collapsed.remove(id);
    startLayout();
}

void CfgView::setHighlightedAddresses(const std::vector<uint32_t>& addresses) {
    m_highlight = addresses;
    std::vector<uint32_t> sorted(addresses);
    std::sort(sorted.begin(), sorted.end());
    CfgBlockItem* first = nullptr;
    for (CfgBlockItem* b : m_blocks) {
        bool any = false;
        for (uint32_t a : b->addresses())
            if (std::binary_search(sorted.begin(), sorted.end(), a)) {
                any = true;
                break;
            }
        b->setHighlighted(sorted, any);
        if (any && (!first || b->startAddress() < first->startAddress())) first = b;
    }
    if (first) ensureVisible(first, 40, 40);
}

CfgBlockItem* CfgView::blockAt(const QPoint& pos) const {
    for (QGraphicsItem* item : items(pos))
        for (CfgBlockItem* b : m_blocks)
            if (b == item) return b;
    return nullptr;
}

void CfgView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        if (CfgBlockItem* b = blockAt(event->position().toPoint())) {
            const QPointF local = b->mapFromScene(mapToScene(event->position().toPoint()));
            const int line = b->lineAt(local.y());
            if (line < 0) {
                emit blockActivated(b->startAddress());
            } else {
                const Line& l = b->lines()[size_t(line)];
                if (l.kind == Line::Instruction) emit instructionActivated(l.lo);
                else setBlockExpanded(b->id(), l.kind == Line::More);
            }
            event->accept();
            return;
        }
    }
    QGraphicsView::mousePressEvent(event);
}

void CfgView::mouseDoubleClickEvent(QMouseEvent* event) {
    if (CfgBlockItem* b = blockAt(event->position().toPoint())) {
        // The press already expanded or compacted the block when it hit "⋯ more" / "▴ fewer".
        const int line = b->lineAt(b->mapFromScene(mapToScene(event->position().toPoint())).y());
        if (line < 0 || b->lines()[size_t(line)].kind == Line::Instruction) setBlockCollapsed(b->id(), !b->collapsed());
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void CfgView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ControlModifier) {
        const double factor = event->angleDelta().y() > 0 ? 1.15 : 1 / 1.15;
        scale(factor, factor);
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

} // namespace lowerscope
