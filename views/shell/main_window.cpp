// The main window (see main_window.h). Over 600 lines because it is the one place where panes
// are created, registered, laid out and connected, next to the menus, toolbar, file handling,
// settings, status bar and automation dump they share; each part is a short section below.
#include "views/shell/main_window.h"

#include "core/bounded_json.h"
#include "core/build/compile_db.h"
#include "core/build/input.h"
#include "core/build/json_io.h"
#include "core/build/kernel_name.h"
#include "core/experiment/series.h"
#include "core/parse/ptx_parser.h"
#include "core/run/profile_document.h"
#include "views/shell/autosave.h"
#include "views/common/build_job.h"
#include "views/build/build_options_pane.h"
#include "views/build/build_output_pane.h"
#include "views/code/cfg_view.h"
#include "views/code/code_editor.h"
#include "views/compare/compare_measure.h"
#include "views/compare/compare_panel.h"
#include "views/measure/cost_panel.h"
#include "views/compare/diff_view.h"
#include "views/experiment/gallery.h"
#include "views/experiment/graph_break_even_view.h"
#include "views/shell/help.h"
#include "views/measure/measure_pane.h"
#include "views/measure/profile_heat.h"
#include "views/measure/profile_pane.h"
#include "views/code/ptx_model.h"
#include "views/code/ptx_pane.h"
#include "views/build/resources_pane.h"
#include "views/code/sass_filter.h"
#include "views/code/sass_model.h"
#include "views/code/sass_pane.h"
#include "views/experiment/series_view.h"
#include "views/code/source_pane.h"
#include "views/common/theme.h"
#include "views/common/workspace.h"

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
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>
#include <tuple>

namespace lowerscope {

namespace {

// A text file's contents ("" when unreadable); at most 64 MiB (a PTX file, never a binary).
QString readTextFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly) || f.size() > (64 << 20)) return {};
    return QString::fromUtf8(f.readAll());
}

// 2: the issue-17 layout (Build options B dock, sizes per window size); layouts saved by version 1
// put the bottom docks at half the height and are not restored.
constexpr int kStateVersion = 2;
// Panes whose minimum height is larger than this scroll inside their dock (see registerPane).
constexpr int kScrollBeyondHeight = 150;

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
    connectCompare();
    createHelpMenu();
    defaultLayout();

    connect(m_session, &Workspace::editorTextChanged, this, [this] {
        m_modified = true;
        updateTitle();
        if (m_autoBuildAction->isChecked()) m_debounce->start();
    });
    connect(m_session, &Workspace::headerEditsChanged, this, [this] {
        updateTitle();
        if (m_session->hasHeaderEdits() && m_autoBuildAction->isChecked()) m_debounce->start();
    });
    connect(m_session, &Workspace::headerSaveFailed, this,
            [this](const QString& error) { statusBar()->showMessage(error, 10000); });
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
    if (m_opts.probeGpu && m_measure) m_measure->probeDevice();
}

MainWindow::~MainWindow() { delete m_elapsed; }

