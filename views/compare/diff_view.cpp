#include "views/compare/diff_view.h"

#include "core/run/buffer_data.h"
#include "core/run/profile_join.h"

#include "core/analysis/diff.h"
#include "views/common/build_job.h"
#include "views/compare/diff_model.h"
#include "views/common/theme.h"

#include <QAction>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QBarSeries>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace lowerscope {

CompareSide CompareSide::fromSnapshot(const BuildSnapshot* snapshot, int kernelIndex, const QString& label) {
    CompareSide side;
    side.label = label;
    if (!snapshot || !snapshot->ok() || snapshot->model.kernels.empty()) return side;
    const auto& kernels = snapshot->model.kernels;
    const KernelModel& k = kernels[size_t(std::clamp(kernelIndex, 0, int(kernels.size()) - 1))];
    side.valid = true;
    side.kernel = QString::fromStdString(k.name);
    side.arch = QString::fromStdString(snapshot->model.arch.empty() ? snapshot->options.arch : snapshot->model.arch);
    side.sass = k.sass;
    side.mangled = k.mangled;
    side.cubinDigest = digestHex(snapshot->result.cubin.data(), snapshot->result.cubin.size());
    side.resources = k.resources;
    side.lines = k.lines;
    side.total = k.total;
    // Each side compiled its own copy of the editor text (workspace A and B write to different
    // folders), so the line info names two different paths for the same user file. Name the copy
    // after the file the user sees; otherwise every line of A would be "another file" to B and the
    // per-line deltas would list each line twice, once with A = 0 and once with B = 0.
    const std::string copy = QDir::cleanPath(snapshot->buildPath).toStdString();
    if (!copy.empty()) {
        const std::string shown = (snapshot->sourcePath.isEmpty() ? QFileInfo(snapshot->buildPath).fileName()
                                                                  : snapshot->sourcePath)
                                      .toStdString();
        auto rename = [&](std::string& file) {
            if (!file.empty() && (file == copy || QDir::cleanPath(QString::fromStdString(file)).toStdString() == copy))
                file = shown;
        };
        for (SassInstruction& ins : side.sass.instructions) {
            rename(ins.source.file);
            for (SourceFrame& f : ins.source.inlinedAt) rename(f.file);
        }
        for (LineAggregate& line : side.lines) rename(line.file);
        rename(side.total.file);
    }
    return side;
}

// ------------------------------------------------------------------------------ DiffHeatStrip

DiffHeatStrip::DiffHeatStrip(QWidget* parent) : QWidget(parent) {
    setToolTip(tr("Where A and B differ (darker = more changed rows). Click to jump."));
    setCursor(Qt::PointingHandCursor);
}

void DiffHeatStrip::setRows(int rowCount, std::vector<double> heat) {
    m_rows = rowCount;
    m_heat = std::move(heat);
    update();
}

void DiffHeatStrip::setVisibleRows(int first, int last) {
    m_firstVisible = first;
    m_lastVisible = last;
    update();
}

int DiffHeatStrip::rowAt(int y) const {
    if (m_rows <= 0 || height() <= 0) return -1;
    return std::clamp(int(double(y) / height() * m_rows), 0, m_rows - 1);
}

void DiffHeatStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const int bins = int(m_heat.size());
    if (bins > 0) {
        const QColor hot = diffStatusColor(DiffStatus::Removed).darker(Theme::isDark() ? 60 : 160);
        for (int i = 0; i < bins; ++i) {
            if (m_heat[size_t(i)] <= 0) continue;
            int y0 = int(std::floor(double(i) * height() / bins));
            int y1 = int(std::ceil(double(i + 1) * height() / bins));
            QColor c = hot;
            // Even a single changed row must stay visible: alpha starts at 35 %.
            c.setAlphaF(0.35 + 0.65 * std::clamp(m_heat[size_t(i)], 0.0, 1.0));
            p.fillRect(QRect(0, y0, width(), std::max(1, y1 - y0)), c);
        }
    }
    if (m_rows > 0 && m_firstVisible >= 0) {
        int y0 = int(double(m_firstVisible) / m_rows * height());
        int y1 = int(double(m_lastVisible + 1) / m_rows * height());
        p.setPen(QPen(palette().text().color(), 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRect(0, y0, width() - 1, std::max(2, y1 - y0 - 1)));
    }
    p.setPen(palette().mid().color());
    p.drawLine(0, 0, 0, height());
}

void DiffHeatStrip::mousePressEvent(QMouseEvent* event) {
    int row = rowAt(int(event->position().y()));
    if (row >= 0) emit rowRequested(row);
}

void DiffHeatStrip::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton) mousePressEvent(event);
}

// ----------------------------------------------------------------------------------- DiffView

