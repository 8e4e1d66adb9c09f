#pragma once
// The code room in the window: the Source, PTX and SASS panes, the CFG and the SASS filter, and
// their keys in the Navigate menu (next/previous SASS run of a line, register-pressure peaks).

#include "views/common/room_host.h"

#include <QObject>

namespace lowerscope {

class SourcePane;
class PtxPane;
class SassPane;
class CfgView;
class SassFilterPane;

class CodeRoom : public QObject, public Room {
    Q_OBJECT
public:
    explicit CodeRoom(RoomHost& host);
    void addActions(RoomHost& host) override;
    void applyTheme() override;

    SourcePane* source() const { return m_source; }
    PtxPane* ptx() const { return m_ptx; }
    SassPane* sass() const { return m_sass; }
    CfgView* cfg() const { return m_cfg; }
    SassFilterPane* filter() const { return m_filter; }

private:
    Workspace* m_session;
    SourcePane* m_source;
    PtxPane* m_ptx;
    SassPane* m_sass;
    CfgView* m_cfg;
    SassFilterPane* m_filter;
};

} // namespace lowerscope
