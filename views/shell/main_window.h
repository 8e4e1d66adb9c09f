#pragma once
// The main window: every pane is a QDockWidget registered under a stable id (layout saved in
// QSettings), a toolbar with build controls, the kernel selector and the attribution toggle, and
// a status bar with build progress, the stale state and the inline chain of the selection.
// createPanes() composes the window from the feature rooms (views/common/room_host.h): each room
// creates and registers its panes, adds its actions to the menus and connects what its panes
// publish; panes talk only to the workspace facade, never to each other. Besides the composition
// (main_window.cpp), the shell's MainWindow is defined in window_layout.cpp (the default layout,
// focus and compare mode), window_files.cpp (opening and saving, recent files, recovery) and
// window_status.cpp (kernel box, status bar, selection, automation dump).
//
// Layout (issue 17): the default layout is computed for the window's size (code panes on top, a
// bottom row at about a quarter of the height; below 1400 px wide the bottom panes are tabs of one
// group), re-applied once the window is first shown at its real size. "Focus on code" (F11) shows
// only the code panes; "Reset layout" goes back to the default. "Compare with…" (toolbar) turns on
// configuration B: its options dock opens beside A's and B is built next to A. The Help menu holds
// the panes page (F1 opens the focused pane's section), a shortcut sheet generated from the
// window's actions, and About.

#include "core/build/build.h"
#include "views/common/room_host.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

#include <nlohmann/json.hpp>

class QAction;
class QComboBox;
class QDockWidget;
class QElapsedTimer;
class QLabel;
class QMenu;
class QProgressBar;
class QShowEvent;
class QTimer;
class QToolButton;

namespace lowerscope {

class Workspace;
class SourcePane;
class PtxPane;
class SassPane;
class ProfilePane;
class BuildOutputPane;
class ResourcesPane;
class BuildOptionsPane;
class CfgView;
class SassFilterPane;
class ComparePanel;
class MeasurePane;
class ExperimentCardEditor;
class ExperimentController;
class Autosave;
class HelpWindow;
class SeriesView;
class GraphBreakEvenView;
class CodeRoom;
class BuildRoom;
class CompareRoom;
class MeasureRoom;
class ExperimentRoom;
class AdviseRoom;
class CaptureRoom;

class MainWindow : public QMainWindow, public RoomHost {
    Q_OBJECT
public:
    struct Options {
        bool useSettings = true;     // restore/save layout, options, theme, recent files
        bool offerRecovery = true;   // ask about orphaned autosaves at start
        bool autoBuildOnOpen = true; // build as soon as a file is loaded
        bool probeGpu = true;        // ask the runner for a GPU at start (Measure's Run buttons)
    };

    explicit MainWindow(QWidget* parent = nullptr) : MainWindow(Options{}, parent) {}
    explicit MainWindow(const Options& options, QWidget* parent = nullptr);
    ~MainWindow() override;

    Workspace* session() const override { return m_session; }
    SourcePane* sourcePane() const { return m_source; }
    PtxPane* ptxPane() const { return m_ptx; }
    SassPane* sassPane() const { return m_sass; }
    BuildOutputPane* buildOutputPane() const { return m_output; }
    ResourcesPane* resourcesPane() const { return m_resources; }
    BuildOptionsPane* buildOptionsPane() const { return m_optionsPane; }
    CfgView* cfgView() const { return m_cfg; }
    SassFilterPane* sassFilterPane() const { return m_filter; }
    ComparePanel* comparePanel() const { return m_compare; }
    MeasurePane* measurePane() const { return m_measure; }
    ProfilePane* profilePane() const { return m_profilePane; }
    // The recorded experiments bundled with the application (File → Examples, issue 15), from the
    // gallery manifest docs/examples/gallery.json (views/experiment/gallery.h): id ("ffma_chain"), title.
    // openBundledExperiment() opens one by its kind: a session (a copy in a temporary folder, so
    // saving never touches the bundle) with its write-up; a series in the gallery's series window
    // (chart, table, write-up, Rerun on my GPU); a graph (experiment 4) with its kernel source in
    // the editor (built like any file) and the gallery's graph window (table per N, write-up,
    // Rerun on my GPU); a report as its write-up. False when unknown or unreadable (the status bar
    // says why).
    static QList<QPair<QString, QString>> bundledExperiments();
    bool openBundledExperiment(const QString& id);
    // The write-up window of the last opened session or report example (nullptr before).
    QWidget* writeUpWindow() const;
    // The series window of the last opened series example (nullptr before).
    SeriesView* galleryView() const;
    // Reruns series example `id` on this machine's runner: its bundled source and sidecar are
    // unpacked to a temporary folder and every point is built (A's arch, the entry's defines) and
    // measured; the numbers appear beside the recorded ones. False with `error` when it cannot start.
    bool rerunBundledSeries(const QString& id, QString* error = nullptr);
    // The graph window of the last opened graph example (nullptr before).
    GraphBreakEvenView* graphView() const;
    // Reruns graph example `id` on this machine's runner: its bundled source and sidecar are
    // unpacked to a temporary folder, built with default options (A's arch) and the graph path
    // measured with the shown recorded document's path lengths and replay counts; the numbers
    // appear beside the recorded ones. False with `error` when it cannot start.
    bool rerunBundledGraph(const QString& id, QString* error = nullptr);

