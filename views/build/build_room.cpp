#include "views/build/build_room.h"

#include "views/build/build_options_pane.h"
#include "views/build/build_output_pane.h"
#include "views/build/resources_pane.h"
#include "views/common/build_job.h"

#include <QFutureWatcher>
#include <QMainWindow>
#include <QtConcurrent/QtConcurrentRun>

namespace lowerscope {

BuildRoom::BuildRoom(RoomHost& host) : QObject(host.hostWindow()) {
    QMainWindow* w = host.hostWindow();
    m_output = new BuildOutputPane(host.session(), w);
    m_resources = new ResourcesPane(host.session(), w);
    m_options = new BuildOptionsPane(host.session(), w);
    host.registerPane(QStringLiteral("output"), tr("Build output"), m_output, Qt::BottomDockWidgetArea);
    host.registerPane(QStringLiteral("resources"), tr("Resources"), m_resources, Qt::BottomDockWidgetArea);
    host.registerPane(QStringLiteral("options"), tr("Build options"), m_options, Qt::BottomDockWidgetArea);

    // The architecture list comes from `nvcc --list-gpu-arch`: ask on a worker, never block here.
    auto* watcher = new QFutureWatcher<QStringList>(this);
    connect(watcher, &QFutureWatcher<QStringList>::finished, this, [this, watcher] {
        m_options->setArchitectures(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([] {
        QStringList archs;
        for (const std::string& a : cachedToolchain().gpuArchs) archs << QString::fromStdString(a);
        return archs;
    }));
}

} // namespace lowerscope
