// The main window (see main_window.h). Over 600 lines because it is the one place where panes
// are created, registered, laid out and connected, next to the menus, toolbar, file handling,
// settings, status bar and automation dump they share; each part is a short section below.
#include "views/main_window.h"

#include "core/build/compile_db.h"
#include "core/build/input.h"
#include "core/build/json_io.h"
#include "core/parse/ptx_parser.h"
#include "views/autosave.h"
#include "views/build_options_pane.h"
#include "views/build_output_pane.h"
#include "views/cfg_view.h"
#include "views/code_editor.h"
#include "views/compare_measure.h"
#include "views/compare_panel.h"
#include "views/measure_pane.h"
#include "views/ptx_model.h"
#include "views/ptx_pane.h"
#include "views/resources_pane.h"
#include "views/sass_filter.h"
#include "views/sass_model.h"
#include "views/sass_pane.h"
#include "views/workspace.h"
#include "views/source_pane.h"
#include "views/theme.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QtConcurrent/QtConcurrentRun>

namespace lowerscope {

namespace {

// A text file's contents ("" when unreadable); at most 64 MiB (a PTX file, never a binary).
QString readTextFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly) || f.size() > (64 << 20)) return {};
    return QString::fromUtf8(f.readAll());
}

} // namespace

namespace {

constexpr int kStateVersion = 1;

} // namespace

MainWindow::MainWindow(const Options& options, QWidget* parent) : QMainWindow(parent), m_opts(options) {
    lowerscopeInitResources();
    setObjectName(QStringLiteral("lowerscopeMainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/lowerscope.svg")));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks | QMainWindow::AllowTabbedDocks);
    resize(1600, 1000);

    m_session = new Workspace(this);
    m_autosave = new Autosave(m_session, this);
    m_elapsed = new QElapsedTimer;
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(800);
    connect(m_debounce, &QTimer::timeout, this, &MainWindow::build);
    m_elapsedTick = new QTimer(this);
    m_elapsedTick->setInterval(100);
    connect(m_elapsedTick, &QTimer::timeout, this, &MainWindow::updateStatus);

    createPanes();
    createActions();
    defaultLayout();
    m_defaultState = saveState(kStateVersion);

    connect(m_session, &Workspace::editorTextChanged, this, [this] {
        m_modified = true;
        updateTitle();
        if (m_autoBuildAction->isChecked()) m_debounce->start();
    });
    connect(m_session, &Workspace::optionsChanged, this, [this] {
        if (m_autoBuildAction->isChecked() && m_session->snapshot()) m_debounce->start();
    });
    connect(m_session, &Workspace::documentChanged, this, &MainWindow::updateTitle);
    connect(m_session, &Workspace::snapshotChanged, this, &MainWindow::updateKernelCombo);
    connect(m_session, &Workspace::kernelChanged, this, [this](int index) {
        const QSignalBlocker block(m_kernelCombo);
        m_kernelCombo->setCurrentIndex(index);
    });
    connect(m_session, &Workspace::selectionChanged, this, &MainWindow::updateInfo);
    connect(m_session, &Workspace::staleChanged, this, &MainWindow::updateStatus);
    connect(m_session, &Workspace::buildStarted, this, [this] {
        m_elapsed->start();
        m_elapsedTick->start();
        updateStatus();
    });
    connect(m_session, &Workspace::busyChanged, this, [this](bool busy) {
        if (!busy) m_elapsedTick->stop();
        updateStatus();
    });
    connect(m_session, &Workspace::buildFinished, this, [this](quint64, SnapshotPtr snap) {
        updateStatus();
        // Errors: bring the diagnostics forward so they are seen without hunting.
        if (snap && !snap->ok()) {
            if (QDockWidget* d = pane(QStringLiteral("output"))) d->raise();
        }
    });
    connect(m_session, &Workspace::buildCancelled, this, &MainWindow::updateStatus);

    if (m_opts.useSettings) restoreSettings();
    updateStatus();
    updateTitle();

    // The architecture list comes from `nvcc --list-gpu-arch`: ask on a worker, never block here.
    auto* watcher = new QFutureWatcher<QStringList>(this);
    connect(watcher, &QFutureWatcher<QStringList>::finished, this, [this, watcher] {
        m_optionsPane->setArchitectures(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([] {
        QStringList archs;
        for (const std::string& a : cachedToolchain().gpuArchs) archs << QString::fromStdString(a);
        return archs;
    }));

    if (m_opts.offerRecovery) QTimer::singleShot(0, this, &MainWindow::offerRecovery);
}

MainWindow::~MainWindow() { delete m_elapsed; }

QDockWidget* MainWindow::registerPane(const QString& id, const QString& title, QWidget* widget,
                                      Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QStringLiteral("pane.") + id);
    // A pane wider than a third of the default window would force the window wider than the
    // screen (dock minimum sizes add up); such panes scroll instead of squeezing the others.
    if (widget->minimumSizeHint().width() > 600) {
        auto* scroll = new QScrollArea(dock);
        scroll->setObjectName(QStringLiteral("paneScroll.") + id);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidget(widget);
        dock->setWidget(scroll);
    } else {
        dock->setWidget(widget);
    }
    dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(area, dock);
    m_panes.insert(id, dock);
    m_paneOrder << id;
    if (m_viewMenu) m_viewMenu->addAction(dock->toggleViewAction());
    return dock;
}

