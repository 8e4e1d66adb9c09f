#pragma once
// The Resources pane: the current kernel's resource usage and theoretical occupancy for a block
// size the user picks, defaulting to the kernel's launch sidecar (kernels/<file>.json), else its
// launch bounds (`__launch_bounds__` → .maxntid/.reqntid); the pane says which.

#include <QPointer>
#include <QWidget>

class QSpinBox;
class QTableView;

namespace lowerscope {

class Workspace;
class ResourcesModel;

class ResourcesPane : public QWidget {
    Q_OBJECT
public:
    explicit ResourcesPane(Workspace* session, QWidget* parent = nullptr);
    ResourcesModel* model() const { return m_model; }
    QSpinBox* blockSize() const { return m_block; }

private:
    void reload();

    QPointer<Workspace> m_session;
    ResourcesModel* m_model;
    QTableView* m_view;
    QSpinBox* m_block;
    QSpinBox* m_dynShared;
    bool m_settingBlock = false; // reload() is setting the block size: not the user's choice
};

// Block size from a launch sidecar (`<source>.json` next to the .cu: {"kernels":[{"name","block"}]}),
// or 0 when there is none.
int sidecarBlockSize(const QString& sourcePath, const QString& kernelName);

} // namespace lowerscope
