// Qt Test (offscreen) of the SASS-in-depth views: dependency arrows, control codes, register
// pressure, opcode tooltips, find/filter, on a real model of kernels/reduction.cu (golden
// nvcc/nvdisasm outputs in tests/data). Over 600 lines: two test classes sharing the one loaded
// model (loading it once keeps the suite fast).

#include "core/parse/opcodes.h"
#include "sass_depth_fixture.h"
#include "views/code/arrow_gutter.h"
#include "views/code/cfg_view.h"
#include "views/code/control_delegate.h"
#include "views/code/opcode_tooltip.h"
#include "views/code/pressure_strip.h"
#include "views/code/sass_filter.h"
#include "views/code/sass_model.h"
#include "views/common/theme.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSet>
#include <QTableView>
#include <QtTest>

#include <cmath>
#include <memory>
#include <set>

using namespace lowerscope;

class TestSassDepth : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<LoweringModel> m_model;
    const KernelModel* kernel() const { return m_model && !m_model->kernels.empty() ? &m_model->kernels.front() : nullptr; }
    std::vector<int> sourceLines() const {
        std::vector<int> lines;
        for (const auto& ins : kernel()->sass.instructions) lines.push_back(ins.source.callSite().line);
        return lines;
    }
    // A table with the gutter on its left, shown offscreen at a fixed size.
    struct Harness {
        QWidget window;
        QTableView* view = nullptr;
        SassModel* model = nullptr;
        ArrowGutter* gutter = nullptr;
    };
    std::unique_ptr<Harness> makeHarness() {
        auto h = std::make_unique<Harness>();
        auto* lay = new QHBoxLayout(&h->window);
        lay->setContentsMargins(0, 0, 0, 0);
        lay->setSpacing(0);
        h->gutter = new ArrowGutter;
        h->view = new QTableView;
        h->view->verticalHeader()->hide();
        h->view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
        h->view->verticalHeader()->setDefaultSectionSize(18);
        h->model = new SassModel(h->view);
        h->model->setFunction(m_model, &kernel()->sass, sourceLines());
        h->view->setModel(h->model);
        lay->addWidget(h->gutter);
        lay->addWidget(h->view, 1);
        h->gutter->setView(h->view);
        h->gutter->setKernel(m_model, &kernel()->sass, &kernel()->deps);
        h->window.resize(900, 600);
        h->window.show();
        QCoreApplication::processEvents();
        return h;
    }

