#include "views/sass_depth.h"

#include "core/analysis/aggregate.h"
#include "views/cfg_view.h"
#include "views/code_editor.h"
#include "views/main_window.h"
#include "views/opcode_tooltip.h"
#include "views/pressure_strip.h" // lineMarginTexts
#include "views/ptx_pane.h"
#include "views/sass_filter.h"
#include "views/sass_model.h"
#include "views/sass_pane.h"
#include "views/source_pane.h"
#include "views/theme.h"
#include "views/workspace.h"

#include <QFontDatabase>
#include <QPointer>
#include <Qsci/qscistyle.h>
#include <memory>

namespace lowerscope {

SassDepthWidgets installSassDepthFeatures(MainWindow* window) {
    SassDepthWidgets w;
    Workspace* session = window->session();
    SassModel* model = window->sassPane()->model();

    // The PTX pane's instruction tooltips (the SASS pane builds its own).
    if (window->ptxPane() && window->ptxPane()->editor())
        OpcodeTooltipFilter::installOnPtxEditor(window->ptxPane()->editor());

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
    auto marginStyle = std::make_shared<QsciStyle>(
        -1, QStringLiteral("sass-depth margin"), QColor(90, 90, 90), Theme::marginPaper(), marginFont, false);
    auto reload = [session, cfg, filter, editor, marginStyle] {
        const SnapshotPtr snap = session->snapshot();
        const KernelModel* k = session->kernel();
        if (!snap || !k) {
            cfg->clear();
            filter->setMix(nullptr, nullptr);
            if (editor) editor->clearMarginText();
            return;
        }
        std::vector<int> lines;
        lines.reserve(k->sass.instructions.size());
        for (const SassInstruction& ins : k->sass.instructions)
            lines.push_back(session->sourceLineForLoc(k->correlation.sourceForSass(ins.address)));
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
    QObject::connect(session, &Workspace::snapshotChanged, cfg, reload);
    QObject::connect(session, &Workspace::kernelChanged, cfg, reload);
    QObject::connect(session, &Workspace::attributionChanged, cfg, reload);
    QObject::connect(session, &Workspace::selectionChanged, cfg, [session, cfg, filter] {
        const Selection& sel = session->selection();
        if (sel.hover) return;
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
