// Untrusted input in the GUI, second sweep (issue 31): the Measure pane never starts ssh with a
// runner host that ssh would read as an option (the pane probes the host as soon as editing ends,
// so a pasted or session-supplied "-oProxyCommand=..." ran its command before).
#include "views/common/workspace.h"
#include "views/measure/measure_pane.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <atomic>

using namespace lowerscope;

class UntrustedGuiTest : public QObject {
    Q_OBJECT
private slots:
    void optionLikeRunnerHostIsNeverStarted() {
        Workspace ws;
        MeasurePane pane(&ws, nullptr, MeasurePane::Options{false});
        std::atomic<int> started{0};
        std::vector<std::string> seen;
        pane.setProbe([&](const std::vector<std::string>& command, std::string& device, RunErrorKind&, std::string&) {
            ++started;
            seen = command;
            device = "NVIDIA H200";
            return true;
        });
        QSignalSpy probed(&pane, &MeasurePane::deviceProbed);
        for (const char* host : {"-oProxyCommand=touch /tmp/lowerscope-pwned", "-F/tmp/x", "gpu box", "a;id"}) {
            pane.setRemote(QString::fromUtf8(host));
            pane.probeDevice();
            QVERIFY(probed.wait(5000));
            QCOMPARE(started.load(), 0);
            QCOMPARE(pane.deviceState(), MeasurePane::DeviceState::Unavailable);
            QVERIFY(!pane.runAButton()->isEnabled());
        }
        // A plain host is probed, with ssh's options ended before it.
        pane.setRemote(QStringLiteral("gpu-box"));
        pane.probeDevice();
        QVERIFY(probed.wait(5000));
        QCOMPARE(started.load(), 1);
        QCOMPARE(pane.deviceState(), MeasurePane::DeviceState::Available);
        const auto dashes = std::find(seen.begin(), seen.end(), std::string("--"));
        QVERIFY(dashes != seen.end());
        QCOMPARE(*(dashes + 1), std::string("gpu-box"));
    }
};

QTEST_MAIN(UntrustedGuiTest)
#include "test_untrusted_gui.moc"