QDockWidget* MainWindow::registerPane(const QString& id, const QString& title, QWidget* widget,
                                      Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QStringLiteral("pane.") + id);
    // A pane wider than a third of the default window would force the window wider than the
    // screen (dock minimum sizes add up), and a tall one in a bottom tab group would push the code
    // panes up on a small screen (a tab group is as tall as its tallest minimum); such panes
    // scroll instead of squeezing the others.
    const QSize min = widget->minimumSizeHint();
    if (min.width() > 600 || min.height() > kScrollBeyondHeight) {
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
    m_paneArea.insert(id, area);
    m_paneOrder << id;
    // Pane toggles stay together at the top of the View menu, above the layout actions.
    if (m_viewMenu) m_viewMenu->insertAction(m_viewPanesEnd, dock->toggleViewAction());
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
    // In the window, B exists only while "Compare with…" is on (no second build on every edit).
    m_compare->setActive(false);
    m_measure = new MeasurePane(m_session, m_compare->sessionB(), this);
    m_card = new ExperimentCardEditor(this);
    m_experiment = new ExperimentController(m_session, m_compare, m_measure, m_card, this, this);
    m_experiment->setSourceLoader([this](const QString& path, const QString& text) { loadText(path, text); });
    // The launch shape the measure pane edits is published on the workspace (occupancy in the diff).
    connect(m_measure, &MeasurePane::blockSizeChanged, m_session, &Workspace::setLaunchShape);
    // Issue 14: hardware evidence. The launch and the runner are the Measure pane's; a collected
    // profile also fills the SASS pane's columns, and its heat goes to the Source and PTX strips.
    m_profilePane = new ProfilePane(m_session, this);
    m_profilePane->setLaunchSource([this] { return m_measure->launch(); });
    m_profilePane->setRunnerSource([this] { return m_measure->runnerCommand(); });
    m_heat = new ProfileHeat(m_session, m_source, m_ptx, this);
    connect(m_profilePane, &ProfilePane::heatChanged, m_heat, &ProfileHeat::setHeat);
    m_profilePane->setSessionB(m_compare->sessionB(), [this] { return m_compare->isActive(); });
    connect(m_profilePane, &ProfilePane::profileCollected, this, [this](std::shared_ptr<const ProfileDocument> doc) {
        m_sass->setProfile(std::move(doc));
        m_compare->diffView()->setProfiles(m_profilePane->profile(), m_profilePane->profileB());
    });
    // B's profile: per-row executed counts and stall samples on the aligned diff.
    connect(m_profilePane, &ProfilePane::profileCollectedB, this, [this](std::shared_ptr<const ProfileDocument>) {
        m_compare->diffView()->setProfiles(m_profilePane->profile(), m_profilePane->profileB());
    });
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
    // B's configuration in a dock of its own, which the layout puts beside A's options.
    registerPane(QStringLiteral("options-b"), tr("Build options B"), m_compare->detachConfiguration(),
                 Qt::BottomDockWidgetArea);
    registerPane(QStringLiteral("measure"), tr("Measure"), m_measure, Qt::BottomDockWidgetArea);
    registerPane(QStringLiteral("profile"), tr("Profile"), m_profilePane, Qt::BottomDockWidgetArea);
    registerPane(QStringLiteral("experiment"), tr("Experiment card"), m_card, Qt::BottomDockWidgetArea);
    // Issue 15: parameter series from the card's Vary field, on the window's job tracker.
    m_seriesPane = new SeriesView(this, m_session->jobs());
    m_seriesPane->costPanel()->setPersistent(m_opts.useSettings);
    registerPane(QStringLiteral("series"), tr("Series"), m_seriesPane, Qt::BottomDockWidgetArea);
    // The Series pane's series is saved with the session and shown again when it is opened.
    m_experiment->setSeriesHooks([this] { return m_seriesPane->document(); },
                                 [this](const nlohmann::json& series) {
                                     QString error;
                                     if (series.is_null()) m_seriesPane->clear();
                                     else if (!m_seriesPane->setDocument(series, &error))
                                         statusBar()->showMessage(
                                             tr("The session's series is not shown: %1").arg(error), 10000);
                                 });
    connect(m_card, &ExperimentCardEditor::runSeriesRequested, this, [this](const QString& spec) {
        QString error;
        if (!runSeries(spec, &error)) {
            m_card->varyError()->setText(error);
            m_card->varyError()->show();
        }
    });
    m_source->editor()->viewport()->installEventFilter(this);
    m_source->editor()->setAcceptDrops(true);
}

namespace {
// Below this width the bottom panes share one tab group: side by side each would be too narrow.
constexpr int kWideLayout = 1400;
} // namespace

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
    if (compareMode()) {
        if (QDockWidget* cmp = pane(QStringLiteral("compare")); cmp && wide) cmp->raise();
        else opt->raise(); // narrow: A's options (a tab) beside B's
    }
    applyDefaultSizes();
}

void MainWindow::applyDefaultSizes() {
    QDockWidget* src = pane(QStringLiteral("source"));
    QDockWidget* ptx = pane(QStringLiteral("ptx"));
    QDockWidget* sass = pane(QStringLiteral("sass"));
    QDockWidget* out = pane(QStringLiteral("output"));
    const int w = std::max(width(), 600), h = std::max(height(), 400);
    // Source, PTX, SASS: SASS rows are the widest (control codes, arrows, pressure strip).
    resizeDocks({src, ptx, sass}, {w * 33 / 100, w * 28 / 100, w * 39 / 100}, Qt::Horizontal);
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
    const int top = src->isVisible() ? src->geometry().top() : 0;
    const int rows = std::max(200, (statusBar()->isVisible() ? statusBar()->geometry().top() : h) - top - 6);
    QDockWidget* bottomDock = out;
    for (QDockWidget* d : findChildren<QDockWidget*>())
        if (dockWidgetArea(d) == Qt::BottomDockWidgetArea && !d->isFloating() && d->isVisible() &&
            (!isVisible() || !d->visibleRegion().isEmpty())) {
            bottomDock = d;
            break;
        }
    resizeDocks({src, bottomDock}, {std::max(rows - bottom, rows / 2), std::min(bottom, rows / 2)}, Qt::Vertical);
}

void MainWindow::resetLayout() {
    m_layoutRestored = false;
    defaultLayout();
    // Docks settle after the event loop ran once; apply the sizes again then.
    QTimer::singleShot(0, this, &MainWindow::applyDefaultSizes);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
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
        restoreState(m_beforeFocus, kStateVersion);
        m_beforeFocus.clear();
    }
}

bool MainWindow::focusLayout() const { return m_focusAction && m_focusAction->isChecked(); }

bool MainWindow::compareMode() const { return m_compareAction && m_compareAction->isChecked(); }

void MainWindow::setCompareMode(bool on) { m_compareAction->setChecked(on); }

