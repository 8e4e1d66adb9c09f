// A CUDA engineer's first minutes, with real input events (issue 35): open a file through
// File → Open (Ctrl+O, the file name typed into the dialog), build (Ctrl+B), click a source line,
// compare (the toolbar's Compare with… button) and profile (the Profile button), each checked where a user would look.
// The runner is the real one over the project's fake driver and CUPTI; builds use the real
// toolchain (skips without it).
#include "window_fixture.h"
#include "views/code/code_editor.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/code/source_pane.h"
#include "views/common/build_job.h"
#include "views/common/workspace.h"
#include "views/compare/compare_panel.h"
#include "views/compare/diff_model.h"
#include "views/compare/diff_view.h"
#include "views/measure/measure_pane.h"
#include "views/measure/profile_pane.h"
#include "views/shell/main_window.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolBar>
#include <QtTest>

using namespace lowerscope;

class WalkthroughTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

    // The y of `line` (1-based) in the editor's viewport.
    static int lineY(CodeEditor* e, int line) {
        const long pos = e->positionFromLineIndex(line - 1, 0);
        return int(e->SendScintilla(QsciScintilla::SCI_POINTYFROMPOSITION, 0, pos)) + e->textHeight(line - 1) / 2;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        qputenv("LOWERSCOPE_CACHE_DIR", m_tmp.filePath(QStringLiteral("cache")).toLocal8Bit());
        qputenv("LOWERSCOPE_RUNNER", RUNNER_BIN);
        qputenv("LOWERSCOPE_LIBCUDA", FAKE_GPU);
        qputenv("LOWERSCOPE_LIBCUPTI", FAKE_GPU);
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found() || !tc.cuobjdump.found())
            QSKIP("the CUDA tools are not all found (run scripts/bootstrap)");
    }

    void openBuildClickCompareProfile() {
        const QString path = m_tmp.filePath(QStringLiteral("reduction.cu"));
        QVERIFY(QFile::copy(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/reduction.cu"), path));
        QFile::copy(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/reduction.json"), m_tmp.filePath(QStringLiteral("reduction.json")));
        MainWindow::Options o;
        o.useSettings = false;
        o.offerRecovery = false;
        MainWindow w(o);
        w.resize(1920, 1080);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        Workspace* ws = w.session();

        // Open: Ctrl+O, the name typed into the dialog, Enter.
        bool typed = false;
        QTimer dialogDriver;
        connect(&dialogDriver, &QTimer::timeout, [&] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (!dialog || typed) return;
            auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
            if (!name) return;
            typed = true;
            // The file name completer's popup would take the Enter key: typed without it.
            name->setCompleter(nullptr);
            // In the kernel's folder (where a user would have navigated), its name typed.
            dialog->setDirectory(QFileInfo(path).absolutePath());
            name->setFocus();
            QTest::keyClicks(name, QFileInfo(path).fileName());
            QTest::keyClick(name, Qt::Key_Return);
            // Should the dialog still be open (a name it did not take), close it so the test fails
            // instead of hanging.
            QTimer::singleShot(2000, dialog, [dialog] { dialog->reject(); });
        });
        dialogDriver.start(50);
        QSignalSpy built(ws, &Workspace::buildFinished);
        QTest::keyClick(&w, Qt::Key_O, Qt::ControlModifier);
        dialogDriver.stop();
        QVERIFY(typed);
        QCOMPARE(QFileInfo(ws->sourcePath()).canonicalFilePath(), QFileInfo(path).canonicalFilePath());

        // Build: Ctrl+B (the open started one already; this one is the user's).
        QTest::keyClick(&w, Qt::Key_B, Qt::ControlModifier);
        QVERIFY(testutil::waitForBuilds(ws));
        QVERIFY(w.sassPane()->model()->rowCount() > 0);

        // Click line 34 (the reduction's loop) in the Source pane: its PTX and SASS light up.
        CodeEditor* editor = w.sourcePane()->editor();
        editor->ensureLineVisible(33);
        QTest::qWait(50);
        QTest::mouseClick(editor->viewport(), Qt::LeftButton, {}, QPoint(editor->viewport()->width() / 2, lineY(editor, 34)));
        QTRY_COMPARE(ws->selection().sourceLine, 34);
        QVERIFY(!ws->selection().sassAddresses.empty());
        QVERIFY(!ws->selection().ptxLines.empty());
        QVERIFY(w.infoLabel()->text().startsWith(QStringLiteral("line 34")));

        // Compare: the toolbar's "Compare with…" button; B builds and the aligned diff is the main
        // view, with room for rows.
        QToolBar* toolbar = w.findChild<QToolBar*>(QStringLiteral("toolbar.build"));
        QVERIFY(toolbar);
        QWidget* compareButton = toolbar->widgetForAction(w.compareAction());
        QVERIFY(compareButton);
        QTest::mouseClick(compareButton, Qt::LeftButton);
        QVERIFY(w.compareMode());
        Workspace* b = w.comparePanel()->sessionB();
        QVERIFY(testutil::waitForBuilds(b));
        QDockWidget* cmp = w.findChild<QDockWidget*>(QStringLiteral("pane.compare"));
        QVERIFY(cmp);
        QCOMPARE(w.dockWidgetArea(cmp), Qt::TopDockWidgetArea);
        QTRY_VERIFY(!cmp->visibleRegion().isEmpty());
        QTableView* diff = w.comparePanel()->diffView()->diffTable();
        QTRY_VERIFY(diff->model()->rowCount() > 20);
        const int rowsInView = diff->viewport()->height() / std::max(1, diff->verticalHeader()->defaultSectionSize());
        QVERIFY2(rowsInView >= 20, qPrintable(QString::number(rowsInView)));

        // Profile: the Profile button, through the runner (fake GPU): counts on the SASS rows.
        QDockWidget* prof = w.findChild<QDockWidget*>(QStringLiteral("pane.profile"));
        QVERIFY(prof);
        prof->show();
        prof->raise();
        ProfilePane* pane = w.profilePane();
        QTRY_VERIFY_WITH_TIMEOUT(pane->profileButton()->isEnabled(), 60000);
        QSignalSpy finished(pane, &ProfilePane::jobFinished);
        QTest::mouseClick(pane->profileButton(), Qt::LeftButton);
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.front().at(1).toBool(), qPrintable(pane->statusLabel()->text()));
        QVERIFY(!w.sassPane()->view()->isColumnHidden(SassModel::ExecutedColumn));
    }
};

QTEST_MAIN(WalkthroughTest)
#include "test_walkthrough.moc"
