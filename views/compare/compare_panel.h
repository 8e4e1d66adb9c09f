#pragma once
// The Compare pane: build configuration B next to the main window's build A, and the DiffView of
// the two. B is a second workspace facade (its own options, builds, snapshot and kernel choice),
// edited with the same BuildOptionsPane as A. B builds the same file as A (following the editor's
// text, rebuilt whenever A builds) or another file, and may pick another kernel. The diff's
// occupancy rows follow A's launch shape (Workspace::launchShapeChanged), and its per-line deltas
// are published on A (Workspace::setCompareLineDeltas) for the source pane's margin.
//
// Compare mode (setActive) decides whether B exists at all: while active, B is rebuilt after each
// build of A and shortly after each change of its options, and the diff says it is stale while
// either side rebuilds; while inactive nothing of B is built, the diff is empty and no deltas are
// published. B's configuration widget starts inside the panel; the main window moves it into a
// dock of its own ("Build options B") beside A's options, so setting B up needs no docking tricks.

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTimer;

namespace lowerscope {

class Workspace;
class DiffView;
class BuildOptionsPane;
struct BuildOptions;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    // `sessionA` is the main window's session (not owned; observed).
    explicit ComparePanel(Workspace* sessionA, QWidget* parent = nullptr);
    ~ComparePanel() override;

    Workspace* sessionA() const { return m_a; }
    Workspace* sessionB() const { return m_b; }
    DiffView* diffView() const { return m_diff; }
    BuildOptionsPane* optionsPaneB() const { return m_optionsB; }
    QComboBox* kernelComboB() const { return m_kernelB; }
    QLabel* statusLabel() const { return m_status; }

    // B builds A's file and text (default), or its own file.
    bool followsA() const { return m_followA; }
    void setFollowA(bool follow);
    // Loads another file for B (stops following A). False with a message when unreadable.
    bool openFileForB(const QString& path, QString* error = nullptr);
    // B's own source from text (a session restored): stops following A.
    void setSourceB(const QString& path, const QString& text);
    void setOptionsB(const BuildOptions& options);
    void copyOptionsFromA();
    // Builds B now (the same background machinery as A; a newer build supersedes).
    void buildB();
    // Rebuild B automatically whenever A finishes a build while following A (default on).
    void setAutoBuildB(bool on) { m_autoBuildB = on; }
    // Delay between a change of B's options and B's rebuild (ms; edits in a burst build once).
    void setRebuildDelay(int ms);

    // Compare mode. A standalone panel starts active; the main window starts it inactive and
    // drives it from its "Compare with…" toggle. Turning it on builds B when it has no current
    // build (the first time, from a copy of A's options unless setOptionsB chose others); turning
    // it off cancels B's build.
    void setActive(bool active);
    bool isActive() const { return m_active; }

    // B's source/kernel/options/Build B/status block. detachConfiguration() takes it out of the
    // panel (once) for the caller to put into a dock; it stays owned by its new parent.
    QWidget* configurationWidget() const { return m_config; }
    QWidget* detachConfiguration();

signals:
    void compareUpdated(); // the DiffView shows a new pair
    void activeChanged(bool active);

private:
    void syncFromA();
    void refreshSides();
    void updateKernelCombo();
    void updateStatus();
    void updateStale();

    QPointer<Workspace> m_a;
    Workspace* m_b;
    bool m_active = true;
    bool m_optionsChosen = false; // B's options were set (or B was active): no copy of A on activation
    bool m_followA = true;
    bool m_autoBuildB = true;
    QTimer* m_rebuildTimer;
    QSplitter* m_split;
    QWidget* m_config;
    bool m_updatingCombo = false;
    QString m_preferredKernel; // B's kernel: by name, so it survives rebuilds
    DiffView* m_diff;
    BuildOptionsPane* m_optionsB;
    QComboBox* m_sourceB;
    QComboBox* m_kernelB;
    QPushButton* m_buildB;
    QPushButton* m_copyA;
    QLabel* m_status;
};

} // namespace lowerscope
