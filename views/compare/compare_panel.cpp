#include "views/compare/compare_panel.h"

#include "core/build/input.h"

#include "views/build/build_options_pane.h"
#include "views/compare/diff_view.h"
#include "views/common/input_file.h"
#include "views/common/workspace.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

namespace lowerscope {

ComparePanel::ComparePanel(Workspace* sessionA, QWidget* parent)
    : QWidget(parent), m_a(sessionA), m_b(new Workspace(this, sessionA ? sessionA->jobs() : nullptr)) {
    // B's builds are jobs of A's tracker (the window's one); its copies go to a folder of its own.
    m_b->setWorkDir(QDir(QDir::tempPath())
                        .filePath(QStringLiteral("lowerscope-%1-b").arg(QCoreApplication::applicationPid())));
    if (m_a) m_b->setOptions(m_a->options());

    m_diff = new DiffView(this);
    m_rebuildTimer = new QTimer(this);
    m_rebuildTimer->setSingleShot(true);
    m_rebuildTimer->setInterval(600);
    connect(m_rebuildTimer, &QTimer::timeout, this, [this] {
        if (m_active) buildB();
    });

    m_config = new QWidget(this);
    m_config->setObjectName(QStringLiteral("compareConfigurationB"));
    m_sourceB = new QComboBox(m_config);
    m_sourceB->addItem(tr("Same file as A"));
    m_sourceB->addItem(tr("Other file…"));
    m_sourceB->setToolTip(tr("B compiles A's editor text (default) or another file, e.g. a rewritten kernel"));
    m_kernelB = new QComboBox(m_config);
    m_kernelB->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_kernelB->setMinimumContentsLength(16);
    m_kernelB->setToolTip(tr("The kernel of B's build compared with A's current kernel"));
    m_copyA = new QPushButton(tr("Copy A's options"), m_config);
    m_copyA->setToolTip(tr("Start B from A's options, then change the one you want to compare"));
    m_buildB = new QPushButton(tr("Build B"), m_config);
    m_buildB->setToolTip(tr("Build B now (B also rebuilds by itself after A builds and after its options change)"));
    m_status = new QLabel(m_config);
    m_status->setWordWrap(true);
    m_optionsB = new BuildOptionsPane(m_b, m_config);
    m_optionsB->setObjectName(QStringLiteral("buildOptionsB"));

    // Two compact rows above B's options, so the options keep most of a short dock.
    auto* sourceRow = new QHBoxLayout;
    sourceRow->setContentsMargins(4, 2, 4, 0);
    sourceRow->addWidget(new QLabel(tr("Source"), m_config));
    sourceRow->addWidget(m_sourceB, 1);
    sourceRow->addWidget(new QLabel(tr("Kernel"), m_config));
    sourceRow->addWidget(m_kernelB, 2);
    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(4, 0, 4, 0);
    buttons->addWidget(m_copyA);
    buttons->addWidget(m_buildB);
    buttons->addWidget(m_status, 1);
    auto* configLayout = new QVBoxLayout(m_config);
    configLayout->setContentsMargins(0, 0, 0, 0);
    configLayout->setSpacing(2);
    configLayout->addLayout(sourceRow);
    configLayout->addLayout(buttons);
    configLayout->addWidget(m_optionsB, 1);

    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->addWidget(m_diff);
    m_split->addWidget(m_config);
    m_split->setStretchFactor(0, 4);
    m_split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_split);

