// The main window's layout (see main_window.h): the default layout for the window's size, its
// sizes once shown, the focus layout and compare mode.
#include "views/shell/main_window.h"

#include "views/capture/capture_room.h"
#include "views/common/workspace.h"
#include "views/compare/compare_panel.h"
#include "views/measure/profile_pane.h"

#include <QAction>
#include <QDockWidget>
#include <QShowEvent>
#include <QStatusBar>
#include <QTabBar>
#include <QTimer>

#include <initializer_list>
#include <tuple>

namespace lowerscope {

void MainWindow::defaultLayout() {
    QDockWidget* src = pane(QStringLiteral("source"));
    QDockWidget* ptx = pane(QStringLiteral("ptx"));
    QDockWidget* sass = pane(QStringLiteral("sass"));
    QDockWidget* out = pane(QStringLiteral("output"));
    QDockWidget* res = pane(QStringLiteral("resources"));
    QDockWidget* opt = pane(QStringLiteral("options"));
    QDockWidget* optB = pane(QStringLiteral("options-b"));
    if (m_focusAction && m_focusAction->isChecked()) {
        const QSignalBlocker block(m_focusAction);
        m_focusAction->setChecked(false);
    }
    // Start from nothing: a dock already in a tab group would take a split partner as a new tab
    // (QMainWindow::splitDockWidget), so the previous arrangement must not survive.
    for (const QString& id : std::as_const(m_paneOrder)) {
        QDockWidget* d = m_panes.value(id);
        d->setFloating(false);
        removeDockWidget(d);
    }
    const bool wide = width() >= kWideLayout;
    auto place = [this](QDockWidget* d, Qt::DockWidgetArea area) {
        if (!d) return;
        addDockWidget(area, d); // top/bottom areas place each new dock right of the previous one
        d->show();
    };
    place(src, Qt::TopDockWidgetArea);
    place(ptx, Qt::TopDockWidgetArea);
    place(sass, Qt::TopDockWidgetArea);
    place(out, Qt::BottomDockWidgetArea);
    if (wide) {
        place(res, Qt::BottomDockWidgetArea);
        place(opt, Qt::BottomDockWidgetArea);
    }
    // B's options right of A's (wide) or of the bottom tab group, where A's options are a tab.
    place(optB, Qt::BottomDockWidgetArea);
    if (!wide) {
        tabifyDockWidget(out, res);
        tabifyDockWidget(out, opt);
        res->show();
        opt->show();
    }
    // Every other pane: a tab behind the pane group of the area it asked for (1600 px has no room
    // for a fourth column; right-hand panes all read the SASS listing).
    for (const QString& id : std::as_const(m_paneOrder)) {
        QDockWidget* d = m_panes.value(id);
        if (d == src || d == ptx || d == sass || d == out || d == res || d == opt || d == optB) continue;
        const Qt::DockWidgetArea area = m_paneArea.value(id, Qt::RightDockWidgetArea);
        QDockWidget* group = area == Qt::BottomDockWidgetArea ? out : area == Qt::LeftDockWidgetArea ? src : sass;
        addDockWidget(area, d);
        tabifyDockWidget(group, d);
        d->show();
    }
    if (optB) optB->setVisible(compareMode());
    sass->raise();
    out->raise();
    // An open profile is what the user asked to see (--profile, File → Open profile…).
    if (m_profilePane && m_profilePane->profile())
        if (QDockWidget* p = pane(QStringLiteral("profile"))) p->raise();
    // So is an open capture's kernel table (File → Open of a capture, File → Profile a program…).
    if (m_captureRoom && m_captureRoom->hasDocument())
        if (QDockWidget* c = pane(QStringLiteral("capture"))) QTimer::singleShot(0, c, [this, c] { selectDockTab(c); });
    if (QDockWidget* cmp = pane(QStringLiteral("compare")); cmp && compareMode()) {
        // The diff is the main view of a comparison (issue 35 item 2): in the top row at full
        // height where PTX and SASS were (they are tabs beside it); narrow, the whole top row.
        removeDockWidget(cmp);
        addDockWidget(Qt::TopDockWidgetArea, cmp);
        tabifyDockWidget(sass, ptx);
        tabifyDockWidget(sass, cmp);
        if (!wide) tabifyDockWidget(sass, src);
        for (QDockWidget* d : {src, ptx, sass, cmp}) d->show();
        cmp->raise();
        // A tab group made just now is laid out later, and its first layout picks its own current
        // tab: select the diff's tab in the group's tab bar once it exists.
        QTimer::singleShot(0, cmp, [this, cmp] { selectDockTab(cmp); });
        if (!wide) opt->raise(); // A's options (a tab) beside B's
    }
    applyDefaultSizes();
}

void MainWindow::selectDockTab(QDockWidget* dock) {
    dock->raise();
    for (QTabBar* bar : findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i) == dock->windowTitle()) bar->setCurrentIndex(i);
}

