#include "views/measure/measure_room.h"

#include "core/bounded_json.h"
#include "core/run/profile_document.h"
#include "views/code/code_room.h"
#include "views/code/sass_pane.h"
#include "views/common/workspace.h"
#include "views/measure/measure_pane.h"
#include "views/measure/profile_heat.h"
#include "views/measure/profile_pane.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QMainWindow>

namespace lowerscope {

MeasureRoom::MeasureRoom(RoomHost& host, CodeRoom& code, Workspace* sessionB, std::function<bool()> compareActive)
    : QObject(host.hostWindow()), m_host(host), m_code(code) {
    QMainWindow* w = host.hostWindow();
    Workspace* session = host.session();
    m_measure = new MeasurePane(session, sessionB, w);
    // The launch shape the measure pane edits is published on the workspace (occupancy in the diff).
    connect(m_measure, &MeasurePane::blockSizeChanged, session, &Workspace::setLaunchShape);
    // Issue 14: hardware evidence. The launch and the runner are the Measure pane's; a collected
    // profile also fills the SASS pane's columns, and its heat goes to the Source and PTX strips.
    m_profile = new ProfilePane(session, w);
    m_profile->setLaunchSource([this] { return m_measure->launch(); });
    m_profile->setRunnerSource([this] { return m_measure->runnerCommand(); });
    m_heat = new ProfileHeat(session, code.source(), code.ptx(), w);
    connect(m_profile, &ProfilePane::heatChanged, m_heat, &ProfileHeat::setHeat);
    m_profile->setSessionB(sessionB, std::move(compareActive));
    // Without a GPU, Profile is disabled with the Measure pane's reason (issue 35 item 6).
    connect(m_measure, &MeasurePane::deviceProbed, m_profile,
            [this](bool available) { m_profile->setDeviceAvailability(available, m_measure->deviceText()); });
    connect(m_profile, &ProfilePane::profileCollected, this,
            [this](std::shared_ptr<const ProfileDocument> doc) { m_code.sass()->setProfile(std::move(doc)); });
    host.registerPane(QStringLiteral("measure"), tr("Measure"), m_measure, Qt::BottomDockWidgetArea);
    host.registerPane(QStringLiteral("profile"), tr("Profile"), m_profile, Qt::BottomDockWidgetArea);
}

bool MeasureRoom::openProfile(const QString& path, QString* error) {
    std::string text, why;
    if (!readFileBounded(path.toStdString(), text, why)) { // at most 64 MiB, regular files only
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    try {
        auto doc = std::make_shared<ProfileDocument>(readProfileDocument(text));
        // The document as read too: the advisor takes its evidence from it (the same bounded reader).
        std::shared_ptr<const nlohmann::json> source;
        std::string jsonError;
        if (auto j = parseJsonBounded(text, jsonError)) source = std::make_shared<const nlohmann::json>(std::move(*j));
        m_profile->setProfile(doc, std::move(source));
        if (QDockWidget* d = m_host.pane(QStringLiteral("profile"))) d->raise();
        const QString note = m_code.sass()->setProfile(std::move(doc));
        if (error) *error = note.isEmpty() ? QString() : tr("The profile is not shown: %1").arg(note);
        // Before the first build there is nothing to check it against yet: it shows when the build
        // it belongs to arrives.
        if (m_host.session()->snapshot())
            m_host.showStatus(note.isEmpty() ? tr("Profile %1 shown in the SASS pane").arg(QFileInfo(path).fileName())
                                             : tr("Profile not shown: %1").arg(note),
                              8000);
        return true;
    } catch (const std::exception& e) {
        if (error) *error = tr("%1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what()));
        return false;
    }
}

} // namespace lowerscope
