#pragma once
// The Capture pane: what `lowerscope-cli capture` (or File → Profile a program…) recorded of a
// program — a line about the run (program, exit, devices, launches, GPU time), the kernel table
// (CaptureKernelModel, sorted by total time; the header sorts by any column) and the document's
// notes. Double-click (or Enter) on a kernel asks to open it (kernelActivated); a banner above the
// table says what opening it gave (SASS only, a missing cubin, an error).

#include "views/capture/capture_model.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace lowerscope {

class CaptureView : public QWidget {
    Q_OBJECT
public:
    explicit CaptureView(QWidget* parent = nullptr);

    void setDocument(const CaptureDocumentView& doc);
    const CaptureDocumentView& document() const { return m_model->document(); }
    // A banner above the table ("" hides it); `warning` colours it as a problem.
    void setBanner(const QString& text, bool warning);
    QString bannerText() const;

    CaptureKernelModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QPlainTextEdit* notes() const { return m_notes; }
    QLabel* summaryLabel() const { return m_summary; }
    // The kernel index (into the document's kernels) shown in table row `row`, -1 when none.
    int kernelAtRow(int row) const;
    // The table row that shows kernel `kernelIndex`, -1 when none.
    int rowOfKernel(int kernelIndex) const;
    void applyTheme();

signals:
    // The user asked to open kernel `kernelIndex` (into the document's kernels).
    void kernelActivated(int kernelIndex);

private:
    void activateRow(const QModelIndex& proxyIndex);

    CaptureKernelModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_summary;
    QLabel* m_banner;
    QPlainTextEdit* m_notes;
    QPushButton* m_open;
    bool m_bannerWarning = false;
};

} // namespace lowerscope
