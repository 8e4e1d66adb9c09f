#pragma once
// The measure room in the window: the Measure pane (launch, runner, timings of A and B), the
// Profile pane and the profile's heat on the code panes, and opening a profile document.

#include "views/common/room_host.h"

#include <QObject>

#include <functional>

namespace lowerscope {

class CodeRoom;
class MeasurePane;
class ProfilePane;
class ProfileHeat;

class MeasureRoom : public QObject, public Room {
    Q_OBJECT
public:
    // `sessionB`: configuration B (the compare room's); `compareActive` says whether it is on.
    MeasureRoom(RoomHost& host, CodeRoom& code, Workspace* sessionB, std::function<bool()> compareActive);

    MeasurePane* measure() const { return m_measure; }
    ProfilePane* profile() const { return m_profile; }
    // Shows a lowerscope.profile/1 document on the SASS rows of the build it was taken on (see
    // MainWindow::openProfile).
    bool openProfile(const QString& path, QString* error);

private:
    RoomHost& m_host;
    CodeRoom& m_code;
    MeasurePane* m_measure;
    ProfilePane* m_profile;
    ProfileHeat* m_heat;
};

} // namespace lowerscope
