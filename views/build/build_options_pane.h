#pragma once
// The Build options panel: what is open (input kind, project, and the Input box that switches
// between an arch list's builds, a binary's embedded cubins or a Triton cache's kernels), one widget
// per BuildOptions field (marked "· project" when the project's compile database set it and
// "· changed" when the user changed the project's value), and a live preview of the nvcc command
// line the next build runs.
//
// The fields scroll (any dock height works) and are laid out in two label/field columns when the
// pane is wide enough, else one. Every control's tooltip says in a sentence what its nvcc flag
// does. The preview never breaks a line inside an argument (word joiners between its characters,
// removed again when the text is copied).

#include <QHash>
#include <QPointer>
#include <QWidget>

#include <vector>

class QAbstractButton;
class QCheckBox;
class QHBoxLayout;
class QLabel;
class QComboBox;
class QGridLayout;
class QResizeEvent;
class QScrollArea;
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
    QLineEdit* includesEdit() const { return m_includes; }
    QLabel* inputLabel() const { return m_inputLabel; }
    // "project", "changed" or "" for an option key ("defines", "arch", ...): what the pane marks.
    QString originOf(const QString& key) const;
    QPlainTextEdit* preview() const { return m_preview; }
    // The command the preview shows, as plain text (what a copy gives).
    QString previewText() const;
    // Fills the architecture list (nvcc --list-gpu-arch); keeps the current choice.
    void setArchitectures(const QStringList& archs);
    // Every input control of the pane (for tooltips and layout checks).
    QList<QWidget*> inputControls() const;
    // Label/field pairs per grid row: 2 when the pane is wide enough, else 1.
    int columnPairs() const { return m_pairs; }
    QScrollArea* scrollArea() const { return m_scroll; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fromOptions(const BuildOptions& o);
    void toSession();
    void updatePreview();
    void updateOrigins();
    void updateInput();
    void layoutFields(int pairs);
    int wideWidth() const;

    struct Field {
        QWidget* label = nullptr; // null: a check box that names its flag itself
        QWidget* field = nullptr;
        bool fullWidth = false;   // free-text rows span the whole grid
    };
    std::vector<Field> m_fields;
    QWidget* m_form = nullptr;
    QGridLayout* m_grid = nullptr;
    QScrollArea* m_scroll = nullptr;
    int m_pairs = 0;

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
    QHBoxLayout* m_inputRow;
    QHash<QString, QLabel*> m_keyLabels;            // option key → its label
    QHash<QString, QAbstractButton*> m_keyButtons;  // option key → its check box
    QHash<QString, QString> m_labelTexts;           // option key → the label's plain text
    QHash<QString, QString> m_baseTips;             // option key → what its flag does
    QHash<QString, QString> m_origins;              // option key → "project" / "changed"
};

} // namespace lowerscope
