// Hardware evidence in the SASS pane (issue 14): a lowerscope.profile/1 document shows its counts
// and stall samples in the Executed and Stalls columns of the build it was taken on, is refused
// (columns hidden, the reason said) for another build, and still fits a build whose cubin differs
// only outside the kernel's machine code (the GUI compiles a copy of the editor text, so its line
// info names another path than `lowerscope-cli profile` did). Needs nvcc and nvdisasm.
#include "window_fixture.h"
#include "views/common/build_job.h"
#include "views/shell/main_window.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/common/workspace.h"

#include "core/run/buffer_data.h"
#include "core/run/profile_join.h"

#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace lowerscope;

class ProfileColumnsTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::unique_ptr<MainWindow> m_w;

    Workspace* ws() { return m_w->session(); }
    SassPane* pane() { return m_w->sassPane(); }
    bool waitForBuild() { return testutil::waitForBuilds(ws()); }

    // A document as `lowerscope-cli profile` writes it, for the shown kernel: row i executed
    // 100 * (i + 1) times, and the rows 1 and 2 carry stall samples.
    std::string document(const std::string& cubinDigest, const std::string& codeDigest) {
        const KernelModel* k = ws()->kernel();
        nlohmann::json rows = nlohmann::json::array();
        for (size_t i = 0; i < k->sass.instructions.size(); ++i) {
            nlohmann::json samples = nlohmann::json::object();
            if (i == 1) samples = {{"long_scoreboard", 30}, {"long_scoreboard_not_issued", 25}, {"wait", 10}};
            if (i == 2) samples = {{"selected", 60}};
            nlohmann::json counts = {{"smsp__sass_inst_executed", 100 * (i + 1)}};
            // Row 1: half the lanes sat out (16 of 32 threads per warp instruction); row 2: 300
            // global loads touching 2400 sectors (8 per request, 4 ideal).
            if (i == 1) counts["smsp__sass_thread_inst_executed"] = 16 * 200;
            if (i == 2) {
                counts["smsp__sass_inst_executed_op_global_ld"] = 300;
                counts["smsp__sass_sectors_mem_global"] = 2400;
                counts["smsp__sass_sectors_mem_global_ideal"] = 1200;
            }
            rows.push_back({{"address", k->sass.instructions[i].address},
                            {"opcode", k->sass.instructions[i].opcode},
                            {"profiled", true},
                            {"counts", counts},
                            {"samples", samples}});
        }
        return nlohmann::json{{"schema", "lowerscope.profile/1"},
                              {"kernel", k->mangled},
                              {"cubin_digest", cubinDigest},
                              {"code_digest", codeDigest},
                              {"instructions", rows}}
            .dump();
    }
    std::shared_ptr<const ProfileDocument> parsed(const std::string& text) {
        return std::make_shared<ProfileDocument>(readProfileDocument(text));
    }
    std::string cubinDigest() {
        const auto& cubin = ws()->snapshot()->result.cubin;
        return digestHex(cubin.data(), cubin.size());
    }

