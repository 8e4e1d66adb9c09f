// The GUI on every input kind (issue 16): a Triton cache, a shared library, a cubin without line
// info, PTX beside its source, a project's compile database and an arch list, opened through
// MainWindow::openFile / openProject as a user would, checked in the panes: SASS rows, the source
// the line info names (read-only), SASS → source linking, the Input box and the options' origins.
// Inputs are made with the real toolchain; skips when it is missing.
#include "window_fixture.h"
#include "views/common/build_job.h"
#include "views/build/build_options_pane.h"
#include "views/code/code_editor.h"
#include "views/shell/main_window.h"
#include "views/code/ptx_model.h"
#include "views/code/ptx_pane.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/code/source_pane.h"
#include "views/common/workspace.h"

#include "core/build/process.h"

#include <QComboBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

using namespace lowerscope;

class InputsTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::unique_ptr<MainWindow> m_w;

    Workspace* ws() { return m_w->session(); }

    // Waits for the build that an open / a variant switch started; true when it succeeded.
    bool waitForBuild() { return testutil::waitForBuilds(ws()); }
    QString lastError() { return ws()->lastAttempt() ? ws()->lastAttempt()->error : QStringLiteral("no build"); }

    bool openAndBuild(const QString& path) {
        QSignalSpy done(ws(), &Workspace::buildFinished);
        if (!m_w->openFile(path)) return false;
        return waitForBuild();
    }

    static bool tool(const std::vector<std::string>& argv) {
        ProcessSpec s;
        s.argv = argv;
        s.timeout = std::chrono::seconds(180);
        const ProcessResult r = runProcess(s);
        if (!r.ok()) qWarning("%s: %s", argv[0].c_str(), r.stderrText.c_str());
        return r.ok();
    }

    // The source line the first SASS instruction with line info links to (0 when none).
    int linkedSourceLine() {
        const KernelModel* k = ws()->kernel();
        if (!k) return 0;
        for (const auto& i : k->sass.instructions) {
            if (!i.source.valid()) continue;
            ws()->selectSassAddress(i.address);
            if (ws()->selection().sourceLine > 0) return ws()->selection().sourceLine;
        }
        return 0;
    }

    int sassRows() { return m_w->sassPane()->model()->rowCount(); }

    // A copy of kernels/NAME in the test's folder (its path; "" when it could not be made).
    std::string copyKernel(const QString& name) {
        const QString to = m_tmp.filePath(name);
        if (!QFile::exists(to) && !QFile::copy(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/") + name, to)) return {};
        return to.toStdString();
    }

private slots:
    void initTestCase() {
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        qputenv("LOWERSCOPE_CACHE_DIR", m_tmp.filePath(QStringLiteral("cache")).toLocal8Bit());
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found() || !tc.ptxas.found() || !tc.cuobjdump.found())
            QSKIP("the CUDA tools are not all found (run scripts/bootstrap)");
        m_w = testutil::makeTestWindow();
    }

    void tritonCacheShowsPythonSource() {
        const QString root = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/triton/cache");
        QVERIFY2(openAndBuild(root), qPrintable(lastError()));
        QCOMPARE(QFileInfo(ws()->sourcePath()).fileName(), QStringLiteral("kernels.py"));
        QVERIFY(ws()->text().contains(QStringLiteral("def add_kernel")));
        QVERIFY(m_w->sourcePane()->editor()->isReadOnly());
        QVERIFY(sassRows() > 0);
        QCOMPARE(QString::fromStdString(ws()->kernel()->name), QStringLiteral("add_kernel"));
        const int line = linkedSourceLine();
        QVERIFY(line > 0);
        QVERIFY(ws()->text().split(QLatin1Char('\n')).size() >= line);
        // The Input box lists the cache's kernels; picking one shows it.
        QComboBox* variants = m_w->buildOptionsPane()->variantCombo();
        QCOMPARE(variants->count(), 2);
        QVERIFY(variants->itemText(1).contains(QStringLiteral("softmax_kernel")));
        QSignalSpy done(ws(), &Workspace::buildFinished);
        ws()->setVariant(variants->itemData(1).toString());
        QVERIFY2(waitForBuild(), qPrintable(lastError()));
        QCOMPARE(QString::fromStdString(ws()->kernel()->name), QStringLiteral("softmax_kernel"));
        QCOMPARE(ws()->snapshot()->result.kernels.front().launchThreads, 256);
    }

    void sharedLibraryMembersAndSource() {
        const QString so = m_tmp.filePath(QStringLiteral("libk.so"));
        // The sources beside the library: line info may lead only into the input's folder.
        const std::string saxpy = copyKernel(QStringLiteral("saxpy.cu")), reduction = copyKernel(QStringLiteral("reduction.cu"));
        QVERIFY(!saxpy.empty() && !reduction.empty());
        QVERIFY(tool({cachedToolchain().nvcc.path, "-shared", "-Xcompiler", "-fPIC", "-lineinfo", "-gencode",
                      "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90", "-o", so.toStdString(),
                      saxpy, reduction}));
        QVERIFY2(openAndBuild(so), qPrintable(lastError()));
        QVERIFY(ws()->isInputMode());
        QVERIFY(m_w->buildOptionsPane()->inputLabel()->text().contains(QStringLiteral("shared-library")));
        QVERIFY(m_w->buildOptionsPane()->variantCombo()->count() >= 4);
        QCOMPARE(QFileInfo(ws()->sourcePath()).fileName(), QStringLiteral("saxpy.cu"));
        QVERIFY(sassRows() > 0);
        QVERIFY(m_w->ptxPane()->model()->rowCount() > 0); // the cubin's PTX came back
        QVERIFY(linkedSourceLine() > 0);
        ws()->setVariant(QStringLiteral("reduction.sm_80.cubin"));
        QVERIFY2(waitForBuild(), qPrintable(lastError()));
        QCOMPARE(QString::fromStdString(ws()->snapshot()->result.arch), QStringLiteral("sm_80"));
        QCOMPARE(QFileInfo(ws()->sourcePath()).fileName(), QStringLiteral("reduction.cu"));
    }

    void cubinWithoutLineInfo() {
        const QString cubin = m_tmp.filePath(QStringLiteral("plain.cubin"));
        QVERIFY(tool({cachedToolchain().nvcc.path, "-arch=sm_90", "-cubin", "-o", cubin.toStdString(),
                      LOWERSCOPE_SOURCE_DIR "/kernels/saxpy.cu"}));
        QVERIFY2(openAndBuild(cubin), qPrintable(lastError()));
        QVERIFY(sassRows() > 0);
        QVERIFY(!ws()->kernel()->cfg.blocks.empty());
        QCOMPARE(ws()->snapshot()->shownSource, QString()); // nothing to link: SASS alone
    }

    void ptxBesideItsSource() {
        const QString ptx = m_tmp.filePath(QStringLiteral("saxpy.ptx"));
        const std::string saxpy = copyKernel(QStringLiteral("saxpy.cu"));
        QVERIFY(!saxpy.empty());
        QVERIFY(tool({cachedToolchain().nvcc.path, "-arch=sm_80", "-lineinfo", "-ptx", "-o", ptx.toStdString(), saxpy}));
        QVERIFY2(openAndBuild(ptx), qPrintable(lastError()));
        QCOMPARE(QString::fromStdString(ws()->snapshot()->result.arch), QStringLiteral("sm_80")); // its .target
        QCOMPARE(QFileInfo(ws()->sourcePath()).fileName(), QStringLiteral("saxpy.cu"));
        QVERIFY(linkedSourceLine() > 0);
        // PTX → SASS through -gp.
        const KernelModel* k = ws()->kernel();
        int ptxLine = 0;
        for (const auto& i : k->sass.instructions)
            if (i.ptxLine > 0) ptxLine = i.ptxLine;
        QVERIFY(ptxLine > 0);
        ws()->selectPtxLine(ptxLine);
        QVERIFY(!ws()->selection().sassAddresses.empty());
    }

    void projectOptionsAreMarkedAndBuildEachArch() {
        QDir root(m_tmp.filePath(QStringLiteral("proj")));
        QVERIFY(root.mkpath(QStringLiteral("include")) && root.mkpath(QStringLiteral("src")) &&
                root.mkpath(QStringLiteral("build")));
        auto write = [&](const QString& rel, const QByteArray& text) {
            QFile f(root.filePath(rel));
            return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
        };
        QVERIFY(write(QStringLiteral("include/params.h"), "#ifndef SCALE\n#error SCALE\n#endif\n"));
        QVERIFY(write(QStringLiteral("src/k.cu"), "#include \"params.h\"\n"
                                                  "__global__ void scale(float* p) { p[threadIdx.x] *= SCALE; }\n"));
        const QByteArray db = "[{\"directory\": \"" + root.filePath(QStringLiteral("build")).toUtf8() +
                              "\", \"file\": \"../src/k.cu\", \"command\": \"nvcc -I../include -DSCALE=2.0f "
                              "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 "
                              "-Xcompiler -fPIC -c ../src/k.cu -o k.o\"}]";
        QVERIFY(write(QStringLiteral("build/compile_commands.json"), db));
        QVERIFY(m_w->openFile(root.filePath(QStringLiteral("src/k.cu"))));
        QVERIFY(!waitForBuild()); // without the project: SCALE is missing
        QString error;
        QVERIFY2(m_w->openProject(root.filePath(QStringLiteral("build")), &error), qPrintable(error));
        QVERIFY2(waitForBuild(), qPrintable(lastError()));
        BuildOptionsPane* pane = m_w->buildOptionsPane();
        QCOMPARE(pane->originOf(QStringLiteral("defines")), QStringLiteral("project"));
        QCOMPARE(pane->originOf(QStringLiteral("include_dirs")), QStringLiteral("project"));
        QCOMPARE(pane->originOf(QStringLiteral("fast_math")), QString());
        QVERIFY(pane->inputLabel()->text().contains(QStringLiteral("compile_commands.json")));
        // The project builds sm_80 and sm_90: the Input box switches between them.
        QCOMPARE(pane->variantCombo()->count(), 2);
        QCOMPARE(ws()->variant(), QStringLiteral("sm_80"));
        ws()->setVariant(QStringLiteral("sm_90"));
        QVERIFY2(waitForBuild(), qPrintable(lastError()));
        QCOMPARE(QString::fromStdString(ws()->snapshot()->result.arch), QStringLiteral("sm_90"));
        // A user change of a project option is marked as such.
        BuildOptions o = ws()->options();
        o.defines.push_back("EXTRA=1");
        ws()->setOptions(o);
        QCOMPARE(pane->originOf(QStringLiteral("defines")), QStringLiteral("changed"));
        // A database without the file is refused with the reason.
        QVERIFY(m_w->openFile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/saxpy.cu")));
        QVERIFY(!m_w->openProject(root.filePath(QStringLiteral("build")), &error));
        QVERIFY2(error.contains(QStringLiteral("has no entry for saxpy.cu")), qPrintable(error));
        waitForBuild();
    }
};

QTEST_MAIN(InputsTest)
#include "test_views_inputs.moc"
