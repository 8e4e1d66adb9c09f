// Linked panes over a real build of kernels/reduction.cu: what each pane highlights must be
// exactly what the core's Correlation says, in every direction; a compile error annotates the
// right line; an edit makes the listing stale. Skips when nvcc/nvdisasm are missing.
#include "window_fixture.h"
#include "views/common/build_job.h"
#include "views/build/build_output_pane.h"
#include "views/code/cfg_view.h"
#include "views/code/code_editor.h"
#include "views/build/diagnostics_model.h"
#include "views/compare/diff_model.h"
#include "views/shell/main_window.h"
#include "views/measure/measure_pane.h"
#include "views/code/pressure_strip.h"
#include "views/code/ptx_model.h"
#include "views/code/ptx_pane.h"
#include "views/build/resources_model.h"
#include "views/build/resources_pane.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/common/workspace.h"
#include "views/code/source_pane.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QSpinBox>
#include <QTableView>
#include <QtTest>

#include <algorithm>
#include <set>

using namespace lowerscope;

namespace {

QString kernelPath() { return QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/reduction.cu"); }

template <typename T> std::vector<T> sorted(std::vector<T> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

std::vector<uint32_t> sassHighlighted(const SassModel* m) {
    std::vector<uint32_t> out;
    for (int row : m->highlightedRows()) out.push_back(m->instruction(row)->address);
    return out;
}

} // namespace

class LinkingTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::unique_ptr<MainWindow> m_w;

    Workspace* session() { return m_w->session(); }
    const KernelModel* kernel() { return session()->kernel(); }
    std::string buildFile() { return session()->snapshot()->buildPath.toStdString(); }

    bool waitForBuild() {
        QSignalSpy done(session(), &Workspace::buildFinished);
        if (!session()->isBuilding()) session()->build();
        return done.wait(180000);
    }

private slots:
    void initTestCase() {
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found()) QSKIP("nvcc or nvdisasm not found (run scripts/bootstrap)");
        m_w = testutil::makeTestWindow();
        QSignalSpy done(session(), &Workspace::buildFinished);
        QVERIFY(m_w->openFile(kernelPath()));
        QVERIFY(done.wait(180000));
        QVERIFY2(session()->snapshot(), qPrintable(session()->lastAttempt()->error));
        QVERIFY(kernel());
        QVERIFY(!kernel()->sass.instructions.empty());
        QCOMPARE(session()->buildStatus(), QStringLiteral("ok"));
    }

