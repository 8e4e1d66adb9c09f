#pragma once
// The kernel table of a capture document (lowerscope.capture/1, core/capture/capture_document.h),
// one row per kernel, sorted by total GPU time (largest first) as the document lists them: name
// (demangled), launches, total, share of GPU time, median with its 95 % interval, min, max, the
// grid and block of its first launch, and how many of its launches the filter selected.
// Times are shown in µs; SortRole gives the number behind each cell.

#include "core/capture/capture_document.h"

#include <QAbstractTableModel>
#include <QString>

#include <array>
#include <vector>

namespace lowerscope {

// A capture document read for the GUI: the summary the core reads (untrusted input checked) and,
// per kernel, the shape of its first launch (from the document's launches).
struct CaptureDocumentView {
    QString path; // the document (absolute)
    capture::CaptureSummary summary;
    struct Shape {
        bool known = false;
        std::array<int64_t, 3> grid{}, block{};
        int64_t dynamicSmem = 0;
    };
    std::vector<Shape> firstLaunch; // per summary.kernels entry
};

// Reads the capture document at `path` (bounded; core/capture's reader). False with `error` one
// sentence.
bool readCaptureView(const QString& path, CaptureDocumentView& out, QString& error);

class CaptureKernelModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { ColName, ColLaunches, ColTotal, ColShare, ColMedian, ColMin, ColMax, ColShape, ColSelected, ColCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // the number behind the cell (ns, share 0..1, count)
        KernelIndexRole,             // index into summary.kernels
        MangledRole,                 // the kernel's mangled name
        HasCubinRole,                // a saved module holds it (it can open)
    };

    explicit CaptureKernelModel(QObject* parent = nullptr);

    void setDocument(const CaptureDocumentView& doc);
    const CaptureDocumentView& document() const { return m_doc; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "12.345" µs from ns, three decimals below 1 ms, one above.
    static QString formatMicros(double ns);

private:
    CaptureDocumentView m_doc;
};

} // namespace lowerscope
