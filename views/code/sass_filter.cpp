#include "views/code/sass_filter.h"

#include "core/analysis/aggregate.h"
#include "core/parse/opcodes.h"
#include "views/code/opcode_tooltip.h"
#include "views/code/sass_model.h"
#include "views/common/workspace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace lowerscope {

SassFilterProxy::SassFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    m_re.setPatternOptions(QRegularExpression::CaseInsensitiveOption);
}

bool SassFilterProxy::setPattern(const QString& pattern) {
    QRegularExpression re(pattern, QRegularExpression::CaseInsensitiveOption);
    if (!re.isValid()) {
        m_error = re.errorString();
        return false;
    }
    m_error.clear();
    if (re.pattern() == m_re.pattern()) return true;
    m_re = re;
    m_re.optimize();
    invalidateRowsFilter();
    return true;
}

void SassFilterProxy::setCategoryMask(quint32 mask) {
    if (mask == m_mask) return;
    m_mask = mask;
    invalidateRowsFilter();
}

QString SassFilterProxy::searchText(const SassInstruction& ins) {
    QString s;
    if (!ins.predicate.empty()) s = QString::fromStdString(ins.predicate) + QLatin1Char(' ');
    s += QString::fromStdString(ins.opcode);
    for (size_t i = 0; i < ins.operands.size(); ++i) {
        s += i ? QLatin1String(", ") : QLatin1String(" ");
        s += QString::fromStdString(ins.operands[i].text);
    }
    return s;
}

bool SassFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (!isActive()) return true;
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    const SassInstruction* ins = sassInstructionAt(idx);
    if (!ins) return false;
    if (m_mask) {
        const OpcodeInfo* info = lookupSassOpcode(ins->mnemonic);
        const int cat = int(info ? info->category : InstrCategory::Misc);
        if (!(m_mask & (1u << cat))) return false;
    }
    if (!m_re.pattern().isEmpty() && !m_re.match(searchText(*ins)).hasMatch()) return false;
    return true;
}

QVariant SassFilterProxy::data(const QModelIndex& index, int role) const {
    if (role == Qt::ToolTipRole && index.isValid() && index.column() == SassModel::OpcodeColumn) {
        if (const SassInstruction* ins = sassInstructionAt(index)) return sassOpcodeTooltip(QString::fromStdString(ins->opcode));
    }
    return QSortFilterProxyModel::data(index, role);
}

QString instructionMixText(const LineAggregate& a) {
    if (a.instructions <= 0) return QObject::tr("no instructions");
    std::vector<std::pair<int, InstrCategory>> parts;
    for (const auto& [cat, count] : a.mix)
        if (count > 0) parts.emplace_back(count, cat);
    std::stable_sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    QStringList items;
    for (const auto& [count, cat] : parts)
        items << QStringLiteral("%1 %2 (%3%)").arg(QLatin1String(categoryLabel(cat))).arg(count)
                     .arg(qRound(100.0 * count / a.instructions));
    return QObject::tr("%n instruction(s): ", nullptr, a.instructions) + items.join(QStringLiteral(", "));
}

LineAggregate aggregateRows(const SassFunction& function, const std::vector<int>& rows) {
    LineAggregate a;
    for (int r : rows)
        if (r >= 0 && size_t(r) < function.instructions.size()) accumulate(a, function.instructions[size_t(r)]);
    return a;
}

SassFilterPane::SassFilterPane(QWidget* parent) : QWidget(parent) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(2, 2, 2, 2);
    lay->setSpacing(2);
    auto* bar = new QHBoxLayout;
    m_edit = new QLineEdit;
    m_edit->setPlaceholderText(tr("Filter SASS: regex over opcode and operands, e.g. LDG|STG, R4\\b"));
    m_edit->setClearButtonEnabled(true);
    m_category = new QComboBox;
    m_category->addItem(tr("All categories"), 0u);
    for (int c = 0; c <= int(InstrCategory::Misc); ++c)
        m_category->addItem(QLatin1String(categoryLabel(InstrCategory(c))), 1u << c);
    m_count = new QLabel;
    m_fadeOthers = new QCheckBox(tr("Fade others"));
    m_fadeOthers->setChecked(true);
    m_fadeOthers->setToolTip(tr("While a filter is active, draw the non-matching rows of the SASS pane faded"));
    bar->addWidget(m_edit, 1);
    bar->addWidget(m_category);
    bar->addWidget(m_count);
    bar->addWidget(m_fadeOthers);
    lay->addLayout(bar);

    m_proxy = new SassFilterProxy(this);
    m_view = new QTableView;
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSize(9);
    m_view->setFont(mono);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(QFontMetrics(mono).height() + 2);
    m_view->horizontalHeader()->setStretchLastSection(true);
    lay->addWidget(m_view, 1);
    m_mix = new QLabel;
    m_mix->setWordWrap(true);
    m_mix->setTextFormat(Qt::RichText);
    lay->addWidget(m_mix);

    connect(m_edit, &QLineEdit::textChanged, this, &SassFilterPane::applyFilter);
    connect(m_category, &QComboBox::currentIndexChanged, this, &SassFilterPane::applyFilter);
    auto activate = [this](const QModelIndex& index) {
        if (index.isValid()) emit addressActivated(index.data(SassModel::AddressRole).toUInt());
    };
    connect(m_view, &QAbstractItemView::activated, this, activate);
    connect(m_view, &QAbstractItemView::doubleClicked, this, activate);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &SassFilterPane::updateCount);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &SassFilterPane::updateCount);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &SassFilterPane::updateCount);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &SassFilterPane::updateCount);
    connect(m_fadeOthers, &QCheckBox::toggled, this, &SassFilterPane::updateMatches);
    // A new listing (the model was reset) is matched again once the proxy has settled: touching
    // the source model from inside the proxy's own signals would corrupt its mapping.
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
        QTimer::singleShot(0, this, &SassFilterPane::updateMatches);
    });
    updateCount();
}

