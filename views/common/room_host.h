#pragma once
// The one interface between the window and the feature rooms (views/code, views/build,
// views/measure, views/experiment, views/compare). The shell's MainWindow implements it; a room
// is composed into the window by one line there, creates its panes and registers them here, adds
// its actions to the window's menus once they exist (addActions) and takes the window's theme
// (applyTheme). A room reaches the panes of the rooms before it through their room objects,
// never through the window.

#include <QString>
#include <Qt>

class QDockWidget;
class QMainWindow;
class QMenu;
class QWidget;

namespace lowerscope {

class Workspace;

class RoomHost {
public:
    enum class Menu { File, Build, Navigate, View };

    virtual ~RoomHost() = default;
    // The window: parent of the room's panes, actions and own windows.
    virtual QMainWindow* hostWindow() = 0;
    // Configuration A: the open document, its options, builds and the selection.
    virtual Workspace* session() const = 0;
    // Adds a pane as a dock widget with a stable object name (`id`) so saved layouts find it.
    virtual QDockWidget* registerPane(const QString& id, const QString& title, QWidget* widget,
                                      Qt::DockWidgetArea area) = 0;
    virtual QDockWidget* pane(const QString& id) const = 0;
    virtual QMenu* menu(Menu which) const = 0;
    // A message in the window's status bar for `ms` milliseconds.
    virtual void showStatus(const QString& text, int ms) = 0;
    // The window's current status bar message ("" when none).
    virtual QString statusText() const = 0;
    // Whether the window saves and restores settings (QSettings); tests run without.
    virtual bool persistent() const = 0;
    // Puts a buffer in the editor as the open document (an example, a session's source).
    virtual void loadText(const QString& path, const QString& text) = 0;
    // Asks about unsaved edits before the document is replaced; false: the user cancelled.
    virtual bool maybeSave() = 0;
};

// A feature room's part in the window. MainWindow::createPanes creates the rooms (each registers
// its panes); addActions is then called on each in the same order, after the window's own menus
// exist, and applyTheme whenever the theme changes.
class Room {
public:
    virtual ~Room() = default;
    virtual void addActions(RoomHost&) {}
    virtual void applyTheme() {}
};

} // namespace lowerscope
