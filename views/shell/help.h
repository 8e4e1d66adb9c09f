#pragma once
// The Help menu's content (issue 17): the keyboard-shortcut sheet, generated from the actions and
// shortcuts that exist in the window at the moment it is opened (so it cannot drift from them, and
// panes added later by anyone appear in it by themselves), the "how to read the panes" page (a
// resource, one section per pane id, opened at the focused pane's section by F1) and the About text
// with the versions of Qt, QScintilla and the CUDA tools found.

#include <QDialog>
#include <QString>

#include <vector>

class QMainWindow;
class QTextBrowser;
class QWidget;

namespace lowerscope {

struct Toolchain;

// One row of the shortcut sheet.
struct ShortcutEntry {
    QString where;    // "Build", "Navigate", "SASS pane" (menu path, or the pane the key works in)
    QString what;     // the action's text without '&' and trailing '…'
    QString keys;     // portable text, several sequences joined by ", "
};

// Every action with a shortcut reachable from `window`: its menu bar (recursively; actions keep
// their menu as `where`), then actions and QShortcuts of its child widgets that no menu holds
// (`where` = the title of the dock they sit in). Sorted by `where` in menu order, then as found.
std::vector<ShortcutEntry> collectShortcuts(const QMainWindow* window);
QString shortcutSheetHtml(const std::vector<ShortcutEntry>& entries);

// Resource path of the panes page and whether it has a section (HTML anchor) for `paneId`.
QString panesHelpUrl();
bool panesHelpHasSection(const QString& paneId);

// About text: program version, Qt (build and run time), QScintilla, and per CUDA tool its version
// and path, or that it was not found.
QString aboutHtml(const Toolchain& toolchain);

// The help window: one non-modal browser for the panes page and the shortcut sheet.
class HelpWindow : public QDialog {
    Q_OBJECT
public:
    explicit HelpWindow(QWidget* parent = nullptr);
    // The panes page scrolled to `section` (a pane id; "" or unknown = the top).
    void showPanes(const QString& section = {});
    void showHtml(const QString& title, const QString& html);
    QTextBrowser* browser() const { return m_browser; }
    QString currentSection() const { return m_section; }

private:
    QTextBrowser* m_browser;
    QString m_section;
};

} // namespace lowerscope
