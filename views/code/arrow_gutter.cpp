#include "views/code/arrow_gutter.h"

#include "core/analysis/cfg.h"
#include "core/analysis/defuse.h"
#include "core/analysis/deps.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTableView>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>

namespace lowerscope {

namespace {
constexpr int kMarkerWidth = 9;   // left column: register def/use markers
constexpr int kRightMargin = 3;   // between the innermost lane's stubs and the table
constexpr int kLaneSpacingAll = 5;
constexpr int kLaneSpacingSelected = 7;
constexpr int kOpacityBuckets = 4;

bool overlaps(const RegRange& a, const RegRange& b) {
    return a.cls == b.cls && a.first < b.first + b.count && b.first < a.first + a.count;
}

double pointSegmentDistance(QPointF p, QPointF a, QPointF b) {
    const QPointF d = b - a;
    const double len2 = d.x() * d.x() + d.y() * d.y();
    double t = len2 > 0 ? ((p.x() - a.x()) * d.x() + (p.y() - a.y()) * d.y()) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    const QPointF q = a + t * d - p;
    return std::sqrt(q.x() * q.x() + q.y() * q.y());
}
} // namespace

ArrowGutter::ArrowGutter(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent, true);
    m_toRow = [](int r) { return r; };
    m_toInstruction = [](int r) { return r; };
    updateWidth();
}

QColor ArrowGutter::kindColor(DepKind kind) {
    switch (kind) {
    case DepKind::Register: return QColor(40, 110, 230);
    case DepKind::Predicate: return QColor(235, 130, 0);
    case DepKind::Uniform: return QColor(20, 150, 70);
    case DepKind::Scoreboard: return QColor(170, 50, 200);
    }
    return QColor(128, 128, 128);
}

double ArrowGutter::distanceOpacity(int distance) {
    // log scale: 1 instruction apart ≈ 1.0, 256+ apart ≈ 0.3.
    const double t = std::min(1.0, std::log2(1.0 + std::abs(distance)) / 8.0);
    return 1.0 - 0.7 * t;
}

void ArrowGutter::setView(QAbstractItemView* view) {
    if (m_view) {
        disconnect(m_view->verticalScrollBar(), nullptr, this, nullptr);
        if (m_view->model()) disconnect(m_view->model(), nullptr, this, nullptr);
    }
    m_view = view;
    if (view) {
        connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
        connect(view->verticalScrollBar(), &QScrollBar::rangeChanged, this, qOverload<>(&QWidget::update));
    }
    update();
}

QAbstractItemView* ArrowGutter::view() const { return m_view.data(); }

void ArrowGutter::setRowMapper(std::function<int(int)> instructionToRow, std::function<int(int)> rowToInstruction) {
    m_toRow = instructionToRow ? std::move(instructionToRow) : [](int r) { return r; };
    m_toInstruction = rowToInstruction ? std::move(rowToInstruction) : [](int r) { return r; };
    update();
}

void ArrowGutter::setKernel(std::shared_ptr<const void> owner, const SassFunction* function, const std::vector<DepEdge>* deps) {
    m_owner = std::move(owner);
    m_function = function;
    m_deps = function ? deps : nullptr;
    m_selected = -1;
    m_defRows.clear();
    m_useRows.clear();
    m_hasRegister = false;
    relayout();
}

bool ArrowGutter::edgePassesFilter(const DepEdge& edge) const {
    if (!(m_kindMask & (1u << unsigned(edge.kind)))) return false;
    if (!m_onlyRegister || !m_hasRegister) return true;
    const QString resource = QString::fromStdString(edge.resource);
    return overlaps(registerAtTextPosition(resource, 0), m_register);
}

