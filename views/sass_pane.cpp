#include "views/sass_pane.h"

#include "views/stale_banner.h"
#include "views/sass_delegate.h"
#include "views/sass_model.h"
#include "views/workspace.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace lowerscope {

SassPane::SassPane(Workspace* session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    m_banner = createStaleBanner(this);
    lay->addWidget(m_banner);
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
    hh->resizeSection(SassModel::AddressColumn, cw * 8);
    hh->resizeSection(SassModel::SourceLineColumn, cw * 5);
    hh->resizeSection(SassModel::PredicateColumn, cw * 5);
    hh->resizeSection(SassModel::OpcodeColumn, cw * 19);
    hh->resizeSection(SassModel::OperandsColumn, cw * 30);
    hh->resizeSection(SassModel::ControlColumn, cw * 19);
    hh->resizeSection(SassModel::LiveColumn, cw * 9);
    hh->setSectionResizeMode(SassModel::OperandsColumn, QHeaderView::Interactive);
    m_body->addWidget(m_view, 1);

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
    connect(session, &Workspace::buildFinished, this, &SassPane::onStale);
}

void SassPane::setGutter(QWidget* gutter) {
    delete m_gutter;
    m_gutter = gutter;
    if (gutter) m_body->insertWidget(0, gutter);
}

void SassPane::reload() {
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    const KernelModel* k = m_session ? m_session->kernel() : nullptr;
    m_updating = true;
    if (!snap || !k) {
        m_model->clear();
    } else {
        std::vector<int> lines;
        lines.reserve(k->sass.instructions.size());
        for (const SassInstruction& ins : k->sass.instructions)
            lines.push_back(m_session->sourceLineForLoc(k->correlation.sourceForSass(ins.address)));
        m_model->setFunction(snap, &k->sass, std::move(lines));
    }
    m_updating = false;
    onSelectionChanged();
    onStale();
}

void SassPane::onSelectionChanged() {
    if (!m_session) return;
    const Selection& sel = m_session->selection();
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
    m_view->viewport()->update();
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