void MainWindow::connectCompare() {
    if (!m_compare) return;
    connect(m_compareAction, &QAction::toggled, this, [this](bool on) {
        m_compare->setActive(on);
        QDockWidget* optB = pane(QStringLiteral("options-b"));
        if (!optB) return;
        if (on && focusLayout()) setFocusLayout(false);
        optB->setVisible(on);
        if (!on) return;
        optB->raise();
        const bool wide = width() >= kWideLayout;
        if (QDockWidget* opt = pane(QStringLiteral("options")); opt && !wide) opt->raise();
        else if (QDockWidget* cmp = pane(QStringLiteral("compare"))) cmp->raise();
    });
    // An opened session with a B turns compare mode on (the panel is activated by it).
    connect(m_compare, &ComparePanel::activeChanged, this, [this](bool on) {
        if (m_compareAction->isChecked() != on) m_compareAction->setChecked(on);
    });
    // Alt+Down / Alt+Up: next / previous difference, from anywhere in the window.
    DiffView* diff = m_compare->diffView();
    m_navigateMenu->addSeparator();
    for (QAction* a : {diff->nextDifferenceAction(), diff->previousDifferenceAction()}) {
        a->setShortcutContext(Qt::WindowShortcut);
        m_navigateMenu->addAction(a);
    }
    connect(diff->nextDifferenceAction(), &QAction::triggered, this, [this] {
        if (QDockWidget* cmp = pane(QStringLiteral("compare"))) cmp->raise();
    });
    connect(diff->previousDifferenceAction(), &QAction::triggered, this, [this] {
        if (QDockWidget* cmp = pane(QStringLiteral("compare"))) cmp->raise();
    });
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
    file->addAction(tr("Open p&rofile…"), this, [this] {
        const QString doc = QFileDialog::getOpenFileName(
            this, tr("Open a profile (lowerscope-cli profile --json)"), QFileInfo(m_session->sourcePath()).absolutePath(),
            tr("Profiles (*.json);;All files (*)"));
        QString error;
        if (!doc.isEmpty() && !openProfile(doc, &error)) QMessageBox::warning(this, tr("Open profile"), error);
        else if (!error.isEmpty()) QMessageBox::information(this, tr("Open profile"), error);
    });
    file->addAction(tr("Open s&eries…"), this, [this] {
        const QString doc = QFileDialog::getOpenFileName(this, tr("Open a parameter series (lowerscope-cli experiment --vary)"),
                                                         QString(), tr("Series (*.series.json);;All files (*)"));
        QString error;
        if (!doc.isEmpty() && !openSeries(doc, &error)) QMessageBox::warning(this, tr("Open series"), error);
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
    QMenu* examples = file->addMenu(tr("E&xamples"));
    for (const auto& [id, title] : bundledExperiments()) {
        examples->addAction(title, this, [this, id = id] {
            if (maybeSave()) openBundledExperiment(id);
        });
    }
    m_experiment->addFileActions(this, file); // sessions, measurements, report
    file->addSeparator();
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);

    QMenu* buildMenu = menuBar()->addMenu(tr("&Build"));
    m_buildAction = buildMenu->addAction(tr("&Build"), this, &MainWindow::build);
    m_buildAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_buildAction->setIcon(Theme::icon(Theme::Icon::Build));
    m_buildAction->setToolTip(tr("Build now (Ctrl+B)"));
    m_cancelAction = buildMenu->addAction(tr("&Cancel build"), this, &MainWindow::cancelBuild);
    m_cancelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    m_cancelAction->setIcon(Theme::icon(Theme::Icon::Cancel));
    m_cancelAction->setEnabled(false);
    m_autoBuildAction = buildMenu->addAction(tr("&Auto-build after edits"));
    m_autoBuildAction->setCheckable(true);
    m_autoBuildAction->setChecked(true);
    m_autoBuildAction->setToolTip(tr("Build by itself shortly after you stop typing or change an option"));
    buildMenu->addSeparator();
    m_compareAction = buildMenu->addAction(tr("Compare &with…"));
    m_compareAction->setObjectName(QStringLiteral("compareWithAction"));
    m_compareAction->setCheckable(true);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    m_compareAction->setToolTip(tr("Compare with a second configuration B (Ctrl+Shift+K): B's build options open "
                                   "beside A's, B is built next to A and the SASS diff shows what changed"));

    QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
    m_navigateMenu = nav;
    nav->addAction(tr("&Next SASS run of this line"), this, [this] { m_sass->jumpToRun(+1); })->setShortcut(QKeySequence(Qt::Key_F8));
    nav->addAction(tr("&Previous SASS run of this line"), this, [this] { m_sass->jumpToRun(-1); })
        ->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
    QAction* attr = nav->addAction(tr("Attribute inlined code to the &callee"));
    attr->setCheckable(true);
    attr->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (const QString& id : m_paneOrder) m_viewMenu->addAction(m_panes.value(id)->toggleViewAction());
    m_viewPanesEnd = m_viewMenu->addSeparator();
    m_darkAction = m_viewMenu->addAction(tr("&Dark theme"));
    m_darkAction->setCheckable(true);
    connect(m_darkAction, &QAction::toggled, this, &MainWindow::applyTheme);
    m_viewMenu->addSeparator();
    m_focusAction = m_viewMenu->addAction(tr("&Focus on code"));
    m_focusAction->setCheckable(true);
    m_focusAction->setShortcut(QKeySequence(Qt::Key_F11));
    m_focusAction->setToolTip(tr("Show only the Source, PTX and SASS panes (F11 again brings the others back)"));
    connect(m_focusAction, &QAction::toggled, this, &MainWindow::setFocusLayout);
    m_resetLayoutAction = m_viewMenu->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);
    m_resetLayoutAction->setToolTip(tr("Put every pane back where it starts, sized for this window"));

    QToolBar* tb = addToolBar(tr("Build"));
    tb->setObjectName(QStringLiteral("toolbar.build"));
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(open);
    tb->addAction(saveAct);
    // Icons alone for Open and Save (their tooltips name them): the toolbar fits 1024 px with the
    // kernel and attribution choices still in view.
    for (QAction* a : {open, saveAct}) {
        a->setToolTip(QStringLiteral("%1 (%2)").arg(a->text().remove(QLatin1Char('&')).remove(QChar(0x2026)),
                                                    a->shortcut().toString(QKeySequence::NativeText)));
        if (auto* button = qobject_cast<QToolButton*>(tb->widgetForAction(a))) button->setToolButtonStyle(Qt::ToolButtonIconOnly);
    }
    tb->addSeparator();
    tb->addAction(m_buildAction);
    tb->addAction(m_cancelAction);
    tb->addAction(m_autoBuildAction);
    tb->addSeparator();
    tb->addAction(m_compareAction);
    tb->addSeparator();
    tb->addWidget(new QLabel(tr(" Kernel: "), tb));
    m_kernelCombo = new QComboBox(tb);
    m_kernelCombo->setObjectName(QStringLiteral("kernelCombo"));
    // As wide as about 20 characters: long signatures are elided, the full one is the tooltip.
    m_kernelCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_kernelCombo->setMinimumContentsLength(20);
    tb->addWidget(m_kernelCombo);
    connect(m_kernelCombo, &QComboBox::currentIndexChanged, m_session, &Workspace::setKernelIndex);
    tb->addWidget(new QLabel(tr("  Inlined code → "), tb));
    m_attribution = new QComboBox(tb);
    m_attribution->setObjectName(QStringLiteral("attributionCombo"));
    m_attribution->addItem(tr("call site"), int(InlineAttribution::CallSite));
    m_attribution->addItem(tr("callee"), int(InlineAttribution::Callee));
    m_attribution->addItem(tr("any frame"), int(InlineAttribution::AnyFrame));
    m_attribution->setToolTip(tr("Which source line inlined code is attributed to (Ctrl+I): the line it was "
                                 "inlined at, the line inside the inlined function, or any line its inline "
                                 "chain passes through (a helper called from a helper)"));
    tb->addWidget(m_attribution);
    connect(m_attribution, &QComboBox::currentIndexChanged, this, [this, attr](int i) {
        const auto a = InlineAttribution(m_attribution->itemData(i).toInt());
        const QSignalBlocker b(attr);
        attr->setChecked(a == InlineAttribution::Callee);
        m_session->setAttribution(a);
    });
    // The SASS pane's register-pressure keys, in the menu and working from any pane.
    nav->addSeparator();
    for (QAction* a : {m_sass->nextPeakAction(), m_sass->previousPeakAction(), m_sass->maxPressureAction()}) {
        a->setShortcutContext(Qt::WindowShortcut);
        nav->addAction(a);
    }
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

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* panes = help->addAction(tr("&How to read the panes"), this, [this] { showPaneHelp(); });
    panes->setObjectName(QStringLiteral("helpPanesAction"));
    panes->setShortcut(QKeySequence(Qt::Key_F1));
    panes->setToolTip(tr("What each pane shows; F1 opens the section of the pane you are in"));
    QAction* keys = help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts);
    keys->setObjectName(QStringLiteral("helpShortcutsAction"));
    keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addSeparator();
    help->addAction(tr("&About Lowerscope"), this, &MainWindow::showAbout)->setObjectName(QStringLiteral("helpAboutAction"));
}