    void modelsPassTester() {
        // The tester checks the models as they are and on every later change.
        QAbstractItemModelTester t1(m_w->sassPane()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(m_w->ptxPane()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(m_w->resourcesPane()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t4(m_w->buildOutputPane()->diagnostics(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m_w->sassPane()->model()->rowCount(), int(kernel()->sass.instructions.size()));
        QCOMPARE(m_w->ptxPane()->model()->rowCount(), int(session()->snapshot()->model.ptx.lines.size()));
        m_w->resourcesPane()->blockSize()->setValue(128);
        m_w->selectSourceLine(34);
        session()->setAttribution(InlineAttribution::Callee);
        session()->setAttribution(InlineAttribution::CallSite);
        // Resources: registers as ptxas reported them, and an occupancy row.
        const ResourcesModel* rm = m_w->resourcesPane()->model();
        bool sawRegs = false;
        for (int i = 0; i < rm->rowCount(); ++i)
            if (rm->index(i, 0).data(ResourcesModel::KeyRole).toString() == QLatin1String("registers")) {
                sawRegs = true;
                QCOMPARE(rm->index(i, 1).data().toString(), QString::number(kernel()->resources.registers));
            }
        QVERIFY(sawRegs);
        QVERIFY(rm->occupancy().warpsPerSm > 0);
    }

    // The pressure strip shows one live-register class at a time, picked from the SASS table's
    // context menu: exactly the counts of the model, with the class's scale.
    void pressureStripFollowsRegisterClass() {
        auto* strip = m_w->findChild<PressureStrip*>();
        QVERIFY(strip);
        auto classAction = [&](const QString& text) -> QAction* {
            for (QAction* a : m_w->sassPane()->actions())
                if (a->text() == text) return a;
            return nullptr;
        };
        QAction* gpr = classAction(QStringLiteral("Pressure strip: live GPRs"));
        QAction* pred = classAction(QStringLiteral("Pressure strip: live predicates"));
        QAction* ugpr = classAction(QStringLiteral("Pressure strip: live uniform registers"));
        QVERIFY(gpr && pred && ugpr);
        QVERIFY(gpr->isChecked());
        auto counts = [&](int LiveCounts::*field) {
            std::vector<int> v;
            for (const auto& ins : kernel()->sass.instructions) v.push_back(ins.live.*field);
            return v;
        };
        QCOMPARE(strip->values(), counts(&LiveCounts::gpr));
        QCOMPARE(strip->scaleMax(), kernel()->resources.registers);
        pred->trigger();
        QVERIFY(pred->isChecked() && !gpr->isChecked());
        QCOMPARE(strip->values(), counts(&LiveCounts::pred));
        QCOMPARE(strip->unit(), QStringLiteral("predicates"));
        QCOMPARE(strip->scaleMax(), 7);
        QVERIFY(argMax(strip->values()) >= 0); // the reduction uses predicates: not all zero/unknown
        ugpr->trigger();
        QCOMPARE(strip->values(), counts(&LiveCounts::ugpr));
        QCOMPARE(strip->scaleMax(), 63);
        gpr->trigger();
        QCOMPARE(strip->values(), counts(&LiveCounts::gpr));
    }

    void sourceToPtxAndSass_data() {
        QTest::addColumn<int>("attribution");
        QTest::newRow("call site") << int(InlineAttribution::CallSite);
        QTest::newRow("callee") << int(InlineAttribution::Callee);
    }
    // Panes reach each other only through the workspace: the measure pane's launch shape and the
    // compare pane's per-line deltas are published there, and the source pane shows the deltas.
    // The experiment's File actions sit in the File menu before Quit.
    void panesPublishThroughTheWorkspace() {
        QSignalSpy shape(session(), &Workspace::launchShapeChanged);
        LaunchText launch;
        launch.block = {"16", "8"};
        launch.sharedBytes = "1024";
        m_w->measurePane()->setLaunch(launch);
        QVERIFY(!shape.isEmpty());
        QCOMPARE(session()->launchBlockThreads(), 128);
        QCOMPARE(session()->launchDynamicShared(), 1024);

        LineDelta d;
        d.source = {kernelPath().toStdString(), 34, 0};
        d.a.instructions = 4;
        d.b.instructions = 7;
        LineDelta other = d; // another file's line: not in this editor's margin
        other.source.file = "elsewhere.cu";
        other.source.line = 20;
        session()->setCompareLineDeltas({d, other});
        CodeEditor* ed = m_w->sourcePane()->editor();
        auto marginText = [ed](int line) {
            const long n = ed->SendScintilla(QsciScintilla::SCI_MARGINGETTEXT, (unsigned long)(line - 1), (const char*)nullptr);
            QByteArray text(int(n), '\0');
            ed->SendScintilla(QsciScintilla::SCI_MARGINGETTEXT, (unsigned long)(line - 1), text.data());
            return QString::fromUtf8(text);
        };
        // One margin holds the line cost and, after it, one compact delta (issue 17): Scintilla
        // shares margin text between text margins, so a second margin repeated and clipped it.
        const QString cost = marginText(34);
        QVERIFY2(cost.contains(QStringLiteral("+3i")), qPrintable(cost));
        QVERIFY2(cost.contains(QLatin1Char('R')) && cost.contains(QLatin1Char('S')), qPrintable(cost));
        QCOMPARE(cost.count(QStringLiteral("+3")), 1);
        QCOMPARE(m_w->sourcePane()->lineMarginText(34), cost);
        QVERIFY(!marginText(20).contains(QLatin1Char('+')));
        session()->setCompareLineDeltas({});
        QVERIFY(!marginText(34).contains(QStringLiteral("+3")));
        QVERIFY(marginText(34).contains(QLatin1Char('R'))); // the line cost stays

        QMenu* file = nullptr;
        for (QAction* a : m_w->menuBar()->actions())
            if (a->menu() && a->menu()->title() == QStringLiteral("&File")) file = a->menu();
        QVERIFY(file);
        int session = -1, quit = -1;
        const auto actions = file->actions();
        for (int i = 0; i < actions.size(); ++i) {
            if (actions[i]->text() == QStringLiteral("Open &session…")) session = i;
            if (actions[i]->shortcut() == QKeySequence(QKeySequence::Quit)) quit = i;
        }
        QVERIFY(session >= 0 && quit > session);
    }

    void sourceToPtxAndSass() {
        QFETCH(int, attribution);
        const auto attr = InlineAttribution(attribution);
        session()->setAttribution(attr);
        const Correlation& c = kernel()->correlation;
        int linesWithCode = 0;
        for (int line = 1; line <= m_w->sourcePane()->editor()->lines(); ++line) {
            m_w->selectSourceLine(line);
            const auto ptx = sorted(c.ptxLinesForSource(buildFile(), line, attr));
            const auto sass = sorted(c.sassForSource(buildFile(), line, attr));
            linesWithCode += !sass.empty();
            QCOMPARE(m_w->ptxPane()->model()->highlightedLines(), ptx);
            QCOMPARE(m_w->ptxPane()->editor()->highlightedLines(), ptx);
            QCOMPARE(sassHighlighted(m_w->sassPane()->model()), sass);
            QCOMPARE(m_w->sourcePane()->editor()->highlightedLines(), std::vector<int>{line});
        }
        QVERIFY(linesWithCode >= 5);
        // Attribution matters: the shuffle line inside warpReduceSum (7) has code only as callee.
        m_w->selectSourceLine(7);
        if (attr == InlineAttribution::Callee)
            QVERIFY(!sassHighlighted(m_w->sassPane()->model()).empty());
        else
            QVERIFY(sassHighlighted(m_w->sassPane()->model()).empty());
        session()->setAttribution(InlineAttribution::CallSite);
    }

    void sassToSourceAndPtx() {
        const Correlation& c = kernel()->correlation;
        QTableView* view = m_w->sassPane()->view();
        const SassModel* model = m_w->sassPane()->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            view->setCurrentIndex(model->index(row, SassModel::OpcodeColumn));
            const uint32_t addr = model->instruction(row)->address;
            const auto loc = c.sourceForSass(addr);
            int expected = 0;
            if (loc && loc->valid()) expected = loc->callSite().line;
            QCOMPARE(session()->selection().sourceLine, expected);
            QCOMPARE(m_w->sourcePane()->editor()->highlightedLines(),
                     expected ? std::vector<int>{expected} : std::vector<int>{});
            const int ptx = c.ptxLineForSass(addr);
            QCOMPARE(m_w->ptxPane()->model()->highlightedLines(), ptx ? std::vector<int>{ptx} : std::vector<int>{});
            QCOMPARE(sassHighlighted(model), std::vector<uint32_t>{addr});
            if (loc && !loc->inlinedAt.empty()) QVERIFY(m_w->infoLabel()->text().contains(QStringLiteral("inlined at")));
        }
    }

    void ptxToSourceAndSass() {
        const Correlation& c = kernel()->correlation;
        CodeEditor* ed = m_w->ptxPane()->editor();
        // Other panes may share the PTX pane's dock area as tabs: bring it to the front, as a user
        // would before clicking in it (QScintilla reports cursor moves only when it paints).
        m_w->pane(QStringLiteral("ptx"))->raise();
        QTRY_VERIFY(ed->isVisible());
        const PtxListing& ptx = session()->snapshot()->model.ptx;
        int checked = 0;
        for (const PtxLine& l : ptx.lines) {
            if (!l.isInstruction) continue;
            // Click the line, as a user would.
            ed->ensureLineVisibleCentered(l.line);
            const long pos = ed->SendScintilla(QsciScintilla::SCI_POSITIONFROMLINE, (unsigned long)(l.line - 1));
            const int y = int(ed->SendScintilla(QsciScintilla::SCI_POINTYFROMPOSITION, 0UL, pos));
            const int lh = int(ed->SendScintilla(QsciScintilla::SCI_TEXTHEIGHT, 0UL));
            QTest::mouseClick(ed->viewport(), Qt::LeftButton, {}, QPoint(ed->viewport()->width() / 2, y + lh / 2));
            QCOMPARE(session()->selection().focusPtxLine, l.line);
            const auto loc = c.sourceForPtx(l.line);
            const int expected = loc && loc->valid() ? loc->callSite().line : 0;
            QVERIFY2(session()->selection().sourceLine == expected,
                     qPrintable(QStringLiteral("PTX line %1 → %2, expected %3 (origin %4, focus %5)")
                                    .arg(l.line).arg(session()->selection().sourceLine).arg(expected)
                                    .arg(int(session()->selection().origin)).arg(session()->selection().focusPtxLine)));
            QCOMPARE(sassHighlighted(m_w->sassPane()->model()), sorted(c.sassForPtx(l.line)));
            QCOMPARE(m_w->ptxPane()->model()->highlightedLines(), std::vector<int>{l.line});
            ++checked;
        }
        QVERIFY(checked > 10);
    }

    void nextPreviousRun() {
        // Find a source line whose SASS is split into several runs.
        const SassModel* model = m_w->sassPane()->model();
        for (int line = 30; line <= 40; ++line) {
            m_w->selectSourceLine(line);
            const auto rows = model->highlightedRows();
            std::vector<int> starts;
            for (size_t i = 0; i < rows.size(); ++i)
                if (i == 0 || rows[i] != rows[i - 1] + 1) starts.push_back(rows[i]);
            if (starts.size() < 2) continue;
            QTableView* view = m_w->sassPane()->view();
            view->setCurrentIndex(QModelIndex());
            for (int s : starts) {
                QVERIFY(m_w->sassPane()->jumpToRun(+1));
                QCOMPARE(view->currentIndex().row(), s);
            }
            QVERIFY(m_w->sassPane()->jumpToRun(+1)); // wraps
            QCOMPARE(view->currentIndex().row(), starts.front());
            QVERIFY(m_w->sassPane()->jumpToRun(-1));
            QCOMPARE(view->currentIndex().row(), starts.back());
            // Jumping keeps the source line's selection.
            QCOMPARE(session()->selection().sourceLine, line);
            return;
        }
        QSKIP("no source line with several SASS runs in this build");
    }

    // The per-row source lines all panes share are the per-address lookup, under both
    // attributions; a rebuild reaches the SASS table and the CFG once (it is announced by
    // snapshotChanged and kernelChanged both).
    void sourceLinesAndOneReloadPerBuild() {
        for (auto attribution : {InlineAttribution::Callee, InlineAttribution::CallSite}) {
            session()->setAttribution(attribution);
            const std::vector<int>& lines = session()->sassSourceLines();
            QCOMPARE(lines.size(), kernel()->sass.instructions.size());
            int inFile = 0;
            for (size_t i = 0; i < lines.size(); ++i) {
                QCOMPARE(lines[i], session()->sourceLineForSass(kernel()->sass.instructions[i].address));
                QCOMPARE(m_w->sassPane()->model()->index(int(i), 0).data(SassModel::SourceLineRole).toInt(), lines[i]);
                inFile += lines[i] > 0;
            }
            QVERIFY(inFile > 0);
        }
        QSignalSpy resets(m_w->sassPane()->model(), &QAbstractItemModel::modelReset);
        const quint64 cfgJob = m_w->cfgView()->currentJob();
        QVERIFY(waitForBuild());
        QCOMPARE(resets.count(), 1);
        // One setKernel advances the layout job id twice (clearing drops the old job, then the
        // new layout starts); a second reload would have advanced it four times.
        QCOMPARE(m_w->cfgView()->currentJob(), cfgJob + 2);
    }

    void staleAfterEdit() {
        QVERIFY(!session()->isStale());
        QVERIFY(m_w->sassPane()->banner()->isHidden());
        CodeEditor* ed = m_w->sourcePane()->editor();
        ed->insertAt(QStringLiteral("// edited\n"), 0, 0);
        QVERIFY(session()->isStale());
        QVERIFY(m_w->sassPane()->banner()->isVisible());
        QVERIFY(m_w->ptxPane()->banner()->isVisible());
        QVERIFY(m_w->sassPane()->banner()->text().contains(QStringLiteral("edited")));
        QVERIFY(m_w->sassPane()->model()->isStale());
        QVERIFY(!m_w->staleLabel()->text().isEmpty());
        // Undo returns to the built text: no longer stale.
        ed->undo();
        QVERIFY(!session()->isStale());
        QVERIFY(m_w->sassPane()->banner()->isHidden());
    }

    void compileErrorAnnotatesLine() {
        CodeEditor* ed = m_w->sourcePane()->editor();
        const int rowsBefore = m_w->sassPane()->model()->rowCount();
        // Line 34 becomes an undeclared identifier.
        ed->setSelection(33, 0, 33, ed->text(33).size());
        ed->replaceSelectedText(QStringLiteral("        sum += undeclared_thing[i];\n"));
        QVERIFY(waitForBuild());
        QCOMPARE(session()->buildStatus(), QStringLiteral("failed"));
        const auto annotated = m_w->sourcePane()->annotatedLines();
        QVERIFY2(std::find(annotated.begin(), annotated.end(), 34) != annotated.end(),
                 qPrintable(QStringLiteral("annotated: %1").arg(annotated.size())));
        QVERIFY(ed->annotation(33).contains(QStringLiteral("undeclared_thing")));
        QVERIFY(m_w->buildOutputPane()->diagnostics()->rowCount() >= 1);
        // The last good listing stays, marked stale.
        QCOMPARE(m_w->sassPane()->model()->rowCount(), rowsBefore);
        QVERIFY(session()->isStale());
        QVERIFY(m_w->sassPane()->banner()->text().contains(QStringLiteral("failed")));
        const auto state = m_w->dumpState();
        QCOMPARE(QString::fromStdString(state["build"]["status"].get<std::string>()), QStringLiteral("failed"));
        // Fixing it clears the annotation.
        ed->undo();
        QVERIFY(waitForBuild());
        QCOMPARE(session()->buildStatus(), QStringLiteral("ok"));
        QVERIFY(m_w->sourcePane()->annotatedLines().empty());
        QVERIFY(!session()->isStale());
    }

    void stateDumpMatchesPanes() {
        m_w->selectSourceLine(34);
        const auto j = m_w->dumpState();
        const Correlation& c = kernel()->correlation;
        QCOMPARE(j["selectedLine"].get<int>(), 34);
        QCOMPARE(j["highlighted"]["ptxLines"].get<std::vector<int>>(),
                 sorted(c.ptxLinesForSource(buildFile(), 34, InlineAttribution::CallSite)));
        QCOMPARE(j["highlighted"]["sassAddresses"].get<std::vector<uint32_t>>(),
                 sorted(c.sassForSource(buildFile(), 34, InlineAttribution::CallSite)));
        const auto panes = j["visiblePanes"].get<std::vector<std::string>>();
        for (const char* p : {"source", "ptx", "sass", "output", "resources", "options"})
            QVERIFY2(std::find(panes.begin(), panes.end(), p) != panes.end(), p);
        QCOMPARE(QString::fromStdString(j["build"]["status"].get<std::string>()), QStringLiteral("ok"));
        const QString shot = m_tmp.filePath(QStringLiteral("shot.png"));
        QVERIFY(m_w->saveScreenshot(shot));
        QImage img(shot);
        QCOMPARE(img.size(), m_w->size() * m_w->devicePixelRatio());
    }

    void cleanupTestCase() { m_w.reset(); }
};

QTEST_MAIN(LinkingTest)
#include "test_views_linking.moc"