void ArrowGutter::relayout() {
    m_allDep.clear();
    m_adjStart.clear();
    m_adj.clear();
    if (m_function && m_deps) {
        std::vector<int> kept;
        std::vector<LaneEdge> all = laneEdgesFromDeps(*m_function, *m_deps, &kept);
        std::vector<LaneEdge> edges;
        edges.reserve(all.size());
        for (size_t i = 0; i < all.size(); ++i) {
            if (!edgePassesFilter((*m_deps)[size_t(kept[i])])) continue;
            edges.push_back(all[i]);
            m_allDep.push_back(kept[i]);
        }
        // Register pairs (R2, R3 of one .64 operand) share their span, and a producer's consumers
        // of one resource class share a trunk: one lane each, so a high fan-out instruction never
        // draws a comb of arrows across the gutter.
        m_all = layoutLanes(edges, LaneOptions{.shareIdenticalSpans = true, .bundleFanOut = true});
        const size_t n = m_function->instructions.size();
        m_adjStart.assign(n + 1, 0);
        const auto& laid = m_all.edges();
        for (const LaneEdge& e : laid) {
            ++m_adjStart[size_t(e.fromRow) + 1];
            if (e.toRow != e.fromRow) ++m_adjStart[size_t(e.toRow) + 1];
        }
        for (size_t i = 0; i < n; ++i) m_adjStart[i + 1] += m_adjStart[i];
        m_adj.assign(size_t(m_adjStart[n]), 0);
        std::vector<int> fill(m_adjStart.begin(), m_adjStart.end() - 1);
        for (size_t i = 0; i < laid.size(); ++i) {
            m_adj[size_t(fill[size_t(laid[i].fromRow)]++)] = int(i);
            if (laid[i].toRow != laid[i].fromRow) m_adj[size_t(fill[size_t(laid[i].toRow)]++)] = int(i);
        }
    } else {
        m_all = LaneLayout();
    }
    rebuildSelection();
    updateWidth();
    update();
}

void ArrowGutter::setKindVisible(DepKind kind, bool visible) {
    const unsigned bit = 1u << unsigned(kind);
    const unsigned mask = visible ? (m_kindMask | bit) : (m_kindMask & ~bit);
    if (mask == m_kindMask) return;
    m_kindMask = mask;
    relayout();
}

void ArrowGutter::setOnlyHighlightedRegister(bool on) {
    if (on == m_onlyRegister) return;
    m_onlyRegister = on;
    relayout();
}

void ArrowGutter::setSelectedRow(int row) {
    if (!m_function || row < 0 || size_t(row) >= m_function->instructions.size()) row = -1;
    if (row == m_selected) return;
    m_selected = row;
    rebuildSelection();
    if (!m_showAll) updateWidth();
    update();
}

void ArrowGutter::rebuildSelection() {
    m_selDep.clear();
    std::vector<LaneEdge> edges;
    if (m_selected >= 0 && size_t(m_selected) + 1 < m_adjStart.size()) {
        for (int k = m_adjStart[size_t(m_selected)]; k < m_adjStart[size_t(m_selected) + 1]; ++k) {
            const int i = m_adj[size_t(k)];
            edges.push_back(m_all.edges()[size_t(i)]);
            m_selDep.push_back(m_allDep[size_t(i)]);
        }
    }
    m_sel = layoutLanes(std::move(edges), LaneOptions{.shareIdenticalSpans = true, .bundleFanOut = true});
}

void ArrowGutter::setShowAllEdges(bool on) {
    if (on == m_showAll) return;
    m_showAll = on;
    updateWidth();
    update();
}

void ArrowGutter::setMaxLanes(int lanes) {
    m_maxLanes = std::max(1, lanes);
    updateWidth();
    update();
}

int ArrowGutter::laneCount() const { return m_showAll ? m_all.laneCount() : m_sel.laneCount(); }

void ArrowGutter::updateWidth() {
    // Width follows the mode: all-edges uses the whole layout's lanes (stable while scrolling),
    // the selected mode only what the selection needs (at least a few lanes, so it does not jump).
    const int lanes = std::clamp(m_showAll ? m_all.laneCount() : std::max(4, m_sel.laneCount()), 1, m_maxLanes);
    const int spacing = m_showAll ? kLaneSpacingAll : kLaneSpacingSelected;
    setFixedWidth(kMarkerWidth + lanes * spacing + kRightMargin + 6);
}

QSize ArrowGutter::sizeHint() const { return {width(), 100}; }