QStringList MainWindow::visiblePaneIds() const {
    QStringList out;
    for (const QString& id : m_paneOrder) {
        QDockWidget* d = m_panes.value(id);
        // A pane behind another tab, or closed, is not visible; before show() only closing counts.
        if (!d) continue;
        if (!isVisible()) {
            if (!d->isHidden()) out << id;
        } else if (d->isVisible() && !d->visibleRegion().isEmpty()) {
            out << id;
        }
    }
    return out;
}

void MainWindow::createPanes() {
    m_source = new SourcePane(m_session, this);
    m_ptx = new PtxPane(m_session, this);
    m_sass = new SassPane(m_session, this);
    m_output = new BuildOutputPane(m_session, this);
    m_resources = new ResourcesPane(m_session, this);
    m_optionsPane = new BuildOptionsPane(m_session, this);
    m_cfg = new CfgView(m_session, this);
    m_filter = new SassFilterPane(m_session, this);
    // The filter finds rows of the SASS pane's own model, so its fading shows in that pane.
    m_filter->setSourceModel(m_sass->model());
    // Issue 7: build B and its diff, measurements, the experiment card and the record of them all.
    m_compare = new ComparePanel(m_session, this);
    m_measure = new MeasurePane(m_session, m_compare->sessionB(), this);
    m_card = new ExperimentCardEditor(this);
    m_experiment = new ExperimentController(m_session, m_compare, m_measure, m_card, this, this);
    m_experiment->setSourceLoader([this](const QString& path, const QString& text) { loadText(path, text); });
    // The launch shape the measure pane edits is published on the workspace (occupancy in the diff).
    connect(m_measure, &MeasurePane::blockSizeChanged, m_session, &Workspace::setLaunchShape);
    // No central widget: every pane is a dock, so any of them can be moved or closed.
    registerPane(QStringLiteral("source"), tr("Source"), m_source, Qt::TopDockWidgetArea);
    registerPane(QStringLiteral("ptx"), tr("PTX"), m_ptx, Qt::TopDockWidgetArea);
    registerPane(QStringLiteral("sass"), tr("SASS"), m_sass, Qt::TopDockWidgetArea);
    registerPane(QStringLiteral("output"), tr("Build output"), m_output, Qt::BottomDockWidgetArea);
    registerPane(QStringLiteral("resources"), tr("Resources"), m_resources, Qt::BottomDockWidgetArea);
    registerPane(QStringLiteral("options"), tr("Build options"), m_optionsPane, Qt::BottomDockWidgetArea);
    registerPane(QStringLiteral("cfg"), tr("CFG"), m_cfg, Qt::RightDockWidgetArea);
    registerPane(QStringLiteral("sass-filter"), tr("SASS filter"), m_filter, Qt::RightDockWidgetArea);
    registerPane(QStringLiteral("compare"), tr("Compare A/B"), m_compare, Qt::BottomDockWidgetArea);
    registerPane(QStringLiteral("measure"), tr("Measure"), m_measure, Qt::BottomDockWidgetArea);
    registerPane(QStringLiteral("experiment"), tr("Experiment card"), m_card, Qt::BottomDockWidgetArea);
    m_source->editor()->viewport()->installEventFilter(this);
    m_source->editor()->setAcceptDrops(true);
}

