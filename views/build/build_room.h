#pragma once
// The build room in the window: the Build output (diagnostics, log), Resources and Build options
// panes; the options pane learns the architectures nvcc offers from a worker.

#include "views/common/room_host.h"

#include <QObject>

namespace lowerscope {

class BuildOutputPane;
class ResourcesPane;
class BuildOptionsPane;

class BuildRoom : public QObject, public Room {
    Q_OBJECT
public:
    explicit BuildRoom(RoomHost& host);

    BuildOutputPane* output() const { return m_output; }
    ResourcesPane* resources() const { return m_resources; }
    BuildOptionsPane* options() const { return m_options; }

private:
    BuildOutputPane* m_output;
    ResourcesPane* m_resources;
    BuildOptionsPane* m_options;
};

} // namespace lowerscope
