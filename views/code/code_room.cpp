#include "views/code/code_room.h"

#include "views/code/cfg_view.h"
#include "views/code/code_editor.h"
#include "views/code/ptx_pane.h"
#include "views/code/sass_filter.h"
#include "views/code/sass_pane.h"
#include "views/code/source_pane.h"
#include "views/common/workspace.h"

#include <QAction>
#include <QMainWindow>
#include <QMenu>

namespace lowerscope {

CodeRoom::CodeRoom(RoomHost& host) : QObject(host.hostWindow()), m_session(host.session()) {
    QMainWindow* w = host.hostWindow();
    m_source = new SourcePane(m_session, w);
    m_ptx = new PtxPane(m_session, w);
    m_sass = new SassPane(m_session, w);
    m_cfg = new CfgView(m_session, w);
    m_filter = new SassFilterPane(m_session, w);
    // The filter finds rows of the SASS pane's own model, so its fading shows in that pane.
    m_filter->setSourceModel(m_sass->model());
    // No central widget: every pane is a dock, so any of them can be moved or closed.
    host.registerPane(QStringLiteral("source"), tr("Source"), m_source, Qt::TopDockWidgetArea);
    host.registerPane(QStringLiteral("ptx"), tr("PTX"), m_ptx, Qt::TopDockWidgetArea);
    host.registerPane(QStringLiteral("sass"), tr("SASS"), m_sass, Qt::TopDockWidgetArea);
    host.registerPane(QStringLiteral("cfg"), tr("CFG"), m_cfg, Qt::RightDockWidgetArea);
    host.registerPane(QStringLiteral("sass-filter"), tr("SASS filter"), m_filter, Qt::RightDockWidgetArea);
}

void CodeRoom::addActions(RoomHost& host) {
    QMenu* nav = host.menu(RoomHost::Menu::Navigate);
    // First in the menu: the runs of the selected line in the SASS listing.
    auto* next = new QAction(tr("&Next SASS run of this line"), nav);
    next->setShortcut(QKeySequence(Qt::Key_F8));
    connect(next, &QAction::triggered, this, [this] { m_sass->jumpToRun(+1); });
    auto* previous = new QAction(tr("&Previous SASS run of this line"), nav);
    previous->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    connect(previous, &QAction::triggered, this, [this] { m_sass->jumpToRun(-1); });
    nav->insertActions(nav->actions().value(0), {next, previous});
    // The SASS pane's register-pressure keys, in the menu and working from any pane.
    nav->addSeparator();
    for (QAction* a : {m_sass->nextPeakAction(), m_sass->previousPeakAction(), m_sass->maxPressureAction()}) {
        a->setShortcutContext(Qt::WindowShortcut);
        nav->addAction(a);
    }
}

void CodeRoom::applyTheme() {
    m_source->applyTheme();
    m_ptx->applyTheme();
    m_sass->applyTheme(); // the SASS model colours by Theme: this repaints it too
    m_ptx->editor()->setBandsDimmed(m_session->isStale());
    m_source->editor()->setBandsDimmed(m_session->isStale());
}

} // namespace lowerscope