    // ---- parameter series (issue 15)
    // The Series pane: the card's Run series results and File → Open series.
    SeriesView* seriesPane() const;
    // Runs `spec` (parseSeriesSpec's language) over A's current source, options, kernel and the
    // Measure pane's launch and runner. False with `error` when it cannot start.
    bool runSeries(const QString& spec, QString* error = nullptr);
    bool openSeries(const QString& path, QString* error = nullptr);
    ExperimentCardEditor* experimentCard() const { return m_card; }
    ExperimentController* experiment() const { return m_experiment; }
    QComboBox* kernelCombo() const { return m_kernelCombo; }
    QLabel* infoLabel() const { return m_info; }
    QToolButton* anyFrameButton() const { return m_frameHint; }
    QLabel* staleLabel() const { return m_staleLabel; }
    QAction* cancelAction() const { return m_cancelAction; }
    QAction* compareAction() const { return m_compareAction; }
    QAction* focusAction() const { return m_focusAction; }
    QAction* resetLayoutAction() const { return m_resetLayoutAction; }

    // Adds a pane as a dock widget with a stable object name (`id`) so saved layouts find it.
    QDockWidget* registerPane(const QString& id, const QString& title, QWidget* widget,
                              Qt::DockWidgetArea area) override;
    QDockWidget* pane(const QString& id) const override { return m_panes.value(id); }
    QStringList paneIds() const { return m_paneOrder; }
    QStringList visiblePaneIds() const;

    // Opens any input (docs/INPUTS.md): a .cu (or PTX without sources) in the editor; a cubin, a
    // binary, a Triton folder or PTX beside its sources as it is (read-only source pane). The
    // project remembered for the file is applied. False (with a message) when unreadable.
    bool openFile(const QString& path);
    // Applies a compile database (compile_commands.json or its folder) to the open file and
    // remembers it for that file. False (with the reason in *error) when it has no entry for it.
    bool openProject(const QString& databasePath, QString* error = nullptr);
    // Shows a lowerscope.profile/1 document (lowerscope-cli profile --json) on the SASS rows of
    // the build it was taken on (issue 14). False with the reason when it cannot be read; when it
    // belongs to another build it is kept but hidden, and *error says why.
    bool openProfile(const QString& path, QString* error = nullptr);
    // The advisor (issue 34): its findings pane beside Profile.
    AdviseRoom* adviseRoom() const { return m_adviseRoom; }
    // The capture room (issue 29): File → Profile a program… and the Capture pane. openFile opens a
    // capture document (schema lowerscope.capture/1) there: its kernel table, and a kernel's cubin
    // in the code panes (`kernel` picks it; "" = the largest with a saved cubin).
    CaptureRoom* captureRoom() const { return m_captureRoom; }
    bool openCapture(const QString& path, const QString& kernel = {}, QString* error = nullptr);
    void loadText(const QString& path, const QString& text) override; // a buffer (example, recovered text)
    void openExample();                                 // the bundled reduction.cu
    bool save();
    bool saveAs(const QString& path);
    void setBuildOptions(const BuildOptions& options);
    void setAutoBuild(bool on);
    bool autoBuild() const;
    void setAutoBuildDelay(int ms);
    void selectSourceLine(int line);                    // moves the editor cursor (as a click would)
    // A line of any file the build's code maps to (`file`: a path or a unique file name, as
    // `inspect --line FILE:N` takes it): a header is opened in the Source pane first. False (and
    // `error` says why) when no such file of the user's is offered.
    bool selectSourceLineIn(const QString& file, int line, QString* error = nullptr);
    void applyTheme(bool dark);

    // Compare mode: configuration B is built beside A and its options dock is shown.
    void setCompareMode(bool on);
    bool compareMode() const;
    // The default layout for the window's current size (also View → Reset layout).
    void resetLayout();
    // Only the code panes (View → Focus on code, F11); off restores the docks as they were.
    void setFocusLayout(bool on);
    bool focusLayout() const;

