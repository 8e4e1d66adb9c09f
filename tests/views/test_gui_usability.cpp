// Over 600 lines: one test class per issue, one slot per fixed behaviour. The GUI as a CUDA
// engineer uses it (issue 17): Compare A/B numbers are right on every view,
// configuration B is set up from the toolbar, the window fits 1024×700 through 4K, the Help menu
// is generated from the actions, and the smaller items (filter bar, contrast, command preview,
// build log, measure pane) behave. Fake build backends unless a test says otherwise; the
// identical-builds test compiles kernels/reduction.cu twice and skips without nvcc/nvdisasm.
#include "core/analysis/diff.h"
#include "views/build/build_options_pane.h"
#include "views/code/cfg_view.h"
#include "views/build/build_output_pane.h"
#include "views/code/code_editor.h"
#include "views/compare/compare_panel.h"
#include "views/compare/diff_model.h"
#include "views/compare/diff_view.h"
#include "views/shell/help.h"
#include "views/shell/main_window.h"
#include "views/measure/measure_pane.h"
#include "views/code/sass_filter.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/code/source_pane.h"
#include "views/common/theme.h"
#include "views/common/workspace.h"

#include <Qsci/qsciglobal.h>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableView>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextLayout>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

#include <atomic>
#include <set>

using namespace lowerscope;

namespace {

QString kernelPath() { return QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/reduction.cu"); }

// A successful build with one kernel of `n` instructions attributed to lines 10, 11, 12, …
std::shared_ptr<BuildSnapshot> fakeBuild(const BuildRequest& r, int n = 12) {
    auto snap = std::make_shared<BuildSnapshot>();
    snap->sourcePath = r.sourcePath;
    snap->buildPath = QDir(r.workDir).filePath(r.displayName);
    snap->builtText = r.text;
    snap->options = r.options;
    snap->result.ok = true;
    snap->result.cubin = {0x7f, 'E', 'L', 'F'};
    KernelModel k;
    k.name = "k(float*, int)";
    k.mangled = "_Z1kPfi";
    for (int i = 0; i < n; ++i) {
        SassInstruction ins;
        ins.address = uint32_t(i * 16);
        ins.opcode = ins.mnemonic = i % 3 ? "FFMA" : "LDG.E";
        ins.text = ins.opcode + " R" + std::to_string(i) + ", R1, R2";
        ins.source.file = snap->buildPath.toStdString();
        ins.source.line = 10 + i % 4;
        k.sass.instructions.push_back(ins);
    }
    snap->model.kernels.push_back(k);
    snap->model.arch = r.options.arch;
    return snap;
}

bool waitForBuild(Workspace* w, int ms = 10000) {
    if (!w->isBuilding() && w->lastAttempt()) return true;
    QSignalSpy done(w, &Workspace::buildFinished);
    return done.wait(ms);
}

MainWindow::Options quietWindow() {
    MainWindow::Options o;
    o.useSettings = false;
    o.offerRecovery = false;
    o.probeGpu = false;
    return o;
}

// Makes `w` build with the fake backend (A and B), without auto-build.
void fakeBackends(MainWindow& w, std::atomic<int>* buildsB = nullptr) {
    w.setAutoBuild(false);
    w.session()->setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r); });
    w.comparePanel()->sessionB()->setBackend([buildsB](const BuildRequest& r, std::atomic<bool>*) {
        if (buildsB) buildsB->fetch_add(1);
        QThread::msleep(150); // long enough to see the diff marked stale while B builds
        return fakeBuild(r);
    });
}

QString describeDocks(const MainWindow& w) {
    QStringList parts;
    for (const QString& id : w.paneIds()) {
        const QDockWidget* d = w.pane(id);
        parts << QStringLiteral("%1 %2x%3%4 min %5x%6")
                     .arg(id)
                     .arg(d->width())
                     .arg(d->height())
                     .arg(!d->isVisible() ? QStringLiteral(" hidden") : d->visibleRegion().isEmpty() ? QStringLiteral(" behind") : QString())
                     .arg(d->minimumSizeHint().width())
                     .arg(d->minimumSizeHint().height());
    }
    return parts.join(QStringLiteral("; "));
}

} // namespace

class GuiUsabilityTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    // A status message given before the window shows (a capture opened from the command line)
    // hides the status bar's own selection label once the window shows, instead of both being
    // drawn over each other (QStatusBar hides only labels that are visible when the message comes).
    void aStatusMessageGivenBeforeTheWindowShowsHidesTheSelectionLabel() {
        MainWindow w(quietWindow());
        auto* info = w.findChild<QLabel*>(QStringLiteral("selectionInfo"));
        QVERIFY(info);
        info->setText(QStringLiteral("line 1 — 0 PTX lines"));
        w.showStatus(QStringLiteral("Capture x.json: 2 kernels"), 10000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Capture x.json: 2 kernels"));
        QVERIFY(!info->isVisible());
        w.statusBar()->clearMessage();
        QVERIFY(info->isVisible());
    }

    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        lowerscopeInitResources();
        Theme::apply(ThemeKind::Light);
    }

    // ------------------------------------------------------------------ 1. Compare A/B numbers

    // A and B built with identical options from the same text: no difference anywhere — the diff,
    // the per-line table (each line once, not once per build copy), and the Source margin.
    void identicalBuildsShowZeroDeltas() {
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found()) QSKIP("nvcc or nvdisasm not found (run scripts/bootstrap)");
        MainWindow w(quietWindow());
        w.setAutoBuild(false);
        w.show();
        QVERIFY(w.openFile(kernelPath()));
        QVERIFY(waitForBuild(w.session(), 180000));
        QVERIFY(w.session()->snapshot() && w.session()->snapshot()->ok());
        w.setCompareMode(true);
        Workspace* b = w.comparePanel()->sessionB();
        QVERIFY(waitForBuild(b, 180000));
        QTRY_VERIFY_WITH_TIMEOUT(b->snapshot() && b->snapshot()->ok(), 10000);
        QCOMPARE(b->options(), w.session()->options());

        DiffView* diff = w.comparePanel()->diffView();
        QTRY_VERIFY(diff->diffModel()->rowCount() > 0);
        const DiffSummary s = diff->diffModel()->diff().summary;
        QCOMPARE(s.differences(), 0);
        QCOMPARE(s.instructionsA, s.instructionsB);
        // The saved file is built as it is (issue 35 item 8: the CLI's cache key), so B, with A's
        // options, is a cache hit of A's build.
        QCOMPARE(w.session()->snapshot()->buildPath, b->snapshot()->buildPath);
        QVERIFY(b->snapshot()->result.cacheHit);
        std::set<std::pair<std::string, int>> lines;
        QVERIFY(!diff->lineDeltas().empty());
        for (const LineDelta& d : diff->lineDeltas()) {
            QVERIFY2(lines.insert({d.source.file, d.source.line}).second,
                     qPrintable(QStringLiteral("line %1 listed twice").arg(d.source.line)));
            QVERIFY2(d.instructionDelta() == 0 && d.stallDelta() == 0 && d.maxLiveDelta() == 0,
                     qPrintable(QStringLiteral("%1:%2 A %3 B %4").arg(QString::fromStdString(d.source.file)).arg(d.source.line)
                                    .arg(d.a.instructions).arg(d.b.instructions)));
            QVERIFY(LineDeltaModel::compactText(d).isEmpty());
        }
        const LineDeltaModel* model = diff->lineModel();
        for (int r = 0; r < model->rowCount(); ++r)
            for (int c : {LineDeltaModel::InstructionsDeltaColumn, LineDeltaModel::StallDeltaColumn})
                QCOMPARE(model->index(r, c).data(LineDeltaModel::DeltaRole).toInt(), 0);
        // The Source pane's margin: the line costs, and no delta on any line.
        SourcePane* source = w.sourcePane();
        QVERIFY(source->compareDeltas().empty());
        for (int line = 1; line <= source->editor()->lines(); ++line) {
            const QString text = source->lineMarginText(line);
            QVERIFY2(!text.contains(QLatin1Char('+')) && !text.contains(QLatin1Char('-')),
                     qPrintable(QStringLiteral("line %1: '%2'").arg(line).arg(text)));
        }

        // With B's options changed (ptxas -O0), deltas appear once per line, compactly, unclipped.
        BuildOptions fast = b->options();
        fast.ptxasOpt = 0; // certainly different code on most lines
        w.comparePanel()->setRebuildDelay(0);
        QSignalSpy bDone(b, &Workspace::buildFinished);
        w.comparePanel()->setOptionsB(fast);
        QVERIFY(bDone.wait(180000));
        QTRY_VERIFY(!diff->isStale());
        QTRY_VERIFY(!source->compareDeltas().empty());
        CodeEditor* ed = source->editor();
        const long marginWidth = ed->SendScintilla(QsciScintilla::SCI_GETMARGINWIDTHN, SourcePane::kLineCostMargin);
        for (const auto& [line, delta] : source->compareDeltas()) {
            const QString text = source->lineMarginText(line);
            QVERIFY2(text.endsWith(delta), qPrintable(text));
            QCOMPARE(text.count(delta), 1);
            QVERIFY2(delta.size() <= 6, qPrintable(delta)); // one compact delta, e.g. "+12i"
            const QByteArray utf8 = text.toUtf8();
            const long textWidth = ed->SendScintilla(QsciScintilla::SCI_TEXTWIDTH, QsciScintillaBase::STYLE_LINENUMBER, utf8.constData());
            QVERIFY2(textWidth <= marginWidth, qPrintable(QStringLiteral("'%1' %2 px > margin %3 px").arg(text).arg(textWidth).arg(marginWidth)));
        }
        // Less than a third of the pane for all margins together.
        int margins = 0;
        for (int m = 0; m < ed->margins(); ++m) margins += int(ed->SendScintilla(QsciScintilla::SCI_GETMARGINWIDTHN, m));
        QVERIFY2(margins < ed->width() / 3 + 60, qPrintable(QStringLiteral("%1 of %2").arg(margins).arg(ed->width())));

        // Compare off: the margin deltas go, B is not rebuilt by A's builds.
        w.setCompareMode(false);
        QTRY_VERIFY(source->compareDeltas().empty());
    }

    // The sides name the build copy after the user's file, whatever folder each side built in.
    void compareSidesNameTheUsersFile() {
        BuildRequest r;
        r.sourcePath = QStringLiteral("/home/u/k.cu");
        r.displayName = QStringLiteral("k.cu");
        r.workDir = QStringLiteral("/tmp/lowerscope-1/3");
        auto a = fakeBuild(r);
        r.workDir = QStringLiteral("/tmp/lowerscope-1-b/7");
        auto b = fakeBuild(r);
        const CompareSide sa = CompareSide::fromSnapshot(a.get(), 0, QStringLiteral("A"));
        const CompareSide sb = CompareSide::fromSnapshot(b.get(), 0, QStringLiteral("B"));
        for (const auto* side : {&sa, &sb})
            for (const SassInstruction& ins : side->sass.instructions) QCOMPARE(ins.source.file, std::string("/home/u/k.cu"));
        const auto deltas = lineDeltas(sa.sass, sb.sass);
        QCOMPARE(int(deltas.size()), 4); // lines 10..13, each once
        for (const LineDelta& d : deltas) QCOMPARE(d.instructionDelta(), 0);
    }

    // ------------------------------------------------------------------ 2. B is first-class

    void compareWithTogglesConfigurationB() {
        std::atomic<int> buildsB{0};
        MainWindow w(quietWindow());
        fakeBackends(w, &buildsB);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.loadText(QStringLiteral("k.cu"), QStringLiteral("__global__ void k(float*, int) {}\n"));
        QVERIFY(waitForBuild(w.session()));

        // Off by default: B is neither shown nor built.
        QAction* compare = w.compareAction();
        QVERIFY(compare);
        QVERIFY(!compare->isChecked());
        QVERIFY(w.pane(QStringLiteral("options-b"))->isHidden());
        QTest::qWait(100);
        QCOMPARE(buildsB.load(), 0);
        // The toggle is on the toolbar, visible without any docking.
        auto* tb = w.findChild<QToolBar*>(QStringLiteral("toolbar.build"));
        QVERIFY(tb && tb->widgetForAction(compare) && tb->widgetForAction(compare)->isVisible());

        // On: B's options beside A's, B built.
        compare->trigger();
        QVERIFY(w.comparePanel()->isActive());
        QDockWidget* optB = w.pane(QStringLiteral("options-b"));
        QTRY_VERIFY(optB->isVisible() && !optB->visibleRegion().isEmpty());
        QDockWidget* optA = w.pane(QStringLiteral("options"));
        QVERIFY(optA->isVisible() && !optA->visibleRegion().isEmpty());
        QCOMPARE(w.dockWidgetArea(optB), w.dockWidgetArea(optA));
        QVERIFY2(optB->geometry().left() >= optA->geometry().right() - 2, qPrintable(describeDocks(w)));
        QTRY_COMPARE(buildsB.load(), 1);
        Workspace* b = w.comparePanel()->sessionB();
        QVERIFY(waitForBuild(b));

        // Changing B's options rebuilds B; the diff says it is stale until B is back.
        DiffView* diff = w.comparePanel()->diffView();
        QTRY_VERIFY(!diff->isStale());
        w.comparePanel()->setRebuildDelay(20);
        BuildOptions o = b->options();
        o.maxRegCount = 32;
        w.comparePanel()->optionsPaneB()->findChild<QSpinBox*>()->setValue(32);
        QCOMPARE(b->options().maxRegCount, 32);
        QVERIFY(diff->isStale()); // pending rebuild
        QTRY_VERIFY(b->isBuilding());
        QVERIFY2(diff->staleReason().contains(QStringLiteral("B is rebuilding")), qPrintable(diff->staleReason()));
        QVERIFY(diff->staleBanner()->isVisible());
        QVERIFY(waitForBuild(b));
        QTRY_VERIFY(!diff->isStale());
        QVERIFY(!diff->staleBanner()->isVisible());
        QCOMPARE(b->snapshot()->options.maxRegCount, 32);
        QCOMPARE(buildsB.load(), 2);

        // A's rebuild marks it stale too, and B follows A.
        QSignalSpy bStarted(b, &Workspace::buildStarted);
        w.build();
        QVERIFY2(diff->staleReason().contains(QStringLiteral("A is rebuilding")), qPrintable(diff->staleReason()));
        QVERIFY(waitForBuild(w.session()));
        QTRY_COMPARE(bStarted.count(), 1);
        QVERIFY(waitForBuild(b));
        QTRY_VERIFY(!diff->isStale());

        // Off: B's options close, A's builds no longer build B.
        compare->trigger();
        QTRY_VERIFY(optB->isHidden());
        const int before = buildsB.load();
        w.build();
        QVERIFY(waitForBuild(w.session()));
        QTest::qWait(300);
        QCOMPARE(buildsB.load(), before);
        QVERIFY(diff->summaryLabel()->text().contains(QStringLiteral("Compare is off")));
    }

    // ------------------------------------------------------------------ 3. layouts

    void layoutFitsSmallAndLargeScreens_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<bool>("comparing");
        QTest::newRow("1024x700") << 1024 << 700 << false;
        QTest::newRow("1024x700 comparing") << 1024 << 700 << true;
        QTest::newRow("1366x768") << 1366 << 768 << false;
        QTest::newRow("1920x1080") << 1920 << 1080 << false;
        QTest::newRow("1920x1080 comparing") << 1920 << 1080 << true;
        QTest::newRow("3840x2160") << 3840 << 2160 << true;
    }

    void layoutFitsSmallAndLargeScreens() {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(bool, comparing);
        MainWindow w(quietWindow());
        fakeBackends(w);
        w.resize(width, height);
        if (comparing) w.setCompareMode(true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.loadText(QStringLiteral("k.cu"), QStringLiteral("__global__ void k(float*, int) {}\n"));
        QVERIFY(waitForBuild(w.session()));
        QTest::qWait(50);
        // The window keeps the size asked for: no pane's minimum pushed it larger.
        QCOMPARE(w.size(), QSize(width, height));
        const QString docks = describeDocks(w);
        // Code panes: room for at least ~20 lines and a readable width. Comparing, the aligned diff
        // is the main view in the top row (issue 35 item 2), beside the Source when the window is
        // wide; PTX and SASS are tabs behind it.
        const int line = QFontMetrics(w.sourcePane()->editor()->font()).lineSpacing();
        std::vector<const char*> codePanes{"source", "ptx", "sass"};
        if (comparing) codePanes = width >= 1400 ? std::vector<const char*>{"source", "compare"} : std::vector<const char*>{"compare"};
        for (const char* id : codePanes) {
            const QDockWidget* d = w.pane(QString::fromLatin1(id));
            QVERIFY2(d->isVisible() && !d->visibleRegion().isEmpty(), id);
            QVERIFY2(d->height() >= std::max(20 * line, height / 2), qPrintable(QStringLiteral("%1: %2").arg(id, docks)));
            QVERIFY2(d->width() >= std::min(300, width / 4), qPrintable(QStringLiteral("%1: %2").arg(id, docks)));
        }
        // Every other visible pane: a useful size; the bottom row at most ~30 % of the height.
        for (const QString& id : w.visiblePaneIds()) {
            const QDockWidget* d = w.pane(id);
            QVERIFY2(d->width() >= 240 && d->height() >= 150, qPrintable(QStringLiteral("%1: %2").arg(id, docks)));
            if (w.dockWidgetArea(const_cast<QDockWidget*>(d)) == Qt::BottomDockWidgetArea)
                QVERIFY2(d->height() <= height * 32 / 100, qPrintable(QStringLiteral("%1: %2").arg(id, docks)));
        }
        // The options scroll rather than clip: every control keeps its minimum height and can be
        // scrolled to.
        for (BuildOptionsPane* pane : {w.buildOptionsPane(), w.comparePanel()->optionsPaneB()}) {
            if (!pane->isVisible()) continue;
            QScrollArea* scroll = pane->scrollArea();
            for (QWidget* control : pane->inputControls()) {
                QVERIFY2(control->height() >= control->minimumSizeHint().height(), qPrintable(control->toolTip()));
                QVERIFY(control->geometry().bottom() <= scroll->widget()->height());
            }
            if (scroll->widget()->height() > scroll->viewport()->height()) QVERIFY(scroll->verticalScrollBar()->isVisible());
        }
        if (comparing) {
            QVERIFY(w.pane(QStringLiteral("options-b"))->isVisible());
            QVERIFY(!w.pane(QStringLiteral("options"))->visibleRegion().isEmpty());
        }
    }

    void focusAndResetLayout() {
        MainWindow w(quietWindow());
        fakeBackends(w);
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QStringList normal = w.visiblePaneIds();
        QVERIFY(normal.contains(QStringLiteral("output")));
        w.focusAction()->trigger();
        QTRY_COMPARE(w.visiblePaneIds(), (QStringList{QStringLiteral("source"), QStringLiteral("ptx"), QStringLiteral("sass")}));
        // The code panes take the whole height between toolbar and status bar.
        QTRY_VERIFY2(w.pane(QStringLiteral("source"))->height() > 800 * 3 / 4, qPrintable(describeDocks(w)));
        w.focusAction()->trigger();
        QTRY_COMPARE(w.visiblePaneIds(), normal);
        // Reset after the user closed and floated panes: back to the default.
        w.pane(QStringLiteral("sass"))->close();
        w.pane(QStringLiteral("output"))->setFloating(true);
        w.resetLayoutAction()->trigger();
        QTRY_COMPARE(w.visiblePaneIds(), normal);
        QVERIFY(!w.pane(QStringLiteral("output"))->isFloating());
    }

    // ------------------------------------------------------------------ 5. CFG

    void cfgOpensFittedWithCompactBlocks() {
        // B0: 10 instructions, B1: 2, B2: 40 (a long loop body), B3: exit; B2 loops to itself.
        auto owner = std::make_shared<SassFunction>();
        SassFunction& f = *owner;
        for (int i = 0; i < 53; ++i) {
            SassInstruction ins;
            ins.address = uint32_t(i * 16);
            ins.opcode = ins.mnemonic = "FFMA";
            ins.text = "FFMA R" + std::to_string(i % 40) + ", R1, R2, R3";
            f.instructions.push_back(ins);
        }
        Cfg cfg;
        auto block = [&](int id, int first, int last) {
            BasicBlock b;
            b.id = id;
            b.firstIndex = first;
            b.lastIndex = last;
            b.startAddress = uint32_t(first * 16);
            b.endAddress = uint32_t(last * 16);
            cfg.blocks.push_back(b);
        };
        block(0, 0, 9);
        block(1, 10, 11);
        block(2, 12, 51);
        block(3, 52, 52);
        cfg.edges = {{0, 1, CfgEdgeKind::FallThrough}, {1, 2, CfgEdgeKind::FallThrough}, {2, 2, CfgEdgeKind::Back},
                     {2, 3, CfgEdgeKind::FallThrough}, {3, -1, CfgEdgeKind::Exit}};
        CfgView v;
        v.resize(700, 500);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QSignalSpy laid(&v, &CfgView::layoutFinished);
        v.setKernel(owner, &f, &cfg);
        QVERIFY(laid.wait(30000));
        QVERIFY(laid.at(0).at(1).toBool());

        // Compact: first and last instruction with the count between; short blocks in full.
        QCOMPARE(v.blockView(0), CfgView::BlockView::Compact);
        QStringList lines = v.blockLines(0);
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[0].contains(QStringLiteral("0000")));
        QVERIFY2(lines[1].contains(QStringLiteral("8 more")), qPrintable(lines[1]));
        QVERIFY(lines[2].contains(QStringLiteral("0090")));
        QCOMPARE(v.blockLines(1).size(), 2);
        QCOMPARE(v.blockView(1), CfgView::BlockView::Expanded);
        QVERIFY(v.blockLines(2)[1].contains(QStringLiteral("38 more")));

        // Opened fitted: the whole graph in view, not magnified past 1:1.
        QTRY_VERIFY(v.zoom() < 1.0001);
        const QRectF visible = v.mapToScene(v.viewport()->rect()).boundingRect();
        for (int id = 0; id < 4; ++id)
            QVERIFY2(visible.contains(v.blockRect(id)), qPrintable(QStringLiteral("B%1 outside the view at zoom %2").arg(id).arg(v.zoom())));

        // A click on "⋯ 38 more" expands B2; "▴ fewer" compacts it again.
        const QRectF b2 = v.blockRect(2);
        v.centerOn(b2.center());
        const QPoint more = v.mapFromScene(QPointF(b2.center().x(), v.blockLineY(2, 2)));
        laid.clear();
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, more);
        QVERIFY(laid.wait(30000));
        QCOMPARE(v.blockView(2), CfgView::BlockView::Expanded);
        QCOMPARE(v.blockLines(2).size(), 41); // 40 instructions and "fewer"
        QVERIFY(v.blockRect(2).height() > b2.height() * 5);
        const QRectF b2big = v.blockRect(2);
        v.centerOn(QPointF(b2big.center().x(), v.blockLineY(2, 41)));
        laid.clear();
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, v.mapFromScene(QPointF(b2big.center().x(), v.blockLineY(2, 41))));
        QVERIFY(laid.wait(30000));
        QCOMPARE(v.blockView(2), CfgView::BlockView::Compact);
        // A click on an instruction line selects that instruction.
        QSignalSpy pick(&v, &CfgView::instructionActivated);
        const QRectF b0 = v.blockRect(0);
        v.centerOn(b0.center());
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, v.mapFromScene(QPointF(b0.center().x(), v.blockLineY(0, 3))));
        QCOMPARE(pick.count(), 1);
        QCOMPARE(pick.at(0).at(0).toUInt(), 0x90u);

        // All instructions: every block in full.
        laid.clear();
        v.allInstructionsAction()->trigger();
        QVERIFY(laid.wait(30000));
        QCOMPARE(v.blockLines(0).size(), 10);
        QCOMPARE(v.blockLines(2).size(), 40);
        laid.clear();
        v.allInstructionsAction()->trigger();
        QVERIFY(laid.wait(30000));
        QCOMPARE(v.blockLines(2).size(), 3);

        // Zoom to the selected block (an instruction hidden in B2's compact middle).
        v.setHighlightedAddresses({uint32_t(30 * 16)});
        QVERIFY(v.zoomToSelection());
        const QRectF shown = v.mapToScene(v.viewport()->rect()).boundingRect();
        QVERIFY(shown.contains(v.blockRect(2)));
        QVERIFY(!shown.contains(v.blockRect(0)) || v.zoom() >= 1.0);
        v.setHighlightedAddresses({});
        QVERIFY(!v.zoomToSelection());
        // Fit again from anywhere.
        v.scale(3, 3);
        v.fitAction()->trigger();
        QVERIFY(v.zoom() <= 1.0001);
        QVERIFY(v.mapToScene(v.viewport()->rect()).boundingRect().contains(v.blockRect(3)));
    }

    // A graph too large to read whole opens at the minimum scale showing its entry.
    void cfgLargeGraphShowsItsTop() {
        auto owner = std::make_shared<SassFunction>();
        Cfg cfg;
        for (int i = 0; i < 60; ++i) {
            for (int k = 0; k < 5; ++k) {
                SassInstruction ins;
                ins.address = uint32_t((i * 5 + k) * 16);
                ins.opcode = ins.mnemonic = "IADD3";
                ins.text = "IADD3 R1, R1, 0x1, RZ";
                owner->instructions.push_back(ins);
            }
            BasicBlock b;
            b.id = i;
            b.firstIndex = i * 5;
            b.lastIndex = i * 5 + 4;
            b.startAddress = uint32_t(i * 5 * 16);
            b.endAddress = uint32_t((i * 5 + 4) * 16);
            cfg.blocks.push_back(b);
            if (i > 0) cfg.edges.push_back({i - 1, i, CfgEdgeKind::FallThrough});
        }
        CfgView v;
        v.resize(500, 400);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QSignalSpy laid(&v, &CfgView::layoutFinished);
        v.setKernel(owner, owner.get(), &cfg);
        QVERIFY(laid.wait(30000));
        // A chain of 60 blocks: far too tall to fit at a readable scale, narrow enough for 1:1.
        const QRectF all = v.scene()->itemsBoundingRect();
        QVERIFY(v.viewport()->height() / all.height() < CfgView::kMinFitScale);
        const double widthFit = std::min(1.0, v.viewport()->width() / (all.width() + 20));
        QTRY_VERIFY2(std::abs(v.zoom() - std::max(widthFit, CfgView::kMinFitScale)) < 1e-3, qPrintable(QString::number(v.zoom())));
        const QRectF visible = v.mapToScene(v.viewport()->rect()).boundingRect();
        QVERIFY(visible.intersects(v.blockRect(0)));
        QVERIFY(!visible.intersects(v.blockRect(59)));
    }

    // ------------------------------------------------------------------ 6. help

    void shortcutSheetListsEveryAction() {
        MainWindow w(quietWindow());
        const auto entries = collectShortcuts(&w);
        auto listed = [&entries](const QString& keys) {
            for (const ShortcutEntry& e : entries)
                if (e.keys.split(QStringLiteral(", ")).contains(keys)) return true;
            return false;
        };
        // Every action with a shortcut, anywhere in the window, is in the sheet.
        int withKeys = 0;
        for (const QAction* a : w.findChildren<QAction*>()) {
            for (const QKeySequence& k : a->shortcuts()) {
                ++withKeys;
                QVERIFY2(listed(k.toString(QKeySequence::PortableText)), qPrintable(a->text()));
            }
        }
        QVERIFY(withKeys >= 15);
        for (const char* keys : {"F1", "F7", "Shift+F7", "Ctrl+F7", "Alt+Down", "Alt+Up", "F8", "F11", "Ctrl+B"})
            QVERIFY2(listed(QString::fromLatin1(keys)), keys);
        for (const ShortcutEntry& e : entries) {
            QVERIFY2(!e.what.isEmpty() && !e.what.contains(QStringLiteral("undocumented")), qPrintable(e.keys));
            QVERIFY(!e.where.isEmpty());
        }
        // F7, Ctrl+F7 and Alt+Up/Down are in a menu (the Navigate menu), not only in a pane.
        for (const char* keys : {"F7", "Ctrl+F7", "Alt+Down", "Alt+Up"}) {
            bool inMenu = false;
            for (const ShortcutEntry& e : entries)
                if (e.where == QStringLiteral("Navigate") && e.keys == QString::fromLatin1(keys)) inMenu = true;
            QVERIFY2(inMenu, keys);
        }
        // A pane added later (as other issues' panes are) shows up by itself.
        auto* extra = new QWidget;
        auto* act = new QAction(QStringLiteral("Toggle heat margin"), extra);
        act->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_H));
        extra->addAction(act);
        w.registerPane(QStringLiteral("heat"), QStringLiteral("Heat"), extra, Qt::RightDockWidgetArea);
        bool found = false;
        for (const ShortcutEntry& e : collectShortcuts(&w))
            if (e.what == QStringLiteral("Toggle heat margin") && e.where == QStringLiteral("Heat")) found = true;
        QVERIFY(found);
        const QString html = shortcutSheetHtml(collectShortcuts(&w));
        QVERIFY(html.contains(QStringLiteral("Toggle heat margin")));
    }

    void f1OpensTheFocusedPanesSection() {
        MainWindow w(quietWindow());
        fakeBackends(w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.activateWindow();
        for (const char* id : {"source", "ptx", "sass", "cfg", "sass-filter", "output", "resources", "options",
                               "options-b", "compare", "measure", "experiment"})
            QVERIFY2(panesHelpHasSection(QString::fromLatin1(id)), id);
        w.pane(QStringLiteral("sass"))->raise();
        w.sassPane()->view()->setFocus();
        QTRY_VERIFY(w.sassPane()->view()->hasFocus());
        QCOMPARE(w.paneIdOf(QApplication::focusWidget()), QStringLiteral("sass"));
        QTest::keyClick(w.sassPane()->view(), Qt::Key_F1);
        HelpWindow* help = w.helpWindow();
        QTRY_VERIFY(help->isVisible());
        QCOMPARE(help->currentSection(), QStringLiteral("sass"));
        QVERIFY(help->browser()->toPlainText().contains(QStringLiteral("How to read the panes")));
        w.showPaneHelp(QStringLiteral("no-such-pane"));
        QCOMPARE(help->currentSection(), QString());
    }

    void aboutNamesTheVersions() {
        Toolchain tc;
        tc.nvcc = {"nvcc", "/opt/cuda/bin/nvcc", "13.0.88", "toolkit", ""};
        tc.ptxas = {"ptxas", "/opt/cuda/bin/ptxas", "13.0.88", "toolkit", ""};
        tc.nvdisasm = {"nvdisasm", "", "", "", "looked in /opt/cuda/bin"};
        tc.cuobjdump = {"cuobjdump", "/opt/cuda/bin/cuobjdump", "", "toolkit", ""};
        const QString html = aboutHtml(tc);
        QVERIFY(html.contains(QString::fromLatin1(qVersion())));
        QVERIFY(html.contains(QStringLiteral(QSCINTILLA_VERSION_STR)));
        QVERIFY(html.contains(QStringLiteral("13.0.88")));
        QVERIFY(html.contains(QStringLiteral("/opt/cuda/bin/nvcc")));
        QVERIFY(html.contains(QStringLiteral("not found")));
        QVERIFY(html.contains(QStringLiteral("version unknown")));
    }

    void everyOptionControlExplainsItsFlag() {
        Workspace ws;
        BuildOptionsPane pane(&ws);
        const auto controls = pane.inputControls();
        QVERIFY(controls.size() >= 17);
        for (QWidget* c : controls) {
            const QString tip = c->toolTip();
            QVERIFY2(tip.size() > 30, qPrintable(c->objectName() + QStringLiteral(": ") + tip));
            QVERIFY2(tip.endsWith(QLatin1Char('.')) || tip.endsWith(QLatin1Char(')')), qPrintable(tip));
        }
        // The two optimisation levels are told apart by their labels.
        QStringList labels;
        for (const QLabel* l : pane.findChildren<QLabel*>()) labels << l->text();
        QVERIFY(labels.contains(QStringLiteral("Host -O")));
        QVERIFY(labels.contains(QStringLiteral("ptxas -O")));
        for (const QLabel* l : pane.findChildren<QLabel*>())
            if (l->buddy()) QCOMPARE(l->toolTip(), l->buddy()->toolTip());
    }

    // ------------------------------------------------------------------ 7. smaller items

    void commandPreviewBreaksOnlyBetweenArguments() {
        Workspace ws;
        ws.setDocument(QStringLiteral("/some/where/a_kernel_with_a_long_name.cu"), QString());
        BuildOptions o;
        o.cppStd = "c++17";
        o.defines = {"BLOCK=256", "USE_FAST_PATH"};
        o.includeDirs = {"/opt/include/cutlass", "/opt/include/cute"};
        ws.setOptions(o);
        BuildOptionsPane pane(&ws);
        const QString command = QString::fromStdString(shellQuote(ws.previewCommand()));
        QCOMPARE(pane.previewText(), command);
        QPlainTextEdit* preview = pane.preview();
        // Every argument fits a line of these widths, so none may be broken.
        for (int width : {250, 340, 500}) {
            pane.resize(width, 400);
            pane.show();
            QVERIFY(QTest::qWaitForWindowExposed(&pane));
            QTest::qWait(20);
            const QString shown = preview->toPlainText();
            QTextBlock block = preview->document()->firstBlock();
            QVERIFY(block.layout()->lineCount() >= 2);
            for (int i = 1; i < block.layout()->lineCount(); ++i) {
                const int start = block.layout()->lineAt(i).textStart();
                // A new line starts right after a space, so no argument is cut (e.g. "-" | "std").
                QVERIFY2(start > 0 && shown[start - 1] == QLatin1Char(' '),
                         qPrintable(QStringLiteral("width %1, line %2 starts at '%3'").arg(width).arg(i).arg(shown.mid(start, 12))));
            }
        }
        // What a copy puts on the clipboard runs as shown (no invisible characters).
        preview->selectAll();
        preview->copy();
        if (QGuiApplication::clipboard()->text().isEmpty()) QSKIP("no clipboard on this platform");
        QCOMPARE(QGuiApplication::clipboard()->text(), command);
    }

    void sassFilterFadingSaysWhy() {
        MainWindow w(quietWindow());
        fakeBackends(w);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.loadText(QStringLiteral("k.cu"), QStringLiteral("__global__ void k(float*, int) {}\n"));
        QVERIFY(waitForBuild(w.session()));
        SassPane* sass = w.sassPane();
        QVERIFY(!sass->filterBar()->isVisible());
        w.pane(QStringLiteral("sass-filter"))->raise();
        w.sassFilterPane()->patternEdit()->setText(QStringLiteral("LDG"));
        QTRY_VERIFY(sass->model()->isFiltered());
        // Leave the filter tab: the SASS pane is in front, and says why its rows are faded.
        w.pane(QStringLiteral("sass"))->raise();
        QTRY_VERIFY(sass->filterBar()->isVisible());
        const QString text = sass->filterBarLabel()->text();
        QVERIFY2(text.contains(QStringLiteral("LDG")) && text.contains(QStringLiteral("4 of 12")), qPrintable(text));
        // Its button ends the filter everywhere.
        auto* clear = sass->filterBar()->findChild<QToolButton*>(QStringLiteral("clearSassFilter"));
        QVERIFY(clear);
        clear->click();
        QTRY_VERIFY(!sass->model()->isFiltered());
        QVERIFY(!sass->filterBar()->isVisible());
        QCOMPARE(w.sassFilterPane()->patternEdit()->text(), QString());
        // A rebuild keeps a filter the user set (the bar comes back with the new rows).
        w.sassFilterPane()->patternEdit()->setText(QStringLiteral("FFMA"));
        QTRY_VERIFY(sass->model()->isFiltered());
        w.build();
        QVERIFY(waitForBuild(w.session()));
        QTRY_VERIFY(sass->model()->isFiltered());
        QCOMPARE(w.sassFilterPane()->patternEdit()->text(), QStringLiteral("FFMA"));
        QTRY_VERIFY(sass->filterBar()->isVisible());
    }

    void fadedRowsAndIconsKeepContrast() {
        for (ThemeKind kind : {ThemeKind::Light, ThemeKind::Dark}) {
            Theme::apply(kind);
            auto blend = [](QColor fg, const QColor& bg, double alpha) {
                return QColor::fromRgbF(float(fg.redF() * alpha + bg.redF() * (1 - alpha)),
                                        float(fg.greenF() * alpha + bg.greenF() * (1 - alpha)),
                                        float(fg.blueF() * alpha + bg.blueF() * (1 - alpha)));
            };
            const double a = Theme::fadedTextAlpha();
            std::vector<QColor> backgrounds{Theme::editorPaper()};
            for (int i = 0; i < Theme::bandCount(); ++i) backgrounds.push_back(Theme::bandByIndex(i));
            for (const QColor& bg : backgrounds) {
                const double faded = Theme::contrast(blend(Theme::editorText(), bg, a), bg);
                QVERIFY2(faded >= 3.0, qPrintable(QStringLiteral("%1 on %2: %3").arg(Theme::isDark()).arg(bg.name()).arg(faded)));
                // Still visibly fainter than a normal row.
                QVERIFY(faded < Theme::contrast(Theme::editorText(), bg) * 0.8);
            }
            // The Build and Cancel icons stand out from the toolbar.
            const QColor toolbar = QApplication::palette().color(QPalette::Window);
            for (Theme::Icon which : {Theme::Icon::Build, Theme::Icon::Cancel}) {
                const QImage img = Theme::icon(which).pixmap(24, 24).toImage();
                double sum = 0;
                int count = 0;
                for (int y = 0; y < img.height(); ++y)
                    for (int x = 0; x < img.width(); ++x) {
                        const QColor c = img.pixelColor(x, y);
                        if (c.alpha() < 250) continue;
                        sum += Theme::contrast(c, toolbar);
                        ++count;
                    }
                QVERIFY(count > 40);
                QVERIFY2(sum / count >= 3.0, qPrintable(QStringLiteral("icon %1 dark %2: %3").arg(int(which)).arg(Theme::isDark()).arg(sum / count)));
            }
        }
        Theme::apply(ThemeKind::Light);
    }

    void buildLogShowsTheNewestBuild() {
        Workspace ws;
        ws.setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r); });
        ws.setDocument(QStringLiteral("k.cu"), QStringLiteral("x"));
        BuildOutputPane pane(&ws);
        pane.resize(500, 160); // a few lines in view
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        for (int i = 0; i < 6; ++i) {
            ws.build();
            QVERIFY(waitForBuild(&ws));
            // Whoever scrolled up to read an older build is taken to the newest one.
            pane.log()->verticalScrollBar()->setValue(0);
        }
        ws.build();
        QVERIFY(waitForBuild(&ws));
        const QString header = pane.log()->document()->findBlockByNumber(pane.newestBuildLine()).text();
        QVERIFY2(header.contains(QStringLiteral("build #7 started")), qPrintable(header));
        QCOMPARE(pane.firstVisibleLine(), std::min(pane.newestBuildLine(), pane.log()->verticalScrollBar()->maximum()));
        QVERIFY(pane.firstVisibleLine() > 0);
        // Hidden (a tab behind another) does not matter.
        pane.hide();
        ws.build();
        QVERIFY(waitForBuild(&ws));
        QVERIFY(pane.log()->document()->findBlockByNumber(pane.newestBuildLine()).text().contains(QStringLiteral("build #8")));
        QCOMPARE(pane.firstVisibleLine(), std::min(pane.newestBuildLine(), pane.log()->verticalScrollBar()->maximum()));
    }

    void measurePaneDropsTheOtherFilesArguments() {
        Workspace a;
        a.setBackend([](const BuildRequest& r, std::atomic<bool>*) {
            auto snap = fakeBuild(r);
            PtxFunction f;
            f.name = "_Z1kPfi";
            PtxParam p0;
            p0.name = "p0";
            p0.type = "u64";
            p0.size = 8;
            p0.isPointer = true;
            PtxParam p1;
            p1.name = "p1";
            p1.type = "u32";
            p1.size = 4;
            f.params = {p0, p1};
            snap->model.ptx.functions.push_back(f);
            snap->model.kernels.front().ptxFunction = 0;
            return snap;
        });
        MeasurePane pane(&a, nullptr, MeasurePane::Options{false});
        a.setDocument(QStringLiteral("/tmp/first.cu"), QStringLiteral("a"));
        a.build();
        QVERIFY(waitForBuild(&a));
        QTRY_VERIFY(!pane.launch().args.empty());
        // Another file opens and starts building: the first file's arguments are not shown for it.
        a.setDocument(QStringLiteral("/tmp/second.cu"), QStringLiteral("b"));
        a.build();
        QVERIFY(pane.launch().args.empty());
        const QLabel* origin = nullptr;
        for (const QLabel* l : pane.findChildren<QLabel*>())
            if (l->text().contains(QStringLiteral("second.cu"))) origin = l;
        QVERIFY(origin);
        QVERIFY(waitForBuild(&a));
        QTRY_VERIFY(!pane.launch().args.empty());
    }

    void runButtonsSayWhenThereIsNoGpu() {
        Workspace a;
        a.setBackend([](const BuildRequest& r, std::atomic<bool>*) { return fakeBuild(r); });
        a.setDocument(QStringLiteral("k.cu"), QStringLiteral("a"));
        a.build();
        QVERIFY(waitForBuild(&a));
        MeasurePane pane(&a, nullptr, MeasurePane::Options{false});
        QVERIFY(pane.runAButton()->isEnabled()); // not asked yet: as before
        std::atomic<bool> release{false};
        pane.setProbe([&release](const std::vector<std::string>&, std::string&, RunErrorKind& kind, std::string& message) {
            while (!release.load()) QThread::msleep(5);
            kind = RunErrorKind::NoDriver;
            message = "libcuda.so.1 not found";
            return false;
        });
        QSignalSpy probed(&pane, &MeasurePane::deviceProbed);
        pane.probeDevice();
        // While asking: off, and the pane says what it is doing.
        QCOMPARE(pane.deviceState(), MeasurePane::DeviceState::Probing);
        QVERIFY(!pane.runAButton()->isEnabled());
        QVERIFY(pane.statusLabel()->text().contains(QStringLiteral("Looking for a GPU")));
        release = true;
        QVERIFY(probed.wait(5000));
        QCOMPARE(pane.deviceState(), MeasurePane::DeviceState::Unavailable);
        QVERIFY(!pane.runAButton()->isEnabled());
        QVERIFY(!pane.runABButton()->isEnabled());
        QVERIFY2(pane.statusLabel()->text().contains(QStringLiteral("No GPU")), qPrintable(pane.statusLabel()->text()));
        QVERIFY(pane.runAButton()->toolTip().contains(QStringLiteral("No GPU")));
        // A remote host with a GPU: asked again when the host changes, then Run is on.
        pane.setProbe([](const std::vector<std::string>& command, std::string& device, RunErrorKind&, std::string&) {
            device = "NVIDIA H200";
            return std::find(command.begin(), command.end(), std::string("gpu-box")) != command.end();
        });
        pane.setRemote(QStringLiteral("gpu-box"));
        pane.probeDevice();
        QVERIFY(probed.wait(5000));
        QCOMPARE(pane.deviceState(), MeasurePane::DeviceState::Available);
        QVERIFY(pane.runAButton()->isEnabled());
        QVERIFY(pane.statusLabel()->text().contains(QStringLiteral("NVIDIA H200")));
    }
};

QTEST_MAIN(GuiUsabilityTest)
#include "test_gui_usability.moc"
