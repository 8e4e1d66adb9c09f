#pragma once
// The Build options panel: what is open (input kind, project, and the Input box that switches
// between an arch list's builds, a binary's embedded cubins or a Triton cache's kernels), one widget
// per BuildOptions field (marked "· project" when the project's compile database set it and
// "· changed" when the user changed the project's value), and a live preview of the nvcc command
// line the next build runs.

#include <QHash>
#include <QPointer>
#include <QWidget>

class QAbstractButton;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace lowerscope {

class Workspace;
struct BuildOptions;

class BuildOptionsPane : public QWidget {
    Q_OBJECT
public:
    explicit BuildOptionsPane(Workspace* session, QWidget* parent = nullptr);
    QComboBox* archCombo() const { return m_arch; }
    QComboBox* variantCombo() const { return m_variant; }
    QLabel* inputLabel() const { return m_inputLabel; }
    // "project", "changed" or "" for an option key ("defines", "arch", ...): what the pane marks.
    QString originOf(const QString& key) const;
    QPlainTextEdit* preview() const { return m_preview; }
    // Fills the architecture list (nvcc --list-gpu-arch); keeps the current choice.
    void setArchitectures(const QStringList& archs);

private:
    void fromOptions(const BuildOptions& o);
    void toSession();
    void updatePreview();
    void updateOrigins();
    void updateInput();

    QPointer<Workspace> m_session;
    bool m_updating = false;
    QComboBox* m_arch;
    QComboBox* m_hostOpt;
    QComboBox* m_ptxasOpt;
    QCheckBox* m_lineinfo;
    QCheckBox* m_debug;
    QCheckBox* m_fastMath;
    QCheckBox* m_edv;
    QComboBox* m_ftz;
    QComboBox* m_precDiv;
    QComboBox* m_precSqrt;
    QComboBox* m_fmad;
    QSpinBox* m_maxReg;
    QComboBox* m_std;
    QLineEdit* m_defines;
    QLineEdit* m_includes;
    QLineEdit* m_nvccFlags;
    QLineEdit* m_ptxasFlags;
    QPlainTextEdit* m_preview;
    QLabel* m_inputLabel;
    QComboBox* m_variant;
    QHash<QString, QLabel*> m_keyLabels;            // option key → its label
    QHash<QString, QAbstractButton*> m_keyButtons;  // option key → its check box
    QHash<QString, QString> m_labelTexts;           // option key → the label's plain text
    QHash<QString, QString> m_origins;              // option key → "project" / "changed"
};

} // namespace lowerscope