void MainWindow::defaultLayout() {
    QDockWidget* src = pane(QStringLiteral("source"));
    QDockWidget* ptx = pane(QStringLiteral("ptx"));
    QDockWidget* sass = pane(QStringLiteral("sass"));
    QDockWidget* out = pane(QStringLiteral("output"));
    QDockWidget* res = pane(QStringLiteral("resources"));
    QDockWidget* opt = pane(QStringLiteral("options"));
    for (QDockWidget* d : {src, ptx, sass, out, res, opt}) {
        d->setFloating(false);
        d->show();
    }
    // Other panes that asked for the bottom area (compare, measure, experiment card) join the
    // build output as tabs once the six are sized: their minimum sizes must not take part in it.
    QList<QDockWidget*> bottomTabs;
    for (const QString& id : std::as_const(m_paneOrder)) {
        QDockWidget* d = m_panes.value(id);
        if (d == src || d == ptx || d == sass || d == out || d == res || d == opt) continue;
        if (dockWidgetArea(d) == Qt::BottomDockWidgetArea && !d->isFloating()) {
            removeDockWidget(d);
            bottomTabs << d;
        }
    }
    splitDockWidget(src, ptx, Qt::Horizontal);
    splitDockWidget(ptx, sass, Qt::Horizontal);
    splitDockWidget(out, res, Qt::Horizontal);
    splitDockWidget(res, opt, Qt::Horizontal);
    resizeDocks({src, ptx, sass}, {540, 380, 680}, Qt::Horizontal);
    resizeDocks({out, res, opt}, {640, 380, 580}, Qt::Horizontal);
    resizeDocks({src, out}, {660, 270}, Qt::Vertical);
    // Panes plugged in later (registerPane) that asked for the right-hand area become tabs behind
    // the SASS pane: 1600 px has no room for a fourth column, and they all read the SASS listing.
    for (const QString& id : std::as_const(m_paneOrder)) {
        QDockWidget* d = m_panes.value(id);
        if (d == src || d == ptx || d == sass || d == out || d == res || d == opt) continue;
        if (dockWidgetArea(d) == Qt::RightDockWidgetArea && !d->isFloating()) tabifyDockWidget(sass, d);
    }
    // Behind the build output: the explorer stays the first thing one sees.
    for (QDockWidget* d : std::as_const(bottomTabs)) {
        addDockWidget(Qt::BottomDockWidgetArea, d);
        d->show();
        tabifyDockWidget(out, d);
    }
    sass->raise();
    out->raise();
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        if (!maybeSave()) return;
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open"), QFileInfo(m_session->sourcePath()).absolutePath(),
            tr("CUDA sources (*.cu *.cuh);;PTX (*.ptx);;Binaries (*.cubin *.fatbin *.o *.so *.so.*);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    open->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
    file->addAction(tr("Open &Triton kernel folder…"), this, [this] {
        if (!maybeSave()) return;
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a Triton kernel or cache folder"),
                                                              QDir::homePath() + QStringLiteral("/.triton/cache"));
        if (!dir.isEmpty()) openFile(dir);
    });
    file->addAction(tr("Open &project…"), this, [this] {
        const QString db = QFileDialog::getOpenFileName(this, tr("Open project (compile database)"),
                                                        QFileInfo(m_session->sourcePath()).absolutePath(),
                                                        tr("Compile databases (compile_commands.json);;All files (*)"));
        QString error;
        if (db.isEmpty()) return;
        if (openProject(db, &error)) build();
        else QMessageBox::warning(this, tr("Open project"), error);
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Open &example kernel"), this, [this] {
        if (maybeSave()) openExample();
    });
    QAction* saveAct = file->addAction(tr("&Save"), this, [this] { save(); });
    saveAct->setShortcut(QKeySequence::Save);
    saveAct->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    file->addAction(tr("Save &as…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save CUDA source"), m_session->displayName(),
                                                          tr("CUDA sources (*.cu *.cuh)"));
        if (!path.isEmpty()) saveAs(path);
    })->setShortcut(QKeySequence::SaveAs);
    m_experiment->addFileActions(this, file); // sessions, measurements, report
    file->addSeparator();
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);

    QMenu* buildMenu = menuBar()->addMenu(tr("&Build"));
    m_buildAction = buildMenu->addAction(tr("&Build"), this, &MainWindow::build);
    m_buildAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_buildAction->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_buildAction->setToolTip(tr("Build now (Ctrl+B)"));
    m_cancelAction = buildMenu->addAction(tr("&Cancel build"), this, &MainWindow::cancelBuild);
    m_cancelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    m_cancelAction->setIcon(style()->standardIcon(QStyle::SP_BrowserStop));
    m_cancelAction->setEnabled(false);
    m_autoBuildAction = buildMenu->addAction(tr("&Auto-build after edits"));
    m_autoBuildAction->setCheckable(true);
    m_autoBuildAction->setChecked(true);

    QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
    nav->addAction(tr("&Next SASS run of this line"), this, [this] { m_sass->jumpToRun(+1); })->setShortcut(QKeySequence(Qt::Key_F8));
    nav->addAction(tr("&Previous SASS run of this line"), this, [this] { m_sass->jumpToRun(-1); })
        ->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    QAction* attr = nav->addAction(tr("Attribute inlined code to the &callee"));
    attr->setCheckable(true);
    attr->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (const QString& id : m_paneOrder) m_viewMenu->addAction(m_panes.value(id)->toggleViewAction());
    m_viewMenu->addSeparator();
    m_darkAction = m_viewMenu->addAction(tr("&Dark theme"));
    m_darkAction->setCheckable(true);
    connect(m_darkAction, &QAction::toggled, this, &MainWindow::applyTheme);
    m_viewMenu->addAction(tr("&Reset layout"), this, [this] {
        restoreState(m_defaultState, kStateVersion);
        defaultLayout();
    });

    QToolBar* tb = addToolBar(tr("Build"));
    tb->setObjectName(QStringLiteral("toolbar.build"));
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(open);
    tb->addAction(saveAct);
    tb->addSeparator();
    tb->addAction(m_buildAction);
    tb->addAction(m_cancelAction);
    tb->addAction(m_autoBuildAction);
    tb->addSeparator();
    tb->addWidget(new QLabel(tr(" Kernel: "), tb));
    m_kernelCombo = new QComboBox(tb);
    m_kernelCombo->setObjectName(QStringLiteral("kernelCombo"));
    m_kernelCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_kernelCombo->setMinimumContentsLength(24);
    tb->addWidget(m_kernelCombo);
    connect(m_kernelCombo, &QComboBox::currentIndexChanged, m_session, &Workspace::setKernelIndex);
    tb->addWidget(new QLabel(tr("  Inlined code → "), tb));
    m_attribution = new QComboBox(tb);
    m_attribution->setObjectName(QStringLiteral("attributionCombo"));
    m_attribution->addItem(tr("call site"), int(InlineAttribution::CallSite));
    m_attribution->addItem(tr("callee"), int(InlineAttribution::Callee));
    m_attribution->setToolTip(tr("Which source line inlined code is attributed to (Ctrl+I)"));
    tb->addWidget(m_attribution);
    connect(m_attribution, &QComboBox::currentIndexChanged, this, [this, attr](int i) {
        const auto a = InlineAttribution(m_attribution->itemData(i).toInt());
        const QSignalBlocker b(attr);
        attr->setChecked(a == InlineAttribution::Callee);
        m_session->setAttribution(a);
    });
    connect(attr, &QAction::toggled, this, [this](bool callee) { m_attribution->setCurrentIndex(callee ? 1 : 0); });

    m_info = new QLabel(this);
    m_info->setObjectName(QStringLiteral("selectionInfo"));
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_staleLabel = new QLabel(this);
    m_staleLabel->setObjectName(QStringLiteral("staleLabel"));
    m_buildLabel = new QLabel(this);
    m_buildLabel->setObjectName(QStringLiteral("buildStatus"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0); // busy indicator: the tools report no progress of their own
    m_progress->setMaximumWidth(140);
    m_progress->setMaximumHeight(14);
    m_progress->setTextVisible(false);
    m_progress->hide();
    statusBar()->addWidget(m_info, 1);
    statusBar()->addPermanentWidget(m_staleLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_buildLabel);
    rebuildRecentMenu();
}