private slots:
    void initTestCase() {
        m_model = std::make_shared<LoweringModel>(testdata::goldenModel("sm_90", "reduction"));
        if (!kernel()) QSKIP("tests/data/sm_90/reduction.* missing");
        QVERIFY(kernel()->sass.instructions.size() > 50);
        QVERIFY(!kernel()->deps.empty());
    }

    // ---- opcode documentation
    void sassTooltipHasDescriptionAndModifiers() {
        for (const auto& ins : kernel()->sass.instructions) {
            const OpcodeInfo* info = lookupSassOpcode(ins.mnemonic);
            QVERIFY2(info, ins.mnemonic.c_str());
            const QString tip = sassOpcodeTooltip(QString::fromStdString(ins.opcode));
            QVERIFY2(tip.contains(QString::fromStdString(info->description).toHtmlEscaped()), qPrintable(tip));
            QVERIFY(tip.contains(QLatin1String(categoryLabel(info->category))));
            for (const auto& m : ins.modifiers) QVERIFY2(tip.contains(QStringLiteral(".%1").arg(QString::fromStdString(m))), qPrintable(tip));
        }
        const QString ldg = sassOpcodeTooltip(QStringLiteral("LDG.E.CONSTANT"));
        QVERIFY(!ldg.contains(QStringLiteral("not documented"))); // both modifiers are in the table
        QVERIFY(sassOpcodeTooltip(QStringLiteral("NOTANOPCODE.X")).contains(QStringLiteral("No description")));
    }
    void ptxOpcodeOfLine_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("opcode");
        QTest::newRow("guarded") << QStringLiteral("\t@%p1 bra.uni \t$L__BB0_2;") << QStringLiteral("bra.uni");
        QTest::newRow("negated guard") << QStringLiteral("\t@!%p2 st.global.f32 \t[%rd4], %f1;") << QStringLiteral("st.global.f32");
        QTest::newRow("plain") << QStringLiteral("\tld.param.u64 \t%rd1, [_Z3fooPf_param_0];") << QStringLiteral("ld.param.u64");
        QTest::newRow("ret") << QStringLiteral("\tret;") << QStringLiteral("ret");
        QTest::newRow("directive") << QStringLiteral("\t.reg .f32 \t%f<5>;") << QString();
        QTest::newRow("label") << QStringLiteral("$L__BB0_1:") << QString();
        QTest::newRow("comment") << QStringLiteral("\t// begin inline asm") << QString();
        QTest::newRow("loc") << QStringLiteral("\t.loc\t1 33 5") << QString();
        QTest::newRow("brace") << QStringLiteral("{") << QString();
    }
    void ptxOpcodeOfLine() {
        QFETCH(QString, line);
        QFETCH(QString, opcode);
        QCOMPARE(lowerscope::ptxOpcodeOfLine(line), opcode);
    }
    void ptxTooltipCoversKernelInstructions() {
        // Every instruction of the reduction PTX gets a description (the table covers the kernels).
        int checked = 0;
        for (const auto& l : m_model->ptx.lines) {
            if (!l.isInstruction) continue;
            const QString op = lowerscope::ptxOpcodeOfLine(QString::fromStdString(l.text));
            QVERIFY2(!op.isEmpty(), l.text.c_str());
            QVERIFY2(!ptxInstructionTooltip(op).isEmpty(), qPrintable(op));
            ++checked;
        }
        QVERIFY(checked > 20);
        QVERIFY(ptxInstructionTooltip(QStringLiteral("zzz.unknown")).isEmpty());
    }
    void controlTooltipText() {
        Control c;
        c.stall = 5;
        c.waitMask = 0b000101;
        c.writeBarrier = 3;
        const QString tip = controlTooltip(c);
        QVERIFY(tip.contains(QStringLiteral("SB0, SB2")));
        QVERIFY(tip.contains(QStringLiteral("sets SB3")));
        QVERIFY(tip.contains(QStringLiteral("5 cycles")));
    }
    void tooltipFilterOnTable() {
        auto h = makeHarness();
        auto* f = OpcodeTooltipFilter::installOnSassView(h->view, SassModel::OpcodeColumn, SassModel::ControlColumn);
        const auto& ins = kernel()->sass.instructions[3];
        const QPoint p = h->view->visualRect(h->model->index(3, SassModel::OpcodeColumn)).center();
        QCOMPARE(f->tooltipAt(p), sassOpcodeTooltip(QString::fromStdString(ins.opcode)));
        const QPoint pc = h->view->visualRect(h->model->index(3, SassModel::ControlColumn)).center();
        QCOMPARE(f->tooltipAt(pc), controlTooltip(ins.control));
        const QPoint pa = h->view->visualRect(h->model->index(3, SassModel::AddressColumn)).center();
        QVERIFY(f->tooltipAt(pa).isEmpty());
    }

    // ---- dependency arrows
    void selectedInstructionShowsExactlyItsEdges() {
        auto h = makeHarness();
        ArrowGutter* g = h->gutter;
        const auto& ins = kernel()->sass.instructions;
        const auto& deps = kernel()->deps;
        std::vector<ArrowGutter::Arrow> arrows;
        for (size_t i = 0; i < ins.size(); ++i) {
            g->setSelectedRow(int(i));
            std::vector<int> expected;
            for (size_t e = 0; e < deps.size(); ++e)
                if (deps[e].from == ins[i].address || deps[e].to == ins[i].address) expected.push_back(int(e));
            QCOMPARE(g->selectedEdges(), expected);
            // What a paint of the whole listing draws: each of those edges once, nothing else.
            arrows.clear();
            g->arrowsInRows(0, int(ins.size()) - 1, arrows);
            std::vector<int> drawn;
            for (const auto& a : arrows) {
                drawn.push_back(a.edge);
                QCOMPARE(ins[size_t(a.fromRow)].address, deps[size_t(a.edge)].from);
                QCOMPARE(ins[size_t(a.toRow)].address, deps[size_t(a.edge)].to);
            }
            std::sort(drawn.begin(), drawn.end());
            QCOMPARE(drawn, expected);
            // Arrows in one lane never share a row unless they have the same span or are one
            // producer's fan-out of one resource class (a bundle: one trunk).
            for (size_t a = 0; a < arrows.size(); ++a)
                for (size_t b = a + 1; b < arrows.size(); ++b) {
                    const auto& x = arrows[a];
                    const auto& y = arrows[b];
                    if (x.lane != y.lane) continue;
                    const bool same = std::minmax(x.fromRow, x.toRow) == std::minmax(y.fromRow, y.toRow);
                    const bool disjoint = std::max(x.fromRow, x.toRow) < std::min(y.fromRow, y.toRow) ||
                                          std::max(y.fromRow, y.toRow) < std::min(x.fromRow, x.toRow);
                    const bool bundle = sameFanOutBundle(LaneEdge{x.fromRow, x.toRow, x.kind}, LaneEdge{y.fromRow, y.toRow, y.kind});
                    QVERIFY(same || disjoint || bundle);
                }
        }
        g->setSelectedRow(-1);
        QVERIFY(g->selectedEdges().empty());
    }
    void allEdgesModeDrawsEdgesMeetingTheView() {
        auto h = makeHarness();
        ArrowGutter* g = h->gutter;
        g->setShowAllEdges(true);
        const auto& ins = kernel()->sass.instructions;
        const auto& deps = kernel()->deps;
        std::map<uint32_t, int> index;
        for (size_t i = 0; i < ins.size(); ++i) index[ins[i].address] = int(i);
        for (int scroll : {0, 40, 120}) {
            h->view->scrollTo(h->model->index(scroll, 0), QAbstractItemView::PositionAtTop);
            QCoreApplication::processEvents();
            const auto [first, last] = g->visibleRows();
            QVERIFY(first >= 0 && last >= first);
            std::vector<ArrowGutter::Arrow> arrows;
            g->arrowsInRows(first, last, arrows);
            std::vector<int> drawn, expected;
            for (const auto& a : arrows) drawn.push_back(a.edge);
            for (size_t e = 0; e < deps.size(); ++e) {
                const int a = index.at(deps[e].from), b = index.at(deps[e].to);
                if (std::max(a, b) >= first && std::min(a, b) <= last) expected.push_back(int(e));
            }
            std::sort(drawn.begin(), drawn.end());
            QCOMPARE(drawn, expected);
            QVERIFY(!h->window.grab().isNull());
        }
    }
    // Issue 17 item 4: one producer with 45 consumers (the "comb") takes one lane, in both modes,
    // so the gutter keeps its width; filters by resource class and by the clicked register.
    void fanOutIsBundledAndFiltersApply() {
        auto h = makeHarness();
        ArrowGutter* g = h->gutter;
        const auto& ins = kernel()->sass.instructions;
        QVERIFY(ins.size() > 50);
        std::vector<DepEdge> deps;
        for (int to = 1; to <= 45; ++to) deps.push_back({ins[0].address, ins[size_t(to)].address, "R4", DepKind::Register, to});
        deps.push_back({ins[2].address, ins[3].address, "R7", DepKind::Register, 1});
        deps.push_back({ins[5].address, ins[9].address, "P0", DepKind::Predicate, 4});
        g->setKernel(m_model, &kernel()->sass, &deps);
        h->view->scrollTo(h->model->index(0, 0), QAbstractItemView::PositionAtTop);
        QCoreApplication::processEvents();
        const int emptyWidth = g->width();
        g->setSelectedRow(0);
        QCOMPARE(g->laneCount(), 1);
        QCOMPARE(g->width(), emptyWidth); // the selected mode's minimum width: fan-out adds nothing
        QCOMPARE(int(g->selectedEdges().size()), 45);
        g->setShowAllEdges(true);
        QCOMPARE(g->laneCount(), 2); // the R4 trunk; R7 (rows 2-3) and P0 (rows 5-9) share the other lane
        auto drawnResources = [&] {
            const auto [first, last] = g->visibleRows();
            std::vector<ArrowGutter::Arrow> arrows;
            g->arrowsInRows(first, last, arrows);
            QSet<QString> out;
            for (const auto& a : arrows) out.insert(QString::fromStdString(deps[size_t(a.edge)].resource));
            return out;
        };
        QCOMPARE(drawnResources(), (QSet<QString>{"R4", "R7", "P0"}));
        g->setKindVisible(DepKind::Register, false);
        QVERIFY(!g->kindVisible(DepKind::Register));
        QCOMPARE(drawnResources(), (QSet<QString>{"P0"}));
        QCOMPARE(g->laneCount(), 1);
        g->setKindVisible(DepKind::Register, true);
        g->setOnlyHighlightedRegister(true);
        QCOMPARE(drawnResources(), (QSet<QString>{"R4", "R7", "P0"})); // nothing highlighted yet: all
        g->highlightRegister(RegRange{RegClass::R, 7, 1});
        QCOMPARE(drawnResources(), (QSet<QString>{"R7"}));
        g->highlightRegister(RegRange{RegClass::R, 4, 2}); // a 64-bit pair R4:R5 overlaps R4
        QCOMPARE(drawnResources(), (QSet<QString>{"R4"}));
        // The hover text names the register of an arrow under the pointer.
        const int x = g->laneX(0);
        const QString tip = g->toolTipAt(QPoint(x, h->view->rowViewportPosition(20) + h->view->rowHeight(20) / 2 +
                                                       h->view->viewport()->mapTo(&h->window, QPoint(0, 0)).y() -
                                                       g->mapTo(&h->window, QPoint(0, 0)).y()));
        QVERIFY2(tip.contains(QStringLiteral("R4")), qPrintable(tip));
        QVERIFY(!h->window.grab().isNull());
    }
    void lanesBeyondTheWidthKeepDistinctPositions() {
        auto h = makeHarness();
        ArrowGutter* g = h->gutter;
        g->setShowAllEdges(true);
        const int lanes = g->laneCount();
        QVERIFY2(lanes >= 6, qPrintable(QString::number(lanes)));
        g->setMaxLanes(lanes); // every lane at full spacing
        const int fullWidth = g->width();
        const int spacing = g->laneX(0) - g->laneX(1);
        QVERIFY(spacing > 1);
        // Fewer full-width lanes than the layout needs: the gutter narrows, and every lane still
        // gets its own position inside it, innermost (lane 0) on the right.
        g->setMaxLanes(lanes / 2);
        QCOMPARE(g->maxLanes(), lanes / 2);
        QVERIFY(g->width() < fullWidth);
        for (int lane = 0; lane < lanes; ++lane) {
            const int x = g->laneX(lane);
            QVERIFY2(x > 0 && x < g->width(), qPrintable(QStringLiteral("lane %1 at x %2").arg(lane).arg(x)));
            if (lane > 0) QVERIFY2(x < g->laneX(lane - 1), qPrintable(QStringLiteral("lane %1 at x %2").arg(lane).arg(x)));
        }
        // ... and the outermost lane is where the outermost full-spacing lane would be.
        QCOMPARE(g->laneX(0) - g->laneX(lanes - 1), (lanes / 2 - 1) * spacing);
        QVERIFY(!h->window.grab().isNull());
        g->setMaxLanes(lanes);
        QCOMPARE(g->width(), fullWidth);
    }
    void tooltipNamesTheResource() {
        auto h = makeHarness();
        ArrowGutter* g = h->gutter;
        // The first instruction with a short incoming register edge.
        const auto& ins = kernel()->sass.instructions;
        int row = -1;
        const DepEdge* edge = nullptr;
        for (size_t i = 0; i < ins.size() && row < 0; ++i)
            for (const auto& e : kernel()->deps)
                if (e.to == ins[i].address && e.kind == DepKind::Register && e.distance > 0 && e.distance < 10) {
                    row = int(i);
                    edge = &e;
                    break;
                }
        QVERIFY(row >= 0);
        h->view->scrollTo(h->model->index(row, 0), QAbstractItemView::PositionAtCenter);
        g->setSelectedRow(row);
        QCoreApplication::processEvents();
        const int yView = h->view->rowViewportPosition(row) + h->view->rowHeight(row) / 2;
        const int y = h->view->viewport()->mapTo(&h->window, QPoint(0, yView)).y() - g->mapTo(&h->window, QPoint(0, 0)).y();
        const QString tip = g->toolTipAt(QPoint(g->width() - 8, y));
        QVERIFY2(tip.contains(QString::fromStdString(edge->resource)), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("distance")), qPrintable(tip));
        QVERIFY(g->toolTipAt(QPoint(1, 1)).isEmpty() || g->toolTipAt(QPoint(1, 1)) != tip);
    }
    void registerAtTextPosition() {
        const QString t = QStringLiteral("desc[UR6][R2.64], RZ, P0, UP1");
        QCOMPARE(lowerscope::registerAtTextPosition(t, 6).cls, RegClass::UR);
        QCOMPARE(lowerscope::registerAtTextPosition(t, 6).first, 6);
        const RegRange r2 = lowerscope::registerAtTextPosition(t, 11);
        QCOMPARE(r2.cls, RegClass::R);
        QCOMPARE(r2.first, 2);
        QCOMPARE(r2.count, 1);
        QCOMPARE(lowerscope::registerAtTextPosition(t, 19).count, 0); // RZ
        QCOMPARE(lowerscope::registerAtTextPosition(t, 23).cls, RegClass::P);
        QCOMPARE(lowerscope::registerAtTextPosition(t, 28).cls, RegClass::UP);
        QCOMPARE(lowerscope::registerAtTextPosition(QStringLiteral("c[0x0][0x28]"), 8).count, 0);
    }
    void highlightRegisterFindsDefsAndUses() {
        auto h = makeHarness();
        ArrowGutter* g = h->gutter;
        QSignalSpy spy(g, &ArrowGutter::registerHighlighted);
        g->highlightRegister(RegRange{RegClass::R, 0, 1});
        QCOMPARE(spy.count(), 1);
        const auto& ins = kernel()->sass.instructions;
        const int s2r = kernel()->sass.indexOf(0x50); // S2R R0, SR_TID.X
        QVERIFY(s2r >= 0);
        QCOMPARE(QString::fromStdString(ins[size_t(s2r)].mnemonic), QStringLiteral("S2R"));
        QVERIFY(std::count(g->highlightedDefs().begin(), g->highlightedDefs().end(), s2r) == 1);
        QVERIFY(!g->highlightedUses().empty());
        // Every use names R0 in its text (a wide range overlapping R0 starts at R0).
        static const QRegularExpression r0(QStringLiteral("\\bR0\\b"));
        for (int u : g->highlightedUses()) QVERIFY2(QString::fromStdString(ins[size_t(u)].text).contains(r0), ins[size_t(u)].text.c_str());
        // ... and every instruction whose operands read R0 (not as the first, written operand of
        // a plain ALU op) is a use: spot-check SHFL/IMAD-like rows by text.
        for (size_t i = 0; i < ins.size(); ++i) {
            if (ins[i].operands.size() < 2) continue;
            // Register operands after the first register operand (the destination) are sources.
            bool readsR0 = false, pastDestination = false;
            for (const auto& op : ins[i].operands) {
                if (op.kind != OperandKind::Register) continue;
                if (pastDestination && QString::fromStdString(op.text).contains(r0)) readsR0 = true;
                pastDestination = true;
            }
            if (readsR0)
                QVERIFY2(std::count(g->highlightedUses().begin(), g->highlightedUses().end(), int(i)) == 1, ins[i].text.c_str());
        }
        QVERIFY(!h->window.grab().isNull());
        g->clearRegisterHighlight();
        QVERIFY(g->highlightedDefs().empty() && g->highlightedUses().empty());
    }

    // ---- control codes
    void controlGraphicPaintsScoreboards() {
        QImage img(200, 20, QImage::Format_ARGB32);
        img.fill(Qt::white);
        Control c;
        c.waitMask = 1u << 2;
        c.stall = 15;
        {
            QPainter p(&img);
            ControlDelegate::paintGraphic(&p, QRect(0, 0, 200, 20), c, QPalette());
        }
        const int box = 20 - 8;
        const QPoint inBox2(2 + 2 * (box + 2) + box / 2, 10);
        QCOMPARE(img.pixelColor(inBox2), QColor(15, 157, 88));
        const QPoint inBox0(2 + box / 2, 10);
        QCOMPARE(img.pixelColor(inBox0), QColor(Qt::white)); // not waited on
        // A full stall bar is red at its far end.
        const int barLeft = 2 + 6 * (box + 2) + 4;
        QCOMPARE(img.pixelColor(QPoint(barLeft + 29, 10)), QColor(215, 60, 40));
    }
    void controlDelegateInTable() {
        auto h = makeHarness();
        h->view->setItemDelegateForColumn(SassModel::ControlColumn, new ControlDelegate(h->view));
        h->view->horizontalHeader()->resizeSection(SassModel::ControlColumn, 300);
        QVERIFY(!h->window.grab().isNull());
    }

    // ---- register pressure
    void maxPoolAndArgMax() {
        const std::vector<int> v{1, 5, 2, -1, 7, 3, 0, 4};
        QCOMPARE(maxPool(v, 4), (std::vector<int>{5, 2, 7, 4}));
        QCOMPARE(maxPool(v, 1), (std::vector<int>{7}));
        QCOMPARE(maxPool(v, 16).size(), size_t(16));
        QCOMPARE(maxPool(std::vector<int>{-1, -1}, 1), (std::vector<int>{-1}));
        QVERIFY(maxPool(v, 0).empty());
        QCOMPARE(argMax(v), 4);
        QCOMPARE(argMax(std::vector<int>{3, 9, 9}), 1);
        QCOMPARE(argMax(std::vector<int>{-1}), -1);
    }
    void peaks() {
        // Hand-checked prominences (bases left | right; an end reached without a higher value = 0):
        // index 1 (3; 0 | 1) = 2, plateau 3-4 (5; 0 | 0) = 5, index 6 (4; 2 | 0) = 2.
        const std::vector<int> v{1, 3, 1, 5, 5, 2, 4, 0};
        QCOMPARE(findPeaks(v, 1), (std::vector<int>{1, 3, 6}));
        QCOMPARE(findPeaks(v, 3), (std::vector<int>{3}));
        QCOMPARE(findPeaks(v, 5), (std::vector<int>{3}));
        QCOMPARE(findPeaks(v, 6), (std::vector<int>{}));
        QCOMPARE(findPeaks(std::vector<int>{2, 6, 4, 5, 1}, 2), (std::vector<int>{1})); // 5 rises only 1 above 4
        QCOMPARE(findPeaks(std::vector<int>{4, 4, 4}, 0), (std::vector<int>{0})); // one plateau
        QCOMPARE(findPeaks(std::vector<int>{1, 2, 3}, 1), (std::vector<int>{2}));  // the end counts as lower
        QVERIFY(findPeaks({}, 1).empty());
        const std::vector<int> p{1, 3, 6};
        QCOMPARE(adjacentPeak(p, 0, +1), 1);
        QCOMPARE(adjacentPeak(p, 1, +1), 3);
        QCOMPARE(adjacentPeak(p, 6, +1), -1);
        QCOMPARE(adjacentPeak(p, 6, -1), 3);
        QCOMPARE(adjacentPeak(p, 1, -1), -1);
        // Brute force on a pseudo-random series: every reported peak is a strict plateau maximum.
        std::vector<int> r;
        uint32_t s = 12345;
        for (int i = 0; i < 2000; ++i) {
            s = s * 1103515245u + 12345u;
            r.push_back(int((s >> 16) % 64));
        }
        for (int i : findPeaks(r, 1)) {
            int q = i;
            while (q + 1 < int(r.size()) && r[size_t(q + 1)] == r[size_t(i)]) ++q;
            QVERIFY(i == 0 || r[size_t(i - 1)] < r[size_t(i)]);
            QVERIFY(q == int(r.size()) - 1 || r[size_t(q + 1)] < r[size_t(i)]);
        }
        // Prominence by its definition, scanning outwards from every plateau maximum: on each side
        // the lowest value before the first higher one (0 when the listing ends first); the
        // prominence is the height over the higher of the two bases.
        const int n = int(r.size());
        for (int minProminence : {1, 5, 20, 40, 63, 64}) {
            std::vector<int> expected;
            for (int p = 0; p < n;) {
                int q = p;
                while (q + 1 < n && r[size_t(q + 1)] == r[size_t(p)]) ++q;
                const int h = r[size_t(p)];
                if ((p == 0 || r[size_t(p - 1)] < h) && (q == n - 1 || r[size_t(q + 1)] < h)) {
                    int left = h, right = h, i = p;
                    while (i >= 0 && r[size_t(i)] <= h) left = std::min(left, r[size_t(i--)]);
                    if (i < 0) left = 0;
                    i = q;
                    while (i < n && r[size_t(i)] <= h) right = std::min(right, r[size_t(i++)]);
                    if (i >= n) right = 0;
                    if (h - std::max(left, right) >= minProminence) expected.push_back(p);
                }
                p = q + 1;
            }
            QCOMPARE(findPeaks(r, minProminence), expected);
        }
    }
    void pressureStripJumps() {
        std::vector<int> live;
        for (const auto& ins : kernel()->sass.instructions) live.push_back(ins.live.gpr);
        QVERIFY(argMax(live) >= 0); // the model computes live counts
        PressureStrip strip;
        strip.resize(14, 300);
        strip.setValues(live);
        QSignalSpy spy(&strip, &PressureStrip::rowRequested);
        strip.jumpToMax();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), argMax(live));
        strip.setCurrentRow(-1);
        if (!strip.peaks().empty()) {
            strip.jumpToNextPeak();
            QCOMPARE(spy.takeFirst().at(0).toInt(), strip.peaks().front());
        }
        // A click anywhere lands on the hottest instruction of that pixel's slice.
        const int row = strip.rowAtY(150);
        QVERIFY(row >= 0 && row < int(live.size()));
        QVERIFY(!strip.grab().isNull());
    }
    void lineMarginTexts() {
        const auto texts = lowerscope::lineMarginTexts(kernel()->lines, [](const std::string& f) {
            return f.find("reduction.cu") != std::string::npos;
        });
        QVERIFY(!texts.empty());
        int maxLive = 0, stalls = 0;
        for (const auto& a : kernel()->lines) {
            maxLive = std::max(maxLive, a.maxLiveGpr);
            stalls += a.stallCycles;
        }
        bool foundMax = false;
        int sum = 0;
        static const QRegularExpression re(QStringLiteral("^R\\s*(\\d+) S\\s*(\\d+)$"));
        for (const auto& [line, text] : texts) {
            const auto m = re.match(text);
            QVERIFY2(m.hasMatch(), qPrintable(text));
            if (m.captured(1).toInt() == maxLive) foundMax = true;
            sum += m.captured(2).toInt();
        }
        QVERIFY(foundMax);
        QCOMPARE(sum, stalls);
    }


    // ---- CFG pane