DiffView::DiffView(QWidget* parent)
    : QWidget(parent),
      m_diffModel(new SassDiffModel(this)),
      m_lineModel(new LineDeltaModel(this)),
      m_resourceModel(new ResourceDeltaModel(this)) {
    // Toolbar: mode, renaming, alignment, navigation, summary.
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("Full instruction"));
    m_mode->addItem(tr("By opcode"));
    m_mode->setToolTip(tr("Full: guard, opcode and operands must match. By opcode: operands are ignored."));
    m_renaming = new QCheckBox(tr("Ignore register names"), this);
    m_renaming->setToolTip(tr("Registers and labels are renumbered by first use, so a consistent renaming "
                              "compares equal."));
    m_bySource = new QCheckBox(tr("Align by source line"), this);
    m_bySource->setChecked(true);
    m_prev = new QToolButton(this);
    m_prev->setText(tr("▲ Prev"));
    m_prev->setToolTip(tr("Previous difference (Alt+Up)"));
    m_next = new QToolButton(this);
    m_next->setText(tr("▼ Next"));
    m_next->setToolTip(tr("Next difference (Alt+Down)"));
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(m_mode);
    bar->addWidget(m_renaming);
    bar->addWidget(m_bySource);
    bar->addSpacing(8);
    bar->addWidget(m_prev);
    bar->addWidget(m_next);
    bar->addSpacing(8);
    bar->addWidget(m_summary, 1);

    // The aligned diff with its heat strip.
    m_table = new QTableView(this);
    m_table->setModel(m_diffModel);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(SassDiffModel::StatusColumn, 22);
    m_table->setColumnWidth(SassDiffModel::SourceLineColumn, 44);
    m_table->setColumnWidth(SassDiffModel::AddressAColumn, 48);
    m_table->setColumnWidth(SassDiffModel::InstructionAColumn, 330);
    m_table->setColumnWidth(SassDiffModel::AddressBColumn, 48);
    m_heat = new DiffHeatStrip(this);

    auto* diffArea = new QWidget(this);
    auto* diffLayout = new QHBoxLayout(diffArea);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    diffLayout->setSpacing(0);
    diffLayout->addWidget(m_table, 1);
    diffLayout->addWidget(m_heat);

    // Details: per line, resources, mix.
    m_lineTable = new QTableView(this);
    m_lineTable->setModel(m_lineModel);
    m_lineTable->verticalHeader()->hide();
    m_lineTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_lineTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_resourceTable = new QTableView(this);
    m_resourceTable->setModel(m_resourceModel);
    m_resourceTable->verticalHeader()->hide();
    m_resourceTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_resourceTable->horizontalHeader()->setStretchLastSection(true);
    m_mixChart = new QChartView(new QChart, this);
    m_mixChart->setRenderHint(QPainter::Antialiasing);
    m_mixChart->setMinimumHeight(120);
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_resourceTable, tr("Resources"));
    m_tabs->addTab(m_mixChart, tr("Instruction mix"));
    m_tabs->addTab(m_lineTable, tr("Per source line"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(diffArea);
    split->addWidget(m_tabs);
    // The aligned listings are what a comparison is read in: three quarters of the height, the
    // details (resources, mix, per line) the rest, whatever their tables' own minimum heights.
    m_tabs->setMinimumHeight(60);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({3000, 1000});

    m_staleBanner = new QLabel(this);
    m_staleBanner->setObjectName(QStringLiteral("diffStaleBanner"));
    m_staleBanner->setWordWrap(true);
    m_staleBanner->setContentsMargins(6, 2, 6, 2);
    m_staleBanner->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(m_staleBanner);
    layout->addWidget(split, 1);

    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
    connect(m_renaming, &QCheckBox::toggled, this, [this] { recompute(); });
    connect(m_bySource, &QCheckBox::toggled, this, [this] { recompute(); });
    connect(m_prev, &QToolButton::clicked, this, [this] { previousDifference(); });
    connect(m_next, &QToolButton::clicked, this, [this] { nextDifference(); });
    // Actions rather than bare shortcuts, so the main window can put them in its Navigate menu
    // (and the shortcut sheet lists them); on their own they work while the view has focus.
    m_nextAction = new QAction(tr("Next A/B difference"), this);
    m_nextAction->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
    m_prevAction = new QAction(tr("Previous A/B difference"), this);
    m_prevAction->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    for (QAction* a : {m_nextAction, m_prevAction}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(a);
    }
    connect(m_nextAction, &QAction::triggered, this, [this] { nextDifference(); });
    connect(m_prevAction, &QAction::triggered, this, [this] { previousDifference(); });
    connect(m_heat, &DiffHeatStrip::rowRequested, this, [this](int row) { selectRow(row); });
    connect(m_table->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { updateVisibleRange(); });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& idx) {
        if (int line = m_diffModel->sourceLineForIndex(idx); line > 0) emit sourceLineActivated(line);
    });
    connect(m_lineTable, &QTableView::clicked, this, [this](const QModelIndex& idx) {
        int line = m_lineModel->sourceLineForIndex(idx);
        if (line <= 0) return;
        if (QModelIndex row = m_diffModel->indexForSourceLine(line); row.isValid()) selectRow(row.row());
        emit sourceLineActivated(line);
    });
    recompute();
}

