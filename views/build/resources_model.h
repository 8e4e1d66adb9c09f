#pragma once
// The Resources pane's model: per kernel, what ptxas reported (registers, shared, local, stack,
// spills, barriers) and the theoretical occupancy for the chosen block size.

#include "core/build/build.h"
#include "core/analysis/occupancy.h"

#include <QAbstractTableModel>

namespace lowerscope {

class ResourcesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { PropertyColumn, ValueColumn, ColumnCount };
    enum Roles { KeyRole = Qt::UserRole + 1, NumericValueRole };

    explicit ResourcesModel(QObject* parent = nullptr);

    void setKernel(const QString& name, const Resources& resources, const QString& arch);
    void clear();
    void setBlockSize(int threads);
    // Where the block size came from ("sidecar saxpy.json", "__launch_bounds__ (.maxntid 128)",
    // "chosen here", ...): shown with it.
    void setBlockOrigin(const QString& origin);
    // The kernel's launch bounds: a block they forbid makes the occupancy invalid.
    void setLaunchBounds(const PtxLaunchBounds& bounds);
    QString blockOrigin() const { return m_blockOrigin; }
    void setDynamicShared(int bytes);
    int blockSize() const { return m_blockSize; }
    const TheoreticalOccupancy& occupancy() const { return m_occupancy; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString key;
        QString label;
        QString value;
        double numeric = 0;
        QString tip;
    };
    void rebuild();

    bool m_valid = false;
    QString m_name;
    Resources m_resources;
    QString m_arch;
    int m_blockSize = 256;
    QString m_blockOrigin;
    PtxLaunchBounds m_bounds;
    int m_dynamicShared = 0;
    TheoreticalOccupancy m_occupancy;
    QVector<Row> m_rows;
};

} // namespace lowerscope