int ArrowGutter::laneX(int lane) const {
    const int spacing = m_showAll ? kLaneSpacingAll : kLaneSpacingSelected;
    const int innermost = width() - kRightMargin - 6;
    const int lanes = laneCount();
    if (lanes <= m_maxLanes) return innermost - std::min(lane, m_maxLanes - 1) * spacing;
    // More lanes than the gutter's width holds: squeeze them all into that width, so each still has
    // its own position as long as the pitch stays at least one pixel (≈ 5 × maxLanes lanes).
    const int span = (m_maxLanes - 1) * spacing;
    const double pitch = std::max(1.0, double(span) / double(lanes - 1));
    return innermost - std::min(span, int(std::lround(std::clamp(lane, 0, lanes - 1) * pitch)));
}

int ArrowGutter::viewportOffset() const {
    if (!m_view) return 0;
    return m_view->viewport()->mapToGlobal(QPoint(0, 0)).y() - mapToGlobal(QPoint(0, 0)).y();
}

int ArrowGutter::rowCentreY(int instructionRow) const {
    if (!m_view || !m_view->model()) return INT_MIN;
    const int row = m_toRow(instructionRow);
    if (row < 0) return INT_MIN;
    if (auto* table = qobject_cast<QTableView*>(m_view.data())) {
        // Uniform fixed row heights (the SASS pane's setting) make this O(1) per row.
        return table->rowViewportPosition(row) + table->rowHeight(row) / 2;
    }
    const QRect r = m_view->visualRect(m_view->model()->index(row, 0));
    return r.isValid() ? r.center().y() : INT_MIN;
}

std::pair<int, int> ArrowGutter::visibleRows() const {
    if (!m_view || !m_view->model() || m_view->model()->rowCount() == 0) return {0, -1};
    const int rows = m_view->model()->rowCount();
    int first = m_view->indexAt(QPoint(1, 0)).row();
    int last = m_view->indexAt(QPoint(1, m_view->viewport()->height() - 1)).row();
    if (auto* table = qobject_cast<QTableView*>(m_view.data())) {
        first = table->rowAt(0);
        last = table->rowAt(m_view->viewport()->height() - 1);
    }
    if (first < 0) first = 0;
    if (last < 0) last = rows - 1;
    return {m_toInstruction(first), m_toInstruction(last)};
}

