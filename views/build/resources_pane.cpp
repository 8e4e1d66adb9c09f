#include "views/build/resources_pane.h"

#include "views/build/resources_model.h"
#include "views/common/workspace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace lowerscope {

int sidecarBlockSize(const QString& sourcePath, const QString& kernelName) {
    if (sourcePath.isEmpty()) return 0;
    const QFileInfo fi(sourcePath);
    QFile f(fi.absoluteDir().filePath(fi.completeBaseName() + QStringLiteral(".json")));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    const QJsonArray kernels = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("kernels")).toArray();
    int first = 0;
    for (const QJsonValue& v : kernels) {
        const QJsonObject k = v.toObject();
        const int block = k.value(QStringLiteral("block")).toInt();
        if (!first) first = block;
        // The demangled name starts with the plain name: "reduce_sum(float const*, ...)".
        const QString name = k.value(QStringLiteral("name")).toString();
        if (!name.isEmpty() && (kernelName == name || kernelName.startsWith(name + QLatin1Char('(')))) return block;
    }
    return first;
}

ResourcesPane::ResourcesPane(Workspace* session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    auto* form = new QHBoxLayout;
    m_block = new QSpinBox(this);
    m_block->setObjectName(QStringLiteral("blockSize"));
    m_block->setRange(1, 1024);
    m_block->setValue(256);
    m_block->setSuffix(tr(" threads"));
    m_dynShared = new QSpinBox(this);
    m_dynShared->setRange(0, 232448);
    m_dynShared->setSingleStep(1024);
    m_dynShared->setSuffix(tr(" B"));
    form->addWidget(new QLabel(tr("Block"), this));
    form->addWidget(m_block, 1);
    form->addWidget(new QLabel(tr("Dynamic shared"), this));
    form->addWidget(m_dynShared, 1);
    lay->addLayout(form);
    m_model = new ResourcesModel(this);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("resourcesView"));
    m_view->setModel(m_model);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->resizeSection(0, 170);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->setSelectionMode(QAbstractItemView::NoSelection);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 4);
    lay->addWidget(m_view, 1);

    connect(m_block, &QSpinBox::valueChanged, m_model, &ResourcesModel::setBlockSize);
    connect(m_block, &QSpinBox::valueChanged, this, [this] {
        if (!m_settingBlock) m_model->setBlockOrigin(tr("chosen here"));
    });
    connect(m_dynShared, &QSpinBox::valueChanged, m_model, &ResourcesModel::setDynamicShared);
    connect(session, &Workspace::snapshotChanged, this, &ResourcesPane::reload);
    connect(session, &Workspace::kernelChanged, this, &ResourcesPane::reload);
}

void ResourcesPane::reload() {
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    const KernelModel* k = m_session ? m_session->kernel() : nullptr;
    if (!snap || !k) {
        m_model->clear();
        return;
    }
    const QString name = QString::fromStdString(k->name.empty() ? k->mangled : k->name);
    PtxLaunchBounds bounds;
    if (k->ptxFunction >= 0 && size_t(k->ptxFunction) < snap->model.ptx.functions.size())
        bounds = snap->model.ptx.functions[size_t(k->ptxFunction)].launchBounds;
    m_model->setLaunchBounds(bounds);
    // The block size: the launch sidecar (how the kernel is actually launched), else what its
    // launch bounds call for, else whatever is in the box.
    m_settingBlock = true;
    std::string boundsOrigin;
    if (const int block = sidecarBlockSize(m_session->sourcePath(), name); block > 0) {
        m_block->setValue(block);
        m_model->setBlockOrigin(tr("from the launch sidecar %1").arg(QFileInfo(m_session->sourcePath()).completeBaseName() +
                                                                     QStringLiteral(".json")));
    } else if (const int b = launchBoundsBlockSize(bounds, &boundsOrigin); b > 0) {
        m_block->setValue(b);
        m_model->setBlockOrigin(tr("from %1").arg(QString::fromStdString(boundsOrigin)));
    } else if (m_model->blockOrigin().isEmpty() || m_model->blockOrigin().startsWith(tr("from"))) {
        m_model->setBlockOrigin(tr("default: no launch sidecar or launch bounds"));
    }
    m_settingBlock = false;
    const QString arch = QString::fromStdString(snap->model.arch.empty() ? snap->options.arch : snap->model.arch);
    m_model->setKernel(name, k->resources, arch);
}

} // namespace lowerscope
