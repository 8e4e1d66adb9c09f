#pragma once
// The compare room in the window: the Compare A/B panel (configuration B, the aligned SASS diff),
// B's options in a dock of their own, the experiment controller that records A, B and their
// measurements (sessions, report: File menu), and the next/previous difference keys.
//
// Created before the measure room (which measures B, the panel's session); connected to the
// measure and experiment rooms once they exist (connectRooms).

#include "views/common/room_host.h"

#include <QObject>

namespace lowerscope {

class ComparePanel;
class ExperimentController;
class MeasureRoom;
class ExperimentRoom;

class CompareRoom : public QObject, public Room {
    Q_OBJECT
public:
    explicit CompareRoom(RoomHost& host);
    void connectRooms(MeasureRoom& measure, ExperimentRoom& experiment);
    void addActions(RoomHost& host) override;
    void applyTheme() override;

    ComparePanel* panel() const { return m_panel; }
    Workspace* sessionB() const;
    ExperimentController* experiment() const { return m_experiment; }

private:
    RoomHost& m_host;
    ComparePanel* m_panel;
    ExperimentController* m_experiment = nullptr;
};

} // namespace lowerscope
