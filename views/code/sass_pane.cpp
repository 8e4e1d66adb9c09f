#include "views/code/sass_pane.h"

#include "core/run/buffer_data.h"
#include "core/run/profile_join.h"

#include "views/code/arrow_gutter.h"
#include "views/code/control_delegate.h"
#include "views/code/opcode_tooltip.h"
#include "views/code/pressure_strip.h"
#include "views/code/sass_delegate.h"
#include "views/code/sass_model.h"
#include "views/common/stale_banner.h"
#include "views/common/theme.h"
#include "views/common/workspace.h"

#include <QAction>
#include <QActionGroup>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace lowerscope {

namespace {

// The most characters the Line column is sized for ("hea…_math.cuh:12"): the middle of a longer name is elided.
constexpr int kLineColumnChars = 14;

// Turns a click on a register in the Operands/Predicate column into a register highlight.
class OperandClickFilter : public QObject {
public:
    OperandClickFilter(QTableView* view, ArrowGutter* gutter)
        : QObject(view), m_view(view), m_gutter(gutter) {}

protected:
    bool eventFilter(QObject*, QEvent* event) override {
        if (event->type() != QEvent::MouseButtonPress || !m_view || !m_gutter) return false;
        auto* me = static_cast<QMouseEvent*>(event);
        if (me->button() != Qt::LeftButton) return false;
        const QPoint pos = me->position().toPoint();
        const QModelIndex index = m_view->indexAt(pos);
        if (!index.isValid() ||
            (index.column() != SassModel::OperandsColumn && index.column() != SassModel::PredicateColumn))
            return false;
        const QString text = index.data().toString();
        const QRect rect = m_view->visualRect(index);
        // The styled delegate's text margin (QCommonStyle: focus-frame margin + 1 on each side).
        const int margin = m_view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1;
        const QFontMetrics fm(m_view->font());
        const int x = pos.x() - rect.left() - margin;
        int position = -1;
        for (int i = 0; i < text.size(); ++i)
            if (fm.horizontalAdvance(text.left(i + 1)) > x) {
                position = i;
                break;
            }
        const RegRange reg =
            position >= 0 ? registerAtTextPosition(text, position) : RegRange{RegClass::R, 0, 0};
        if (reg.count > 0 && !(m_gutter->hasRegisterHighlight() && m_gutter->highlightedRegister() == reg))
            m_gutter->highlightRegister(reg);
        else
            m_gutter->clearRegisterHighlight(); // a second click (or a click off a register) clears
        return false;                           // the row is still selected as usual
    }

private:
    QPointer<QTableView> m_view;
    QPointer<ArrowGutter> m_gutter;
};

} // namespace