private:
    // Every Exit edge ends at a drawn exit stub of its own: the layout gives each one a stub (all
    // with id -1), and the view once kept only one of them, leaving the other exits' edges
    // pointing at nothing. Every other edge ends at its target block.
    static void exitEdgesAttached(const CfgView& v, const Cfg& cfg) {
        int exits = 0;
        std::set<std::pair<int, int>> stubs; // rounded centres: no two exits share one stub
        for (size_t i = 0; i < cfg.edges.size(); ++i) {
            const CfgEdge& e = cfg.edges[i];
            const auto tip = v.edgeTip(int(i));
            QVERIFY2(tip, qPrintable(QStringLiteral("edge %1 not drawn").arg(i)));
            if (e.kind != CfgEdgeKind::Exit) {
                QVERIFY(v.exitRect(int(i)).isNull());
                QVERIFY2(v.blockRect(e.to).adjusted(-3, -3, 3, 3).contains(*tip),
                         qPrintable(QStringLiteral("edge %1 B%2->B%3 ends off its target").arg(i).arg(e.from).arg(e.to)));
                continue;
            }
            ++exits;
            const QRectF stub = v.exitRect(int(i));
            QVERIFY2(!stub.isNull(), qPrintable(QStringLiteral("exit edge %1 (from B%2) has no stub").arg(i).arg(e.from)));
            QVERIFY2(stub.adjusted(-3, -3, 3, 3).contains(*tip),
                     qPrintable(QStringLiteral("exit edge %1 (from B%2) ends off its stub").arg(i).arg(e.from)));
            QVERIFY(stubs.insert({qRound(stub.center().x()), qRound(stub.center().y())}).second);
        }
        QVERIFY(exits > 1); // reduction.cu has several EXITs: the case the view got wrong
        QCOMPARE(v.exitCount(), exits);
    }