    // Help. The window is created on first use.
    HelpWindow* helpWindow();
    void showPaneHelp(const QString& paneId = {}); // "" = the pane holding the keyboard focus
    void showShortcuts();
    void showAbout();
    // The id of the pane (dock) `widget` sits in, "" when none.
    QString paneIdOf(const QWidget* widget) const;

    // Automation: the state the panes show (selection highlights, visible panes, build status).
    nlohmann::json dumpState() const;

    // RoomHost: what the feature rooms use of the window.
    QMainWindow* hostWindow() override { return this; }
    QMenu* menu(Menu which) const override;
    void showStatus(const QString& text, int ms) override;
    QString statusText() const override;
    bool persistent() const override { return m_opts.useSettings; }
    bool maybeSave() override;
    // Grabs the real window (after layout) to a PNG. False when the image is blank or unwritable.
    bool saveScreenshot(const QString& path, QString* error = nullptr);

public slots:
    void build();
    void cancelBuild();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void createPanes();
    void createActions();
    void createHelpMenu();
    void connectCompare();
    void defaultLayout();
    void applyDefaultSizes();
    void restoreSettings();
    // Options per document: the current file's are remembered (QSettings), and `next` gets its own
    // remembered set or the defaults (the arch carries over); B follows A again, the filter clears.
    // Makes `dock` the shown tab of its tab group (raise() alone is undone by a group's first layout).
    void selectDockTab(QDockWidget* dock);
    void rememberDocumentOptions();
    void switchDocumentOptions(const QString& next);
    void saveSettings();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void updateTitle();
    void updateKernelCombo();
    void updateInfo();
    void updateStatus();
    void offerRecovery();

    // 2: the issue-17 layout (Build options B dock, sizes per window size); layouts saved by
    // version 1 put the bottom docks at half the height and are not restored.
    static constexpr int kStateVersion = 2;
    // Below this width the bottom panes share one tab group: side by side each would be too narrow.
    static constexpr int kWideLayout = 1400;

    Options m_opts;
    Workspace* m_session;
    Autosave* m_autosave;
    SourcePane* m_source = nullptr;
    PtxPane* m_ptx = nullptr;
    SassPane* m_sass = nullptr;
    BuildOutputPane* m_output = nullptr;
    ResourcesPane* m_resources = nullptr;
    BuildOptionsPane* m_optionsPane = nullptr;
    CfgView* m_cfg = nullptr;
    SassFilterPane* m_filter = nullptr;
    ComparePanel* m_compare = nullptr;
    MeasurePane* m_measure = nullptr;
    ProfilePane* m_profilePane = nullptr;
    ExperimentCardEditor* m_card = nullptr;
    ExperimentController* m_experiment = nullptr;
    HelpWindow* m_help = nullptr;
    // The feature rooms, in the order their actions are added (views/CMakeLists.txt's room order).
    CodeRoom* m_code = nullptr;
    BuildRoom* m_build = nullptr;
    MeasureRoom* m_measureRoom = nullptr;
    ExperimentRoom* m_experimentRoom = nullptr;
    CompareRoom* m_compareRoom = nullptr;
    AdviseRoom* m_adviseRoom = nullptr;
    CaptureRoom* m_captureRoom = nullptr;
    QList<Room*> m_rooms;
    QHash<QString, QDockWidget*> m_panes;
    QHash<QString, Qt::DockWidgetArea> m_paneArea; // the area each pane asked for
    QStringList m_paneOrder;
    QByteArray m_beforeFocus;
    bool m_layoutRestored = false;  // a saved layout was restored: keep its sizes
    bool m_sizesPending = true;     // default sizes not yet applied at the shown size

    QComboBox* m_kernelCombo = nullptr;
    QComboBox* m_attribution = nullptr;
    QAction* m_buildAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_autoBuildAction = nullptr;
    QAction* m_darkAction = nullptr;
    QAction* m_compareAction = nullptr;
    QAction* m_focusAction = nullptr;
    QAction* m_resetLayoutAction = nullptr;
    QMenu* m_fileMenu = nullptr;
    QMenu* m_buildMenu = nullptr;
    QMenu* m_navigateMenu = nullptr;
    QAction* m_viewPanesEnd = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QLabel* m_info = nullptr;
    QToolButton* m_frameHint = nullptr;
    QLabel* m_staleLabel = nullptr;
    QLabel* m_buildLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QTimer* m_debounce = nullptr;
    QTimer* m_elapsedTick = nullptr;
    QElapsedTimer* m_elapsed = nullptr;
    QStringList m_recent;
    bool m_modified = false;
};

} // namespace lowerscope