SassPane::SassPane(Workspace* session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    m_banner = createStaleBanner(this);
    lay->addWidget(m_banner);
    // Faded rows need a reason on screen: the filter pane may be a hidden tab.
    m_filterBar = new QWidget(this);
    m_filterBar->setObjectName(QStringLiteral("sassFilterBar"));
    m_filterBar->setAutoFillBackground(true);
    auto* filterLayout = new QHBoxLayout(m_filterBar);
    filterLayout->setContentsMargins(6, 1, 2, 1);
    m_filterLabel = new QLabel(m_filterBar);
    auto* clearFilter = new QToolButton(m_filterBar);
    clearFilter->setObjectName(QStringLiteral("clearSassFilter"));
    clearFilter->setText(tr("Clear filter"));
    clearFilter->setToolTip(tr("End the SASS filter: every row is drawn normally again"));
    clearFilter->setAutoRaise(true);
    filterLayout->addWidget(m_filterLabel, 1);
    filterLayout->addWidget(clearFilter);
    connect(clearFilter, &QToolButton::clicked, this, [this] { m_model->setFilterMatches({}); });
    m_filterBar->hide();
    lay->addWidget(m_filterBar);
    m_body = new QHBoxLayout;
    m_body->setContentsMargins(0, 0, 0, 0);
    m_body->setSpacing(0);
    lay->addLayout(m_body, 1);

    m_model = new SassModel(this);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("sassView"));
    m_view->setModel(m_model);
    m_view->setItemDelegate(new SassDelegate(m_view));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(false);
    m_view->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSize(10);
    m_view->setFont(mono);
    // 100k-row listings: uniform fixed row heights and fixed column widths, so nothing ever
    // measures every row.
    QHeaderView* vh = m_view->verticalHeader();
    vh->hide();
    vh->setSectionResizeMode(QHeaderView::Fixed);
    vh->setDefaultSectionSize(QFontMetrics(mono).height() + 4);
    QHeaderView* hh = m_view->horizontalHeader();
    hh->setHighlightSections(false);
    hh->setStretchLastSection(false);
    const int cw = QFontMetrics(mono).horizontalAdvance(QLatin1Char('0'));
    // As narrow as their usual text (issue 35 item 9: at the default size the operands and the
    // control/live columns must both be in view); every column can be widened by hand.
    hh->resizeSection(SassModel::AddressColumn, cw * 6);
    hh->resizeSection(SassModel::SourceLineColumn, cw * 5);
    hh->resizeSection(SassModel::PredicateColumn, cw * 4);
    hh->resizeSection(SassModel::OpcodeColumn, cw * 16);
    hh->resizeSection(SassModel::OperandsColumn, cw * 24);
    hh->resizeSection(SassModel::ControlColumn, cw * 19);
    hh->resizeSection(SassModel::LiveColumn, cw * 9);
    hh->resizeSection(SassModel::ExecutedColumn, cw * 9);
    hh->resizeSection(SassModel::StallsColumn, cw * 34);
    hh->resizeSection(SassModel::DivergenceColumn, cw * 7);
    hh->resizeSection(SassModel::SectorsColumn, cw * 7);
    // Profile columns sit right after the opcode (where the eye is), and appear only with a
    // profile of the shown build (setProfile).
    hh->moveSection(hh->visualIndex(SassModel::ExecutedColumn), hh->visualIndex(SassModel::OperandsColumn));
    hh->moveSection(hh->visualIndex(SassModel::StallsColumn), hh->visualIndex(SassModel::OperandsColumn));
    hh->moveSection(hh->visualIndex(SassModel::DivergenceColumn), hh->visualIndex(SassModel::OperandsColumn));
    hh->moveSection(hh->visualIndex(SassModel::SectorsColumn), hh->visualIndex(SassModel::OperandsColumn));
    for (int c : {int(SassModel::ExecutedColumn), int(SassModel::StallsColumn), int(SassModel::DivergenceColumn),
                  int(SassModel::SectorsColumn)})
        m_view->setColumnHidden(c, true);
    hh->setSectionResizeMode(SassModel::OperandsColumn, QHeaderView::Interactive);
    m_body->addWidget(m_view, 1);
    createGutter();
    createControlColumn();
    createPressureStrip();
    // Operands take the width the other columns leave (issue 35 item 9), as the table resizes and
    // as columns are shown, hidden or widened; a width the user gives Operands is kept.
    m_view->viewport()->installEventFilter(this);
    connect(hh, &QHeaderView::sectionResized, this, [this](int logical, int, int) {
        if (m_fittingOperands) return;
        if (logical == SassModel::OperandsColumn) m_operandsByHand = true;
        else fitOperandsColumn();
    });

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                emit currentRowChanged(current.row());
                if (m_updating || !m_session || !current.isValid()) return;
                const uint32_t address = current.data(SassModel::AddressRole).toUInt();
                const Selection& sel = m_session->selection();
                if (sel.origin == Selection::Origin::Sass && sel.focusSassAddress == address) return;
                m_session->selectSassAddress(address);
            });
    connect(session, &Workspace::snapshotChanged, this, &SassPane::reload);
    connect(session, &Workspace::kernelChanged, this, &SassPane::reload);
    connect(session, &Workspace::attributionChanged, this, &SassPane::reload);
    connect(session, &Workspace::selectionChanged, this, &SassPane::onSelectionChanged);
    connect(session, &Workspace::staleChanged, this, &SassPane::onStale);
    connect(m_model, &SassModel::filterChanged, this, &SassPane::updateFilterBar);
    connect(m_model, &QAbstractItemModel::modelReset, this, &SassPane::updateFilterBar);

    connect(session, &Workspace::buildFinished, this, &SassPane::onStale);
}