void MainWindow::applyTheme(bool dark) {
    Theme::apply(dark ? ThemeKind::Dark : ThemeKind::Light);
    if (m_darkAction && m_darkAction->isChecked() != dark) {
        const QSignalBlocker b(m_darkAction);
        m_darkAction->setChecked(dark);
    }
    m_source->applyTheme();
    m_ptx->applyTheme();
    m_sass->applyTheme(); // the SASS model colours by Theme: this repaints it too
    m_ptx->editor()->setBandsDimmed(m_session->isStale());
    m_source->editor()->setBandsDimmed(m_session->isStale());
    updateStatus();
}

// ---------------------------------------------------------------------------------- files

bool MainWindow::openFile(const QString& path) {
    const QFileInfo info(path);
    const InputKind kind = detectInputKind(path.toStdString());
    // PTX opens in the editor unless its line info names sources that exist: then, like a binary,
    // it opens as it is and the source pane shows those sources.
    bool asIs = kind != InputKind::CudaSource && kind != InputKind::Ptx;
    if (kind == InputKind::Ptx) {
        const PtxListing ptx = parsePtx(readTextFile(path).toStdString());
        for (const auto& [index, file] : ptx.files)
            asIs |= QFileInfo(QString::fromStdString(file)).isFile() ||
                    QFileInfo(info.dir(), QString::fromStdString(file)).isFile();
    }
    if (asIs || kind == InputKind::Ptx) {
        if (!info.exists()) {
            statusBar()->showMessage(tr("Cannot open %1: no such file").arg(path), 10000);
            return false;
        }
        // The input's own arch (a PTX's .target, a binary's first cubin) unless one is typed.
        BuildOptions o = m_session->options();
        o.arch.clear();
        m_session->setProject(std::nullopt);
        m_session->setOptions(o);
    }
    if (asIs) {
        m_debounce->stop();
        m_autosave->discard();
        m_session->setInput(info.absoluteFilePath());
        m_source->editor()->setReadOnly(true);
        m_modified = false;
        updateTitle();
        addRecent(info.absoluteFilePath());
        if (m_opts.autoBuildOnOpen) build();
        return true;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (isVisible()) QMessageBox::warning(this, tr("Open"), tr("Cannot open %1: %2").arg(path, f.errorString()));
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, f.errorString()), 10000);
        return false;
    }
    const QString text = QString::fromUtf8(f.readAll());
    m_source->editor()->setReadOnly(false);
    if (kind == InputKind::CudaSource && m_session->options().arch.empty()) {
        // Back from a binary or PTX (their own arch): a source needs one.
        BuildOptions o = m_session->options();
        o.arch = BuildOptions{}.arch;
        m_session->setOptions(o);
    }
    // The project remembered for this file comes back with it (before the build starts).
    const QString abs = QFileInfo(path).absoluteFilePath();
    m_session->setProject(std::nullopt);
    if (m_opts.useSettings && kind == InputKind::CudaSource) {
        const QString db = QSettings().value(QStringLiteral("projects/") + QString::fromUtf8(abs.toUtf8().toBase64())).toString();
        if (!db.isEmpty()) {
            try {
                m_session->setProject(projectOptions(db.toStdString(), abs.toStdString()));
            } catch (const std::exception& e) {
                statusBar()->showMessage(tr("Project not applied: %1").arg(QString::fromUtf8(e.what())), 10000);
            }
        }
    }
    loadText(abs, text);
    m_modified = false;
    updateTitle();
    addRecent(abs);
    return true;
}

