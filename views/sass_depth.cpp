#include "views/sass_depth.h"

#include "core/analysis/aggregate.h"
#include "views/arrow_gutter.h"
#include "views/cfg_view.h"
#include "views/code_editor.h"
#include "views/control_delegate.h"
#include "views/main_window.h"
#include "views/opcode_tooltip.h"
#include "views/pressure_strip.h"
#include "views/ptx_pane.h"
#include "views/sass_filter.h"
#include "views/sass_model.h"
#include "views/sass_pane.h"
#include "views/workspace.h"
#include "views/source_pane.h"
#include "views/theme.h"

#include <Qsci/qscistyle.h>

#include <QAction>
#include <QActionGroup>
#include <QFontDatabase>
#include <QBoxLayout>
#include <QHeaderView>
#include <QMouseEvent>
#include <QPointer>
#include <QTableView>
#include <QToolButton>

#include <memory>

namespace lowerscope {

namespace {

// The layout that holds `widget` (searched from `root` down).
QBoxLayout* layoutHolding(QLayout* root, QWidget* widget) {
    if (!root) return nullptr;
    if (auto* box = qobject_cast<QBoxLayout*>(root); box && box->indexOf(widget) >= 0) return box;
    for (int i = 0; i < root->count(); ++i)
        if (QLayout* child = root->itemAt(i)->layout())
            if (QBoxLayout* found = layoutHolding(child, widget)) return found;
    return nullptr;
}

// Turns a click on a register in the Operands/Predicate column into a register highlight.
class OperandClickFilter : public QObject {
public:
    OperandClickFilter(QTableView* view, ArrowGutter* gutter) : QObject(view), m_view(view), m_gutter(gutter) {}

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
        const RegRange reg = position >= 0 ? registerAtTextPosition(text, position) : RegRange{RegClass::R, 0, 0};
        if (reg.count > 0 && !(m_gutter->hasRegisterHighlight() && m_gutter->highlightedRegister() == reg))
            m_gutter->highlightRegister(reg);
        else
            m_gutter->clearRegisterHighlight(); // a second click (or a click off a register) clears
        return false; // the row is still selected as usual
    }

private:
    QPointer<QTableView> m_view;
    QPointer<ArrowGutter> m_gutter;
};

} // namespace

