#pragma once
// The advise room in the window (issue 34): the advisor's findings panel, a pane beside Profile,
// fed with the profile shown on the current build, its *Test this* measured with the Measure
// pane's launch and runner, and its tested suggestions kept with the session by the compare
// room's experiment controller (File → Save session writes them; opening a session shows them).

#include "views/common/room_host.h"

#include <QObject>

namespace lowerscope {

class CompareRoom;
class FindingsPanel;
class MeasureRoom;

class AdviseRoom : public QObject, public Room {
    Q_OBJECT
public:
    AdviseRoom(RoomHost& host, MeasureRoom& measure, CompareRoom& compare);
    void applyTheme() override;
    FindingsPanel* findings() const { return m_findings; }

private:
    MeasureRoom& m_measure;
    FindingsPanel* m_findings;
};

} // namespace lowerscope