bool MainWindow::openProject(const QString& databasePath, QString* error) {
    const QString file = m_session->isInputMode() ? QString() : m_session->sourcePath();
    try {
        if (file.isEmpty() || file.startsWith(QLatin1Char(':'))) throw std::runtime_error("open a .cu file first");
        m_session->setProject(projectOptions(databasePath.toStdString(), file.toStdString()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Project not applied: %1").arg(QString::fromUtf8(e.what())), 10000);
        return false;
    }
    if (m_opts.useSettings)
        QSettings().setValue(QStringLiteral("projects/") + QString::fromUtf8(file.toUtf8().toBase64()),
                             QFileInfo(databasePath).absoluteFilePath());
    const auto& p = *m_session->project();
    statusBar()->showMessage(tr("Project %1: %2 option(s) from the project, %3 flag(s) not used")
                                 .arg(QString::fromStdString(p.database))
                                 .arg(p.fromProject.size())
                                 .arg(p.dropped.size()),
                             10000);
    return true;
}

void MainWindow::loadText(const QString& path, const QString& text) {
    m_debounce->stop();
    m_autosave->discard();
    m_source->editor()->setReadOnly(false);
    m_session->setDocument(path, text);
    m_modified = false;
    updateTitle();
    if (m_opts.autoBuildOnOpen) build();
}

void MainWindow::openExample() {
    QFile f(QStringLiteral(":/examples/reduction.cu"));
    if (!f.open(QIODevice::ReadOnly)) return;
    loadText(QStringLiteral(":/examples/reduction.cu"), QString::fromUtf8(f.readAll()));
}

bool MainWindow::save() {
    const QString path = m_session->sourcePath();
    if (path.isEmpty() || path.startsWith(QLatin1Char(':'))) {
        const QString target = QFileDialog::getSaveFileName(this, tr("Save CUDA source"), m_session->displayName(),
                                                            tr("CUDA sources (*.cu *.cuh)"));
        return !target.isEmpty() && saveAs(target);
    }
    return saveAs(path);
}

bool MainWindow::saveAs(const QString& path) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(m_session->text().toUtf8()) < 0 || !f.commit()) {
        statusBar()->showMessage(tr("Cannot save %1: %2").arg(path, f.errorString()), 10000);
        return false;
    }
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (abs != m_session->sourcePath()) {
        // Keep the listing: only the name changed. setDocument would drop it, so rebuild instead.
        const QString text = m_session->text();
        m_session->setDocument(abs, text);
        build();
    }
    m_modified = false;
    m_autosave->discard();
    addRecent(abs);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(abs), 4000);
    return true;
}