void SassPane::createGutter() {
    m_gutter = new ArrowGutter(this);
    m_body->insertWidget(0, m_gutter);
    m_gutter->setView(m_view);
    // A toggle in the gutter's header strip (the rows start below the table header).
    auto* toggle = new QToolButton(m_gutter);
    m_allEdges = new QAction(tr("All dependency edges in view"), m_gutter);
    m_allEdges->setCheckable(true);
    m_allEdges->setToolTip(tr("Arrows: the selected instruction's producers/consumers, or every edge in view. "
                              "Right-click the arrows for filters; hover an arrow for its register."));
    m_allEdges->setIconText(QStringLiteral("\u21c5"));
    toggle->setDefaultAction(m_allEdges);
    toggle->setAutoRaise(true);
    toggle->setFixedSize(18, std::max(16, m_view->horizontalHeader()->sizeHint().height() - 2));
    toggle->move(1, 1);
    connect(m_allEdges, &QAction::toggled, m_gutter, &ArrowGutter::setShowAllEdges);
    // Filters, on the gutter's context menu: resource classes, and the clicked register only.
    m_gutter->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_gutter->addAction(m_allEdges);
    auto* separator = new QAction(m_gutter);
    separator->setSeparator(true);
    m_gutter->addAction(separator);
    const std::pair<DepKind, QString> kinds[] = {{DepKind::Register, tr("Register arrows (R)")},
                                                 {DepKind::Predicate, tr("Predicate arrows (P)")},
                                                 {DepKind::Uniform, tr("Uniform arrows (UR, UP)")},
                                                 {DepKind::Scoreboard, tr("Scoreboard arrows (SB)")}};
    for (const auto& [kind, text] : kinds) {
        auto* a = new QAction(text, m_gutter);
        a->setCheckable(true);
        a->setChecked(true);
        connect(a, &QAction::toggled, m_gutter, [this, kind = kind](bool on) { m_gutter->setKindVisible(kind, on); });
        m_gutter->addAction(a);
        m_arrowKinds.push_back(a);
    }
    m_onlyRegister = new QAction(tr("Only the highlighted register's arrows"), m_gutter);
    m_onlyRegister->setCheckable(true);
    m_onlyRegister->setToolTip(tr("Click a register operand in the table to pick it; click it again to clear"));
    connect(m_onlyRegister, &QAction::toggled, m_gutter, &ArrowGutter::setOnlyHighlightedRegister);
    m_gutter->addAction(m_onlyRegister);
    connect(this, &SassPane::currentRowChanged, m_gutter, &ArrowGutter::setSelectedRow);
    connect(m_gutter, &ArrowGutter::rowActivated, m_view, [this](int row) {
        const QModelIndex index = m_view->model()->index(row, 0);
        m_view->setCurrentIndex(index);
        m_view->scrollTo(index, QAbstractItemView::EnsureVisible);
    });
    m_view->viewport()->installEventFilter(new OperandClickFilter(m_view, m_gutter));
}

void SassPane::createControlColumn() {
    m_view->setItemDelegateForColumn(SassModel::ControlColumn, new ControlDelegate(m_view));
    // Room for the graphic only (stall, yield, barriers, reuse), so that the operands and the live
    // column stay in view at the default size (issue 35 item 9); widening the column shows the
    // text form `B0-----:R-:W2:Y:S01` beside it, and each cell's tooltip explains the codes.
    m_view->horizontalHeader()->resizeSection(SassModel::ControlColumn,
                                              ControlDelegate::graphicWidth(m_view->verticalHeader()->defaultSectionSize()) + 4);
    OpcodeTooltipFilter::installOnSassView(m_view, SassModel::OpcodeColumn, SassModel::ControlColumn);
}

void SassPane::fitOperandsColumn() {
    if (m_operandsByHand || !m_view) return;
    QHeaderView* hh = m_view->horizontalHeader();
    int others = 0;
    for (int c = 0; c < hh->count(); ++c)
        if (c != SassModel::OperandsColumn && !hh->isSectionHidden(c)) others += hh->sectionSize(c);
    const int cw = QFontMetrics(m_view->font()).horizontalAdvance(QLatin1Char('0'));
    const int width = std::max(cw * 16, m_view->viewport()->width() - others);
    if (width == hh->sectionSize(SassModel::OperandsColumn)) return;
    m_fittingOperands = true;
    hh->resizeSection(SassModel::OperandsColumn, width);
    m_fittingOperands = false;
}

bool SassPane::eventFilter(QObject* watched, QEvent* event) {
    if (m_view && watched == m_view->viewport() && event->type() == QEvent::Resize) fitOperandsColumn();
    return QWidget::eventFilter(watched, event);
}

