#include "views/source_pane.h"

#include "core/analysis/aggregate.h"
#include "views/code_editor.h"
#include "views/cuda_lexer.h"
#include "views/diff_model.h" // LineDeltaModel::marginText
#include "views/pressure_strip.h" // lineMarginTexts
#include "views/theme.h"
#include "views/workspace.h"

#include <Qsci/qscistyle.h>
#include <QFileInfo>
#include <QFontDatabase>
#include <QShortcut>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace lowerscope {

namespace {
// Annotation styles live past the lexer's styles (QsciStyle allocates them).
QsciStyle& errorStyle() {
    static QsciStyle s(-1, QStringLiteral("error annotation"), QColor(150, 0, 0), QColor(255, 225, 225), QFont());
    return s;
}
QsciStyle& warningStyle() {
    static QsciStyle s(-1, QStringLiteral("warning annotation"), QColor(120, 80, 0), QColor(255, 244, 205), QFont());
    return s;
}
// The line-cost margin text's own style: the margins' monospace font, so the margin width fits.
QsciStyle& lineCostStyle() {
    static QsciStyle s = [] {
        QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        font.setPointSize(10); // CodeEditor's margins font
        return QsciStyle(-1, QStringLiteral("line cost margin"), QColor(90, 90, 90), Theme::marginPaper(),
                         font, false);
    }();
    return s;
}
} // namespace

SourcePane::SourcePane(Workspace* session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    m_editor = new CodeEditor(this);
    m_editor->setObjectName(QStringLiteral("sourceEditor"));
    m_lexer = new CudaLexer(m_editor);
    m_editor->setLexer(m_lexer);
    m_editor->setCaretLineVisible(true);
    m_editor->SendScintilla(QsciScintilla::SCI_SETMOUSEDWELLTIME, 350);
    m_find = new FindBar(m_editor, true, this);
    lay->addWidget(m_editor, 1);
    lay->addWidget(m_find);
    m_editor->setMarginType(kLineCostMargin, QsciScintilla::TextMargin);
    m_editor->setMarginWidth(kLineCostMargin, QStringLiteral("  R000 S000 "));
    m_editor->setMarginSensitivity(kLineCostMargin, false);
    // The compare deltas' margin comes after the editor's own; it stays empty without a B.
    m_deltaMargin = m_editor->margins();
    m_editor->setMargins(m_deltaMargin + 1);
    m_editor->setMarginType(m_deltaMargin, QsciScintilla::TextMarginRightJustified);
    m_editor->setMarginWidth(m_deltaMargin, 0);
    m_editor->setMarginSensitivity(m_deltaMargin, false);
    applyTheme();

    auto* findSc = new QShortcut(QKeySequence::Find, m_editor, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(findSc, &QShortcut::activated, m_find, &FindBar::showFind);
    auto* replSc = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_H), m_editor, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(replSc, &QShortcut::activated, m_find, &FindBar::showReplace);

    connect(m_editor, &QsciScintilla::textChanged, this, [this] {
        if (!m_updating && m_session) m_session->setEditorText(m_editor->text());
    });
    connect(m_editor, &CodeEditor::cursorLineChanged, this, &SourcePane::onCursorMoved);
    // Hover linking: a mouse dwell previews the line under the mouse; leaving restores the cursor's.
    connect(m_editor, &QsciScintillaBase::SCN_DWELLSTART, this, [this](int pos, int, int) {
        if (pos < 0 || !m_session) return;
        const int line = int(m_editor->SendScintilla(QsciScintilla::SCI_LINEFROMPOSITION, (unsigned long)pos)) + 1;
        m_hoverLine = line;
        m_session->selectSourceLine(line, true);
    });
    connect(m_editor, &QsciScintillaBase::SCN_DWELLEND, this, [this](int, int, int) {
        if (!m_hoverLine || !m_session) return;
        m_hoverLine = 0;
        int line = 0, index = 0;
        m_editor->getCursorPosition(&line, &index);
        if (m_session->selection().hover) m_session->selectSourceLine(line + 1, false);
    });

    connect(session, &Workspace::documentChanged, this, &SourcePane::onDocumentChanged);
    connect(session, &Workspace::snapshotChanged, this, &SourcePane::onListingChanged);
    connect(session, &Workspace::kernelChanged, this, &SourcePane::onListingChanged);
    connect(session, &Workspace::attributionChanged, this, &SourcePane::onListingChanged);
    connect(session, &Workspace::selectionChanged, this, &SourcePane::onSelectionChanged);
    connect(session, &Workspace::staleChanged, this, [this](bool stale) { m_editor->setBandsDimmed(stale); });
    connect(session, &Workspace::buildFinished, this, &SourcePane::onBuildFinished);
    connect(session, &Workspace::compareLineDeltasChanged, this, &SourcePane::updateCompareDeltas);
    connect(session, &Workspace::sourceRevealRequested, this, [this](int line, int column) {
        if (line < 1) return;
        m_editor->setCursorPosition(line - 1, std::max(0, column - 1));
        m_editor->ensureLineVisibleCentered(line);
        m_editor->setFocus();
    });
}

void SourcePane::applyTheme() {
    m_lexer->applyTheme();
    m_editor->applyTheme();
    errorStyle().setColor(Theme::isDark() ? QColor(255, 170, 170) : QColor(150, 0, 0));
    errorStyle().setPaper(Theme::errorPaper());
    warningStyle().setColor(Theme::isDark() ? QColor(240, 210, 140) : QColor(120, 80, 0));
    warningStyle().setPaper(Theme::warningPaper());
    m_editor->recolor();
}