std::vector<int> ArrowGutter::selectedEdges() const {
    std::vector<int> out(m_selDep);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void ArrowGutter::arrowsInRows(int firstRow, int lastRow, std::vector<Arrow>& out) const {
    const LaneLayout& layout = m_showAll ? m_all : m_sel;
    const std::vector<int>& dep = m_showAll ? m_allDep : m_selDep;
    m_queryBuffer.clear();
    layout.edgesInRows(firstRow, lastRow, m_queryBuffer);
    for (int i : m_queryBuffer) {
        const LaneEdge& e = layout.edges()[size_t(i)];
        out.push_back(Arrow{dep[size_t(i)], e.fromRow, e.toRow, layout.laneOf(i), e.kind});
    }
}

void ArrowGutter::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (!m_function || !m_view) return;
    const auto [first, last] = visibleRows();
    if (last < first) return;
    const int offset = viewportOffset();
    const int top = -8, bottom = height() + 8;
    auto clampY = [&](int y) { return std::clamp(y, top, bottom); };

    // The selected instruction's row: a small marker at the table edge.
    if (m_selected >= first && m_selected <= last) {
        const int y = rowCentreY(m_selected);
        if (y != INT_MIN) {
            p.setPen(Qt::NoPen);
            p.setBrush(pal.color(QPalette::Highlight));
            p.drawRect(width() - 3, y + offset - 4, 3, 9);
        }
    }

    // Batch by (kind, opacity bucket, loop-carried): one drawLines / fillPath per batch instead of
    // a pen change per arrow.
    struct Batch {
        QVector<QLineF> lines;
        QPainterPath heads;
    };
    std::array<Batch, 4 * kOpacityBuckets * 2> batches;
    m_arrowBuffer.clear();
    arrowsInRows(first, last, m_arrowBuffer);
    const int edgeX = width() - kRightMargin;
    const qreal head = m_showAll ? 3.0 : 4.0;
    for (const Arrow& a : m_arrowBuffer) {
        int y1 = rowCentreY(a.fromRow);
        int y2 = rowCentreY(a.toRow);
        if (y1 == INT_MIN || y2 == INT_MIN) continue; // an end is filtered out of the view
        y1 = clampY(y1 + offset);
        y2 = clampY(y2 + offset);
        const int x = laneX(a.lane);
        const int distance = a.toRow - a.fromRow;
        const int bucket = std::min(kOpacityBuckets - 1, int((1.0 - distanceOpacity(distance)) / 0.7 * kOpacityBuckets));
        Batch& b = batches[size_t((int(a.kind) * kOpacityBuckets + bucket) * 2 + (distance <= 0 ? 1 : 0))];
        // Producer end: a stub out of the row; consumer end: a stub with an arrowhead into the row.
        const int y2b = a.fromRow == a.toRow ? y2 + 4 : y2; // a self-edge (loop-carried) as a small loop
        const int y1b = a.fromRow == a.toRow ? y1 - 4 : y1;
        b.lines << QLineF(edgeX - 1, y1b, x, y1b) << QLineF(x, y1b, x, y2b) << QLineF(x, y2b, edgeX - head, y2b);
        QPolygonF tri;
        tri << QPointF(edgeX, y2b) << QPointF(edgeX - head - 1, y2b - head) << QPointF(edgeX - head - 1, y2b + head);
        b.heads.addPolygon(tri);
    }
    p.setRenderHint(QPainter::Antialiasing, !m_showAll); // all-edges: crisp and cheap
    for (size_t i = 0; i < batches.size(); ++i) {
        Batch& b = batches[i];
        if (b.lines.isEmpty()) continue;
        const DepKind kind = DepKind(i / (kOpacityBuckets * 2));
        const int bucket = int(i / 2) % kOpacityBuckets;
        QColor c = kindColor(kind);
        c.setAlphaF(float(1.0 - 0.7 * (bucket + 0.5) / kOpacityBuckets));
        QPen pen(c, m_showAll ? 1.0 : 1.6);
        if (i % 2) pen.setStyle(Qt::DashLine);
        p.setPen(pen);
        p.drawLines(b.lines);
        p.fillPath(b.heads, c);
    }

    // Register highlight: D (filled) / U (hollow) markers in the left column.
    if (m_hasRegister) {
        p.setRenderHint(QPainter::Antialiasing, false);
        const QColor c = kindColor(m_register.cls == RegClass::R ? DepKind::Register
                                   : m_register.cls == RegClass::P ? DepKind::Predicate : DepKind::Uniform);
        auto drawMarks = [&](const std::vector<int>& rows, bool filled) {
            auto it = std::lower_bound(rows.begin(), rows.end(), first);
            for (; it != rows.end() && *it <= last; ++it) {
                const int y = rowCentreY(*it);
                if (y == INT_MIN) continue;
                const QRect r(1, y + offset - 3, 6, 6);
                if (filled) p.fillRect(r, c);
                else {
                    p.setPen(c);
                    p.setBrush(Qt::NoBrush);
                    p.drawRect(r.adjusted(0, 0, -1, -1));
                }
            }
        };
        drawMarks(m_useRows, false);
        drawMarks(m_defRows, true);
    }
}

QString ArrowGutter::toolTipAt(const QPoint& pos) const {
    if (!m_function || !m_view || !m_deps) return {};
    const auto [first, last] = visibleRows();
    if (last < first) return {};
    std::vector<Arrow> arrows;
    arrowsInRows(first, last, arrows);
    const int offset = viewportOffset();
    const int edgeX = width() - kRightMargin;
    QStringList lines;
    for (const Arrow& a : arrows) {
        const int y1 = rowCentreY(a.fromRow), y2 = rowCentreY(a.toRow);
        if (y1 == INT_MIN || y2 == INT_MIN) continue;
        const QPointF p1(edgeX, y1 + offset), p2(edgeX, y2 + offset);
        const int x = laneX(a.lane);
        const QPointF c1(x, y1 + offset), c2(x, y2 + offset);
        const double d = std::min({pointSegmentDistance(pos, p1, c1), pointSegmentDistance(pos, c1, c2),
                                   pointSegmentDistance(pos, c2, p2)});
        if (d > 3.0) continue;
        const DepEdge& e = (*m_deps)[size_t(a.edge)];
        const auto& from = m_function->instructions[size_t(a.fromRow)];
        const auto& to = m_function->instructions[size_t(a.toRow)];
        lines << tr("<b>%1</b> (%2): <tt>%3 %4</tt> \u2192 <tt>%5 %6</tt>, distance %7%8")
                     .arg(QString::fromStdString(e.resource).toHtmlEscaped(), QLatin1String(depKindName(e.kind)))
                     .arg(from.address, 4, 16, QLatin1Char('0'))
                     .arg(QString::fromStdString(from.opcode).toHtmlEscaped())
                     .arg(to.address, 4, 16, QLatin1Char('0'))
                     .arg(QString::fromStdString(to.opcode).toHtmlEscaped())
                     .arg(e.distance)
                     .arg(e.distance <= 0 ? tr(" (loop-carried)") : QString());
        if (!e.callee.empty())
            lines.back() += (flowOf(from) == FlowKind::Call ? tr(", produced by the call to <i>%1</i>") : tr(", an argument of the call to <i>%1</i>"))
                                .arg(QString::fromStdString(e.callee).toHtmlEscaped());
        if (lines.size() >= 12) {
            lines << tr("…");
            break;
        }
    }
    return lines.join(QStringLiteral("<br>"));
}