void SassPane::createPressureStrip() {
    m_strip = new PressureStrip(this);
    m_body->insertWidget(m_body->indexOf(m_view) + 1, m_strip);
    m_strip->setView(m_view);
    connect(m_strip, &PressureStrip::rowRequested, m_view, [this](int row) {
        const QModelIndex index = m_view->model()->index(row, 0);
        if (!index.isValid()) return;
        m_view->setCurrentIndex(index);
        m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
    });
    connect(this, &SassPane::currentRowChanged, m_strip, &PressureStrip::setCurrentRow);
    m_maxPressure = new QAction(tr("Jump to maximum register pressure"), this);
    m_maxPressure->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F7));
    m_nextPeak = new QAction(tr("Next register-pressure peak"), this);
    m_nextPeak->setShortcut(QKeySequence(Qt::Key_F7));
    m_previousPeak = new QAction(tr("Previous register-pressure peak"), this);
    m_previousPeak->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F7));
    connect(m_maxPressure, &QAction::triggered, m_strip, &PressureStrip::jumpToMax);
    connect(m_nextPeak, &QAction::triggered, m_strip, &PressureStrip::jumpToNextPeak);
    connect(m_previousPeak, &QAction::triggered, m_strip, &PressureStrip::jumpToPreviousPeak);
    // The strip shows one class of live registers; scales: the kernel's allocated GPRs, the 7
    // usable predicates (P0–P6), the 63 uniform registers (UR0–UR62).
    m_pressureClasses = new QActionGroup(this);
    auto pressureAction = [this](const QString& text) {
        auto* a = new QAction(text, m_pressureClasses);
        a->setCheckable(true);
        return a;
    };
    m_pressureGpr = pressureAction(tr("Pressure strip: live GPRs"));
    m_pressurePred = pressureAction(tr("Pressure strip: live predicates"));
    m_pressureUgpr = pressureAction(tr("Pressure strip: live uniform registers"));
    m_pressureGpr->setChecked(true);
    connect(m_pressureClasses, &QActionGroup::triggered, m_strip, [this] { showPressure(); });
    for (QAction* a : {m_allEdges, m_maxPressure, m_nextPeak, m_previousPeak, m_pressureGpr, m_pressurePred,
                       m_pressureUgpr}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(a);
        m_view->addAction(a);
    }
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
}

void SassPane::showPressure() {
    const KernelModel* k = m_session && m_session->snapshot() ? m_session->kernel() : nullptr;
    if (!k) {
        m_strip->setValues({});
        return;
    }
    std::vector<int> live;
    live.reserve(k->sass.instructions.size());
    if (m_pressurePred->isChecked()) {
        for (const SassInstruction& ins : k->sass.instructions) live.push_back(ins.live.pred);
        m_strip->setValues(std::move(live), 7, tr("predicates"));
    } else if (m_pressureUgpr->isChecked()) {
        for (const SassInstruction& ins : k->sass.instructions) live.push_back(ins.live.ugpr);
        m_strip->setValues(std::move(live), 63, tr("uniform registers"));
    } else {
        for (const SassInstruction& ins : k->sass.instructions) live.push_back(ins.live.gpr);
        m_strip->setValues(std::move(live), k->resources.registers > 0 ? k->resources.registers : 0,
                           tr("GPRs"));
    }
}

void SassPane::reload() {
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    const KernelModel* k = m_session ? m_session->kernel() : nullptr;
    // A new build arrives as snapshotChanged and kernelChanged: show it once.
    if (m_session) {
        ListingKey key = m_session->listingKey();
        if (key.sameAs(m_shown)) return;
        m_shown = std::move(key);
    }
    m_updating = true;
    if (!snap || !k) {
        m_model->clear();
        m_gutter->setKernel(nullptr, nullptr, nullptr);
    } else {
        m_model->setFunction(snap, &k->sass, m_session->sassSourceLines());
        const std::vector<QString>& labels = m_session->sassSourceLabels(); // header lines as "file:line"
        m_model->setSourceLabels(labels);
        // The Line column fits the longest label (distinct labels are few), capped so that a long
        // header name does not push the operands away: the delegate elides the middle of a longer
        // file name and keeps its line; the tooltip has the whole paths.
        int chars = 5;
        const QString* last = nullptr;
        for (const QString& l : labels)
            if (!l.isEmpty() && (!last || l.constData() != last->constData())) {
                chars = std::max(chars, int(l.size()) + 1);
                last = &l;
            }
        const int cw = QFontMetrics(m_view->font()).horizontalAdvance(QLatin1Char('0'));
        m_view->horizontalHeader()->resizeSection(SassModel::SourceLineColumn, cw * std::min(chars, kLineColumnChars));
        m_gutter->setKernel(snap, &k->sass, &k->deps);
    }
    showPressure();
    applyProfile();
    m_updating = false;
    onSelectionChanged();
    onStale();
    fitOperandsColumn();
}

QString SassPane::setProfile(std::shared_ptr<const ProfileDocument> profile) {
    m_profile = std::move(profile);
    applyProfile();
    return m_profileNote;
}

