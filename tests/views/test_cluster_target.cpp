// The Measure pane's Slurm cluster target (issue 32): the profile edited in its dialog (fields
// that cannot reach sbatch refused), remembered across windows (QSettings, isolated here), and a
// measurement sent through core's Slurm back end: a stub sbatch on PATH records its argv and
// refuses the job, and the pane shows sbatch's own answer. Needs nvcc and nvdisasm for the build.
#include "window_fixture.h"
#include "views/common/build_job.h"
#include "views/measure/cluster_target.h"
#include "views/measure/measure_pane.h"
#include "views/shell/main_window.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace lowerscope;

class ClusterTargetTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    void initTestCase() {
        // Settings of this test only: an INI file in the temporary folder.
        QCoreApplication::setOrganizationName(QStringLiteral("lowerscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("cluster-target"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_tmp.filePath(QStringLiteral("settings")));
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", m_tmp.filePath(QStringLiteral("autosave")).toLocal8Bit());
        qputenv("LOWERSCOPE_CACHE_DIR", m_tmp.filePath(QStringLiteral("cache")).toLocal8Bit());
        QVERIFY(!QSettings().contains(QStringLiteral("measure/target")));
    }

    void theDialogRefusesWhatCannotReachSbatch() {
        ClusterProfile p;
        p.partition = QStringLiteral("gpu q;rm -rf");
        ClusterDialog d(p);
        d.accept();
        QVERIFY(d.result() != QDialog::Accepted);
        QVERIFY(!clusterProfileProblem(d.profile()).isEmpty());
        QVERIFY(clusterProfileProblem(d.profile()).contains(QStringLiteral("Partition")));
        d.field("partition")->setText(QStringLiteral("gpuq"));
        d.field("time")->setText(QStringLiteral("0:30:00"));
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QCOMPARE(d.profile().partition, QStringLiteral("gpuq"));
        QCOMPARE(d.profile().timeLimit, QStringLiteral("0:30:00"));
    }

    void theClusterTargetIsRememberedInANewWindow() {
        ClusterProfile p;
        p.partition = QStringLiteral("gpuq");
        p.gres = QStringLiteral("gpu:h100:1");
        p.constraint = QStringLiteral("h100");
        p.account = QStringLiteral("lab");
        p.timeLimit = QStringLiteral("10");
        p.maxTasks = 4;
        {
            auto w = testutil::makeTestWindow();
            MeasurePane* m = w->measurePane();
            QVERIFY(!m->usesCluster());
            QCOMPARE(m->targetCombo()->count(), 2);
            QVERIFY(m->targetCombo()->itemText(1).startsWith(QStringLiteral("Slurm cluster")));
            m->setClusterProfile(p);
            m->setClusterTarget(true);
            QVERIFY(m->usesCluster());
        }
        auto w = testutil::makeTestWindow();
        MeasurePane* m = w->measurePane();
        QVERIFY(m->usesCluster());
        QCOMPARE(m->targetCombo()->currentIndex(), 1);
        QCOMPARE(m->clusterProfile(), p);
        // Back to this machine, remembered too.
        m->setClusterTarget(false);
        w.reset();
        w = testutil::makeTestWindow();
        QVERIFY(!w->measurePane()->usesCluster());
        QCOMPARE(w->measurePane()->clusterProfile(), p);
    }

    void runGoesThroughSbatchWithTheProfile() {
        const Toolchain& tc = cachedToolchain();
        if (!tc.nvcc.found() || !tc.nvdisasm.found()) QSKIP("nvcc/nvdisasm not found (run scripts/bootstrap)");
        // A stub sbatch: records its arguments, refuses the job as a cluster would.
        QDir().mkpath(m_tmp.filePath(QStringLiteral("bin")));
        const QString args = m_tmp.filePath(QStringLiteral("sbatch.args"));
        const QString stub = m_tmp.filePath(QStringLiteral("bin/sbatch"));
        QFile f(stub);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("#!/bin/sh\nprintf '%s\\n' \"$@\" > '%1'\necho 'sbatch: error: partition gpuq is down' >&2\nexit 1\n")
                    .arg(args)
                    .toUtf8());
        f.close();
        QVERIFY(QFile::setPermissions(stub, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", m_tmp.filePath(QStringLiteral("bin")).toLocal8Bit() + ":" + path);

        auto w = testutil::makeTestWindow();
        QVERIFY(w->openFile(QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/saxpy.cu")));
        QVERIFY(testutil::waitForBuilds(w->session()));
        MeasurePane* m = w->measurePane();
        ClusterProfile p;
        p.partition = QStringLiteral("gpuq");
        p.gres = QStringLiteral("gpu:1");
        p.stateDir = m_tmp.filePath(QStringLiteral("slurm-state"));
        m->setClusterProfile(p);
        m->setClusterTarget(true);
        QSignalSpy finished(m, &MeasurePane::jobFinished);
        QVERIFY(m->run(MeasurePane::Target::A) != 0);
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.front().at(1).toBool(), false);
        QVERIFY2(m->errorText().contains(QStringLiteral("sbatch failed")), qPrintable(m->errorText()));
        QVERIFY2(m->errorText().contains(QStringLiteral("partition gpuq is down")), qPrintable(m->errorText()));
        QFile a(args);
        QVERIFY(a.open(QIODevice::ReadOnly));
        const QStringList argv = QString::fromUtf8(a.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(argv.contains(QStringLiteral("--partition=gpuq")), qPrintable(argv.join(' ')));
        QVERIFY(argv.contains(QStringLiteral("--gres=gpu:1")));
        QVERIFY(argv.contains(QStringLiteral("--array=0-0")));
        QVERIFY(argv.last().startsWith(p.stateDir));
        qputenv("PATH", path);
        m->setClusterTarget(false);
    }
};

QTEST_MAIN(ClusterTargetTest)
#include "test_cluster_target.moc"
