#include "views/build/resources_model.h"

namespace lowerscope {

ResourcesModel::ResourcesModel(QObject* parent) : QAbstractTableModel(parent) {}

void ResourcesModel::setKernel(const QString& name, const Resources& resources, const QString& arch) {
    m_valid = true;
    m_name = name;
    m_resources = resources;
    m_arch = arch;
    rebuild();
}

void ResourcesModel::clear() {
    m_valid = false;
    rebuild();
}

void ResourcesModel::setBlockSize(int threads) {
    if (threads == m_blockSize) return;
    m_blockSize = threads;
    rebuild();
}

void ResourcesModel::setBlockOrigin(const QString& origin) {
    if (origin == m_blockOrigin) return;
    m_blockOrigin = origin;
    rebuild();
}

void ResourcesModel::setLaunchBounds(const PtxLaunchBounds& bounds) {
    if (bounds == m_bounds) return;
    m_bounds = bounds;
    rebuild();
}

void ResourcesModel::setDynamicShared(int bytes) {
    if (bytes == m_dynamicShared) return;
    m_dynamicShared = bytes;
    rebuild();
}

static QString bytes(int n) {
    if (n < 0) return QObject::tr("not reported");
    if (n >= 1024 && n % 1024 == 0) return QStringLiteral("%1 B (%2 KiB)").arg(n).arg(n / 1024);
    return QStringLiteral("%1 B").arg(n);
}

void ResourcesModel::rebuild() {
    beginResetModel();
    m_rows.clear();
    m_occupancy = {};
    if (m_valid) {
        const Resources& r = m_resources;
        auto count = [](int n) { return n < 0 ? QObject::tr("not reported") : QString::number(n); };
        m_rows.push_back({"kernel", tr("Kernel"), m_name, 0, {}});
        m_rows.push_back({"registers", tr("Registers / thread"), count(r.registers), double(r.registers), {}});
        m_rows.push_back({"shared", tr("Shared memory (static)"), bytes(r.sharedBytes), double(r.sharedBytes), {}});
        m_rows.push_back({"local", tr("Local memory / thread"), bytes(r.localBytes), double(r.localBytes), {}});
        m_rows.push_back({"stack", tr("Stack / thread"), bytes(r.stackBytes), double(r.stackBytes), {}});
        m_rows.push_back({"constant", tr("Constant bank 0"), bytes(r.constantBytes), double(r.constantBytes), {}});
        m_rows.push_back({"spill_stores", tr("Spill stores"), bytes(r.spillStores), double(r.spillStores),
                          tr("Bytes of registers spilled to local memory (ptxas -v)")});
        m_rows.push_back({"spill_loads", tr("Spill loads"), bytes(r.spillLoads), double(r.spillLoads), {}});
        m_rows.push_back({"barriers", tr("Named barriers"), count(r.barriers), double(r.barriers), {}});

        const ArchLimits limits = archLimits(m_arch.toStdString());
        const int shared = std::max(r.sharedBytes, 0) + m_dynamicShared;
        m_occupancy = computeOccupancy(limits, r.registers, shared, m_blockSize, &m_bounds);
        const QString archNote = limits.known ? m_arch : tr("%1 (unknown; sm_90 limits)").arg(m_arch);
        m_rows.push_back({"arch", tr("Architecture"), archNote, 0, {}});
        m_rows.push_back({"block_size", tr("Block size"),
                          m_blockOrigin.isEmpty() ? tr("%1 threads").arg(m_blockSize)
                                                  : tr("%1 threads (%2)").arg(m_blockSize).arg(m_blockOrigin),
                          double(m_blockSize), tr("Where the block size comes from: a launch sidecar next to the "
                                                  "source, the kernel's __launch_bounds__, or your choice")});
        std::string boundsOrigin;
        if (launchBoundsBlockSize(m_bounds, &boundsOrigin) > 0 || m_bounds.minnctapersm > 0 || m_bounds.maxnreg > 0) {
            QStringList parts;
            if (m_bounds.maxThreads() > 0) parts << tr("at most %1 threads").arg(m_bounds.maxThreads());
            if (m_bounds.requiredThreads() > 0) parts << tr("exactly %1 threads").arg(m_bounds.requiredThreads());
            if (m_bounds.minnctapersm > 0) parts << tr("at least %1 blocks / SM asked").arg(m_bounds.minnctapersm);
            if (m_bounds.maxnreg > 0) parts << tr("at most %1 registers").arg(m_bounds.maxnreg);
            m_rows.push_back({"launch_bounds", tr("Launch bounds"), parts.join(QStringLiteral(", ")), 0,
                              tr("From the PTX directives (.maxntid, .reqntid, .minnctapersm, .maxnreg) that "
                                 "__launch_bounds__ / __maxnreg__ produce")});
        }
        if (m_occupancy.limiter == OccupancyLimiter::Invalid) {
            m_rows.push_back({"occupancy", tr("Theoretical occupancy"),
                              tr("invalid: %1").arg(QString::fromStdString(m_occupancy.problem)), 0, {}});
        } else {
            m_rows.push_back({"occupancy", tr("Theoretical occupancy"),
                              QStringLiteral("%1 % (%2 / %3 warps per SM)")
                                  .arg(m_occupancy.occupancy * 100.0, 0, 'f', 1)
                                  .arg(m_occupancy.warpsPerSm)
                                  .arg(limits.maxWarpsPerSm),
                              m_occupancy.occupancy,
                              tr("Assumes the largest shared-memory carveout (%1 KiB per SM)").arg(limits.sharedPerSm / 1024)});
            m_rows.push_back({"blocks_per_sm", tr("Blocks / SM"), QString::number(m_occupancy.blocksPerSm),
                              double(m_occupancy.blocksPerSm), {}});
            m_rows.push_back({"limiter", tr("Limited by"), QString::fromLatin1(limiterName(m_occupancy.limiter)), 0,
                              tr("blocks/SM by warps %1, registers %2, shared %3, block slots %4")
                                  .arg(m_occupancy.blocksByWarps).arg(m_occupancy.blocksByRegisters)
                                  .arg(m_occupancy.blocksByShared).arg(m_occupancy.blocksByBlockSlots)});
        }
    }
    endResetModel();
}

int ResourcesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int ResourcesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ResourcesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& r = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole: return index.column() == PropertyColumn ? r.label : r.value;
    case Qt::ToolTipRole: return r.tip.isEmpty() ? QVariant() : QVariant(r.tip);
    case KeyRole: return r.key;
    case NumericValueRole: return r.numeric;
    }
    return {};
}

QVariant ResourcesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == PropertyColumn ? tr("Property") : tr("Value");
}

} // namespace lowerscope
