// Models of the explorer under QAbstractItemModelTester and their lookups (the occupancy
// calculator itself is tested in tests/core/test_occupancy.cpp). Fixture listings only.
#include "views/build/build_output_pane.h"
#include "views/build/diagnostics_model.h"
#include "views/code/ptx_model.h"
#include "views/build/resources_model.h"
#include "views/code/sass_model.h"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>

using namespace lowerscope;

namespace {

SassFunction fixtureFunction(int n) {
    SassFunction f;
    f.name = "_Z4testPf";
    for (int i = 0; i < n; ++i) {
        SassInstruction ins;
        ins.address = uint32_t(i * 16);
        ins.opcode = i % 3 == 0 ? "FFMA" : (i % 3 == 1 ? "LDG.E" : "IMAD.MOV.U32");
        ins.mnemonic = ins.opcode.substr(0, ins.opcode.find('.'));
        ins.operands = {Operand{"R1"}, Operand{"R2"}, Operand{"R3"}};
        ins.text = ins.opcode + " R1, R2, R3";
        ins.live.gpr = i % 17;
        ins.hasEncoding = true;
        ins.control.stall = i % 5;
        ins.source.file = "/tmp/x.cu";
        ins.source.line = 10 + i / 4;
        f.instructions.push_back(ins);
    }
    return f;
}

} // namespace

