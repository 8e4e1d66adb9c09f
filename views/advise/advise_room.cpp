#include "views/advise/advise_room.h"

#include "views/advise/findings_panel.h"
#include "views/compare/compare_measure.h"
#include "views/compare/compare_room.h"
#include "views/measure/measure_pane.h"
#include "views/measure/measure_room.h"
#include "views/measure/profile_pane.h"

#include <QDockWidget>
#include <QMainWindow>

namespace lowerscope {

AdviseRoom::AdviseRoom(RoomHost& host, MeasureRoom& measure, CompareRoom& compare)
    : QObject(host.hostWindow()), m_measure(measure) {
    ProfilePane* profile = measure.profile();
    m_findings = new FindingsPanel(host.session(), measure.measure(), host.hostWindow());
    // Its own pane, placed beside the Profile pane while a profile is open (MainWindow's layout).
    host.registerPane(QStringLiteral("advisor"), tr("Advisor"), m_findings, Qt::BottomDockWidgetArea);
    // The profile the pane shows (it fits the current build) gives the findings (without one, the
    // build and the launch alone give them); new findings of a profile are brought to the front.
    connect(profile, &ProfilePane::profileApplied, m_findings, [this, &host, profile] {
        const bool had = m_findings->fromProfile() && !m_findings->findings().empty();
        m_findings->setProfile(profile->showsProfile() ? profile->profileSource() : nullptr);
        if (!had && m_findings->fromProfile() && !m_findings->findings().empty())
            if (QDockWidget* d = host.pane(QStringLiteral("advisor"))) {
                d->show();
                d->raise();
            }
    });
    m_findings->setProfile(profile->showsProfile() ? profile->profileSource() : nullptr);
    if (ExperimentController* x = compare.experiment())
        x->setAdviceHooks([this] { return m_findings->entries(); },
                          [this](const std::vector<AdviceEntry>& entries) { m_findings->setEntries(entries); });
}

void AdviseRoom::applyTheme() {
    // Colours of the verdicts and facts follow the theme: redraw the cards.
    m_findings->refresh();
}

} // namespace lowerscope