private slots:
    void initTestCase() {
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        qputenv("LOWERSCOPE_CACHE_DIR", m_tmp.filePath(QStringLiteral("cache")).toLocal8Bit());
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found()) QSKIP("nvcc/nvdisasm not found (run scripts/bootstrap)");
        m_w = testutil::makeTestWindow();
        QVERIFY(m_w->openFile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/saxpy.cu")));
        QVERIFY(waitForBuild());
    }

    void columnsShowTheProfileOfThisBuild() {
        QTableView* view = pane()->view();
        QVERIFY(view->isColumnHidden(SassModel::ExecutedColumn));
        QVERIFY(view->isColumnHidden(SassModel::StallsColumn));
        const KernelModel* k = ws()->kernel();
        QVERIFY(k && k->sass.instructions.size() > 3);
        const QString note = pane()->setProfile(parsed(document(cubinDigest(), sassCodeDigest(k->sass))));
        QVERIFY2(note.isEmpty(), qPrintable(note));
        QVERIFY(!view->isColumnHidden(SassModel::ExecutedColumn));
        QVERIFY(!view->isColumnHidden(SassModel::StallsColumn));
        SassModel* m = pane()->model();
        for (int row = 0; row < m->rowCount(); ++row)
            QCOMPARE(m->index(row, 0).data(SassModel::ExecutedRole).toULongLong(), qulonglong(100 * (row + 1)));
        // Row 1: 40 of the kernel's 100 samples (the not-issued subset is not counted twice).
        QCOMPARE(m->index(1, SassModel::StallsColumn).data().toString(), QStringLiteral("40.0% long_scoreboard"));
        QCOMPARE(m->index(2, SassModel::StallsColumn).data().toString(), QStringLiteral("60.0% selected"));
        QCOMPARE(m->index(0, SassModel::StallsColumn).data().toString(), QString());
        const QVariantList reasons = m->index(1, 0).data(SassModel::StallSamplesRole).toList();
        QCOMPARE(reasons.size(), 2);
        QCOMPARE(reasons[0].toList().value(0).toString(), QStringLiteral("long_scoreboard"));
        QCOMPARE(m->index(0, 0).data(SassModel::MaxRowSamplesRole).toULongLong(), qulonglong(60));
        QVERIFY(m->index(1, SassModel::StallsColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("wait  10")));
        // Divergence and coalescing, where the counts are there.
        QVERIFY(!view->isColumnHidden(SassModel::DivergenceColumn));
        QVERIFY(!view->isColumnHidden(SassModel::SectorsColumn));
        QCOMPARE(m->index(1, SassModel::DivergenceColumn).data().toString(), QStringLiteral("50%"));
        QCOMPARE(m->index(1, 0).data(SassModel::DivergenceRole).toDouble(), 0.5);
        QCOMPARE(m->index(0, SassModel::DivergenceColumn).data().toString(), QString()); // no thread counts
        QCOMPARE(m->index(2, SassModel::SectorsColumn).data().toString(), QStringLiteral("8.0"));
        QVERIFY(m->index(2, SassModel::SectorsColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("4.00 per request")));
        QCOMPARE(m->index(0, 0).data(SassModel::SectorsPerRequestRole).toDouble(), -1.0);
        QVERIFY(!view->grab().isNull()); // the delegate paints the bars without trouble
    }

    void anotherBuildIsRefusedAndTheColumnsHide() {
        const QString note = pane()->setProfile(parsed(document("0123456789abcdef", "fedcba9876543210")));
        QVERIFY2(note.contains(QStringLiteral("another build")), qPrintable(note));
        QVERIFY(pane()->view()->isColumnHidden(SassModel::ExecutedColumn));
        QVERIFY(pane()->view()->isColumnHidden(SassModel::SectorsColumn));
        QCOMPARE(pane()->model()->index(0, SassModel::ExecutedColumn).data().toString(), QString());
    }

    void sameMachineCodeFitsAnotherCubin() {
        const QString note = pane()->setProfile(parsed(document("0123456789abcdef", sassCodeDigest(ws()->kernel()->sass))));
        QVERIFY2(note.isEmpty(), qPrintable(note));
        QVERIFY(!pane()->view()->isColumnHidden(SassModel::ExecutedColumn));
        // A rebuild into other code (another -O level) hides it again, with the reason.
        BuildOptions o = ws()->options();
        o.ptxasOpt = 0;
        ws()->setOptions(o);
        QVERIFY(waitForBuild());
        QVERIFY(pane()->view()->isColumnHidden(SassModel::ExecutedColumn));
        QVERIFY2(pane()->profileNote().contains(QStringLiteral("another build")), qPrintable(pane()->profileNote()));
        pane()->setProfile(nullptr);
        QVERIFY(pane()->profileNote().isEmpty());
    }

    void mainWindowOpensADocumentFromDisk() {
        const QString path = m_tmp.filePath(QStringLiteral("p.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(document(cubinDigest(), sassCodeDigest(ws()->kernel()->sass))));
        f.close();
        QString error;
        QVERIFY2(m_w->openProfile(path, &error), qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!pane()->view()->isColumnHidden(SassModel::StallsColumn));
        QFile bad(m_tmp.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"schema\": \"lowerscope.profile/9\"}");
        bad.close();
        QVERIFY(!m_w->openProfile(bad.fileName(), &error));
        QVERIFY2(error.contains(QStringLiteral("newer profile document")), qPrintable(error));
    }

    void cleanupTestCase() { m_w.reset(); }
};

QTEST_MAIN(ProfileColumnsTest)
#include "test_profile_columns.moc"
