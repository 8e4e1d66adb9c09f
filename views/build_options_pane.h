#pragma once
// The Build options panel: one widget per BuildOptions field, and a live preview of the nvcc
// command line the next build runs.

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
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
    QPlainTextEdit* preview() const { return m_preview; }
    // Fills the architecture list (nvcc --list-gpu-arch); keeps the current choice.
    void setArchitectures(const QStringList& archs);

private:
    void fromOptions(const BuildOptions& o);
    void toSession();
    void updatePreview();

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
};

} // namespace lowerscope