DiffView::~DiffView() = default;

void DiffView::setSides(CompareSide a, CompareSide b) {
    m_a = std::move(a);
    m_b = std::move(b);
    m_diffModel->setLabels(m_a.label, m_b.label);
    m_resourceModel->setLabels(m_a.label, m_b.label);
    recompute();
}

void DiffView::setLaunch(int blockThreads, int dynamicSharedBytes) {
    m_blockThreads = blockThreads;
    m_dynamicShared = dynamicSharedBytes;
    updateResources();
}

void DiffView::setStaleReason(const QString& reason) {
    m_staleReason = reason;
    m_staleBanner->setText(reason);
    m_staleBanner->setStyleSheet(QStringLiteral("QLabel#diffStaleBanner { background: %1; color: %2; }")
                                     .arg(Theme::warningPaper().name(), Theme::editorText().name()));
    m_staleBanner->setVisible(!reason.isEmpty());
}

void DiffView::setOpcodeMode(bool byOpcode) { m_mode->setCurrentIndex(byOpcode ? 1 : 0); }
void DiffView::setIgnoreRegisterNames(bool ignore) { m_renaming->setChecked(ignore); }
void DiffView::setAlignBySource(bool on) { m_bySource->setChecked(on); }

const std::vector<LineDelta>& DiffView::lineDeltas() const { return m_lineModel->deltas(); }

QString DiffView::marginTextForLine(int line) const {
    const LineDelta* d = m_lineModel->deltaForLine(line);
    return d ? LineDeltaModel::marginText(*d) : QString();
}

void DiffView::recompute() {
    if (!m_a.valid || !m_b.valid) {
        m_diffModel->clear();
        m_lineModel->setDeltas({});
        m_heat->setRows(0, {});
        m_summary->setText(!m_a.valid && !m_b.valid ? tr("Build A and B to compare them.")
                           : !m_a.valid             ? tr("Waiting for a successful build of %1.").arg(m_a.label)
                                                    : tr("Waiting for a successful build of %1.").arg(m_b.label));
        applyProfiles();
        updateResources();
        updateMixChart();
        emit diffChanged();
        return;
    }
    DiffOptions options;
    options.mode = m_mode->currentIndex() == 1 ? DiffMode::Opcode : DiffMode::Full;
    options.naming = m_renaming->isChecked() ? RegisterNaming::PerFunction : RegisterNaming::Exact;
    options.alignBySource = m_bySource->isChecked();
    SassDiff diff = diffSass(m_a.sass, m_b.sass, options);
    const DiffSummary s = diff.summary;
    const int rows = int(diff.rows.size());
    m_heat->setRows(rows, diff.heat(std::clamp(rows, 1, 400)));
    m_diffModel->setDiff(std::move(diff), m_a.sass, m_b.sass);
    m_lineModel->setDeltas(lowerscope::lineDeltas(m_a.sass, m_b.sass));
    QString kernels = m_a.kernel == m_b.kernel ? m_a.kernel : QStringLiteral("%1 vs %2").arg(m_a.kernel, m_b.kernel);
    m_summary->setText(tr("%1 — %2: %3 instr, %4: %5 instr · %6 changed, %7 added, %8 removed in %9 hunks")
                           .arg(kernels.section(QLatin1Char('('), 0, 0), m_a.label)
                           .arg(s.instructionsA)
                           .arg(m_b.label)
                           .arg(s.instructionsB)
                           .arg(s.changed)
                           .arg(s.added)
                           .arg(s.removed)
                           .arg(m_diffModel->diff().hunks.size()));
    applyProfiles();
    updateResources();
    updateMixChart();
    updateVisibleRange();
    emit diffChanged();
}

void DiffView::setProfiles(std::shared_ptr<const ProfileDocument> a, std::shared_ptr<const ProfileDocument> b) {
    m_profileA = std::move(a);
    m_profileB = std::move(b);
    applyProfiles();
}

