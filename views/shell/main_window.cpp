// The main window (see main_window.h): its composition from the feature rooms, the pane docks,
// the menus and toolbar, help, theme and settings.
#include "views/shell/main_window.h"

#include "core/build/json_io.h"
#include "views/advise/advise_room.h"
#include "views/build/build_options_pane.h"
#include "views/build/build_room.h"
#include "views/code/code_editor.h"
#include "views/capture/capture_room.h"
#include "views/code/code_room.h"
#include "views/code/source_pane.h"
#include "views/common/dialogs.h"
#include "views/common/theme.h"
#include "views/common/workspace.h"
#include "views/compare/compare_panel.h"
#include "views/compare/compare_room.h"
#include "views/experiment/experiment_room.h"
#include "views/measure/measure_pane.h"
#include "views/measure/measure_room.h"
#include "views/shell/autosave.h"
#include "views/shell/help.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

namespace lowerscope {

namespace {
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
    for (Room* room : std::as_const(m_rooms)) room->addActions(*this);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);
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
        // After a failed build too (issue 35 item 4: the fix for a missing include is an option).
        if (m_autoBuildAction->isChecked() && (m_session->snapshot() || m_session->lastAttempt())) m_debounce->start();
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
        m_debounce->stop(); // a build started by other means (Enter in the options) covers it
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
    // The View menu and the default layout's tabs list the panes in this order; a pane not named
    // here follows them in the order it was registered.
    static const QStringList order{QStringLiteral("source"),  QStringLiteral("ptx"),         QStringLiteral("sass"),
                                   QStringLiteral("output"),  QStringLiteral("resources"),   QStringLiteral("options"),
                                   QStringLiteral("cfg"),     QStringLiteral("sass-filter"), QStringLiteral("compare"),
                                   QStringLiteral("options-b"), QStringLiteral("measure"),   QStringLiteral("profile"),
                                   QStringLiteral("experiment"), QStringLiteral("series")};
    auto rank = [](const QString& pane) { return order.contains(pane) ? order.indexOf(pane) : order.size(); };
    qsizetype at = m_paneOrder.size();
    while (at > 0 && rank(m_paneOrder[at - 1]) > rank(id)) --at;
    m_paneOrder.insert(at, id);
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
    // The feature rooms, one line each: a room creates and registers its panes and connects them
    // to the rooms before it. Compare comes before measure, which measures its configuration B.
    m_code = new CodeRoom(*this);
    m_build = new BuildRoom(*this);
    m_compareRoom = new CompareRoom(*this);
    m_measureRoom = new MeasureRoom(*this, *m_code, m_compareRoom->sessionB(), [this] { return m_compare->isActive(); });
    m_experimentRoom = new ExperimentRoom(*this, *m_measureRoom);
    m_compareRoom->connectRooms(*m_measureRoom, *m_experimentRoom);
    m_adviseRoom = new AdviseRoom(*this, *m_measureRoom, *m_compareRoom);
    m_captureRoom = new CaptureRoom(*this, [this](const QString& cubin) { return openFile(cubin); });
    m_captureRoom->setProfileOpener([this](const QString& path, QString* error) { return openProfile(path, error); });
    m_rooms = {m_code, m_build, m_measureRoom, m_experimentRoom, m_compareRoom, m_adviseRoom, m_captureRoom};

    m_source = m_code->source();
    m_ptx = m_code->ptx();
    m_sass = m_code->sass();
    m_cfg = m_code->cfg();
    m_filter = m_code->filter();
    m_output = m_build->output();
    m_resources = m_build->resources();
    m_optionsPane = m_build->options();
    m_compare = m_compareRoom->panel();
    m_experiment = m_compareRoom->experiment();
    m_measure = m_measureRoom->measure();
    m_profilePane = m_measureRoom->profile();
    m_card = m_experimentRoom->card();
    m_source->editor()->viewport()->installEventFilter(this);
    m_source->editor()->setAcceptDrops(true);
}

QMenu* MainWindow::menu(Menu which) const {
    switch (which) {
    case Menu::File: return m_fileMenu;
    case Menu::Build: return m_buildMenu;
    case Menu::Navigate: return m_navigateMenu;
    case Menu::View: return m_viewMenu;
    }
    return nullptr;
}

void MainWindow::showStatus(const QString& text, int ms) { statusBar()->showMessage(text, ms); }
QString MainWindow::statusText() const { return statusBar()->currentMessage(); }