class ModelsTest : public QObject {
    Q_OBJECT
private slots:
    // The build log shows tool paths under the working directory and home folder in short forms
    // that a shell still runs from there; other paths and quoting stay as they are.
    void buildLogCommandForm() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir.path()));
        const std::string cwd = QDir::currentPath().toStdString();
        const std::string home = QDir::homePath().toStdString();
        const std::string shown = displayCommand({cwd + "/.tools/bin/nvdisasm", "-c", "/tmp/x y/a.cubin",
                                                  home + "/cuda/bin/nvcc", cwd + "/it's"});
        QVERIFY(QDir::setCurrent(before));
        QCOMPARE(QString::fromStdString(shown),
                 QStringLiteral("./.tools/bin/nvdisasm -c '/tmp/x y/a.cubin' %1 './it'\\''s'")
                     .arg(home == "/" ? QString::fromStdString(shellQuote({home + "/cuda/bin/nvcc"}))
                                                      : QStringLiteral("~/cuda/bin/nvcc")));
        QVERIFY(shown.find(cwd) == std::string::npos);
    }

    void sassModel() {
        auto fn = std::make_shared<SassFunction>(fixtureFunction(40));
        SassModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        std::vector<int> lines;
        for (const auto& ins : fn->instructions) lines.push_back(ins.source.line);
        model.setFunction(fn, fn.get(), lines);
        QCOMPARE(model.rowCount(), 40);
        QCOMPARE(model.columnCount(), int(SassModel::ColumnCount));
        QCOMPARE(model.data(model.index(2, SassModel::AddressColumn)).toString(), QStringLiteral("0020"));
        QCOMPARE(model.data(model.index(1, SassModel::OpcodeColumn)).toString(), QStringLiteral("LDG.E"));
        QCOMPARE(model.data(model.index(0, SassModel::OperandsColumn)).toString(), QStringLiteral("R1, R2, R3"));
        QVERIFY(!model.data(model.index(0, SassModel::ControlColumn)).toString().isEmpty());
        QCOMPARE(model.data(model.index(5, 0), SassModel::LiveGprRole).toInt(), 5);
        QCOMPARE(model.data(model.index(5, 0), SassModel::MaxLiveGprRole).toInt(), 16);
        // Category colouring comes from the core opcode table.
        QCOMPARE(model.data(model.index(0, 0), SassModel::CategoryRole).toInt(), int(InstrCategory::FP32));
        QCOMPARE(model.data(model.index(1, 0), SassModel::CategoryRole).toInt(), int(InstrCategory::Memory));
        // Lookups both ways.
        QCOMPARE(model.indexForSourceLine(11).row(), 4);
        QCOMPARE(model.indexesForSourceLine(11).size(), 4);
        QCOMPARE(model.sourceLineForIndex(model.index(9, 3)), 12);
        QCOMPARE(model.indexForAddress(0x50).row(), 5);
        QVERIFY(!model.indexForAddress(0x51).isValid());
        QVERIFY(!model.indexForSourceLine(99).isValid());
        model.setHighlighted({0x10, 0x20, 0x90}, 0x20);
        QCOMPARE(model.highlightedRows(), (std::vector<int>{1, 2, 9}));
        QVERIFY(model.data(model.index(2, 0), SassModel::CurrentRole).toBool());
        QVERIFY(!model.data(model.index(1, 0), SassModel::CurrentRole).toBool());
        QVERIFY(model.data(model.index(1, 0), Qt::BackgroundRole).isValid());
        model.setStale(true);
        std::vector<int> callee(40, 0);
        model.setSourceLines(callee);
        QCOMPARE(model.sourceLineForIndex(model.index(9, 0)), 0);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void ptxModel() {
        auto ptx = std::make_shared<PtxListing>();
        for (int i = 1; i <= 12; ++i) {
            PtxLine l;
            l.line = i;
            l.text = i % 2 ? "\tadd.s32 %r1, %r2, %r3;" : "\t.loc 1 5 3";
            l.isInstruction = i % 2;
            ptx->lines.push_back(l);
        }
        PtxModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<int> src(12, 0);
        src[2] = 7;
        src[4] = 7;
        src[6] = 8;
        model.setListing(ptx, ptx.get(), src);
        QCOMPARE(model.rowCount(), 12);
        QCOMPARE(model.indexForSourceLine(7).row(), 2);
        QCOMPARE(model.indexesForSourceLine(7).size(), 2);
        QCOMPARE(model.sourceLineForIndex(model.index(6, 2)), 8);
        QCOMPARE(model.sourceLineForPtxLine(5), 7);
        QCOMPARE(model.indexForPtxLine(3).row(), 2);
        model.setHighlighted({3, 5, 99, 0});
        QCOMPARE(model.highlightedLines(), (std::vector<int>{3, 5}));
        QVERIFY(model.text().startsWith(QStringLiteral("\tadd.s32")));
        QCOMPARE(model.text().count(QLatin1Char('\n')), 12);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void resourcesModel() {
        ResourcesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Resources r;
        r.registers = 64;
        r.sharedBytes = 0;
        r.localBytes = 0;
        model.setKernel(QStringLiteral("k"), r, QStringLiteral("sm_90"));
        QVERIFY(model.rowCount() > 8);
        model.setBlockSize(256);
        QCOMPARE(model.occupancy().warpsPerSm, 32);
        model.setBlockSize(2048); // invalid: over 1024 threads
        QCOMPARE(model.occupancy().limiter, OccupancyLimiter::Invalid);
        bool found = false;
        for (int i = 0; i < model.rowCount(); ++i)
            if (model.index(i, 0).data(ResourcesModel::KeyRole).toString() == QLatin1String("occupancy")) {
                found = true;
                QVERIFY(model.index(i, 1).data().toString().startsWith(QStringLiteral("invalid")));
            }
        QVERIFY(found);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void diagnosticsModel() {
        DiagnosticsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Diagnostic d;
        d.file = "/a/b/x.cu";
        d.line = 12;
        d.column = 3;
        d.message = "identifier \"y\" is undefined";
        model.setDiagnostics({d, d});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, DiagnosticsModel::LocationColumn).data().toString(), QStringLiteral("x.cu:12:3"));
        QCOMPARE(model.index(1, 0).data(DiagnosticsModel::LineRole).toInt(), 12);
        model.setDiagnostics({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(ModelsTest)
#include "test_views_models.moc"