bool ArrowGutter::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void ArrowGutter::mousePressEvent(QMouseEvent* event) {
    if (!m_function || !m_view) return;
    const auto [first, last] = visibleRows();
    std::vector<Arrow> arrows;
    arrowsInRows(first, last, arrows);
    const int offset = viewportOffset();
    const QPointF pos = event->position();
    const int edgeX = width() - kRightMargin;
    for (const Arrow& a : arrows) {
        const int y1 = rowCentreY(a.fromRow), y2 = rowCentreY(a.toRow);
        if (y1 == INT_MIN || y2 == INT_MIN) continue;
        const int x = laneX(a.lane);
        const double d = std::min({pointSegmentDistance(pos, QPointF(edgeX, y1 + offset), QPointF(x, y1 + offset)),
                                   pointSegmentDistance(pos, QPointF(x, y1 + offset), QPointF(x, y2 + offset)),
                                   pointSegmentDistance(pos, QPointF(x, y2 + offset), QPointF(edgeX, y2 + offset))});
        if (d > 3.0) continue;
        // Jump to the end farther from the click: the arrow is followed, not re-selected.
        const bool nearFrom = std::abs(pos.y() - (y1 + offset)) < std::abs(pos.y() - (y2 + offset));
        emit rowActivated(nearFrom ? a.toRow : a.fromRow);
        return;
    }
}

void ArrowGutter::highlightRegister(RegRange reg) {
    m_defRows.clear();
    m_useRows.clear();
    m_hasRegister = reg.count > 0 && m_function;
    m_register = reg;
    if (m_hasRegister) {
        const auto& ins = m_function->instructions;
        for (size_t i = 0; i < ins.size(); ++i) {
            if (std::any_of(ins[i].defs.begin(), ins[i].defs.end(), [&](const RegRange& r) { return overlaps(r, reg); }))
                m_defRows.push_back(int(i));
            if (std::any_of(ins[i].uses.begin(), ins[i].uses.end(), [&](const RegRange& r) { return overlaps(r, reg); }))
                m_useRows.push_back(int(i));
        }
    }
    if (m_onlyRegister) relayout();
    else update();
    emit registerHighlighted(QVector<int>(m_defRows.begin(), m_defRows.end()), QVector<int>(m_useRows.begin(), m_useRows.end()));
}

void ArrowGutter::clearRegisterHighlight() { highlightRegister(RegRange{RegClass::R, 0, 0}); }

RegRange registerAtTextPosition(const QString& text, int position) {
    static const QRegularExpression re(QStringLiteral("\\b(UR|UP|R|P)(\\d+)\\b"));
    auto it = re.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        if (position >= m.capturedStart(0) && position < m.capturedEnd(0)) {
            const QString cls = m.captured(1);
            RegRange r;
            r.cls = cls == QLatin1String("UR") ? RegClass::UR
                    : cls == QLatin1String("UP") ? RegClass::UP
                    : cls == QLatin1String("P")  ? RegClass::P : RegClass::R;
            r.first = m.captured(2).toInt();
            r.count = 1;
            return r;
        }
    }
    return RegRange{RegClass::R, 0, 0};
}

} // namespace lowerscope