HelpWindow* MainWindow::helpWindow() {
    if (!m_help) m_help = new HelpWindow(this);
    return m_help;
}

QString MainWindow::paneIdOf(const QWidget* widget) const {
    for (const QWidget* w = widget; w; w = w->parentWidget()) {
        if (const auto* dock = qobject_cast<const QDockWidget*>(w)) {
            const QString name = dock->objectName();
            if (name.startsWith(QLatin1String("pane.")) && m_panes.value(name.mid(5)) == dock) return name.mid(5);
        }
    }
    return {};
}

void MainWindow::showPaneHelp(const QString& paneId) {
    helpWindow()->showPanes(paneId.isEmpty() ? paneIdOf(QApplication::focusWidget()) : paneId);
}

void MainWindow::showShortcuts() {
    helpWindow()->showHtml(tr("Keyboard shortcuts"), shortcutSheetHtml(collectShortcuts(this)));
}

void MainWindow::showAbout() {
    // Toolchain discovery started on a worker at start-up; this waits for it only if it has not
    // finished yet (it runs each tool's --version once).
    helpWindow()->showHtml(tr("About Lowerscope"), aboutHtml(cachedToolchain()));
}

void MainWindow::applyTheme(bool dark) {
    Theme::apply(dark ? ThemeKind::Dark : ThemeKind::Light);
    if (m_darkAction && m_darkAction->isChecked() != dark) {
        const QSignalBlocker b(m_darkAction);
        m_darkAction->setChecked(dark);
    }
    m_buildAction->setIcon(Theme::icon(Theme::Icon::Build));
    m_cancelAction->setIcon(Theme::icon(Theme::Icon::Cancel));
    m_source->applyTheme();
    m_ptx->applyTheme();
    m_sass->applyTheme(); // the SASS model colours by Theme: this repaints it too
    if (m_compare) m_compare->diffView()->setStaleReason(m_compare->diffView()->staleReason()); // recolour
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

bool MainWindow::openProfile(const QString& path, QString* error) {
    std::string text, why;
    if (!readFileBounded(path.toStdString(), text, why)) { // at most 64 MiB, regular files only
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    try {
        auto doc = std::make_shared<ProfileDocument>(readProfileDocument(text));
        m_profilePane->setProfile(doc);
        if (QDockWidget* d = pane(QStringLiteral("profile"))) d->raise();
        const QString note = m_sass->setProfile(std::move(doc));
        if (error) *error = note.isEmpty() ? QString() : tr("The profile is not shown: %1").arg(note);
        // Before the first build there is nothing to check it against yet: it shows when the build
        // it belongs to arrives.
        if (m_session->snapshot())
            statusBar()->showMessage(note.isEmpty() ? tr("Profile %1 shown in the SASS pane").arg(QFileInfo(path).fileName())
                                                    : tr("Profile not shown: %1").arg(note),
                                     8000);
        return true;
    } catch (const std::exception& e) {
        if (error) *error = tr("%1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what()));
        return false;
    }
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

QList<QPair<QString, QString>> MainWindow::bundledExperiments() {
    QList<QPair<QString, QString>> out;
    for (const GalleryEntry& g : bundledGallery()) out.append({g.id, g.title});
    return out;
}

namespace {

std::optional<GalleryEntry> galleryEntry(const QString& id) {
    for (const GalleryEntry& g : bundledGallery())
        if (g.id == id) return g;
    return std::nullopt;
}

// A folder of this process for unpacked examples and the sources a series builds.
QTemporaryDir& scratchDir() {
    static QTemporaryDir dir;
    return dir;
}

// Writes `bytes` as scratchDir()/<sub>/<name>; "" when it cannot.
QString unpack(const QString& sub, const QString& name, const QByteArray& bytes) {
    QDir dir(scratchDir().path());
    if (!scratchDir().isValid() || !dir.mkpath(sub)) return {};
    const QString path = dir.filePath(sub + QLatin1Char('/') + name);
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) return {};
    return path;
}

// Unpacks an example's kernel source as scratchDir()/<sub>/<source> with its sidecar beside it
// under the source's stem (where the launch is looked up); the source's path, "" when it cannot.
QString unpackSource(const GalleryEntry& entry, const QString& sub, QByteArray* sourceText = nullptr) {
    QByteArray source, sidecar;
    if (entry.source.isEmpty() || !readGalleryFile(entry.source, source)) return {};
    const QString path = unpack(sub, entry.source, source);
    if (!entry.sidecar.isEmpty() && readGalleryFile(entry.sidecar, sidecar))
        unpack(sub, QFileInfo(entry.source).completeBaseName() + QStringLiteral(".json"), sidecar);
    if (sourceText) *sourceText = source;
    return path;
}

// A link in an example's write-up to another example's write-up ("HYPOTHESES.md",
// "ffma_chains.md") opens that example; other links are not followed (the write-ups are documents
// of the bundle, their links lead nowhere else from here).
void followGalleryLinks(QTextBrowser* browser, MainWindow* window) {
    QObject::connect(browser, &QTextBrowser::anchorClicked, window, [window](const QUrl& url) {
        const QString name = url.isRelative() ? url.path().section(QLatin1Char('/'), -1) : QString();
        for (const GalleryEntry& g : bundledGallery()) {
            if (name.isEmpty() || g.writeup != name) continue;
            // Later: the browser that was clicked may be the one the example replaces the text of.
            QTimer::singleShot(0, window, [window, id = g.id] { window->openBundledExperiment(id); });
            return;
        }
        window->statusBar()->showMessage(QObject::tr("%1 is not one of the bundled examples").arg(url.toString()), 5000);
    });
}

} // namespace

bool MainWindow::openBundledExperiment(const QString& id) {
    const std::optional<GalleryEntry> entry = galleryEntry(id);
    if (!entry) return false;
    QByteArray writeUp;
    if (!entry->writeup.isEmpty()) readGalleryFile(entry->writeup, writeUp);
    auto showWriteUp = [&](const QString& title) {
        auto* browser = qobject_cast<QTextBrowser*>(m_writeUp);
        if (!browser) {
            browser = new QTextBrowser(this);
            browser->setWindowFlag(Qt::Window);
            browser->setOpenLinks(false); // a write-up's links lead only to other examples
            followGalleryLinks(browser, this);
            browser->resize(900, 800);
            m_writeUp = browser;
        }
        // Images (charts) are looked up in the bundle only.
        browser->setSearchPaths({QStringLiteral(":/examples")});
        browser->setWindowTitle(title);
        browser->setMarkdown(QString::fromUtf8(writeUp));
        browser->show();
        browser->raise();
    };
    if (entry->kind == QLatin1String("report")) {
        showWriteUp(tr("Example: %1").arg(entry->title));
        return true;
    }
    if (entry->kind == QLatin1String("graph")) return openGraphExample(*entry, writeUp);
    if (entry->kind == QLatin1String("series")) {
        QByteArray bytes;
        QString error;
        if (!m_galleryView) {
            m_galleryView = new SeriesView(this, m_session->jobs());
            m_galleryView->setObjectName(QStringLiteral("gallerySeriesWindow"));
            m_galleryView->setWindowFlag(Qt::Window);
            m_galleryView->costPanel()->setPersistent(m_opts.useSettings);
            m_galleryView->resize(1400, 900);
            followGalleryLinks(m_galleryView->writeUp(), this);
            m_galleryView->setRerunHandler([this] {
                QString why;
                if (!rerunBundledSeries(m_galleryId, &why)) m_galleryView->statusLabel()->setText(why);
            });
        }
        std::string why;
        std::optional<nlohmann::json> doc;
        if (!readGalleryFile(entry->series, bytes, qint64(kMaxSeriesDocumentBytes)))
            error = tr("%1 is not in the bundle").arg(entry->series);
        else if (!(doc = parseJsonBounded(bytes.toStdString(), why)))
            error = QString::fromStdString(why);
        if (!doc || !m_galleryView->setDocument(*doc, &error)) {
            statusBar()->showMessage(tr("Cannot show the example %1: %2").arg(entry->title, error), 10000);
            return false;
        }
        m_galleryId = id;
        m_galleryView->setWriteUp(QString::fromUtf8(writeUp), {QStringLiteral(":/examples")});
        m_galleryView->setWindowTitle(tr("Example: %1 (recorded; Rerun on my GPU measures it here)").arg(entry->title));
        m_galleryView->rerunButton()->setEnabled(!entry->source.isEmpty());
        m_galleryView->show();
        m_galleryView->raise();
        return true;
    }
    // A copy outside the bundle: the session can be rerun, edited and saved like any other.
    QByteArray session;
    const QString path = readGalleryFile(entry->session, session) ? unpack(QStringLiteral("sessions"), entry->session, session)
                                                                   : QString();
    if (path.isEmpty()) {
        statusBar()->showMessage(tr("Cannot unpack the example %1").arg(id), 10000);
        return false;
    }
    QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (!m_experiment->openSession(path)) return false;
    if (!writeUp.isEmpty())
        showWriteUp(tr("Example: %1 (recorded on an H200; rerun it with Measure to see your GPU's numbers)").arg(entry->title));
    statusBar()->showMessage(tr("Example %1 opened: the recorded results are in Measure and Compare A/B; Run A/B "
                                "measures them on this machine's GPU").arg(entry->title),
                             10000);
    return true;
}

bool MainWindow::openGraphExample(const GalleryEntry& entry, const QByteArray& writeUp) {
    auto fail = [&](const QString& why) {
        statusBar()->showMessage(tr("Cannot show the example %1: %2").arg(entry.title, why), 10000);
        return false;
    };
    if (!m_graphView) {
        m_graphView = new GraphBreakEvenView(this, m_session->jobs());
        m_graphView->setObjectName(QStringLiteral("galleryGraphWindow"));
        m_graphView->setWindowFlag(Qt::Window);
        m_graphView->resize(1400, 950);
        followGalleryLinks(m_graphView->writeUp(), this);
        m_graphView->setRerunHandler([this] {
            QString why;
            if (!rerunBundledGraph(m_graphId, &why)) m_graphView->statusLabel()->setText(why);
        });
    }
    // The recorded document first: a hostile one opens nothing (what is shown stays).
    QByteArray bytes;
    QString error;
    if (!readGalleryFile(entry.graph, bytes, qint64(kMaxGraphBreakEvenDocumentBytes)))
        return fail(tr("%1 is not in the bundle or larger than %2 MiB")
                        .arg(entry.graph)
                        .arg(kMaxGraphBreakEvenDocumentBytes >> 20));
    if (!m_graphView->setRecordedBytes(bytes, &error)) return fail(tr("%1: %2").arg(entry.graph, error));
    // The kernel in the editor, built like any file, from a copy outside the bundle with its
    // sidecar beside it (the Measure pane's launch).
    QByteArray source;
    const QString path = unpackSource(entry, QStringLiteral("graph-") + entry.id, &source);
    if (path.isEmpty()) return fail(tr("cannot unpack %1").arg(entry.source));
    loadText(path, QString::fromUtf8(source));
    m_graphId = entry.id;
    m_graphView->setWriteUp(QString::fromUtf8(writeUp), {QStringLiteral(":/examples")});
    m_graphView->setWindowTitle(
        tr("Example: %1 (recorded; Rerun on my GPU measures it here)").arg(entry.title));
    m_graphView->rerunButton()->setEnabled(!m_graphView->isRunning());
    m_graphView->show();
    m_graphView->raise();
    statusBar()->showMessage(
        tr("Example %1 opened: its kernel is in the editor; Rerun on my GPU (in the example's "
           "window) measures the graph path here")
            .arg(entry.title),
        10000);
    return true;
}

bool MainWindow::rerunBundledGraph(const QString& id, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const std::optional<GalleryEntry> entry = galleryEntry(id);
    if (!entry || entry->kind != QLatin1String("graph") || entry->source.isEmpty())
        return fail(tr("%1 is not a graph example with a kernel source").arg(id));
    if (!m_graphView || m_graphId != id) {
        if (!openBundledExperiment(id)) return fail(statusBar()->currentMessage());
    }
    LocalGraphBreakEvenRequest r;
    // What the shown recorded document was measured with, checked against the runner's limits
    // when it was read (readGraphBreakEvenDocument); its kernel name only picks among the built
    // kernels.
    r.graphPath = m_graphView->recordedOptions();
    r.kernel = m_graphView->recordedKernel();
    // A copy of its own, so that edits in the editor do not change what the example measures.
    r.sourcePath = unpackSource(*entry, QStringLiteral("graph-run-") + id).toStdString();
    if (r.sourcePath.empty()) return fail(tr("Cannot unpack %1").arg(entry->source));
    r.fileName = entry->source.toStdString();
    // Default options on this GPU's architecture (A's).
    r.options.arch = m_session->options().arch.empty() ? BuildOptions{}.arch : m_session->options().arch;
    r.launch = defaultLaunch(r.sourcePath, r.kernel, {});
    r.runnerCommand = m_measure->runnerCommand();
    r.deadlineS = m_measure->deadlineSeconds();
    m_graphView->run(r);
    return true;
}

bool MainWindow::rerunBundledSeries(const QString& id, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const std::optional<GalleryEntry> entry = galleryEntry(id);
    if (!entry || entry->kind != QLatin1String("series") || entry->source.isEmpty())
        return fail(tr("%1 is not a series example with a kernel source").arg(id));
    if (!m_galleryView || m_galleryId != id) openBundledExperiment(id);
    const nlohmann::json& doc = m_galleryView->document();
    LocalSeriesRequest r;
    try {
        // The spec and the kernel name come from the document: the spec is checked by its parser (no
        // value reaches nvcc unless it is a plain token) and the name only picks among the built kernels.
        r.spec = parseSeriesSpec(doc.value("vary", std::string()));
    } catch (const std::invalid_argument& e) {
        return fail(tr("The example's series cannot be rerun: %1").arg(QString::fromStdString(e.what())));
    }
    // The sidecar carries the launch; it must sit next to the source under the source's stem.
    r.sourcePath = unpackSource(*entry, QStringLiteral("series-") + id).toStdString();
    if (r.sourcePath.empty()) return fail(tr("Cannot unpack %1").arg(entry->source));
    r.fileName = entry->source.toStdString();
    // The recorded options of the example, on this GPU's architecture (A's).
    r.base.arch = m_session->options().arch;
    for (const QString& d : entry->defines) r.base.defines.push_back(d.toStdString());
    r.kernel = doc.value("kernel", std::string());
    r.launch = defaultLaunch(r.sourcePath, r.kernel, {});
    for (const QString& a : entry->args) setLaunchArg(r.launch, a.toStdString());
    r.runnerCommand = m_measure->runnerCommand();
    r.deadlineS = m_measure->deadlineSeconds();
    m_galleryView->run(r, SeriesView::Target::Mine);
    return true;
}

bool MainWindow::runSeries(const QString& specText, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    LocalSeriesRequest r;
    try {
        r.spec = parseSeriesSpec(specText.toStdString());
    } catch (const std::invalid_argument& e) {
        return fail(QString::fromStdString(e.what()));
    }
    SnapshotPtr snap = m_session->snapshot();
    const KernelModel* k = m_session->kernel();
    if (!snap || !snap->ok() || !k) return fail(tr("Build A first: the series varies A's source and options."));
    // The editor's text as it is now (saved or not), next to nothing else: the source's folder is
    // added to the include path so its headers are found.
    const QString name = QFileInfo(m_session->displayName()).fileName();
    const QString path = unpack(QStringLiteral("series-run"), name.isEmpty() ? QStringLiteral("kernel.cu") : name,
                                m_session->text().toUtf8());
    if (path.isEmpty()) return fail(tr("Cannot write the source for the series."));
    r.sourcePath = path.toStdString();
    r.fileName = name.toStdString();
    r.base = snap->options;
    const QFileInfo original(m_session->sourcePath());
    if (!m_session->sourcePath().isEmpty() && !m_session->sourcePath().startsWith(QLatin1Char(':')) && original.exists())
        r.base.includeDirs.push_back(original.absolutePath().toStdString());
    r.kernel = k->mangled;
    r.launch = m_measure->launch();
    r.runnerCommand = m_measure->runnerCommand();
    r.deadlineS = m_measure->deadlineSeconds();
    m_seriesPane->run(r, SeriesView::Target::Shown);
    if (QDockWidget* d = pane(QStringLiteral("series"))) {
        d->show();
        d->raise();
    }
    return true;
}

bool MainWindow::openSeries(const QString& path, QString* error) {
    if (!m_seriesPane->openFile(path, error)) return false;
    if (QDockWidget* d = pane(QStringLiteral("series"))) {
        d->show();
        d->raise();
    }
    return true;
}

void MainWindow::openExample() {
    QFile f(QStringLiteral(":/examples/reduction.cu"));
    if (!f.open(QIODevice::ReadOnly)) return;
    loadText(QStringLiteral(":/examples/reduction.cu"), QString::fromUtf8(f.readAll()));
}

bool MainWindow::save() {
    // Save saves the edited headers too (a build would save them anyway).
    if (QString error; !m_session->saveHeaderEdits(&error)) {
        statusBar()->showMessage(error, 10000);
        return false;
    }
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
    if (m_session->hasHeaderEdits() && isVisible()) {
        QStringList names;
        for (const QString& p : m_session->editedHeaders()) names << QFileInfo(p).fileName();
        const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                                  tr("%1 has unsaved changes. Save them?").arg(names.join(QStringLiteral(", "))),
                                                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
        if (answer == QMessageBox::Cancel) return false;
        if (answer == QMessageBox::Discard) {
            m_session->discardHeaderEdits();
        } else if (QString error; !m_session->saveHeaderEdits(&error)) {
            statusBar()->showMessage(error, 10000);
            return false;
        }
    }
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
    const bool unsaved = m_modified || m_session->hasHeaderEdits();
    setWindowTitle(QStringLiteral("%1%2 — Lowerscope").arg(m_session->displayName(), unsaved ? QStringLiteral(" •") : QString()));
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
    if (s.contains(QStringLiteral("windowState")))
        m_layoutRestored = restoreState(s.value(QStringLiteral("windowState")).toByteArray(), kStateVersion);
    // Compare mode starts off, so B's options are not shown even if they were when saved.
    if (QDockWidget* optB = pane(QStringLiteral("options-b")); optB && !compareMode()) optB->hide();
}

void MainWindow::saveSettings() {
    QSettings s;
    s.setValue(QStringLiteral("geometry"), saveGeometry());
    // In the focus layout, keep the docks it hid: the next start shows them again.
    s.setValue(QStringLiteral("windowState"), m_beforeFocus.isEmpty() ? saveState(kStateVersion) : m_beforeFocus);
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
            m_kernelCombo->setItemData(m_kernelCombo->count() - 1, name, Qt::ToolTipRole);
        }
        m_kernelCombo->setCurrentIndex(m_session->kernelIndex());
    }
    m_kernelCombo->setEnabled(m_kernelCombo->count() > 1);
    m_kernelCombo->setToolTip(m_kernelCombo->currentText());
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

bool MainWindow::selectSourceLineIn(const QString& file, int line, QString* error) {
    const SnapshotPtr snap = m_session->snapshot();
    std::string why;
    const std::string recorded =
        snap ? resolveSourceQuery(snap->model.files, file.toStdString(), why) : std::string();
    if (recorded.empty()) {
        if (error) *error = snap ? QString::fromStdString(why) : tr("nothing is built");
        return false;
    }
    if (recorded == m_session->mainRecordedFile()) {
        selectSourceLine(line);
        return true;
    }
    if (!m_source->showFile(recorded)) {
        if (error) *error = tr("%1 is not a file of yours or a header of the toolkit that exists here").arg(QString::fromStdString(recorded));
        return false;
    }
    // As for the document: the caret moves there and the pane selects the line, as for a click.
    CodeEditor* ed = m_source->headerEditor();
    if (line >= 1 && line <= ed->lines()) {
        ed->setCursorPosition(line - 1, 0);
        ed->ensureLineVisibleCentered(line);
        ed->checkCursorLine();
    }
    const Selection& sel = m_session->selection();
    if (sel.origin != Selection::Origin::Source || sel.sourceFile != recorded || sel.fileLine != line)
        m_session->selectSourceLineIn(recorded, line);
    return true;
}

void MainWindow::updateInfo() {
    const Selection& sel = m_session->selection();
    QString text;
    if (sel.origin == Selection::Origin::Source && (sel.sourceLine > 0 || sel.fileLine > 0)) {
        // A header line names its file.
        const QString where = sel.sourceLine > 0 ? tr("line %1").arg(sel.sourceLine)
                                                 : QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(sel.sourceFile)).fileName()).arg(sel.fileLine);
        text = tr("%1 → %2 PTX line(s), %3 SASS instruction(s)")
                   .arg(where).arg(sel.ptxLines.size()).arg(sel.sassAddresses.size());
        if (sel.sassAddresses.empty() && m_session->kernel()) {
            // Headers hold several kernels (one per instantiation, or one per header): say which
            // other kernels have code on the line, so the kernel box can be switched to one.
            QStringList others;
            const SnapshotPtr snap = m_session->snapshot();
            const std::string file = sel.sourceLine > 0 ? snap->buildPath.toStdString() : sel.sourceFile;
            const int line = sel.sourceLine > 0 ? sel.sourceLine : sel.fileLine;
            for (const KernelModel& k : snap->model.kernels)
                if (&k != m_session->kernel() && !k.correlation.sassForSource(file, line, m_session->attribution()).empty())
                    others << QString::fromStdString(kernelNameWithArgs(k.name));
            if (others.isEmpty()) {
                text += tr(" (no code for this line)");
            } else {
                const qsizetype n = others.size();
                while (others.size() > 3) others.removeLast();
                text += tr(" (no code in this kernel; code in %1%2)")
                            .arg(others.join(QStringLiteral(", ")), n > 3 ? tr(" and %1 more").arg(n - 3) : QString());
            }
        }
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
    j["attribution"] = attributionName(m_session->attribution());
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