void MainWindow::applyDefaultSizes() {
    QDockWidget* src = pane(QStringLiteral("source"));
    QDockWidget* ptx = pane(QStringLiteral("ptx"));
    QDockWidget* sass = pane(QStringLiteral("sass"));
    QDockWidget* out = pane(QStringLiteral("output"));
    const int w = std::max(width(), 600), h = std::max(height(), 400);
    QDockWidget* cmp = pane(QStringLiteral("compare"));
    if (compareMode() && cmp && dockWidgetArea(cmp) == Qt::TopDockWidgetArea) {
        // Comparing: the Source beside the diff (A and B listings), the diff the wider.
        if (!tabifiedDockWidgets(cmp).contains(src)) resizeDocks({src, cmp}, {w * 27 / 100, w * 73 / 100}, Qt::Horizontal);
    } else {
        // Source, PTX, SASS: SASS rows are the widest (control codes, arrows, pressure strip).
        // PTX the narrowest: its lines are long but read less than the source and the SASS.
        // From 1400 px on, SASS gets 48 % so that its operands, control graphic and live column
        // fit together; narrower windows keep a quarter or more for each of Source and PTX.
        if (w >= 1400) resizeDocks({src, ptx, sass}, {w * 28 / 100, w * 24 / 100, w * 48 / 100}, Qt::Horizontal);
        else resizeDocks({src, ptx, sass}, {w * 30 / 100, w * 26 / 100, w * 44 / 100}, Qt::Horizontal);
    }
    // The bottom row, left to right: each group is resized through its tab in view (a dock
    // behind a tab keeps a stale geometry). Comparing, A's and B's options share the right side.
    const bool comparing = compareMode();
    QList<QDockWidget*> row;
    QList<int> share;
    for (const auto& [id, percent, percentComparing] : std::initializer_list<std::tuple<const char*, int, int>>{
             {"output", 48, 40}, {"resources", 18, 14}, {"options", 34, 23}, {"options-b", 0, 23}}) {
        QDockWidget* d = pane(QString::fromLatin1(id));
        if (!d || d->isHidden() || d->isFloating() || dockWidgetArea(d) != Qt::BottomDockWidgetArea) continue;
        QList<QDockWidget*> group = tabifiedDockWidgets(d);
        group.prepend(d);
        QDockWidget* shown = d;
        if (isVisible())
            for (QDockWidget* g : std::as_const(group))
                if (!g->visibleRegion().isEmpty()) shown = g;
        if (row.contains(shown)) continue; // the same tab group as an earlier entry
        row << shown;
        share << (comparing ? percentComparing : percent);
    }
    // Narrow and comparing: the tab group (with A's options) and B's options, half and half.
    if (comparing && w < kWideLayout && row.size() == 2) share = {1, 1};
    int total = 0;
    for (int p : share) total += p;
    QList<int> widths;
    for (int p : share) widths << w * p / std::max(total, 1);
    if (row.size() > 1) resizeDocks(row, widths, Qt::Horizontal);
    // The code panes keep about three quarters of the height; the bottom row stays readable on a
    // small screen and does not grow past what its tables need on a large one.
    const int bottom = std::clamp(h * 27 / 100, 170, 420);
    // Split the height the two rows share: from the top of the dock area to the status bar. A
    // dock behind a tab keeps a stale geometry, so the bottom row is given by a dock in view.
    // The top row's dock in view: the Source, or comparing on a narrow window the diff (the
    // Source is a tab behind it; a dock behind a tab is not resized).
    QDockWidget* topDock = (compareMode() && cmp && dockWidgetArea(cmp) == Qt::TopDockWidgetArea &&
                            tabifiedDockWidgets(cmp).contains(src))
                               ? cmp
                               : src;
    const int top = topDock->isVisible() ? topDock->geometry().top() : 0;
    const int rows = std::max(200, (statusBar()->isVisible() ? statusBar()->geometry().top() : h) - top - 6);
    QDockWidget* bottomDock = out;
    for (QDockWidget* d : findChildren<QDockWidget*>())
        if (dockWidgetArea(d) == Qt::BottomDockWidgetArea && !d->isFloating() && d->isVisible() &&
            (!isVisible() || !d->visibleRegion().isEmpty())) {
            bottomDock = d;
            break;
        }
    resizeDocks({topDock, bottomDock}, {std::max(rows - bottom, rows / 2), std::min(bottom, rows / 2)}, Qt::Vertical);
}