void DiffView::applyProfiles() {
    m_profileNote.clear();
    bool shown = false;
    if (m_a.valid && m_b.valid && (m_profileA || m_profileB)) {
        auto join = [this](const std::shared_ptr<const ProfileDocument>& doc, const CompareSide& side,
                           std::optional<ProfileJoin>& out) {
            if (!doc) {
                m_profileNote += tr("%1 has no profile. ").arg(side.label);
                return;
            }
            if (auto why = profileDocumentMismatch(*doc, side.cubinDigest, side.sass, side.mangled)) {
                m_profileNote += tr("%1's profile is not of this build: %2. ").arg(side.label, QString::fromStdString(*why));
                return;
            }
            out = joinProfiles(side.sass, {&doc->rows});
        };
        std::optional<ProfileJoin> ja, jb;
        join(m_profileA, m_a, ja);
        join(m_profileB, m_b, jb);
        if (ja && jb) {
            m_diffModel->setProfileRows(profileRowDeltas(m_diffModel->diff(), *ja, *jb));
            shown = true;
        }
    }
    if (!shown) m_diffModel->setProfileRows({});
    m_table->setColumnHidden(SassDiffModel::ExecutedColumn, !shown);
    m_table->setColumnHidden(SassDiffModel::SamplesColumn, !shown);
    if (shown) {
        m_table->setColumnWidth(SassDiffModel::InstructionBColumn, 330);
        m_table->setColumnWidth(SassDiffModel::ExecutedColumn, 150);
    }
}

void DiffView::updateResources() {
    if (!m_a.valid || !m_b.valid) {
        m_resourceModel->setRows({});
        return;
    }
    m_resourceModel->setRows(resourceDeltas(m_a.resources, m_b.resources, m_a.arch.toStdString(), m_blockThreads,
                                            m_dynamicShared));
}

void DiffView::updateMixChart() {
    QChart* chart = m_mixChart->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    chart->setTitle(tr("Instruction mix: %1 vs %2 (largest differences)").arg(m_a.label, m_b.label));
    chart->setTheme(Theme::isDark() ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    if (!m_a.valid || !m_b.valid) return;
    std::vector<MixRow> mix = mnemonicMix(m_a.sass, m_b.sass);
    if (mix.size() > 10) mix.resize(10);
    // Vertical bars, the largest difference first: mnemonic labels get the chart's full width.
    auto* setA = new QBarSet(m_a.label);
    auto* setB = new QBarSet(m_b.label);
    QStringList categories;
    int maxCount = 1;
    for (const MixRow& r : mix) {
        categories << QStringLiteral("%1 (%2%3)").arg(QString::fromStdString(r.name), r.delta() > 0 ? QStringLiteral("+") : QString())
                          .arg(r.delta());
        *setA << r.a;
        *setB << r.b;
        maxCount = std::max({maxCount, r.a, r.b});
    }
    setA->setColor(QColor(0x4c, 0x78, 0xa8));
    setB->setColor(QColor(0xf5, 0x85, 0x18));
    auto* series = new QBarSeries;
    series->append(setA);
    series->append(setB);
    chart->addSeries(series);
    auto* axisX = new QBarCategoryAxis;
    axisX->append(categories);
    auto* axisY = new QValueAxis;
    axisY->setRange(0, maxCount * 1.1);
    axisY->setLabelFormat(QStringLiteral("%d"));
    axisY->setTitleText(tr("instructions"));
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    series->attachAxis(axisX);
    series->attachAxis(axisY);
    chart->legend()->setAlignment(Qt::AlignBottom);
}

void DiffView::updateVisibleRange() {
    const int rows = m_diffModel->rowCount();
    if (rows == 0) {
        m_heat->setVisibleRows(-1, -1);
        return;
    }
    int first = m_table->rowAt(0);
    int last = m_table->rowAt(m_table->viewport()->height() - 1);
    if (first < 0) first = 0;
    if (last < 0) last = rows - 1;
    m_heat->setVisibleRows(first, last);
}

int DiffView::currentRow() const {
    QModelIndex idx = m_table->currentIndex();
    return idx.isValid() ? idx.row() : -1;
}

void DiffView::selectRow(int row) {
    if (row < 0 || row >= m_diffModel->rowCount()) return;
    QModelIndex idx = m_diffModel->index(row, SassDiffModel::InstructionAColumn);
    m_table->setCurrentIndex(idx);
    m_table->selectRow(row);
    m_table->scrollTo(idx, QAbstractItemView::PositionAtCenter);
    updateVisibleRange();
}

int DiffView::nextDifference() {
    int row = m_diffModel->diff().nextDifference(currentRow());
    if (row >= 0) selectRow(row);
    return row;
}

int DiffView::previousDifference() {
    int cur = currentRow();
    int row = m_diffModel->diff().previousDifference(cur < 0 ? m_diffModel->rowCount() : cur);
    if (row >= 0) selectRow(row);
    return row;
}

} // namespace lowerscope