    connect(m_sourceB, &QComboBox::activated, this, [this](int index) {
        if (index == 0) {
            setFollowA(true);
            return;
        }
        const QString path = QFileDialog::getOpenFileName(this, tr("Source file for B"), QString(),
                                                          tr("CUDA sources (*.cu *.cuh);;All files (*)"));
        QString error;
        if (path.isEmpty() || !openFileForB(path, &error)) {
            if (!error.isEmpty()) m_status->setText(error);
            m_sourceB->setCurrentIndex(m_followA ? 0 : m_sourceB->count() - 1);
        }
    });
    connect(m_kernelB, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updatingCombo || index < 0) return;
        m_preferredKernel = m_kernelB->itemText(index);
        m_b->setKernelIndex(index);
    });
    connect(m_copyA, &QPushButton::clicked, this, &ComparePanel::copyOptionsFromA);
    connect(m_buildB, &QPushButton::clicked, this, &ComparePanel::buildB);

    connect(m_b, &Workspace::snapshotChanged, this, [this] {
        updateKernelCombo();
        refreshSides();
    });
    connect(m_b, &Workspace::kernelChanged, this, [this] { refreshSides(); });
    connect(m_b, &Workspace::buildStarted, this, [this] {
        updateStatus();
        updateStale();
    });
    connect(m_b, &Workspace::buildFinished, this, [this] {
        updateStatus();
        refreshSides();
    });
    connect(m_b, &Workspace::buildCancelled, this, [this] {
        updateStatus();
        updateStale();
    });
    // B is rebuilt after its options change (debounced), as A is: the diff never silently shows
    // a B built with other options than the ones on screen.
    connect(m_b, &Workspace::optionsChanged, this, [this] {
        updateStale();
        if (m_active) m_rebuildTimer->start();
    });
    if (m_a) {
        // The occupancy rows follow the launch shape of the measure pane, published on A.
        connect(m_a, &Workspace::launchShapeChanged, m_diff, &DiffView::setLaunch);
        // A's per-line deltas go back to A for the source pane's margin.
        connect(m_diff, &DiffView::diffChanged, this, [this] {
            if (m_a) m_a->setCompareLineDeltas(m_diff->lineDeltas());
        });
        connect(m_a, &Workspace::buildStarted, this, [this] { updateStale(); });
        connect(m_a, &Workspace::buildCancelled, this, [this] { updateStale(); });
        connect(m_a, &Workspace::snapshotChanged, this, [this] { refreshSides(); });
        connect(m_a, &Workspace::kernelChanged, this, [this] {
            // B follows A's kernel choice by name until the user picks one for B.
            if (m_a->kernel() && m_followA) m_preferredKernel = QString::fromStdString(m_a->kernel()->name);
            updateKernelCombo();
            refreshSides();
        });
        connect(m_a, &Workspace::documentChanged, this, [this] {
            if (m_followA) syncFromA();
        });
        connect(m_a, &Workspace::buildFinished, this, [this](quint64, SnapshotPtr snapshot) {
            // Keep B in step with the editor: same text, B's options.
            if (m_active && m_followA && m_autoBuildB && snapshot && snapshot->ok()) {
                syncFromA();
                buildB();
            }
            updateStale();
        });
        syncFromA();
    }
    updateStatus();
    refreshSides();
}

ComparePanel::~ComparePanel() = default;

void ComparePanel::setRebuildDelay(int ms) { m_rebuildTimer->setInterval(ms); }

void ComparePanel::setActive(bool active) {
    if (active == m_active) return;
    m_active = active;
    // The first time B is asked for, it starts as a copy of A (the user changes one option).
    if (active && !m_optionsChosen && m_a) m_b->setOptions(m_a->options());
    if (active) m_optionsChosen = true;
    if (active) {
        // B exists from now on: build it unless it already shows B's options on A's text.
        const SnapshotPtr shown = m_b->snapshot();
        if (m_followA) syncFromA();
        // Following A: only once A has a build (B is built after A's next one anyway).
        const bool ready = !m_followA || (m_a && m_a->snapshot());
        if (ready && !m_b->isBuilding() && (!shown || shown->options != m_b->options() || m_b->isStale())) buildB();
    } else {
        m_rebuildTimer->stop();
        m_b->cancelBuild();
    }
    updateStatus();
    refreshSides();
    emit activeChanged(active);
}

QWidget* ComparePanel::detachConfiguration() {
    if (m_config->parentWidget() == m_split) m_config->setParent(nullptr);
    return m_config;
}

void ComparePanel::setFollowA(bool follow) {
    m_followA = follow;
    m_sourceB->setCurrentIndex(follow ? 0 : m_sourceB->count() - 1);
    if (follow) syncFromA();
}

void ComparePanel::syncFromA() {
    if (!m_a) return;
    if (m_a->isInputMode()) {
        // A binary, cubin or Triton folder: B opens the same input (its own options and member).
        if (m_b->inputPath() != m_a->inputPath()) m_b->setInput(m_a->inputPath());
        return;
    }
    if (m_b->sourcePath() != m_a->sourcePath() || m_b->isInputMode()) {
        m_b->setDocument(m_a->sourcePath(), m_a->text());
    } else {
        m_b->setEditorText(m_a->text());
    }
}

bool ComparePanel::openFileForB(const QString& path, QString* error) {
    const InputKind kind = detectInputKind(path.toStdString());
    if (kind != InputKind::CudaSource && kind != InputKind::Ptx) {
        // A binary or Triton folder (e.g. another version of A's library): opened as it is.
        if (!QFileInfo::exists(path)) {
            if (error) *error = tr("Cannot open %1: no such file").arg(path);
            return false;
        }
        m_followA = false;
        BuildOptions o = m_b->options();
        o.arch.clear();
        m_b->setOptions(o);
        m_b->setInput(QFileInfo(path).absoluteFilePath());
        while (m_sourceB->count() > 2) m_sourceB->removeItem(2);
        m_sourceB->addItem(QFileInfo(path).fileName());
        m_sourceB->setCurrentIndex(2);
        m_preferredKernel.clear();
        updateStatus();
        return true;
    }
    QString text, why;
    if (!readUserTextFile(path, kMaxSourceBytes, "a source file", text, why)) {
        if (error) *error = why;
        return false;
    }
    setSourceB(QFileInfo(path).absoluteFilePath(), text);
    return true;
}