void MainWindow::resetLayout() {
    m_layoutRestored = false;
    defaultLayout();
    // Docks settle after the event loop ran once; apply the sizes again then.
    QTimer::singleShot(0, this, &MainWindow::applyDefaultSizes);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    // A message shown before the window was (a file opened from the command line) did not hide
    // the status bar's own labels, which QStatusBar only hides when they are visible: both were
    // drawn over each other. Shown again now, it hides them.
    if (const QString message = statusBar()->currentMessage(); !message.isEmpty()) {
        statusBar()->clearMessage();
        statusBar()->showMessage(message, 10000);
    }
    // The sizes of the constructor's layout were computed for the default size; the window may
    // have been resized since (saved geometry, --size, the window manager).
    if (m_sizesPending && !m_layoutRestored) {
        m_sizesPending = false;
        defaultLayout();
        QTimer::singleShot(0, this, &MainWindow::applyDefaultSizes);
    }
}

void MainWindow::setFocusLayout(bool on) {
    if (m_focusAction->isChecked() != on) {
        m_focusAction->setChecked(on); // toggled() comes back here
        return;
    }
    static const QStringList code{QStringLiteral("source"), QStringLiteral("ptx"), QStringLiteral("sass")};
    if (on) {
        m_beforeFocus = saveState(kStateVersion);
        for (const QString& id : std::as_const(m_paneOrder)) {
            QDockWidget* d = m_panes.value(id);
            if (code.contains(id)) {
                d->show();
                d->raise();
            } else {
                d->hide();
            }
        }
        // Without a central widget the space the bottom row leaves is not taken by itself.
        QTimer::singleShot(0, this, [this] {
            if (focusLayout()) resizeDocks({pane(QStringLiteral("source"))}, {height()}, Qt::Vertical);
        });
    } else if (!m_beforeFocus.isEmpty()) {
        // The bottom row and the panes come back as they were; the code panes' widths are the
        // ones the user has now (a separator dragged in the focus layout is kept, issue 35 item 9).
        QList<QDockWidget*> row;
        QList<int> widths;
        for (const QString& id : code)
            if (QDockWidget* d = pane(id); d && d->isVisible() && !d->isFloating() && !d->visibleRegion().isEmpty()) {
                row << d;
                widths << d->width();
            }
        restoreState(m_beforeFocus, kStateVersion);
        m_beforeFocus.clear();
        if (row.size() > 1) resizeDocks(row, widths, Qt::Horizontal);
    }
}

bool MainWindow::focusLayout() const { return m_focusAction && m_focusAction->isChecked(); }

bool MainWindow::compareMode() const { return m_compareAction && m_compareAction->isChecked(); }

void MainWindow::setCompareMode(bool on) { m_compareAction->setChecked(on); }

void MainWindow::connectCompare() {
    if (!m_compare) return;
    connect(m_compareAction, &QAction::toggled, this, [this](bool on) {
        m_compare->setActive(on);
        if (on && focusLayout()) setFocusLayout(false);
        // Comparing is its own layout (the diff in the top row), and leaving it restores the
        // editors' one.
        defaultLayout();
        QTimer::singleShot(0, this, &MainWindow::applyDefaultSizes);
    });
    // An opened session with a B turns compare mode on (the panel is activated by it).
    connect(m_compare, &ComparePanel::activeChanged, this, [this](bool on) {
        if (m_compareAction->isChecked() != on) m_compareAction->setChecked(on);
    });
}

} // namespace lowerscope