void SourcePane::onDocumentChanged() {
    if (!m_session || m_editor->text() == m_session->text()) return;
    m_updating = true;
    m_editor->setText(m_session->text());
    m_editor->setModified(false);
    m_editor->clearAnnotations();
    m_editor->markerDeleteAll(CodeEditor::ErrorMarker);
    m_editor->markerDeleteAll(CodeEditor::WarningMarker);
    m_updating = false;
}

void SourcePane::onListingChanged() {
    std::vector<std::pair<int, int>> bands;
    if (m_session) {
        if (const KernelModel* k = m_session->kernel()) {
            for (const SourceFrame& f : k->correlation.sourceLines(m_session->attribution())) {
                const int line = m_session->sourceLineForLoc(SourceLoc{f.file, f.line, f.column, {}});
                if (line > 0) bands.emplace_back(line, line);
            }
        }
    }
    m_editor->setBands(bands);
    m_editor->setBandsDimmed(m_session && m_session->isStale());
    updateLineCosts();
}

void SourcePane::updateLineCosts() {
    m_editor->clearMarginText();
    const KernelModel* k = m_session && m_session->snapshot() ? m_session->kernel() : nullptr;
    if (!k) return;
    const auto byLine = aggregateByLine(k->sass, m_session->attribution());
    const auto texts = lineMarginTexts(byLine, [this](const std::string& file) {
        SourceLoc loc;
        loc.file = file;
        loc.line = 1;
        return m_session->sourceLineForLoc(loc) > 0;
    });
    // Leading spaces keep the text clear of the fold margin's boxes drawn next to it.
    for (const auto& [line, text] : texts)
        m_editor->setMarginText(line - 1, QStringLiteral("  ") + text, lineCostStyle());
}

void SourcePane::updateCompareDeltas() {
    m_editor->clearMarginText(-1);
    if (!m_session) return;
    int shown = 0;
    QString widest;
    const QString mainFile = m_session->displayName();
    for (const LineDelta& d : m_session->compareLineDeltas()) {
        if (d.source.line <= 0) continue;
        if (!mainFile.isEmpty() && QFileInfo(QString::fromStdString(d.source.file)).fileName() != mainFile) continue;
        const QString text = LineDeltaModel::marginText(d);
        if (text.isEmpty()) continue;
        m_editor->setMarginText(d.source.line - 1, text, 0);
        if (text.size() > widest.size()) widest = text;
        ++shown;
    }
    m_editor->setMarginWidth(m_deltaMargin, shown ? widest + QStringLiteral("  ") : QString());
    if (!shown) m_editor->setMarginWidth(m_deltaMargin, 0);
}

void SourcePane::onSelectionChanged() {
    if (!m_session) return;
    const Selection& sel = m_session->selection();
    const int line = sel.sourceLine;
    m_editor->setHighlightedLines(line > 0 ? std::vector<int>{line} : std::vector<int>{}, 0, false);
    if (sel.origin != Selection::Origin::Source && line > 0) {
        // Follow a PTX/SASS click without feeding it back as a new source selection.
        m_updating = true;
        m_editor->setCursorPosition(line - 1, 0);
        m_editor->checkCursorLine(); // consume the move now, not when QScintilla repaints
        m_editor->ensureLineVisibleCentered(line);
        m_updating = false;
    }
}

void SourcePane::onCursorMoved(int line) {
    if (m_updating || !m_session) return;
    const Selection& sel = m_session->selection();
    if (sel.origin == Selection::Origin::Source && sel.sourceLine == line && !sel.hover) return;
    m_session->selectSourceLine(line);
}

std::vector<int> SourcePane::annotatedLines() const { return m_annotated; }

void SourcePane::onBuildFinished(quint64, SnapshotPtr snapshot) {
    m_editor->clearAnnotations();
    m_editor->markerDeleteAll(CodeEditor::ErrorMarker);
    m_editor->markerDeleteAll(CodeEditor::WarningMarker);
    m_annotated.clear();
    if (!snapshot || !m_session) return;
    const QString name = m_session->displayName();
    // Group messages per line: one annotation box per line, worst severity decides its style.
    std::map<int, std::pair<QString, bool>> perLine;
    for (const Diagnostic& d : snapshot->result.diagnostics) {
        if (d.line < 1 || d.line > m_editor->lines()) continue;
        if (!d.file.empty() && QFileInfo(QString::fromStdString(d.file)).fileName() != name) continue;
        const bool error = d.severity == Severity::Error;
        if (d.severity != Severity::Error && d.severity != Severity::Warning) continue;
        auto& [text, isError] = perLine[d.line];
        if (!text.isEmpty()) text += QLatin1Char('\n');
        text += QStringLiteral("%1: %2").arg(error ? tr("error") : tr("warning"), QString::fromStdString(d.message));
        isError = isError || error;
    }
    for (const auto& [line, entry] : perLine) {
        m_editor->annotate(line - 1, entry.first, entry.second ? errorStyle() : warningStyle());
        m_editor->markerAdd(line - 1, entry.second ? CodeEditor::ErrorMarker : CodeEditor::WarningMarker);
        m_annotated.push_back(line);
    }
}

} // namespace lowerscope
