#pragma once
// The Compare pane: build configuration B next to the main window's build A, and the DiffView of
// the two. B is a second workspace facade (its own options, builds, snapshot and kernel choice),
// edited with the same BuildOptionsPane as A. B builds the same file as A (following the editor's
// text, rebuilt whenever A builds) or another file, and may pick another kernel. The diff's
// occupancy rows follow A's launch shape (Workspace::launchShapeChanged), and its per-line deltas
// are published on A (Workspace::setCompareLineDeltas) for the source pane's margin.

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;

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

signals:
    void compareUpdated(); // the DiffView shows a new pair

private:
    void syncFromA();
    void refreshSides();
    void updateKernelCombo();
    void updateStatus();

    QPointer<Workspace> m_a;
    Workspace* m_b;
    bool m_followA = true;
    bool m_autoBuildB = true;
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