private slots:
    void cfgViewShowsEveryBlockAndEdge() {
        const Cfg& cfg = kernel()->cfg;
        QVERIFY(cfg.blocks.size() > 3);
        CfgView v;
        v.resize(900, 700);
        v.show();
        QSignalSpy spy(&v, &CfgView::layoutFinished);
        const quint64 job = v.setKernel(m_model, &kernel()->sass, &cfg);
        QVERIFY(v.isLayoutPending());
        QVERIFY(spy.wait(30000));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toULongLong(), job);
        QVERIFY2(spy.at(0).at(1).toBool(), qPrintable(v.lastError()));
        QCOMPARE(v.nodeCount(), int(cfg.blocks.size()));
        QCOMPARE(v.edgeCount(), int(cfg.edges.size()));
        for (const auto& b : cfg.blocks) QVERIFY(!v.blockRect(b.id).isNull());
        exitEdgesAttached(v, cfg);
        if (QTest::currentTestFailed()) return;
        QVERIFY(!v.grab().isNull());

        // Two layouts in a row: only the newest one's result is applied (and reported).
        spy.clear();
        v.setAllCollapsed(true);
        const quint64 second = [&] { v.setAllCollapsed(false); return v.currentJob(); }();
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, 30000);
        QTest::qWait(300);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toULongLong(), second);
        const QRectF expanded = v.blockRect(cfg.blocks.front().id);

        // Collapsing a block shrinks it to its header.
        spy.clear();
        v.setBlockCollapsed(cfg.blocks.front().id, true);
        QVERIFY(spy.wait(30000));
        QVERIFY(v.blockRect(cfg.blocks.front().id).height() < expanded.height());
        QCOMPARE(v.nodeCount(), int(cfg.blocks.size()));
        QCOMPARE(v.edgeCount(), int(cfg.edges.size()));
        exitEdgesAttached(v, cfg);
        if (QTest::currentTestFailed()) return;

        // A click on a block header asks to jump to the block's first instruction.
        const BasicBlock& b = cfg.blocks[1];
        const QRectF r = v.blockRect(b.id);
        v.centerOn(r.center());
        QSignalSpy jump(&v, &CfgView::blockActivated);
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, v.mapFromScene(r.topLeft() + QPointF(12, 8)));
        QCOMPARE(jump.count(), 1);
        QCOMPARE(jump.at(0).at(0).toUInt(), b.startAddress);
    }

    // ---- find and filter
    void filterProxy() {
        SassModel model;
        model.setFunction(m_model, &kernel()->sass, sourceLines());
        SassFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        const auto& ins = kernel()->sass.instructions;
        QCOMPARE(proxy.rowCount(), int(ins.size()));
        QVERIFY(proxy.setPattern(QStringLiteral("shfl\\.down")));
        int expected = 0;
        for (const auto& i : ins) expected += i.mnemonic == "SHFL" && i.opcode.find("DOWN") != std::string::npos;
        QVERIFY(expected > 0);
        QCOMPARE(proxy.rowCount(), expected);
        QVERIFY(proxy.setPattern(QStringLiteral("\\bR0\\b")));
        QVERIFY(proxy.rowCount() > 0);
        for (int r = 0; r < proxy.rowCount(); ++r)
            QVERIFY(proxy.index(r, SassModel::OperandsColumn).data().toString().contains(QStringLiteral("R0")) ||
                    proxy.index(r, SassModel::PredicateColumn).data().toString().contains(QStringLiteral("R0")));
        QVERIFY(!proxy.setPattern(QStringLiteral("(")));
        QCOMPARE(proxy.pattern(), QStringLiteral("\\bR0\\b"));
        QVERIFY(!proxy.errorString().isEmpty());
        QVERIFY(proxy.setPattern(QString()));
        proxy.setCategoryMask(1u << int(InstrCategory::Memory));
        int memory = 0;
        for (const auto& i : ins) memory += lookupSassOpcode(i.mnemonic)->category == InstrCategory::Memory;
        QVERIFY(memory > 0);
        QCOMPARE(proxy.rowCount(), memory);
        QVERIFY(proxy.index(0, SassModel::OpcodeColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Memory")));
        proxy.setCategoryMask(0);
        QCOMPARE(proxy.rowCount(), int(ins.size()));
        model.clear();
        QCOMPARE(proxy.rowCount(), 0);
    }
    void filterPaneAndMix() {
        SassModel model;
        model.setFunction(m_model, &kernel()->sass, sourceLines());
        SassFilterPane pane;
        pane.setSourceModel(&model);
        pane.patternEdit()->setText(QStringLiteral("^BAR"));
        QCOMPARE(pane.proxy()->rowCount(), 1);
        QSignalSpy spy(&pane, &SassFilterPane::addressActivated);
        emit pane.view()->activated(pane.proxy()->index(0, 0));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toUInt(), uint(0x310)); // BAR.SYNC.DEFER_BLOCKING at 0x0310
        pane.setMix(&kernel()->total, &kernel()->lines.front());
        QVERIFY(pane.mixLabel()->text().contains(QString::number(kernel()->total.instructions)));
        const QString mix = instructionMixText(kernel()->total);
        QVERIFY(mix.startsWith(QString::number(kernel()->total.instructions)));
        // The listed counts add up to the total.
        int sum = 0;
        static const QRegularExpression count(QStringLiteral("[A-Za-z0-9]+ (\\d+) \\("));
        auto it = count.globalMatch(mix);
        while (it.hasNext()) sum += it.next().captured(1).toInt();
        QCOMPARE(sum, kernel()->total.instructions);
    }
    // While a filter is active, the main table (the shared SassModel) fades exactly the rows the
    // filter rejects; clearing the filter or "Fade others" restores every row.
    void filterFadesOtherRowsInTheTable() {
        SassModel model;
        model.setFunction(m_model, &kernel()->sass, sourceLines());
        SassFilterPane pane;
        pane.setSourceModel(&model);
        const int n = model.rowCount();
        auto fadedRows = [&] {
            std::vector<int> rows;
            for (int r = 0; r < n; ++r)
                if (!model.index(r, 0).data(SassModel::FilterMatchRole).toBool()) rows.push_back(r);
            return rows;
        };
        QVERIFY(fadedRows().empty());
        pane.patternEdit()->setText(QStringLiteral("^LDG|^STG"));
        std::vector<int> expected;
        for (int r = 0; r < n; ++r) {
            const std::string& m = kernel()->sass.instructions[size_t(r)].mnemonic;
            if (m != "LDG" && m != "STG") expected.push_back(r);
        }
        QVERIFY(!expected.empty() && int(expected.size()) < n);
        QCOMPARE(fadedRows(), expected);
        // A faded row's text is translucent; a matching row's opcode keeps its category colour.
        const int faded = expected.front();
        const QColor fc = model.index(faded, SassModel::OperandsColumn).data(Qt::ForegroundRole).value<QColor>();
        QVERIFY(fc.isValid() && fc.alpha() < 255 && std::abs(fc.alphaF() - Theme::fadedTextAlpha()) < 0.01);
        int match = 0;
        while (std::find(expected.begin(), expected.end(), match) != expected.end()) ++match;
        QCOMPARE(model.index(match, SassModel::OpcodeColumn).data(Qt::ForegroundRole).value<QColor>(),
                 Theme::categoryColor(InstrCategory(model.index(match, 0).data(SassModel::CategoryRole).toInt())));
        QVERIFY(!model.index(match, SassModel::OperandsColumn).data(Qt::ForegroundRole).isValid());
        pane.fadeOthersBox()->setChecked(false);
        QVERIFY(fadedRows().empty());
        pane.fadeOthersBox()->setChecked(true);
        QCOMPARE(fadedRows(), expected);
        // A rebuilt listing (model reset) is matched again once the proxy has settled.
        model.setFunction(m_model, &kernel()->sass, sourceLines());
        QTRY_COMPARE(fadedRows(), expected);
        pane.patternEdit()->clear();
        QVERIFY(fadedRows().empty());
    }
};

QTEST_MAIN(TestSassDepth)
#include "test_sass_depth.moc"
