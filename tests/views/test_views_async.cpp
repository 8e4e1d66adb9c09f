// Background builds never block the UI thread, and Cancel / a superseding build kill the tools.
// A fake nvcc (a shell script that records its pid and sleeps) is selected via LOWERSCOPE_NVCC
// before the toolchain is discovered (with stand-ins for nvdisasm and cuobjdump), so this test
// needs no CUDA at all. Also: the start-up offer
// to recover an orphaned autosave.
#include "views/code/code_editor.h"
#include "views/shell/main_window.h"
#include "views/common/workspace.h"
#include "views/code/source_pane.h"

#include <QApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>

#include <QtTest>

#include <csignal>
#include <cerrno>

using namespace lowerscope;

namespace {

QTemporaryDir* g_dir = nullptr;

bool alive(qint64 pid) { return ::kill(pid_t(pid), 0) == 0 || errno == EPERM; }

// Reads the pid the fake nvcc wrote for build `n` (one line per started compile), waiting for it.
QList<qint64> startedPids() {
    QFile f(g_dir->filePath(QStringLiteral("pids")));
    QList<qint64> out;
    if (!f.open(QIODevice::ReadOnly)) return out;
    for (const QByteArray& l : f.readAll().split('\n'))
        if (!l.trimmed().isEmpty()) out << l.trimmed().toLongLong();
    return out;
}

} // namespace

class AsyncBuildTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        g_dir = new QTemporaryDir;
        QVERIFY(g_dir->isValid());
        const QString script = g_dir->filePath(QStringLiteral("nvcc"));
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // Answers the discovery queries at once; a compile records its pid and sleeps (exec keeps
        // the pid, so killing it is observable).
        f.write("#!/bin/sh\n"
                "case \"$1\" in\n"
                "  --version) echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0;;\n"
                "  --list-gpu-code) echo sm_80; echo sm_90; exit 0;;\n"
                "  --list-gpu-arch) echo compute_80; echo compute_90; exit 0;;\n"
                "esac\n"
                "echo $$ >> \"$LOWERSCOPE_FAKE_DIR/pids\"\n"
                "exec sleep 60\n");
        f.close();
        QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("LOWERSCOPE_NVCC", script.toLocal8Bit());
        // The disassemblers only need to be found (the compile never finishes): stand-ins that
        // answer --version, so the test does not depend on scripts/bootstrap having run.
        const QString other = g_dir->filePath(QStringLiteral("disassembler"));
        QFile o(other);
        QVERIFY(o.open(QIODevice::WriteOnly));
        o.write("#!/bin/sh\n"
                "[ \"$1\" = --version ] && { echo 'Cuda compilation tools, release 13.0, V13.0.88'; exit 0; }\n"
                "echo 'stand-in disassembler: not used by this test' >&2; exit 1\n");
        o.close();
        QFile::setPermissions(other, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("LOWERSCOPE_NVDISASM", other.toLocal8Bit());
        qputenv("LOWERSCOPE_CUOBJDUMP", other.toLocal8Bit());
        qputenv("LOWERSCOPE_FAKE_DIR", g_dir->path().toLocal8Bit());
        qputenv("LOWERSCOPE_CACHE_DIR", g_dir->filePath(QStringLiteral("cache")).toLocal8Bit());
        qputenv("LOWERSCOPE_AUTOSAVE_DIR", g_dir->filePath(QStringLiteral("autosave")).toLocal8Bit());
    }
    void cleanupTestCase() { delete g_dir; }

    // An autosave left by a process that is gone is offered at start: Yes loads its text as an
    // unsaved edit of the original path, No drops it; either way the entry is removed.
    void orphanedAutosaveIsOfferedForRecovery_data() {
        QTest::addColumn<bool>("accept");
        QTest::newRow("recover") << true;
        QTest::newRow("decline") << false;
    }
    void orphanedAutosaveIsOfferedForRecovery() {
        QFETCH(bool, accept);
        QProcess gone; // a pid that surely ran and no longer does
        gone.start(QStringLiteral("true"), {});
        QVERIFY(gone.waitForStarted());
        const qint64 deadPid = gone.processId();
        QVERIFY(gone.waitForFinished());
        QVERIFY(!alive(deadPid));

        const QDir dir(g_dir->filePath(QStringLiteral("autosave")));
        QVERIFY(QDir().mkpath(dir.path()));
        const QString stem = QStringLiteral("%1-1").arg(deadPid);
        const QString text = QStringLiteral("// edited, never saved\n__global__ void k(float* x) { x[1] = 2.0f; }\n");
        const QString original = g_dir->filePath(QStringLiteral("kernel.cu"));
        {
            QFile cu(dir.filePath(stem + QStringLiteral(".cu")));
            QVERIFY(cu.open(QIODevice::WriteOnly));
            cu.write(text.toUtf8());
            QFile meta(dir.filePath(stem + QStringLiteral(".json")));
            QVERIFY(meta.open(QIODevice::WriteOnly));
            meta.write(QJsonDocument(QJsonObject{{QStringLiteral("path"), original},
                                                 {QStringLiteral("pid"), deadPid},
                                                 {QStringLiteral("saved"), QDateTime::currentDateTime().toString(Qt::ISODate)}})
                           .toJson());
        }
        QString asked;
        QTimer answer;
        connect(&answer, &QTimer::timeout, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            asked = box->text();
            box->button(accept ? QMessageBox::Yes : QMessageBox::No)->click();
            answer.stop();
        });
        answer.start(20);
        MainWindow::Options o;
        o.useSettings = false;
        o.autoBuildOnOpen = false; // offerRecovery stays on
        MainWindow w(o);
        w.show();
        QTRY_VERIFY_WITH_TIMEOUT(!asked.isEmpty(), 10000);
        QVERIFY2(asked.contains(original), qPrintable(asked));
        QTRY_VERIFY(!QFile::exists(dir.filePath(stem + QStringLiteral(".cu"))));
        QVERIFY(!QFile::exists(dir.filePath(stem + QStringLiteral(".json"))));
        if (accept) {
            QCOMPARE(w.sourcePane()->editor()->text(), text);
            QCOMPARE(w.session()->sourcePath(), original);
            QVERIFY(w.windowTitle().contains(QStringLiteral("\u2022")));
        } else {
            QVERIFY(w.sourcePane()->editor()->text() != text);
        }
    }

    void buildDoesNotBlockAndCancelKills() {
        MainWindow::Options o;
        o.useSettings = false;
        o.offerRecovery = false;
        o.autoBuildOnOpen = false;
        MainWindow w(o);
        w.show();
        w.loadText(QString(), QStringLiteral("__global__ void k(float* x) { x[0] = 1.0f; }\n"));
        Workspace* s = w.session();

        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&] { ++ticks; });
        timer.start(10);

        QSignalSpy cancelled(s, &Workspace::buildCancelled);
        QSignalSpy finished(s, &Workspace::buildFinished);
        QElapsedTimer clock;
        clock.start();
        w.build();
        QVERIFY(s->isBuilding());
        QVERIFY(w.cancelAction()->isEnabled());
        // Wait until the fake compiler runs, with the event loop spinning the whole time.
        QTRY_VERIFY_WITH_TIMEOUT(!startedPids().isEmpty(), 20000);
        QTest::qWait(1000);
        const qint64 elapsed = clock.elapsed();
        // A 10 ms timer fires ~elapsed/10 times when the loop is free; demand at least half.
        QVERIFY2(ticks >= elapsed / 20, qPrintable(QStringLiteral("%1 ticks in %2 ms").arg(ticks).arg(elapsed)));
        const qint64 pid = startedPids().front();
        QVERIFY(alive(pid));
        QVERIFY(s->isBuilding());

        w.cancelBuild();
        QVERIFY(cancelled.wait(10000));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!s->isBuilding());
        QCOMPARE(s->buildStatus(), QStringLiteral("cancelled"));
        QTRY_VERIFY_WITH_TIMEOUT(!alive(pid), 5000);
        QVERIFY(!w.cancelAction()->isEnabled());
    }

    void newerBuildSupersedes() {
        QFile::remove(g_dir->filePath(QStringLiteral("pids")));
        Workspace s;
        s.setDocument(QString(), QStringLiteral("__global__ void k() {}\n"));
        QSignalSpy cancelled(&s, &Workspace::buildCancelled);
        QSignalSpy finished(&s, &Workspace::buildFinished);
        const quint64 first = s.build();
        QTRY_VERIFY_WITH_TIMEOUT(startedPids().size() == 1, 20000);
        const qint64 firstPid = startedPids().front();
        const quint64 second = s.build();
        QVERIFY(second > first);
        QCOMPARE(s.currentJob(), second);
        // The superseded compile is killed without waiting for the user.
        QTRY_VERIFY_WITH_TIMEOUT(!alive(firstPid), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(startedPids().size() == 2, 20000);
        QVERIFY(s.isBuilding());
        // Nothing was reported for the superseded job.
        QCOMPARE(cancelled.count(), 0);
        QCOMPARE(finished.count(), 0);
        const qint64 secondPid = startedPids().at(1);
        s.cancelBuild();
        QVERIFY(cancelled.wait(10000));
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(cancelled.at(0).at(0).toULongLong(), second);
        QTRY_VERIFY_WITH_TIMEOUT(!alive(secondPid), 5000);
    }
};

QTEST_MAIN(AsyncBuildTest)
#include "test_views_async.moc"