// The rooms' parts of the window's interface.
bool MainWindow::openProfile(const QString& path, QString* error) { return m_measureRoom->openProfile(path, error); }
QList<QPair<QString, QString>> MainWindow::bundledExperiments() { return ExperimentRoom::bundledExperiments(); }
bool MainWindow::openBundledExperiment(const QString& id) { return m_experimentRoom->openBundledExperiment(id); }
QWidget* MainWindow::writeUpWindow() const { return m_experimentRoom->writeUpWindow(); }
SeriesView* MainWindow::galleryView() const { return m_experimentRoom->galleryView(); }
GraphBreakEvenView* MainWindow::graphView() const { return m_experimentRoom->graphView(); }
SeriesView* MainWindow::seriesPane() const { return m_experimentRoom->seriesPane(); }
bool MainWindow::rerunBundledSeries(const QString& id, QString* error) { return m_experimentRoom->rerunBundledSeries(id, error); }
bool MainWindow::rerunBundledGraph(const QString& id, QString* error) { return m_experimentRoom->rerunBundledGraph(id, error); }
bool MainWindow::runSeries(const QString& spec, QString* error) { return m_experimentRoom->runSeries(spec, error); }
bool MainWindow::openSeries(const QString& path, QString* error) { return m_experimentRoom->openSeries(path, error); }
bool MainWindow::openCapture(const QString& path, const QString& kernel, QString* error) {
    if (!m_captureRoom->openCapture(path, kernel, error)) return false;
    addRecent(QFileInfo(path).absoluteFilePath());
    return true;
}

void MainWindow::createActions() {
    QMenu* file = m_fileMenu = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, [this] {
        if (!maybeSave()) return;
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open"), QFileInfo(m_session->sourcePath()).absolutePath(),
            tr("CUDA sources (*.cu *.cuh);;PTX (*.ptx);;Binaries (*.cubin *.fatbin *.o *.so *.so.*);;"
               "Captures (*.capture.json *.json);;All files (*)"));
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
        else showProblem(this, tr("Open project"), error);
    });
    file->addAction(tr("Open p&rofile…"), this, [this] {
        const QString doc = QFileDialog::getOpenFileName(
            this, tr("Open a profile (lowerscope-cli profile --json)"), QFileInfo(m_session->sourcePath()).absolutePath(),
            tr("Profiles (*.json);;All files (*)"));
        QString error;
        if (!doc.isEmpty() && !openProfile(doc, &error)) showProblem(this, tr("Open profile"), error);
        else if (!error.isEmpty()) QMessageBox::information(this, tr("Open profile"), error);
    });
    file->addAction(tr("Open s&eries…"), this, [this] {
        const QString doc = QFileDialog::getOpenFileName(this, tr("Open a parameter series (lowerscope-cli experiment --vary)"),
                                                         QString(), tr("Series (*.series.json);;All files (*)"));
        QString error;
        if (!doc.isEmpty() && !openSeries(doc, &error)) showProblem(this, tr("Open series"), error);
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
    // The rooms add theirs (Examples, sessions, measurements, report), then Quit closes the menu.

    QMenu* buildMenu = m_buildMenu = menuBar()->addMenu(tr("&Build"));
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
    connect(attr, &QAction::toggled, this, [this](bool callee) { m_attribution->setCurrentIndex(callee ? 1 : 0); });

    m_info = new QLabel(this);
    m_info->setObjectName(QStringLiteral("selectionInfo"));
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // One click from "no code for this line" to the attribution that shows it (issue 35 item 10).
    m_frameHint = new QToolButton(this);
    m_frameHint->setObjectName(QStringLiteral("showAnyFrame"));
    m_frameHint->setAutoRaise(true);
    m_frameHint->setText(tr("Show its code (frame: any)"));
    m_frameHint->hide();
    connect(m_frameHint, &QToolButton::clicked, this, [this] {
        const int any = m_attribution->findData(int(InlineAttribution::AnyFrame));
        if (any >= 0) m_attribution->setCurrentIndex(any);
    });
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
    statusBar()->addWidget(m_frameHint);
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
    for (Room* room : std::as_const(m_rooms)) room->applyTheme();
    updateStatus();
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
    rememberDocumentOptions();
    s.setValue(QStringLiteral("recentFiles"), m_recent);
}

} // namespace lowerscope
