#include "views/code/ptx_pane.h"

#include "views/code/code_editor.h"
#include "views/code/opcode_tooltip.h"
#include "views/code/ptx_lexer.h"
#include "views/code/ptx_model.h"
#include "views/common/stale_banner.h"
#include "views/common/workspace.h"

#include <QLabel>
#include <QShortcut>
#include <QVBoxLayout>

namespace lowerscope {

PtxPane::PtxPane(Workspace* session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    m_banner = createStaleBanner(this);
    m_editor = new CodeEditor(this);
    m_editor->setObjectName(QStringLiteral("ptxEditor"));
    m_lexer = new PtxLexer(m_editor);
    m_editor->setLexer(m_lexer);
    m_editor->setReadOnly(true);
    m_editor->setCaretLineVisible(true);
    m_find = new FindBar(m_editor, false, this);
    OpcodeTooltipFilter::installOnPtxEditor(m_editor); // the instruction under the mouse, explained
    m_model = new PtxModel(this);
    lay->addWidget(m_banner);
    lay->addWidget(m_editor, 1);
    lay->addWidget(m_find);
    applyTheme();
    auto* findSc = new QShortcut(QKeySequence::Find, m_editor, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    findSc->setWhatsThis(tr("Find in the PTX"));
    connect(findSc, &QShortcut::activated, m_find, &FindBar::showFind);

    connect(m_editor, &CodeEditor::cursorLineChanged, this, [this](int line1) {
        const int line = line1 - 1;
        // Only the user's caret selects: Scintilla reports the caret of a new listing (line 1) on its
        // first repaint, after onSnapshot; it selected "PTX line 1, no line info" at every launch.
        if (m_updating || !m_session || !m_editor->hasFocus()) return;
        const Selection& sel = m_session->selection();
        if (sel.origin == Selection::Origin::Ptx && sel.focusPtxLine == line + 1) return;
        m_session->selectPtxLine(line + 1);
    });
    connect(session, &Workspace::snapshotChanged, this, &PtxPane::onSnapshot);
    connect(session, &Workspace::kernelChanged, this, &PtxPane::onKernel);
    connect(session, &Workspace::attributionChanged, this, &PtxPane::onSourceLines);
    connect(session, &Workspace::selectionChanged, this, &PtxPane::onSelectionChanged);
    connect(session, &Workspace::staleChanged, this, &PtxPane::onStale);
    connect(session, &Workspace::buildFinished, this, &PtxPane::onStale);
}

void PtxPane::applyTheme() {
    m_lexer->applyTheme();
    m_editor->applyTheme();
    styleStaleBanner(m_banner);
    m_editor->recolor();
}

void PtxPane::onSnapshot() {
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    m_updating = true;
    if (!snap) {
        m_model->clear();
        m_editor->setText(QString());
    } else {
        m_model->setListing(snap, &snap->model.ptx, {});
        m_editor->setText(m_model->text());
        onSourceLines();
    }
    m_updating = false;
    onStale();
}

void PtxPane::onSourceLines() {
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    if (!snap) return;
    std::vector<int> lines(snap->model.ptx.lines.size(), 0);
    std::vector<std::pair<int, int>> bands;
    for (size_t i = 0; i < lines.size(); ++i) {
        const PtxLine& l = snap->model.ptx.lines[i];
        if (!l.isInstruction) continue;
        lines[i] = m_session->sourceLineForLoc(l.source);
        if (lines[i] > 0) bands.emplace_back(int(i) + 1, lines[i]);
    }
    m_model->setSourceLines(std::move(lines));
    m_editor->setBands(bands);
    m_editor->setBandsDimmed(m_session->isStale());
}

void PtxPane::onKernel() {
    const SnapshotPtr snap = m_session ? m_session->snapshot() : nullptr;
    const KernelModel* k = m_session ? m_session->kernel() : nullptr;
    if (!snap || !k || k->ptxFunction < 0 || size_t(k->ptxFunction) >= snap->model.ptx.functions.size()) return;
    const int first = snap->model.ptx.functions[size_t(k->ptxFunction)].firstLine;
    if (first > 0 && m_session->selection().ptxLines.empty()) m_editor->setFirstVisibleLine(first - 1);
}

void PtxPane::onSelectionChanged() {
    if (!m_session) return;
    const Selection& sel = m_session->selection();
    m_model->setHighlighted(sel.ptxLines);
    const int current = sel.origin == Selection::Origin::Source ? 0 : sel.focusPtxLine;
    m_editor->setHighlightedLines(sel.ptxLines, current, sel.origin != Selection::Origin::Ptx);
}

void PtxPane::onStale() {
    if (!m_session) return;
    const bool stale = refreshStaleBanner(m_banner, *m_session);
    m_editor->setBandsDimmed(stale);
    m_model->setStale(stale);
}

} // namespace lowerscope