SassFilterPane::SassFilterPane(Workspace* workspace, QWidget* parent) : SassFilterPane(parent) {
    m_workspace = workspace;
    if (!workspace) return;
    connect(workspace, &Workspace::snapshotChanged, this, &SassFilterPane::showKernelMix);
    connect(workspace, &Workspace::kernelChanged, this, &SassFilterPane::showKernelMix);
    connect(workspace, &Workspace::attributionChanged, this, &SassFilterPane::showKernelMix);
    connect(workspace, &Workspace::selectionChanged, this, &SassFilterPane::showSelectionMix);
    connect(this, &SassFilterPane::addressActivated, workspace, &Workspace::selectSassAddress);
    showKernelMix();
}

void SassFilterPane::showKernelMix() {
    const KernelModel* k = m_workspace && m_workspace->snapshot() ? m_workspace->kernel() : nullptr;
    setMix(k ? &k->total : nullptr, nullptr);
}

void SassFilterPane::showSelectionMix() {
    const Selection& sel = m_workspace->selection();
    const KernelModel* k = m_workspace->kernel();
    if (sel.hover || !k) return;
    std::vector<int> rows;
    for (uint32_t a : sel.sassAddresses) rows.push_back(k->sass.indexOf(a));
    LineAggregate line = aggregateRows(k->sass, rows);
    line.line = sel.sourceLine;
    setMix(&k->total, sel.sourceLine > 0 && line.instructions > 0 ? &line : nullptr);
}

void SassFilterPane::setSourceModel(SassModel* model) {
    if (m_model && m_model != model) {
        disconnect(m_model, &SassModel::filterChanged, this, nullptr);
        m_model->setFilterMatches({});
    }
    m_model = model;
    // The fading ended elsewhere (the SASS pane's "Clear filter"): the filter ends with it, so
    // this pane never shows a filter the listing no longer reflects.
    if (model)
        connect(model, &SassModel::filterChanged, this, [this] {
            if (!m_applying && m_model && !m_model->isFiltered() && m_model->rowCount() > 0 && m_proxy->isActive() &&
                m_fadeOthers->isChecked())
                clearFilter();
        });
    m_proxy->setSourceModel(model);
    // Only the columns a search result needs.
    for (int c = 0; c < m_proxy->columnCount(); ++c)
        m_view->setColumnHidden(c, c != SassModel::AddressColumn && c != SassModel::SourceLineColumn &&
                                       c != SassModel::PredicateColumn && c != SassModel::OpcodeColumn &&
                                       c != SassModel::OperandsColumn);
    updateCount();
}

void SassFilterPane::applyFilter() {
    const bool ok = m_proxy->setPattern(m_edit->text());
    m_edit->setStyleSheet(ok ? QString() : QStringLiteral("QLineEdit { background: #f8d0d0; }"));
    m_edit->setToolTip(ok ? QString() : m_proxy->errorString());
    m_proxy->setCategoryMask(m_category->currentData().toUInt());
    updateCount();
    updateMatches();
}

void SassFilterPane::updateCount() {
    const int total = m_proxy->sourceModel() ? m_proxy->sourceModel()->rowCount() : 0;
    m_count->setText(tr("%1 / %2").arg(m_proxy->rowCount()).arg(total));
}

void SassFilterPane::updateMatches() {
    if (!m_model) return;
    if (!m_proxy->isActive() || !m_fadeOthers->isChecked() || m_proxy->sourceModel() != m_model) {
        m_model->setFilterMatches({});
        return;
    }
    std::vector<char> matches(size_t(m_model->rowCount()), 0);
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        const int source = m_proxy->mapToSource(m_proxy->index(r, 0)).row();
        if (source >= 0 && size_t(source) < matches.size()) matches[size_t(source)] = 1;
    }
    // Called only once the proxy is done filtering (never from its row signals); unchanged
    // matches emit nothing. The description is what the SASS pane's bar names as the reason.
    QStringList what;
    if (!m_proxy->pattern().isEmpty()) what << QStringLiteral("“%1”").arg(m_proxy->pattern());
    if (m_proxy->categoryMask() != 0) what << m_category->currentText();
    m_applying = true;
    m_model->setFilterMatches(std::move(matches), what.join(QStringLiteral(", ")));
    m_applying = false;
}

void SassFilterPane::clearFilter() {
    const QSignalBlocker blockEdit(m_edit), blockCategory(m_category);
    m_edit->clear();
    m_category->setCurrentIndex(0);
    applyFilter();
}

void SassFilterPane::setMix(const LineAggregate* kernel, const LineAggregate* line) {
    QString html;
    if (kernel) html += tr("<b>Kernel</b>: %1").arg(instructionMixText(*kernel).toHtmlEscaped());
    if (line) html += tr("<br><b>Line %1</b>: %2").arg(line->line).arg(instructionMixText(*line).toHtmlEscaped());
    m_mix->setText(html);
}

} // namespace lowerscope
