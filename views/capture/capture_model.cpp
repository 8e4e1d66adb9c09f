#include "views/capture/capture_model.h"

#include "core/bounded_json.h"
#include "core/build/kernel_name.h"
#include "core/untrusted.h"

#include <QFileInfo>

namespace lowerscope {

bool readCaptureView(const QString& path, CaptureDocumentView& out, QString& error) {
    out = CaptureDocumentView{};
    out.path = QFileInfo(path).absoluteFilePath();
    std::string text, why;
    if (!readInputFile(path.toStdString(), kMaxDocumentBytes, "a capture document", text, why)) {
        error = QString::fromStdString(why);
        return false;
    }
    const auto doc = parseJsonBounded(text, why);
    if (!doc || !capture::readCaptureDocument(*doc, out.summary, why)) {
        error = QStringLiteral("%1: %2").arg(QString::fromStdString(escapeControl(path.toStdString())),
                                             QString::fromStdString(why));
        return false;
    }
    // The shape of each kernel's first launch. The reader checked the kernel indices; the shape
    // fields are read only when they are three integers each (anything else leaves it unknown).
    out.firstLaunch.assign(out.summary.kernels.size(), {});
    const auto triple = [](const nlohmann::json& l, const char* key, std::array<int64_t, 3>& v) {
        const auto it = l.find(key);
        if (it == l.end() || !it->is_array() || it->size() != 3) return false;
        for (size_t i = 0; i < 3; ++i) {
            if (!(*it)[i].is_number_integer()) return false;
            v[i] = (*it)[i].get<int64_t>();
        }
        return true;
    };
    if (const auto ls = doc->find("launches"); ls != doc->end() && ls->is_array()) {
        size_t known = 0;
        for (const auto& l : *ls) {
            const auto k = l.find("kernel");
            if (k == l.end() || !k->is_number_unsigned() || k->get<uint64_t>() >= out.firstLaunch.size()) continue;
            auto& shape = out.firstLaunch[k->get<size_t>()];
            if (shape.known) continue;
            shape.known = triple(l, "grid", shape.grid) && triple(l, "block", shape.block);
            if (const auto s = l.find("dynamic_smem"); s != l.end() && s->is_number_integer())
                shape.dynamicSmem = s->get<int64_t>();
            if (shape.known && ++known == out.firstLaunch.size()) break;
        }
    }
    return true;
}

CaptureKernelModel::CaptureKernelModel(QObject* parent) : QAbstractTableModel(parent) {}

void CaptureKernelModel::setDocument(const CaptureDocumentView& doc) {
    beginResetModel();
    m_doc = doc;
    endResetModel();
}

int CaptureKernelModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_doc.summary.kernels.size());
}

int CaptureKernelModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColCount; }

QString CaptureKernelModel::formatMicros(double ns) {
    const double us = ns / 1000.0;
    return QString::number(us, 'f', us >= 1000.0 ? 1 : 3);
}

namespace {
QString dims(const std::array<int64_t, 3>& v) {
    if (v[1] == 1 && v[2] == 1) return QString::number(v[0]);
    if (v[2] == 1) return QStringLiteral("%1×%2").arg(v[0]).arg(v[1]);
    return QStringLiteral("%1×%2×%3").arg(v[0]).arg(v[1]).arg(v[2]);
}
} // namespace

QVariant CaptureKernelModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto row = size_t(index.row());
    const capture::CaptureKernelRow& k = m_doc.summary.kernels[row];
    const CaptureDocumentView::Shape shape = row < m_doc.firstLaunch.size() ? m_doc.firstLaunch[row] : CaptureDocumentView::Shape{};
    const QString name = QString::fromStdString(escapeControl(k.demangled.empty() ? k.name : k.demangled));
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        // As the CLI's table names it: with template arguments, without return type and parameters
        // (the whole signature is the tooltip).
        case ColName: return QString::fromStdString(escapeControl(kernelNameWithArgs(k.demangled.empty() ? k.name : k.demangled)));
        case ColLaunches: return QString::number(k.count);
        case ColTotal: return formatMicros(k.totalNs);
        case ColShare: return QString::number(k.share * 100.0, 'f', 1) + QStringLiteral(" %");
        case ColMedian:
            return QStringLiteral("%1  [%2, %3]").arg(formatMicros(k.medianNs), formatMicros(k.ciLowNs), formatMicros(k.ciHighNs));
        case ColMin: return formatMicros(k.minNs);
        case ColMax: return formatMicros(k.maxNs);
        case ColShape:
            return shape.known ? QStringLiteral("%1 / %2").arg(dims(shape.grid), dims(shape.block)) : QStringLiteral("—");
        case ColSelected: return k.selected ? QString::number(k.selected) : QString();
        }
        return {};
    case SortRole:
        switch (index.column()) {
        case ColName: return name;
        case ColLaunches: return qulonglong(k.count);
        case ColTotal: return k.totalNs;
        case ColShare: return k.share;
        case ColMedian: return k.medianNs;
        case ColMin: return k.minNs;
        case ColMax: return k.maxNs;
        case ColShape:
            return shape.known ? double(shape.grid[0]) * double(shape.grid[1]) * double(shape.grid[2]) : -1.0;
        case ColSelected: return qulonglong(k.selected);
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == ColName ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
        if (index.column() == ColMedian)
            return tr("Median %1 µs; its 95 % confidence interval %2 to %3 µs (order statistics over %4 launches)")
                .arg(formatMicros(k.medianNs), formatMicros(k.ciLowNs), formatMicros(k.ciHighNs))
                .arg(k.count);
        if (index.column() == ColShape && shape.known)
            return tr("First launch: grid %1, block %2, %3 bytes of dynamic shared memory")
                .arg(dims(shape.grid), dims(shape.block))
                .arg(shape.dynamicSmem);
        QString tip = QStringLiteral("%1\n%2").arg(name, QString::fromStdString(escapeControl(k.name)));
        tip += k.modules.empty() ? tr("\nNo saved module holds it: it cannot be opened")
                                 : tr("\nDouble-click: open its cubin in the Source, PTX and SASS panes");
        return tip;
    }
    case Qt::ForegroundRole:
        return {};
    case KernelIndexRole: return int(row);
    case MangledRole: return QString::fromStdString(k.name);
    case HasCubinRole: return !k.modules.empty();
    }
    return {};
}

QVariant CaptureKernelModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case ColName: return tr("Kernel");
        case ColLaunches: return tr("Launches");
        case ColTotal: return tr("Total µs");
        case ColShare: return tr("Share");
        case ColMedian: return tr("Median µs [95 % CI]");
        case ColMin: return tr("Min µs");
        case ColMax: return tr("Max µs");
        case ColShape: return tr("Grid / block");
        case ColSelected: return tr("Selected");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ColTotal: return tr("GPU time of all its launches (the table starts sorted by it)");
        case ColShare: return tr("Its share of the GPU time of every captured kernel");
        case ColShape: return tr("Grid and block of its first launch");
        case ColSelected: return tr("Launches the kernel filter selected (--kernel, --launch-skip, --launch-count)");
        }
    }
    return {};
}

} // namespace lowerscope
