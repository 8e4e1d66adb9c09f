// Real kernels as they are written (issue 12), opened through MainWindow as a user would and built
// with the real toolchain (skips when nvcc/nvdisasm are missing): `__launch_bounds__` in the
// resources and measure panes; SASS and PTX selections that follow the source line across a
// rebuild that shifts every address; a templated kernel family defined in headers, whose headers
// the Source pane opens at the line of the SASS row clicked.
#include "window_fixture.h"
#include "views/code/code_editor.h"
#include "views/shell/main_window.h"
#include "views/measure/measure_pane.h"
#include "views/code/ptx_pane.h"
#include "views/build/resources_model.h"
#include "views/build/resources_pane.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/code/source_pane.h"
#include "views/common/workspace.h"

#include "core/analysis/occupancy.h"

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <set>

using namespace lowerscope;

namespace {

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class RealKernelsTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::unique_ptr<MainWindow> m_w;

    Workspace* ws() { return m_w->session(); }

    QString write(const QString& name, const QByteArray& text) { return testutil::writeFile(m_tmp, name, text); }

    // Waits for the build that an open / a rebuild started; true when it succeeded.
    bool waitForBuild() { return testutil::waitForBuilds(ws()) && ws()->kernel(); }

    bool openAndBuild(const QString& path) {
        QSignalSpy done(ws(), &Workspace::buildFinished);
        if (!m_w->openFile(path)) return false;
        if (ws()->isBuilding() || done.count() == 0) return waitForBuild();
        return ws()->lastAttempt() && ws()->lastAttempt()->ok() && ws()->kernel();
    }