void SassPane::applyProfile() {
    m_profileNote.clear();
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    const KernelModel* k = m_session ? m_session->kernel() : nullptr;
    bool shown = false;
    if (m_profile && snap && k) {
        const std::vector<uint8_t>& cubin = snap->result.cubin;
        const std::string digest = digestHex(cubin.data(), cubin.size());
        if (auto why = profileDocumentMismatch(*m_profile, digest, k->sass, k->mangled)) {
            m_profileNote = QString::fromStdString(*why);
        } else {
            const ProfileJoin join = joinProfiles(k->sass, {&m_profile->rows});
            std::vector<ProfileTotals> rows;
            rows.reserve(join.rows.size());
            for (const auto& r : join.rows) rows.push_back(r.totals);
            m_model->setProfile(std::move(rows), join.kernel.sampleTotal());
            shown = m_model->hasProfile();
            if (!join.unmatchedOffsets.empty())
                m_profileNote = tr("%n profiled offset(s) have no instruction in this build", nullptr,
                                   int(join.unmatchedOffsets.size()));
        }
    } else if (m_profile) {
        m_profileNote = tr("no build to show the profile on");
    }
    if (!shown) m_model->clearProfile();
    for (int c : {int(SassModel::ExecutedColumn), int(SassModel::StallsColumn), int(SassModel::DivergenceColumn),
                  int(SassModel::SectorsColumn)})
        m_view->setColumnHidden(c, !shown);
    fitOperandsColumn(); // showing or hiding a column emits no sectionResized
}

void SassPane::onSelectionChanged() {
    if (!m_session) return;
    const Selection& sel = m_session->selection();
    // The arrows follow the focused instruction whichever pane chose it (the current row below
    // moves only for selections made elsewhere); a hover does not move them.
    const KernelModel* kernel = m_session->kernel();
    if (!sel.hover && kernel && sel.focusSassAddress)
        m_gutter->setSelectedRow(kernel->sass.indexOf(*sel.focusSassAddress));
    m_model->setHighlighted(sel.sassAddresses, sel.origin == Selection::Origin::Source ? std::nullopt : sel.focusSassAddress);
    if (sel.origin == Selection::Origin::Sass || !sel.focusSassAddress) return;
    const QModelIndex idx = m_model->indexForAddress(*sel.focusSassAddress);
    if (!idx.isValid()) return;
    m_updating = true;
    m_view->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(idx, QAbstractItemView::PositionAtCenter);
    m_updating = false;
}

void SassPane::applyTheme() {
    styleStaleBanner(m_banner);
    updateFilterBar();
    m_view->viewport()->update();
}

void SassPane::updateFilterBar() {
    const bool on = m_model->isFiltered();
    m_filterBar->setVisible(on);
    if (!on) return;
    QPalette p = m_filterBar->palette();
    p.setColor(QPalette::Window, Theme::isDark() ? QColor(45, 60, 85) : QColor(220, 232, 250));
    p.setColor(QPalette::WindowText, Theme::editorText());
    m_filterBar->setPalette(p);
    const QString what = m_model->filterDescription();
    m_filterLabel->setText(tr("SASS filter %1: %2 of %3 rows match; the others are faded.")
                               .arg(what.isEmpty() ? QString() : what)
                               .arg(m_model->filterMatchCount())
                               .arg(m_model->rowCount()));
}

void SassPane::onStale() {
    if (!m_session) return;
    m_model->setStale(refreshStaleBanner(m_banner, *m_session));
}

bool SassPane::jumpToRun(int direction) {
    const std::vector<int> rows = m_model->highlightedRows();
    if (rows.empty()) return false;
    // Runs: maximal sequences of consecutive highlighted rows; identified by their first row.
    std::vector<int> starts;
    for (size_t i = 0; i < rows.size(); ++i)
        if (i == 0 || rows[i] != rows[i - 1] + 1) starts.push_back(rows[i]);
    const int current = m_view->currentIndex().isValid() ? m_view->currentIndex().row() : -1;
    int target = -1;
    if (direction >= 0) {
        for (int s : starts)
            if (s > current) { target = s; break; }
        if (target < 0) target = starts.front(); // wrap around
    } else {
        // The run containing `current` counts as the current one: go to the one before it.
        int currentStart = -1;
        for (int s : starts)
            if (s <= current) currentStart = s;
        for (auto it = starts.rbegin(); it != starts.rend(); ++it)
            if (*it < currentStart) { target = *it; break; }
        if (target < 0) target = starts.back();
    }
    const QModelIndex idx = m_model->index(target, 0);
    m_updating = true; // moving within the selection must not re-select from SASS
    m_view->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(idx, QAbstractItemView::PositionAtCenter);
    m_updating = false;
    return true;
}

} // namespace lowerscope