void ComparePanel::setSourceB(const QString& path, const QString& text) {
    m_followA = false;
    m_b->setDocument(path, text);
    while (m_sourceB->count() > 2) m_sourceB->removeItem(2);
    m_sourceB->addItem(QFileInfo(path).fileName());
    m_sourceB->setCurrentIndex(2);
    m_preferredKernel.clear();
    updateStatus();
}

void ComparePanel::setOptionsB(const BuildOptions& options) {
    m_optionsChosen = true;
    m_b->setOptions(options);
}

void ComparePanel::copyOptionsFromA() {
    if (m_a) m_b->setOptions(m_a->options());
}

void ComparePanel::buildB() {
    if (m_followA) syncFromA();
    m_b->build();
}

void ComparePanel::updateKernelCombo() {
    m_updatingCombo = true;
    m_kernelB->clear();
    SnapshotPtr snap = m_b->snapshot();
    int choose = -1;
    if (snap && snap->ok()) {
        for (size_t i = 0; i < snap->model.kernels.size(); ++i) {
            const QString name = QString::fromStdString(snap->model.kernels[i].name);
            m_kernelB->addItem(name);
            if (choose < 0 && name == m_preferredKernel) choose = int(i);
        }
        if (choose < 0 && m_a && m_a->kernel()) {
            const QString nameA = QString::fromStdString(m_a->kernel()->name);
            for (int i = 0; i < m_kernelB->count(); ++i)
                if (m_kernelB->itemText(i) == nameA) choose = i;
        }
        if (choose < 0 && m_kernelB->count() > 0) choose = 0;
    }
    m_kernelB->setCurrentIndex(choose);
    m_updatingCombo = false;
    if (choose >= 0 && choose != m_b->kernelIndex()) m_b->setKernelIndex(choose);
}

void ComparePanel::refreshSides() {
    if (!m_active) {
        m_diff->setSides(CompareSide{}, CompareSide{});
        m_diff->summaryLabel()->setText(tr("Compare is off. Turn on “Compare with…” in the toolbar: B's options open "
                                           "beside A's and B is built next to A."));
        updateStale();
        emit compareUpdated();
        return;
    }
    CompareSide a = CompareSide::fromSnapshot(m_a ? m_a->snapshot().get() : nullptr,
                                              m_a ? m_a->kernelIndex() : -1, QStringLiteral("A"));
    CompareSide b = CompareSide::fromSnapshot(m_b->snapshot().get(), m_kernelB->currentIndex(), QStringLiteral("B"));
    m_diff->setSides(std::move(a), std::move(b));
    updateStale();
    emit compareUpdated();
}

void ComparePanel::updateStale() {
    QString reason;
    const SnapshotPtr shownB = m_b->snapshot();
    if (!m_active) {
        reason.clear();
    } else if (m_b->isBuilding()) {
        reason = tr("B is rebuilding — the diff below still shows the previous build of B.");
    } else if (m_a && m_a->isBuilding()) {
        reason = tr("A is rebuilding — the diff below still shows the previous build of A.");
    } else if (shownB && shownB->options != m_b->options()) {
        reason = m_b->buildStatus() == QLatin1String("failed")
                     ? tr("B's build with its new options failed — the diff shows the last good B.")
                     : tr("B's options changed — B rebuilds in a moment; the diff shows the previous B.");
    }
    m_diff->setStaleReason(reason);
}

void ComparePanel::updateStatus() {
    if (!m_active) {
        m_status->setText(tr("Compare is off: B is not built."));
        return;
    }
    QString status = m_b->buildStatus();
    QString source = m_followA ? tr("A's file") : m_b->displayName();
    if (status == QLatin1String("building"))
        m_status->setText(tr("Building B (%1)…").arg(source));
    else if (status == QLatin1String("failed"))
        m_status->setText(tr("B failed to build — see its diagnostics; the last good B is shown."));
    else if (status == QLatin1String("ok"))
        m_status->setText(tr("B built from %1.").arg(source));
    else if (status == QLatin1String("cancelled"))
        m_status->setText(tr("B's build was cancelled."));
    else
        m_status->setText(tr("B not built yet (%1). Change its options and press Build B.").arg(source));
}

} // namespace lowerscope
