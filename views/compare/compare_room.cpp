#include "views/compare/compare_room.h"

#include "core/run/profile_document.h"
#include "views/common/workspace.h"
#include "views/compare/compare_measure.h"
#include "views/compare/compare_panel.h"
#include "views/compare/diff_view.h"
#include "views/experiment/experiment_room.h"
#include "views/experiment/series_view.h"
#include "views/measure/measure_room.h"
#include "views/measure/profile_pane.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

namespace lowerscope {

CompareRoom::CompareRoom(RoomHost& host) : QObject(host.hostWindow()), m_host(host) {
    // Issue 7: build B and its diff, measurements, the experiment card and the record of them all.
    m_panel = new ComparePanel(host.session(), host.hostWindow());
    // In the window, B exists only while "Compare with…" is on (no second build on every edit).
    m_panel->setActive(false);
    host.registerPane(QStringLiteral("compare"), tr("Compare A/B"), m_panel, Qt::BottomDockWidgetArea);
    // B's configuration in a dock of its own, which the layout puts beside A's options.
    host.registerPane(QStringLiteral("options-b"), tr("Build options B"), m_panel->detachConfiguration(),
                      Qt::BottomDockWidgetArea);
}

Workspace* CompareRoom::sessionB() const { return m_panel->sessionB(); }

void CompareRoom::connectRooms(MeasureRoom& measure, ExperimentRoom& experiment) {
    QMainWindow* w = m_host.hostWindow();
    m_experiment = new ExperimentController(m_host.session(), m_panel, measure.measure(), experiment.card(), w, w);
    m_experiment->setSourceLoader([this](const QString& path, const QString& text) { m_host.loadText(path, text); });
    experiment.setSessionOpener([this](const QString& path) { return m_experiment->openSession(path); });
    // A profile and B's: per-row executed counts and stall samples on the aligned diff.
    ProfilePane* profile = measure.profile();
    auto showProfiles = [this, profile] { m_panel->diffView()->setProfiles(profile->profile(), profile->profileB()); };
    connect(profile, &ProfilePane::profileCollected, this, showProfiles);
    connect(profile, &ProfilePane::profileCollectedB, this, showProfiles);
    // The Series pane's series is saved with the session and shown again when it is opened.
    SeriesView* series = experiment.seriesPane();
    m_experiment->setSeriesHooks([series] { return series->document(); },
                                 [this, series](const nlohmann::json& doc) {
                                     QString error;
                                     if (doc.is_null()) series->clear();
                                     else if (!series->setDocument(doc, &error))
                                         m_host.showStatus(tr("The session's series is not shown: %1").arg(error), 10000);
                                 });
}

void CompareRoom::addActions(RoomHost& host) {
    m_experiment->addFileActions(host.hostWindow(), host.menu(RoomHost::Menu::File)); // sessions, measurements, report
    // Alt+Down / Alt+Up: next / previous difference, from anywhere in the window.
    DiffView* diff = m_panel->diffView();
    QMenu* nav = host.menu(RoomHost::Menu::Navigate);
    nav->addSeparator();
    for (QAction* a : {diff->nextDifferenceAction(), diff->previousDifferenceAction()}) {
        a->setShortcutContext(Qt::WindowShortcut);
        nav->addAction(a);
        connect(a, &QAction::triggered, this, [this] {
            if (QDockWidget* cmp = m_host.pane(QStringLiteral("compare"))) cmp->raise();
        });
    }
}

void CompareRoom::applyTheme() {
    m_panel->diffView()->setStaleReason(m_panel->diffView()->staleReason()); // recolour
}

} // namespace lowerscope
