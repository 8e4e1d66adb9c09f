#include "views/capture/capture_view.h"

#include "core/untrusted.h"
#include "views/capture/capture_form.h"
#include "views/common/theme.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace lowerscope {

CaptureView::CaptureView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("captureView"));
    m_model = new CaptureKernelModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CaptureKernelModel::SortRole);

    m_summary = new QLabel(tr("No capture open. File → Profile a program… records one; File → Open reads a "
                              "capture document (lowerscope-cli capture -o FILE)."),
                           this);
    m_summary->setObjectName(QStringLiteral("captureSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_open = new QPushButton(tr("Open kernel"), this);
    m_open->setObjectName(QStringLiteral("captureOpenKernel"));
    m_open->setToolTip(tr("Open the selected kernel's cubin in the Source, PTX and SASS panes (or double-click its row)"));
    m_open->setEnabled(false);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_open, 0, Qt::AlignTop);

    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("captureBanner"));
    m_banner->setWordWrap(true);
    m_banner->setContentsMargins(6, 3, 6, 3);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->hide();

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("captureKernels"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(CaptureKernelModel::ColTotal, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    QHeaderView* h = m_table->horizontalHeader();
    h->setSectionResizeMode(QHeaderView::Interactive);
    h->setStretchLastSection(true);
    h->setMinimumSectionSize(40);
    h->setHighlightSections(false);
    connect(m_table, &QTableView::activated, this, &CaptureView::activateRow); // double-click or Enter
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                m_open->setEnabled(current.isValid() && current.data(CaptureKernelModel::HasCubinRole).toBool());
            });
    connect(m_open, &QPushButton::clicked, this, [this] { activateRow(m_table->currentIndex()); });

    m_notes = new QPlainTextEdit(this);
    m_notes->setObjectName(QStringLiteral("captureNotes"));
    m_notes->setReadOnly(true);
    m_notes->setPlaceholderText(tr("Notes of the capture (processes not recorded, modules not saved, …)"));
    m_notes->setToolTip(tr("What the capture says about itself: processes that could not be recorded (no GPU, a "
                           "CUPTI error), kernels whose module was not saved, unreadable event lines"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_notes);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addLayout(top);
    layout->addWidget(m_banner);
    layout->addWidget(split, 1);
    applyTheme();
}

void CaptureView::setDocument(const CaptureDocumentView& doc) {
    m_model->setDocument(doc);
    m_table->sortByColumn(CaptureKernelModel::ColTotal, Qt::DescendingOrder);
    const capture::CaptureSummary& s = doc.summary;
    QStringList cmd{QString::fromStdString(escapeControl(s.program))};
    for (const auto& a : s.args) cmd << QString::fromStdString(escapeControl(a));
    QString exit = s.cancelled ? tr("cancelled")
                   : s.signal   ? tr("killed by signal %1").arg(s.signal)
                                : tr("exit %1").arg(s.exitCode);
    QStringList devices;
    for (const auto& d : s.devices) devices << QString::fromStdString(escapeControl(d));
    QString text = tr("<b>%1</b> — %2 · %3, %4, %5 ms of GPU time")
                       .arg(cmd.join(QLatin1Char(' ')).toHtmlEscaped(), exit,
                            countOf(s.kernels.size(), tr("kernel"), tr("kernels")),
                            countOf(s.launchTotal, tr("launch"), tr("launches")),
                            QString::number(s.totalGpuNs / 1e6, 'f', 3));
    if (!devices.isEmpty()) text += QStringLiteral(" · ") + devices.join(QStringLiteral(", ")).toHtmlEscaped();
    text += QStringLiteral("<br><span style='color:gray'>%1 · %2</span>")
                .arg(s.serializedKernels ? tr("durations: kernels serialised (comparable with Nsight Compute)")
                                         : tr("durations: blocks' span, concurrency kept (as Nsight Systems shows)"),
                     doc.path.toHtmlEscaped());
    m_summary->setText(text);
    m_summary->setToolTip(doc.path);
    QStringList notes;
    for (const auto& n : s.notes) notes << QStringLiteral("• ") + QString::fromStdString(escapeControl(n));
    if (s.kernels.empty() && notes.isEmpty()) notes << tr("• The program launched no kernel while it was recorded.");
    m_notes->setPlainText(notes.join(QLatin1Char('\n')));
    m_notes->setVisible(!notes.isEmpty());
    m_open->setEnabled(false);
    setBanner({}, false);
    // The name takes what is left; the numbers fit their contents.
    // Every column fits its contents (the name at most 320 px: the signature is its tooltip); a
    // narrow pane scrolls sideways rather than eliding the names.
    for (int c = 0; c < CaptureKernelModel::ColCount; ++c) m_table->resizeColumnToContents(c);
    m_table->setColumnWidth(CaptureKernelModel::ColName, std::min(m_table->columnWidth(CaptureKernelModel::ColName), 320));
    if (m_proxy->rowCount() > 0) m_table->selectRow(0);
}

void CaptureView::setBanner(const QString& text, bool warning) {
    m_bannerWarning = warning;
    m_banner->setText(text);
    m_banner->setVisible(!text.isEmpty());
    applyTheme();
}

QString CaptureView::bannerText() const { return m_banner->isHidden() ? QString() : m_banner->text(); }

int CaptureView::kernelAtRow(int row) const {
    const QModelIndex i = m_proxy->index(row, 0);
    return i.isValid() ? i.data(CaptureKernelModel::KernelIndexRole).toInt() : -1;
}

int CaptureView::rowOfKernel(int kernelIndex) const {
    const QModelIndex i = m_proxy->mapFromSource(m_model->index(kernelIndex, 0));
    return i.isValid() ? i.row() : -1;
}

void CaptureView::applyTheme() {
    const QColor paper = m_bannerWarning ? Theme::warningPaper() : Theme::marginPaper();
    m_banner->setStyleSheet(QStringLiteral("QLabel#captureBanner { background: %1; color: %2; }")
                                .arg(paper.name(), Theme::editorText().name()));
}

void CaptureView::activateRow(const QModelIndex& proxyIndex) {
    if (!proxyIndex.isValid()) return;
    emit kernelActivated(proxyIndex.data(CaptureKernelModel::KernelIndexRole).toInt());
}

} // namespace lowerscope