SassDepthWidgets installSassDepthFeatures(MainWindow* window) {
    SassDepthWidgets w;
    Workspace* session = window->session();
    SassPane* sassPane = window->sassPane();
    QTableView* view = sassPane->view();
    SassModel* model = sassPane->model();

    // ---- arrows
    auto* gutter = new ArrowGutter;
    w.gutter = gutter;
    sassPane->setGutter(gutter);
    gutter->setView(view);
    // A toggle in the gutter's header strip (the rows start below the table header).
    auto* toggle = new QToolButton(gutter);
    w.allEdges = new QAction(QObject::tr("All dependency edges in view"), gutter);
    w.allEdges->setCheckable(true);
    w.allEdges->setToolTip(QObject::tr("Arrows: the selected instruction's producers/consumers, or every edge in view"));
    w.allEdges->setIconText(QStringLiteral("\u21c5"));
    toggle->setDefaultAction(w.allEdges);
    toggle->setAutoRaise(true);
    toggle->setFixedSize(18, std::max(16, view->horizontalHeader()->sizeHint().height() - 2));
    toggle->move(1, 1);
    QObject::connect(w.allEdges, &QAction::toggled, gutter, &ArrowGutter::setShowAllEdges);
    QObject::connect(sassPane, &SassPane::currentRowChanged, gutter, &ArrowGutter::setSelectedRow);
    QObject::connect(gutter, &ArrowGutter::rowActivated, view, [view](int row) {
        const QModelIndex index = view->model()->index(row, 0);
        view->setCurrentIndex(index);
        view->scrollTo(index, QAbstractItemView::EnsureVisible);
    });
    view->viewport()->installEventFilter(new OperandClickFilter(view, gutter));

    // ---- control codes and tooltips
    view->setItemDelegateForColumn(SassModel::ControlColumn, new ControlDelegate(view));
    {
        const int cw = QFontMetrics(view->font()).horizontalAdvance(QLatin1Char('0'));
        view->horizontalHeader()->resizeSection(
            SassModel::ControlColumn, cw * 21 + ControlDelegate::graphicWidth(view->verticalHeader()->defaultSectionSize()));
    }
    OpcodeTooltipFilter::installOnSassView(view, SassModel::OpcodeColumn, SassModel::ControlColumn);
    if (window->ptxPane() && window->ptxPane()->editor()) OpcodeTooltipFilter::installOnPtxEditor(window->ptxPane()->editor());

    // ---- register pressure
    auto* strip = new PressureStrip(sassPane);
    w.pressure = strip;
    if (QBoxLayout* body = layoutHolding(sassPane->layout(), view)) body->insertWidget(body->indexOf(view) + 1, strip);
    strip->setView(view);
    auto jump = [view](int row) {
        const QModelIndex index = view->model()->index(row, 0);
        if (!index.isValid()) return;
        view->setCurrentIndex(index);
        view->scrollTo(index, QAbstractItemView::PositionAtCenter);
    };
    QObject::connect(strip, &PressureStrip::rowRequested, view, jump);
    QObject::connect(sassPane, &SassPane::currentRowChanged, strip, &PressureStrip::setCurrentRow);
    w.maxPressure = new QAction(QObject::tr("Jump to maximum register pressure"), sassPane);
    w.maxPressure->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F7));
    w.nextPeak = new QAction(QObject::tr("Next register-pressure peak"), sassPane);
    w.nextPeak->setShortcut(QKeySequence(Qt::Key_F7));
    w.previousPeak = new QAction(QObject::tr("Previous register-pressure peak"), sassPane);
    w.previousPeak->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F7));
    QObject::connect(w.maxPressure, &QAction::triggered, strip, &PressureStrip::jumpToMax);
    QObject::connect(w.nextPeak, &QAction::triggered, strip, &PressureStrip::jumpToNextPeak);
    QObject::connect(w.previousPeak, &QAction::triggered, strip, &PressureStrip::jumpToPreviousPeak);
    // The strip shows one class of live registers; scales: the kernel's allocated GPRs, the 7
    // usable predicates (P0–P6), the 63 uniform registers (UR0–UR62).
    auto* pressureClasses = new QActionGroup(sassPane);
    auto pressureAction = [&](const QString& text) {
        auto* a = new QAction(text, pressureClasses);
        a->setCheckable(true);
        return a;
    };
    w.pressureGpr = pressureAction(QObject::tr("Pressure strip: live GPRs"));
    w.pressurePred = pressureAction(QObject::tr("Pressure strip: live predicates"));
    w.pressureUgpr = pressureAction(QObject::tr("Pressure strip: live uniform registers"));
    w.pressureGpr->setChecked(true);
    for (QAction* a : {w.allEdges, w.maxPressure, w.nextPeak, w.previousPeak, w.pressureGpr, w.pressurePred, w.pressureUgpr}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        sassPane->addAction(a);
        view->addAction(a);
    }
    view->setContextMenuPolicy(Qt::ActionsContextMenu);

    // ---- CFG and filter panes
    auto* cfg = new CfgView;
    w.cfg = cfg;
    window->registerPane(QStringLiteral("cfg"), QObject::tr("CFG"), cfg, Qt::RightDockWidgetArea);
    QObject::connect(cfg, &CfgView::blockActivated, session, [session](quint32 a) { session->selectSassAddress(a); });
    QObject::connect(cfg, &CfgView::instructionActivated, session, [session](quint32 a) { session->selectSassAddress(a); });
    auto* filter = new SassFilterPane;
    w.filter = filter;
    filter->setSourceModel(model);
    window->registerPane(QStringLiteral("sass-filter"), QObject::tr("SASS filter"), filter, Qt::RightDockWidgetArea);
    QObject::connect(filter, &SassFilterPane::addressActivated, session, [session](quint32 a) { session->selectSassAddress(a); });

    // ---- per-kernel reload, selection following
    QPointer<CodeEditor> editor = window->sourcePane() ? window->sourcePane()->editor() : nullptr;
    if (editor) {
        editor->setMarginType(kSassDepthMargin, QsciScintilla::TextMargin);
        editor->setMarginWidth(kSassDepthMargin, QStringLiteral("  R000 S000 "));
        editor->setMarginSensitivity(kSassDepthMargin, false);
    }
    // The margin text's own style: the margins' monospace font, so the width above fits.
    QFont marginFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    marginFont.setPointSize(10); // CodeEditor's margins font
    // Shared by the reload lambda (a plain value class, not a QObject).
    auto marginStyle = std::make_shared<QsciStyle>(-1, QStringLiteral("sass-depth margin"), QColor(90, 90, 90),
                                                   Theme::marginPaper(), marginFont, false);
    auto showPressure = [session, strip, pred = w.pressurePred, ugpr = w.pressureUgpr] {
        const KernelModel* k = session->kernel();
        if (!session->snapshot() || !k) {
            strip->setValues({});
            return;
        }
        std::vector<int> live;
        live.reserve(k->sass.instructions.size());
        if (pred->isChecked()) {
            for (const SassInstruction& ins : k->sass.instructions) live.push_back(ins.live.pred);
            strip->setValues(std::move(live), 7, QObject::tr("predicates"));
        } else if (ugpr->isChecked()) {
            for (const SassInstruction& ins : k->sass.instructions) live.push_back(ins.live.ugpr);
            strip->setValues(std::move(live), 63, QObject::tr("uniform registers"));
        } else {
            for (const SassInstruction& ins : k->sass.instructions) live.push_back(ins.live.gpr);
            strip->setValues(std::move(live), k->resources.registers > 0 ? k->resources.registers : 0, QObject::tr("GPRs"));
        }
    };
    QObject::connect(pressureClasses, &QActionGroup::triggered, strip, showPressure);
    auto reload = [session, gutter, strip, cfg, filter, editor, marginStyle, showPressure] {
        const SnapshotPtr snap = session->snapshot();
        const KernelModel* k = session->kernel();
        if (!snap || !k) {
            gutter->setKernel(nullptr, nullptr, nullptr);
            strip->setValues({});
            cfg->clear();
            filter->setMix(nullptr, nullptr);
            if (editor) editor->clearMarginText();
            return;
        }
        gutter->setKernel(snap, &k->sass, &k->deps);
        std::vector<int> lines;
        lines.reserve(k->sass.instructions.size());
        for (const SassInstruction& ins : k->sass.instructions)
            lines.push_back(session->sourceLineForLoc(k->correlation.sourceForSass(ins.address)));
        showPressure();
        cfg->setKernel(snap, &k->sass, &k->cfg, std::move(lines));
        filter->setMix(&k->total, nullptr);
        if (editor) {
            editor->clearMarginText();
            const auto byLine = aggregateByLine(k->sass, session->attribution());
            const auto texts = lineMarginTexts(byLine, [session](const std::string& file) {
                SourceLoc loc;
                loc.file = file;
                loc.line = 1;
                return session->sourceLineForLoc(loc) > 0;
            });
            // Leading spaces keep the text clear of the fold margin's boxes drawn next to it.
            for (const auto& [line, text] : texts) editor->setMarginText(line - 1, QStringLiteral("  ") + text, *marginStyle);
        }
    };
    QObject::connect(session, &Workspace::snapshotChanged, gutter, reload);
    QObject::connect(session, &Workspace::kernelChanged, gutter, reload);
    QObject::connect(session, &Workspace::attributionChanged, gutter, reload);
    QObject::connect(session, &Workspace::selectionChanged, cfg, [session, cfg, filter, gutter] {
        const Selection& sel = session->selection();
        if (sel.hover) return;
        const KernelModel* kernel = session->kernel();
        // The arrows follow the focused instruction whichever pane chose it (the SASS pane moves
        // its current row only for selections made elsewhere).
        if (kernel && sel.focusSassAddress) gutter->setSelectedRow(kernel->sass.indexOf(*sel.focusSassAddress));
        cfg->setHighlightedAddresses(sel.sassAddresses);
        const KernelModel* k = session->kernel();
        if (!k) return;
        std::vector<int> rows;
        for (uint32_t a : sel.sassAddresses) rows.push_back(k->sass.indexOf(a));
        LineAggregate line = aggregateRows(k->sass, rows);
        line.line = sel.sourceLine;
        filter->setMix(&k->total, sel.sourceLine > 0 && line.instructions > 0 ? &line : nullptr);
    });
    reload();
    return w;
}

} // namespace lowerscope