    // The text of the resources pane's row with `key` ("" when there is none).
    QString resourceRow(const char* key) {
        const ResourcesModel* rm = m_w->resourcesPane()->model();
        for (int i = 0; i < rm->rowCount(); ++i)
            if (rm->index(i, 0).data(ResourcesModel::KeyRole).toString() == QLatin1String(key))
                return rm->index(i, 1).data().toString();
        return {};
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found()) QSKIP("nvcc or nvdisasm not found (run scripts/bootstrap)");
        m_w = testutil::makeTestWindow();
    }

    // A kernel compiled with __launch_bounds__(128) and no launch sidecar: the resources pane
    // takes 128 threads from .maxntid (and says so), computes the occupancy at 128 threads, and
    // calls a larger block invalid; the measure pane's default launch uses 128 threads too.
    void launchBoundsGiveTheBlockSize() {
        const QString path = write(QStringLiteral("bounded.cu"),
                                   "__global__ void __launch_bounds__(128) bounded(float* p, int n)\n"
                                   "{\n"
                                   "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    if (i < n) p[i] = p[i] * 2.0f + 1.0f;\n"
                                   "}\n");
        QVERIFY(!path.isEmpty());
        QVERIFY(openAndBuild(path));
        const KernelModel* k = ws()->kernel();
        const auto& functions = ws()->snapshot()->model.ptx.functions;
        QVERIFY(k->ptxFunction >= 0 && size_t(k->ptxFunction) < functions.size());
        const PtxLaunchBounds bounds = functions[size_t(k->ptxFunction)].launchBounds;
        QCOMPARE(bounds.maxThreads(), 128);

        ResourcesPane* rp = m_w->resourcesPane();
        QCOMPARE(rp->blockSize()->value(), 128);
        QVERIFY2(resourceRow("block_size").contains(QLatin1String("__launch_bounds__")), qPrintable(resourceRow("block_size")));
        QVERIFY2(resourceRow("launch_bounds").contains(QLatin1String("at most 128 threads")),
                 qPrintable(resourceRow("launch_bounds")));
        // The occupancy is the calculator's at 128 threads: on sm_90 a 4-warp block fits 16 times
        // in 64 warps (its few registers and no shared memory allow more), where the 256-thread
        // default would have said 8 blocks.
        const std::string arch = ws()->snapshot()->model.arch;
        const TheoreticalOccupancy want =
            computeOccupancy(archLimits(arch), k->resources.registers, std::max(k->resources.sharedBytes, 0), 128, &bounds);
        const TheoreticalOccupancy& shown = rp->model()->occupancy();
        QCOMPARE(shown.blocksPerSm, want.blocksPerSm);
        QCOMPARE(shown.warpsPerSm, want.warpsPerSm);
        QCOMPARE(shown.occupancy, want.occupancy);
        if (arch == "sm_90") QCOMPARE(shown.blocksPerSm, 16);
        QVERIFY(shown.blocksPerSm != computeOccupancy(archLimits(arch), k->resources.registers, 0, 256).blocksPerSm);
        // A block the bounds forbid cannot launch: the pane says so instead of a figure.
        rp->blockSize()->setValue(256);
        QCOMPARE(rp->model()->occupancy().limiter, OccupancyLimiter::Invalid);
        QVERIFY(resourceRow("occupancy").contains(QLatin1String("__launch_bounds__")));
        QVERIFY(resourceRow("block_size").contains(QLatin1String("chosen here")));

        // The measure pane's launch defaults: 128 threads, a grid that still covers the buffers.
        MeasurePane* mp = m_w->measurePane();
        mp->prefill();
        QCOMPARE(mp->launch().block, std::vector<std::string>{"128"});
        QCOMPARE(mp->launch().grid, std::vector<std::string>{std::to_string((1 << 20) / 128)});
        QVERIFY2(mp->prefillOrigin().contains(QLatin1String("__launch_bounds__")), qPrintable(mp->prefillOrigin()));
    }

    // A SASS selection is carried over by source position: after a rebuild that moves the code,
    // the same instruction of the same line is selected, not whatever is at the old address.
    void sassSelectionFollowsTheSourceLineAcrossARebuild() {
        // tests/data/rebuild/shifted.cu: -DEXTRA adds code above the rest of the kernel, so every later
        // address and PTX line moves while the source lines stay where they are.
        QFile shifted(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/rebuild/shifted.cu"));
        QVERIFY(shifted.open(QIODevice::ReadOnly));
        const QString path = write(QStringLiteral("shifted.cu"), shifted.readAll());
        QVERIFY(openAndBuild(path));
        ws()->setAttribution(InlineAttribution::CallSite);
        const KernelModel* before = ws()->kernel();
        // The store of line 12 (`out[i] = v + 2.0f;`), chosen in the SASS pane as a user would.
        int row = -1;
        for (size_t i = 0; i < before->sass.instructions.size(); ++i)
            if (before->sass.instructions[i].mnemonic == "STG" && before->sass.instructions[i].source.line == 12) row = int(i);
        QVERIFY(row >= 0);
        const SassInstruction chosen = before->sass.instructions[size_t(row)];
        QTableView* view = m_w->sassPane()->view();
        view->setCurrentIndex(m_w->sassPane()->model()->index(row, SassModel::OpcodeColumn));
        QCOMPARE(ws()->selection().focusSassAddress, std::optional<uint32_t>(chosen.address));
        QCOMPARE(ws()->selection().sourceLine, 12);

        BuildOptions o = ws()->options();
        o.defines = {"EXTRA"};
        ws()->setOptions(o);
        QVERIFY(waitForBuild());
        const KernelModel* after = ws()->kernel();
        QVERIFY(after != before);
        const Selection& sel = ws()->selection();
        QVERIFY(sel.focusSassAddress.has_value());
        const int at = after->sass.indexOf(*sel.focusSassAddress);
        QVERIFY(at >= 0);
        const SassInstruction& now = after->sass.instructions[size_t(at)];
        QCOMPARE(now.mnemonic, chosen.mnemonic);
        QCOMPARE(now.source.line, 12);
        QVERIFY2(now.address != chosen.address, "the define was meant to move the code");
        QCOMPARE(sel.sourceLine, 12);
        // The address alone would have landed elsewhere.
        const int old = after->sass.indexOf(chosen.address);
        QVERIFY(old < 0 || after->sass.instructions[size_t(old)].mnemonic != "STG" ||
                after->sass.instructions[size_t(old)].source.line != 12);
        // The SASS pane's current row is the carried-over instruction.
        const SassModel* m = m_w->sassPane()->model();
        QVERIFY(m->index(at, 0).data(SassModel::CurrentRole).toBool());
    }

    // The same for a PTX line: the next build's PTX line of the same source position.
    void ptxSelectionFollowsTheSourceLineAcrossARebuild() {
        QVERIFY(ws()->snapshot());
        const PtxListing& ptx = ws()->snapshot()->model.ptx; // built with -DEXTRA (previous test)
        int chosen = 0;
        for (const PtxLine& l : ptx.lines)
            if (l.isInstruction && l.source && l.source->line == 12 && l.text.find("st.global") != std::string::npos)
                chosen = l.line;
        QVERIFY(chosen > 0);
        const std::string text = ptx.lines[size_t(chosen - 1)].text;
        ws()->selectPtxLine(chosen);
        BuildOptions o = ws()->options();
        o.defines.clear();
        ws()->setOptions(o);
        QVERIFY(waitForBuild());
        const PtxListing& now = ws()->snapshot()->model.ptx;
        const int line = ws()->selection().focusPtxLine;
        QVERIFY(line > 0 && size_t(line) <= now.lines.size());
        QVERIFY(line != chosen);
        // The same store (its register numbers may differ between the builds).
        QVERIFY2(now.lines[size_t(line - 1)].text.find("st.global") != std::string::npos, text.c_str());
        QVERIFY(now.lines[size_t(line - 1)].source.has_value());
        QCOMPARE(now.lines[size_t(line - 1)].source->line, 12);
        QCOMPARE(m_w->ptxPane()->editor()->highlightedLines(), std::vector<int>{line});
    }

    // A templated kernel family defined in headers (tests/data/src/header_family*): the Source pane
    // offers the headers, the SASS Line column names them, a SASS click opens the header at the
    // line, a click in the header selects its code, in every attribution.
    void headerKernelsShowTheirHeaders() {
        const QString cu = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/src/header_family.cu");
        const QString gemmPath = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/src/header_family_gemm.cuh");
        const QString mathPath = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/src/header_family_math.cuh");
        QVERIFY(openAndBuild(cu));
        ws()->setAttribution(InlineAttribution::CallSite);
        // The files: the document, then both headers.
        const auto files = ws()->sourceFiles();
        QCOMPARE(files.size(), size_t(3));
        QVERIFY(files[0].main);
        std::string gemm, math;
        for (const auto& f : files) {
            if (f.path.endsWith(QLatin1String("header_family_gemm.cuh"))) gemm = f.recorded;
            if (f.path.endsWith(QLatin1String("header_family_math.cuh"))) math = f.recorded;
        }
        QVERIFY(!gemm.empty() && !math.empty());
        SourcePane* sp = m_w->sourcePane();
        m_w->pane(QStringLiteral("source"))->raise();
        QCOMPARE(sp->fileSelector()->count(), 3);
        QVERIFY(sp->fileSelector()->isVisible());

        // The SASS Line column: every row with line info names its header line (call site).
        const KernelModel* k = ws()->kernel();
        const SassModel* m = m_w->sassPane()->model();
        int named = 0, ffmaRow = -1;
        for (int row = 0; row < m->rowCount(); ++row) {
            const SassInstruction& ins = k->sass.instructions[size_t(row)];
            const QString shown = m->index(row, SassModel::SourceLineColumn).data().toString();
            if (!ins.source.valid()) {
                QVERIFY(shown.isEmpty());
                continue;
            }
            const SourceFrame site = ins.source.callSite();
            QCOMPARE(shown, QStringLiteral("header_family_gemm.cuh:%1").arg(site.line));
            ++named;
            if (ins.mnemonic == "FFMA" && ins.source.line == 7 && ffmaRow < 0) ffmaRow = row;
        }
        QVERIFY(named > 10);
        QVERIFY(ffmaRow >= 0);

        // Clicking the FFMA (inlined from math.cuh:7 through math.cuh:16 at gemm.cuh:18) opens
        // the kernel's header at the call site.
        QTableView* view = m_w->sassPane()->view();
        view->setCurrentIndex(m->index(ffmaRow, SassModel::OpcodeColumn));
        QCOMPARE(sp->shownFile(), gemm);
        QTRY_VERIFY(sp->headerEditor()->isVisible());
        QCOMPARE(sp->headerEditor()->text(), readAll(gemmPath));
        QVERIFY(!sp->headerEditor()->isReadOnly()); // the user's header: editable (the toolkit's are not)
        QCOMPARE(sp->headerEditor()->highlightedLines(), std::vector<int>{18});
        int line = 0, index = 0;
        sp->headerEditor()->getCursorPosition(&line, &index);
        QCOMPARE(line + 1, 18);
        QCOMPARE(sp->fileSelector()->currentData().toString().toStdString(), gemm);
        // The header has its per-line costs like the document ("R<max live> S<stall sum>").
        QVERIFY2(sp->headerMarginText(18).contains(QLatin1Char('R')), qPrintable(sp->headerMarginText(18)));
        QVERIFY(sp->headerMarginText(2).trimmed().isEmpty()); // a comment line has no code

        // Callee attribution: the same row is math.cuh:7; the Line column says so.
        ws()->setAttribution(InlineAttribution::Callee);
        QCOMPARE(m->index(ffmaRow, SassModel::SourceLineColumn).data().toString(), QStringLiteral("header_family_math.cuh:7"));
        view->setCurrentIndex(m->index(ffmaRow, SassModel::AddressColumn));
        QCOMPARE(sp->shownFile(), math);
        QCOMPARE(sp->headerEditor()->text(), readAll(mathPath));
        QCOMPARE(sp->headerEditor()->highlightedLines(), std::vector<int>{7});

        // A click in the header selects that line's code: math.cuh:7 as callee.
        CodeEditor* ed = sp->headerEditor();
        auto clickLine = [ed](int l) {
            ed->ensureLineVisibleCentered(l);
            const long pos = ed->SendScintilla(QsciScintilla::SCI_POSITIONFROMLINE, (unsigned long)(l - 1));
            const int y = int(ed->SendScintilla(QsciScintilla::SCI_POINTYFROMPOSITION, 0UL, pos));
            const int lh = int(ed->SendScintilla(QsciScintilla::SCI_TEXTHEIGHT, 0UL));
            QTest::mouseClick(ed->viewport(), Qt::LeftButton, {}, QPoint(ed->viewport()->width() / 2, y + lh / 2));
        };
        clickLine(1); // the caret is on line 7 already: a click there would not move it
        QCOMPARE(ws()->selection().fileLine, 1);
        QVERIFY(ws()->selection().sassAddresses.empty()); // a comment
        clickLine(7);
        const Correlation& c = k->correlation;
        QCOMPARE(ws()->selection().sourceFile, math);
        QCOMPARE(ws()->selection().fileLine, 7);
        const auto callee7 = c.sassForSource(math, 7, InlineAttribution::Callee);
        QVERIFY(!callee7.empty());
        QCOMPARE(ws()->selection().sassAddresses, callee7);
        std::vector<uint32_t> highlighted;
        for (int row : m->highlightedRows()) highlighted.push_back(m->instruction(row)->address);
        QCOMPARE(highlighted, callee7);
        QVERIFY(sp->headerMarginText(7).contains(QLatin1Char('R')));
        // The middle frame, math.cuh:16: nothing as callee beyond the loop's own code, the
        // multiply-adds of line 7 too under "any frame".
        ws()->setAttribution(InlineAttribution::AnyFrame);
        clickLine(16);
        const auto any16 = ws()->selection().sassAddresses;
        QCOMPARE(any16, c.sassForSource(math, 16, InlineAttribution::AnyFrame));
        QVERIFY(std::includes(any16.begin(), any16.end(), callee7.begin(), callee7.end()));
        QVERIFY(any16.size() > c.sassForSource(math, 16, InlineAttribution::Callee).size());

        // The file selector brings the document back; a SASS click on a header line reopens it.
        sp->fileSelector()->setCurrentIndex(0);
        emit sp->fileSelector()->activated(0);
        QVERIFY(sp->shownFile().empty());
        QTRY_VERIFY(sp->editor()->isVisible());
        ws()->setAttribution(InlineAttribution::CallSite);
        view->setCurrentIndex(m->index(ffmaRow, SassModel::OperandsColumn));
        QCOMPARE(sp->shownFile(), gemm);

        // The automation's `--select-line header_family_math.cuh:16` (a unique file name): the
        // header opens at the line and the line is selected, not the caret's first line.
        ws()->setAttribution(InlineAttribution::AnyFrame);
        QString error;
        QVERIFY2(m_w->selectSourceLineIn(QStringLiteral("header_family_math.cuh"), 16, &error), qPrintable(error));
        QCOMPARE(sp->shownFile(), math);
        QCOMPARE(ws()->selection().sourceFile, math);
        QCOMPARE(ws()->selection().fileLine, 16);
        QVERIFY(!ws()->selection().sassAddresses.empty());
        QCOMPARE(ws()->selection().sassAddresses, c.sassForSource(math, 16, InlineAttribution::AnyFrame));
        QCOMPARE(sp->headerEditor()->highlightedLines(), std::vector<int>{16});
        QVERIFY(!m_w->selectSourceLineIn(QStringLiteral("nosuch.cuh"), 3, &error));
        QVERIFY2(error.contains(QLatin1String("header_family_gemm.cuh")), qPrintable(error)); // lists the files
    }
    // __half arithmetic: __hfma and __hmul are written in the toolkit's cuda_fp16.hpp and inlined
    // into the kernel. The Source pane offers that header, marked as the toolkit's and read-only,
    // only because it lies under the include folder of the nvcc that built; a SASS click whose
    // (callee) line is in it opens it there.
    void toolkitHeadersOpenReadOnly() {
        const QString cu = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/headers/half_toolkit.cu");
        QVERIFY(openAndBuild(cu));
        const SourceContext& sources = ws()->snapshot()->sources;
        QVERIFY(!sources.toolkitIncludeDirs.empty());
        ShownSourceFile fp16;
        for (const auto& f : ws()->sourceFiles()) {
            if (f.main) continue;
            // Every header offered here is the toolkit's, inside one of its include folders.
            QVERIFY2(f.toolkit, qPrintable(f.path));
            bool inside = false;
            for (const auto& dir : sources.toolkitIncludeDirs)
                inside = inside || f.path.startsWith(QString::fromStdString(dir) + QLatin1Char('/'));
            QVERIFY2(inside, qPrintable(f.path));
            if (f.label == QLatin1String("cuda_fp16.hpp")) fp16 = f;
        }
        QVERIFY(!fp16.recorded.empty());
        SourcePane* sp = m_w->sourcePane();
        m_w->pane(QStringLiteral("source"))->raise();
        QVERIFY(sp->fileSelector()->isVisible());
        const int item = sp->fileSelector()->findData(QString::fromStdString(fp16.recorded));
        QVERIFY(item > 0);
        QCOMPARE(sp->fileSelector()->itemText(item), QStringLiteral("cuda_fp16.hpp (toolkit, read-only)"));

        // Callee attribution: the half-precision FMA's row is a line of cuda_fp16.hpp.
        ws()->setAttribution(InlineAttribution::Callee);
        const KernelModel* k = ws()->kernel();
        const SassModel* m = m_w->sassPane()->model();
        int row = -1, line = 0;
        for (int r = 0; r < m->rowCount() && row < 0; ++r) {
            const SourceLoc& loc = k->sass.instructions[size_t(r)].source;
            if (loc.valid() && loc.file == fp16.recorded && k->sass.instructions[size_t(r)].mnemonic.rfind("HFMA2", 0) == 0) {
                row = r;
                line = loc.line;
            }
        }
        QVERIFY2(row >= 0, "no HFMA2 written in cuda_fp16.hpp");
        QCOMPARE(m->index(row, SassModel::SourceLineColumn).data().toString(), QStringLiteral("cuda_fp16.hpp:%1").arg(line));
        m_w->sassPane()->view()->setCurrentIndex(m->index(row, SassModel::OpcodeColumn));
        QCOMPARE(sp->shownFile(), fp16.recorded);
        QTRY_VERIFY(sp->headerEditor()->isVisible());
        QCOMPARE(sp->headerEditor()->text(), readAll(fp16.path));
        QVERIFY(sp->headerEditor()->isReadOnly());
        QCOMPARE(sp->headerEditor()->highlightedLines(), std::vector<int>{line});
        int caret = 0, index = 0;
        sp->headerEditor()->getCursorPosition(&caret, &index);
        QCOMPARE(caret + 1, line);
        QCOMPARE(sp->fileSelector()->currentData().toString().toStdString(), fp16.recorded);
        // The text is the toolkit's: typing changes nothing.
        const QString before = sp->headerEditor()->text();
        sp->headerEditor()->setFocus();
        QTest::keyClicks(sp->headerEditor(), QStringLiteral("xyz"));
        QCOMPARE(sp->headerEditor()->text(), before);
        // Under call-site attribution the same row is the kernel's own line: the document returns.
        ws()->setAttribution(InlineAttribution::CallSite);
        m_w->sassPane()->view()->setCurrentIndex(m->index(row, SassModel::AddressColumn));
        QVERIFY(sp->shownFile().empty());
        QCOMPARE(ws()->selection().sourceLine, 7);
    }
    // Ctrl+click on an include line opens the header it names, found as the compiler finds it:
    // "inc/a.cuh" next to the document, "b.cuh" next to a.cuh (the including file's folder),
    // <cuda_fp16.h> in the toolkit's include folder (read-only), "c.cuh" through an -I folder; an
    // include that leads outside your folders is refused and nothing opens.
    void ctrlClickOnAnIncludeOpensIt() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        QDir d(root.path());
        QVERIFY(d.mkpath(QStringLiteral("proj/inc")) && d.mkpath(QStringLiteral("extra")));
        auto put = [&](const QString& rel, const QByteArray& text) {
            QFile f(d.filePath(rel));
            return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
        };
        QVERIFY(put(QStringLiteral("outside.cuh"), "#pragma once\n"));
        QVERIFY(put(QStringLiteral("extra/c.cuh"), "#pragma once\n__device__ inline float cee(float v) { return v - 1.0f; }\n"));
        QVERIFY(put(QStringLiteral("proj/inc/b.cuh"), "#pragma once\n__device__ inline float bee(float v) { return v * 2.0f; }\n"));
        QVERIFY(put(QStringLiteral("proj/inc/a.cuh"),
                    "#pragma once\n#include \"b.cuh\"\n__device__ inline float ay(float v) { return bee(v) + 1.0f; }\n"));
        QVERIFY(put(QStringLiteral("proj/main.cu"),
                    "#include \"inc/a.cuh\"\n"                  // 1
                    "#include <cuda_fp16.h>\n"                  // 2
                    "  #  include \"../outside.cuh\"\n"         // 3
                    "#include \"c.cuh\"\n"                      // 4
                    "#if 0\n"                                  // 5
                    "#include \"nosuch.cuh\"\n"                 // 6: no file (the compiler never looks)
                    "#endif\n"                                 // 7
                    "__global__ void k(float* p) { p[threadIdx.x] = cee(ay(p[threadIdx.x])); }\n")); // 8
        const QString mainPath = d.filePath(QStringLiteral("proj/main.cu"));
        QVERIFY(m_w->openFile(mainPath));
        testutil::waitForBuilds(ws()); // fails: c.cuh is only found through the -I folder below
        BuildOptions o = ws()->options();
        o.includeDirs.push_back(d.filePath(QStringLiteral("extra")).toStdString());
        ws()->setOptions(o);
        if (!ws()->isBuilding()) ws()->build();
        QVERIFY(waitForBuild());
        SourcePane* sp = m_w->sourcePane();
        m_w->pane(QStringLiteral("source"))->raise();
        CodeEditor* doc = sp->editor();
        auto ctrlClick = [](CodeEditor* ed, int l) {
            ed->ensureLineVisibleCentered(l);
            const long pos = ed->SendScintilla(QsciScintilla::SCI_POSITIONFROMLINE, (unsigned long)(l - 1));
            const int x = int(ed->SendScintilla(QsciScintilla::SCI_POINTXFROMPOSITION, 0UL, pos + 3));
            const int y = int(ed->SendScintilla(QsciScintilla::SCI_POINTYFROMPOSITION, 0UL, pos));
            const int lh = int(ed->SendScintilla(QsciScintilla::SCI_TEXTHEIGHT, 0UL));
            QTest::mouseClick(ed->viewport(), Qt::LeftButton, Qt::ControlModifier, QPoint(x, y + lh / 2));
        };
        auto canonical = [](const QString& p) { return QFileInfo(p).canonicalFilePath(); };

        // Line 1: inc/a.cuh, next to the document. The text is the file's; the selector offers it.
        ctrlClick(doc, 1);
        QVERIFY2(sp->lastIncludeError().isEmpty(), qPrintable(sp->lastIncludeError()));
        QTRY_VERIFY(sp->headerEditor()->isVisible());
        QCOMPARE(sp->headerEditor()->text(), readAll(d.filePath(QStringLiteral("proj/inc/a.cuh"))));
        const std::string aShown = sp->shownFile();
        QVERIFY(!aShown.empty());
        QCOMPARE(canonical(sp->fileSelector()->currentData(Qt::ToolTipRole).toString()),
                 canonical(d.filePath(QStringLiteral("proj/inc/a.cuh"))));
        // Line 2 of a.cuh: "b.cuh" is found in a.cuh's own folder.
        ctrlClick(sp->headerEditor(), 2);
        QVERIFY2(sp->lastIncludeError().isEmpty(), qPrintable(sp->lastIncludeError()));
        QCOMPARE(sp->headerEditor()->text(), readAll(d.filePath(QStringLiteral("proj/inc/b.cuh"))));
        QVERIFY(sp->shownFile() != aShown);

        // Back to the document: <cuda_fp16.h> opens from the toolkit's include folder, read-only.
        QVERIFY(sp->showFile({}));
        ctrlClick(doc, 2);
        QVERIFY2(sp->lastIncludeError().isEmpty(), qPrintable(sp->lastIncludeError()));
        QCOMPARE(sp->fileSelector()->currentText(), QStringLiteral("cuda_fp16.h (toolkit, read-only)"));
        QVERIFY(sp->headerEditor()->isReadOnly());
        bool inToolkit = false;
        for (const auto& dir : ws()->snapshot()->sources.toolkitIncludeDirs)
            inToolkit = inToolkit || QString::fromStdString(sp->shownFile()) == QString::fromStdString(dir) + QStringLiteral("/cuda_fp16.h");
        QVERIFY2(inToolkit, sp->shownFile().c_str());
        QCOMPARE(sp->headerEditor()->text(), readAll(QString::fromStdString(sp->shownFile())));

        // "../outside.cuh" exists but lies outside the folders: refused, the pane stays where it was.
        QVERIFY(sp->showFile({}));
        const int offered = sp->fileSelector()->count();
        ctrlClick(doc, 3);
        QVERIFY2(sp->lastIncludeError().contains(QLatin1String("outside")), qPrintable(sp->lastIncludeError()));
        QVERIFY(sp->shownFile().empty());
        QCOMPARE(sp->fileSelector()->count(), offered);
        // "c.cuh" through the -I folder; a missing one says where it was looked for.
        ctrlClick(doc, 4);
        QVERIFY2(sp->lastIncludeError().isEmpty(), qPrintable(sp->lastIncludeError()));
        QCOMPARE(canonical(QString::fromStdString(sp->shownFile())), canonical(d.filePath(QStringLiteral("extra/c.cuh"))));
        QVERIFY(sp->showFile({}));
        ctrlClick(doc, 6);
        QVERIFY2(sp->lastIncludeError().contains(QLatin1String("not found")), qPrintable(sp->lastIncludeError()));
        QVERIFY(sp->shownFile().empty());
        // A line that is no include opens nothing.
        QVERIFY(!sp->openIncludeAt(8));
        QVERIFY(sp->shownFile().empty());
        // The files opened this way stay offered across a rebuild, and go with the document.
        QVERIFY(waitForBuild());
        QVERIFY(sp->fileSelector()->count() >= 5); // main.cu, a.cuh, b.cuh, c.cuh, cuda_fp16.h (+ what the code maps to)
        BuildOptions back = ws()->options();
        back.includeDirs.pop_back();
        ws()->setOptions(back);
    }
    // The user's headers are edited in the Source pane like the document: an edit marks the file
    // (selector and title " •") and the listing stale, survives switching files, and is saved
    // before the next build, which compiles it (the compiler reads headers from disk).
    void userHeadersAreEditedAndSavedBeforeTheBuild() {
        QDir d(m_tmp.path());
        QVERIFY(d.mkpath(QStringLiteral("hf")));
        for (const char* name : {"header_family.cu", "header_family_gemm.cuh", "header_family_math.cuh"})
            QVERIFY(QFile::copy(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/tests/data/src/") + QLatin1String(name),
                                d.filePath(QStringLiteral("hf/") + QLatin1String(name))));
        const QString mathPath = d.filePath(QStringLiteral("hf/header_family_math.cuh"));
        QVERIFY(openAndBuild(d.filePath(QStringLiteral("hf/header_family.cu"))));
        ws()->setAttribution(InlineAttribution::Callee);
        std::string math;
        for (const auto& f : ws()->sourceFiles())
            if (f.path.endsWith(QLatin1String("header_family_math.cuh"))) {
                math = f.recorded;
                QVERIFY(f.editable && !f.toolkit);
            }
        QVERIFY(!math.empty());
        // The multiply-add written on math.cuh:7, and which lines of the file have FFMAs.
        auto ffmaLines = [&] {
            std::set<int> lines;
            for (const auto& ins : ws()->kernel()->sass.instructions)
                if (ins.mnemonic == "FFMA" && ins.source.file == math) lines.insert(ins.source.line);
            return lines;
        };
        QCOMPARE(ffmaLines(), std::set<int>{7});
        SourcePane* sp = m_w->sourcePane();
        m_w->pane(QStringLiteral("source"))->raise();
        QVERIFY(sp->showFile(math));
        CodeEditor* ed = sp->headerEditor();
        QVERIFY(!ed->isReadOnly());
        const QString before = readAll(mathPath);
        QCOMPARE(ed->text(), before);
        // A comment line typed at the top: line 7's code moves to line 8.
        ed->setFocus();
        ed->setCursorPosition(0, 0);
        QTest::keyClicks(ed, QStringLiteral("// edited"));
        QTest::keyClick(ed, Qt::Key_Return);
        QCOMPARE(ed->text(), QStringLiteral("// edited\n") + before);
        QVERIFY(ws()->hasHeaderEdits());
        QCOMPARE(readAll(mathPath), before); // not written yet
        QVERIFY2(sp->fileSelector()->currentText().endsWith(QStringLiteral(" •")), qPrintable(sp->fileSelector()->currentText()));
        QVERIFY2(m_w->windowTitle().contains(QStringLiteral(" •")), qPrintable(m_w->windowTitle()));
        QVERIFY(ws()->isStale());
        // To the document and back: the edit is still there.
        QVERIFY(sp->showFile({}));
        QVERIFY(sp->showFile(math));
        QCOMPARE(sp->headerEditor()->text(), QStringLiteral("// edited\n") + before);
        // The build saves it first and compiles it.
        QVERIFY(waitForBuild());
        QVERIFY(!ws()->hasHeaderEdits());
        QCOMPARE(readAll(mathPath), QStringLiteral("// edited\n") + before);
        QCOMPARE(ffmaLines(), std::set<int>{8});
        QVERIFY(!ws()->isStale());
        QVERIFY2(!sp->fileSelector()->currentText().endsWith(QStringLiteral(" •")), qPrintable(sp->fileSelector()->currentText()));
        QVERIFY(!m_w->windowTitle().contains(QStringLiteral(" •")));
        QCOMPARE(sp->headerEditor()->text(), QStringLiteral("// edited\n") + before);
        // Only the user's headers this build offers are ever written.
        QVERIFY(!ws()->setHeaderText(d.filePath(QStringLiteral("hf/header_family.cu")), QStringLiteral("x")));
        QVERIFY(!ws()->setHeaderText(QStringLiteral("/etc/hostname"), QStringLiteral("x")));
        QVERIFY(!ws()->hasHeaderEdits());
        // Another edit, dropped: nothing is written.
        QTest::keyClicks(sp->headerEditor(), QStringLiteral("x"));
        QVERIFY(ws()->hasHeaderEdits());
        ws()->discardHeaderEdits();
        QVERIFY(!ws()->hasHeaderEdits());
        QCOMPARE(readAll(mathPath), QStringLiteral("// edited\n") + before);
    }
    // A line with code in another kernel only: the selection line says which kernel has it.
    void aLineOfAnotherKernelNamesIt() {
        const QString path = write(QStringLiteral("two_kernels.cu"),
                                   "template <int N> __global__ void first(float* p) { p[threadIdx.x] *= float(N); }\n"
                                   "__global__ void second(float* p) { p[threadIdx.x] += 1.0f; }\n"
                                   "template __global__ void first<3>(float*);\n");
        QVERIFY(!path.isEmpty());
        QVERIFY(openAndBuild(path));
        QCOMPARE(ws()->snapshot()->model.kernels.size(), size_t(2));
        const KernelModel* second = ws()->snapshot()->model.kernel("second");
        QVERIFY(second);
        const int firstIndex = second == &ws()->snapshot()->model.kernels[0] ? 1 : 0;
        ws()->setKernelIndex(firstIndex);
        auto* info = m_w->findChild<QLabel*>(QStringLiteral("selectionInfo"));
        QVERIFY(info);
        m_w->selectSourceLine(2);
        QVERIFY(ws()->selection().sassAddresses.empty());
        QVERIFY2(info->text().contains(QLatin1String("no code in this kernel; code in second")), qPrintable(info->text()));
        m_w->selectSourceLine(3); // the instantiation line: code in no kernel
        QVERIFY2(info->text().endsWith(QLatin1String("(no code for this line)")), qPrintable(info->text()));
        // The other way round, the template instantiation is named with its arguments.
        ws()->setKernelIndex(1 - firstIndex);
        m_w->selectSourceLine(1);
        QVERIFY2(info->text().contains(QLatin1String("code in first<3>")), qPrintable(info->text()));
    }
};

QTEST_MAIN(RealKernelsTest)
#include "test_views_real_kernels.moc"