bool MainWindow::maybeSave() {
    if (!m_modified || !isVisible()) return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                              tr("%1 has unsaved changes. Save them?").arg(m_session->displayName()),
                                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::addRecent(const QString& path) {
    if (path.startsWith(QLatin1Char(':'))) return;
    m_recent.removeAll(path);
    m_recent.prepend(path);
    while (m_recent.size() > 10) m_recent.removeLast();
    rebuildRecentMenu();
    if (m_opts.useSettings) QSettings().setValue(QStringLiteral("recentFiles"), m_recent);
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    for (const QString& p : std::as_const(m_recent))
        m_recentMenu->addAction(p, this, [this, p] {
            if (maybeSave()) openFile(p);
        });
    m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::updateTitle() {
    setWindowTitle(QStringLiteral("%1%2 — Lowerscope").arg(m_session->displayName(), m_modified ? QStringLiteral(" •") : QString()));
}

void MainWindow::offerRecovery() {
    for (const Autosave::Entry& e : Autosave::orphans()) {
        const QString name = e.originalPath.isEmpty() ? tr("an untitled buffer") : e.originalPath;
        const auto answer = QMessageBox::question(
            this, tr("Recover unsaved edits"),
            tr("Lowerscope did not exit cleanly. Unsaved edits of %1 from %2 were kept.\nRecover them?")
                .arg(name, e.saved.toString()),
            QMessageBox::Yes | QMessageBox::No);
        if (answer == QMessageBox::Yes) {
            loadText(e.originalPath, Autosave::readText(e));
            m_modified = true;
            updateTitle();
        }
        Autosave::remove(e);
        if (answer == QMessageBox::Yes) break;
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_autosave->discard();
    if (m_opts.useSettings) saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile()) return;
    if (maybeSave()) openFile(urls.front().toLocalFile());
    event->acceptProposedAction();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // The editor would paste a dropped file's path as text; open the file instead.
    if (event->type() == QEvent::DragEnter || event->type() == QEvent::Drop) {
        auto* de = static_cast<QDropEvent*>(event);
        if (de->mimeData() && de->mimeData()->hasUrls()) {
            if (event->type() == QEvent::DragEnter) static_cast<QDragEnterEvent*>(event)->acceptProposedAction();
            else dropEvent(de);
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

// ---------------------------------------------------------------------------------- settings

void MainWindow::restoreSettings() {
    QSettings s;
    m_recent = s.value(QStringLiteral("recentFiles")).toStringList();
    rebuildRecentMenu();
    applyTheme(s.value(QStringLiteral("darkTheme"), false).toBool());
    m_autoBuildAction->setChecked(s.value(QStringLiteral("autoBuild"), true).toBool());
    const QByteArray opts = s.value(QStringLiteral("buildOptions")).toByteArray();
    if (!opts.isEmpty()) {
        const auto j = nlohmann::json::parse(opts.toStdString(), nullptr, false);
        // Written by another version, a field may have the wrong type: it keeps its default.
        if (j.is_object()) m_session->setOptions(readBuildOptions(j, "buildOptions", [](auto&&...) {}));
    }
    if (s.contains(QStringLiteral("geometry"))) restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
    if (s.contains(QStringLiteral("windowState"))) restoreState(s.value(QStringLiteral("windowState")).toByteArray(), kStateVersion);
}

void MainWindow::saveSettings() {
    QSettings s;
    s.setValue(QStringLiteral("geometry"), saveGeometry());
    s.setValue(QStringLiteral("windowState"), saveState(kStateVersion));
    s.setValue(QStringLiteral("darkTheme"), Theme::isDark());
    s.setValue(QStringLiteral("autoBuild"), m_autoBuildAction->isChecked());
    s.setValue(QStringLiteral("buildOptions"), QByteArray::fromStdString(nlohmann::json(m_session->options()).dump()));
    s.setValue(QStringLiteral("recentFiles"), m_recent);
}

// ---------------------------------------------------------------------------------- build

void MainWindow::setBuildOptions(const BuildOptions& options) { m_session->setOptions(options); }
void MainWindow::setAutoBuild(bool on) { m_autoBuildAction->setChecked(on); }
bool MainWindow::autoBuild() const { return m_autoBuildAction->isChecked(); }
void MainWindow::setAutoBuildDelay(int ms) { m_debounce->setInterval(ms); }

void MainWindow::build() {
    m_debounce->stop();
    m_session->build();
}

void MainWindow::cancelBuild() { m_session->cancelBuild(); }

void MainWindow::updateKernelCombo() {
    const QSignalBlocker block(m_kernelCombo);
    m_kernelCombo->clear();
    if (const SnapshotPtr snap = m_session->snapshot()) {
        for (const KernelModel& k : snap->model.kernels) {
            const QString name = QString::fromStdString(k.name.empty() ? k.mangled : k.name);
            m_kernelCombo->addItem(name, QString::fromStdString(k.mangled));
        }
        m_kernelCombo->setCurrentIndex(m_session->kernelIndex());
    }
    m_kernelCombo->setEnabled(m_kernelCombo->count() > 1);
}

void MainWindow::selectSourceLine(int line) {
    CodeEditor* ed = m_source->editor();
    if (line < 1 || line > ed->lines()) return;
    ed->setCursorPosition(line - 1, 0);
    ed->ensureLineVisibleCentered(line);
    ed->checkCursorLine(); // the source pane selects the line, as for a click
    // The caret may already have been on that line (no move reported): select it explicitly.
    if (m_session->selection().sourceLine != line || m_session->selection().origin != Selection::Origin::Source)
        m_session->selectSourceLine(line);
}

void MainWindow::updateInfo() {
    const Selection& sel = m_session->selection();
    QString text;
    if (sel.origin == Selection::Origin::Source && sel.sourceLine > 0) {
        text = tr("line %1 → %2 PTX line(s), %3 SASS instruction(s)")
                   .arg(sel.sourceLine).arg(sel.ptxLines.size()).arg(sel.sassAddresses.size());
        if (sel.sassAddresses.empty() && m_session->kernel()) text += tr(" (no code for this line)");
    } else if (sel.origin == Selection::Origin::Sass || sel.origin == Selection::Origin::Ptx) {
        const QString what = sel.origin == Selection::Origin::Sass && sel.focusSassAddress
                                 ? tr("SASS %1").arg(*sel.focusSassAddress, 4, 16, QLatin1Char('0'))
                                 : tr("PTX line %1").arg(sel.focusPtxLine);
        QString chain;
        if (sel.location && sel.location->valid()) {
            chain = QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(sel.location->file)).fileName()).arg(sel.location->line);
            for (const SourceFrame& f : sel.location->inlinedAt)
                chain += tr(" ← inlined at %1:%2").arg(QFileInfo(QString::fromStdString(f.file)).fileName()).arg(f.line);
        } else {
            chain = tr("no line info");
        }
        text = tr("%1 ← %2").arg(what, chain);
        if (sel.origin == Selection::Origin::Sass && sel.focusPtxLine > 0) text += tr("   (PTX line %1)").arg(sel.focusPtxLine);
    }
    m_info->setText(text);
}

void MainWindow::updateStatus() {
    const bool busy = m_session->isBuilding();
    m_cancelAction->setEnabled(busy);
    m_progress->setVisible(busy);
    const QString status = m_session->buildStatus();
    QString text;
    if (busy)
        text = tr("building… %1 s").arg(double(m_elapsed->elapsed()) / 1000.0, 0, 'f', 1);
    else if (status == QLatin1String("ok")) {
        const SnapshotPtr s = m_session->lastAttempt();
        const double total = s && s->result.timingsMs.count("total") ? s->result.timingsMs.at("total") : 0;
        text = tr("built %1 in %2 ms%3").arg(QString::fromStdString(s->options.arch)).arg(total, 0, 'f', 0)
                   .arg(s->result.cacheHit ? tr(" (cache)") : QString());
    } else if (status == QLatin1String("failed")) {
        const SnapshotPtr s = m_session->lastAttempt();
        int errors = 0;
        for (const Diagnostic& d : s->result.diagnostics) errors += d.severity == Severity::Error;
        text = errors ? tr("build failed: %n error(s)", nullptr, errors) : tr("build failed: %1").arg(s->error.left(80));
    } else if (status == QLatin1String("cancelled"))
        text = tr("build cancelled");
    else
        text = tr("not built");
    m_buildLabel->setText(text);
    const QString stale = staleBannerText(*m_session);
    m_staleLabel->setText(stale.isEmpty() ? QString() : tr("STALE"));
    m_staleLabel->setToolTip(stale);
    m_staleLabel->setStyleSheet(stale.isEmpty() ? QString()
                                                : QStringLiteral("QLabel { background: %1; color: %2; padding: 0 6px; font-weight: bold; }")
                                                      .arg(Theme::warningPaper().name(), Theme::editorText().name()));
}

// ---------------------------------------------------------------------------------- automation

nlohmann::json MainWindow::dumpState() const {
    using nlohmann::json;
    json j;
    j["file"] = m_session->sourcePath().toStdString();
    j["selectedLine"] = m_session->selection().sourceLine;
    const KernelModel* k = m_session->kernel();
    j["kernel"] = k ? json(k->name.empty() ? k->mangled : k->name) : json(nullptr);
    j["kernels"] = json::array();
    if (const SnapshotPtr s = m_session->snapshot())
        for (const KernelModel& km : s->model.kernels) j["kernels"].push_back(km.name.empty() ? km.mangled : km.name);
    // What the panes actually highlight (read back from their models and editors).
    json hl;
    hl["ptxLines"] = m_ptx->model()->highlightedLines();
    hl["ptxEditorLines"] = m_ptx->editor()->highlightedLines();
    json addrs = json::array(), hex = json::array();
    for (int row : m_sass->model()->highlightedRows()) {
        const uint32_t a = m_sass->model()->instruction(row)->address;
        addrs.push_back(a);
        hex.push_back(QStringLiteral("0x%1").arg(a, 4, 16, QLatin1Char('0')).toStdString());
    }
    hl["sassAddresses"] = addrs;
    hl["sassAddressesHex"] = hex;
    hl["sourceLines"] = m_source->editor()->highlightedLines();
    j["highlighted"] = hl;
    j["attribution"] = m_session->attribution() == InlineAttribution::CallSite ? "call-site" : "callee";
    json panes = json::array();
    for (const QString& id : visiblePaneIds()) panes.push_back(id.toStdString());
    j["visiblePanes"] = panes;
    json b;
    b["status"] = m_session->buildStatus().toStdString();
    b["stale"] = m_session->isStale();
    if (const SnapshotPtr s = m_session->lastAttempt()) {
        b["jobId"] = s->jobId;
        b["arch"] = s->options.arch;
        b["diagnostics"] = s->result.diagnostics.size();
        b["commands"] = json::array();
        for (const CommandRecord& c : s->result.commands) b["commands"].push_back(shellQuote(c.argv));
        if (!s->error.isEmpty()) b["error"] = s->error.toStdString();
    }
    j["build"] = b;
    j["info"] = m_info->text().toStdString();
    j["window"] = {{"width", width()}, {"height", height()}, {"dark", Theme::isDark()}};
    return j;
}

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
    // Lay everything out and paint once before grabbing, so the image is what a user would see.
    QApplication::processEvents();
    const QPixmap pm = grab();
    const QImage img = pm.toImage();
    // Blank check: a real window has many distinct colours; a failed grab is one flat colour.
    bool varied = false;
    if (!img.isNull()) {
        const QRgb first = img.pixel(0, 0);
        for (int y = 0; y < img.height() && !varied; y += 7)
            for (int x = 0; x < img.width(); x += 7)
                if (img.pixel(x, y) != first) { varied = true; break; }
    }
    if (!varied) {
        if (error) *error = tr("the grabbed image is blank");
        return false;
    }
    if (!img.save(path, "PNG")) {
        if (error) *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace lowerscope
