#include "views/source_pane.h"

#include "core/analysis/aggregate.h"
#include "views/code_editor.h"
#include "views/cuda_lexer.h"
#include "views/diff_model.h" // LineDeltaModel::compactText
#include "views/pressure_strip.h" // lineMarginTexts
#include "views/theme.h"
#include "views/workspace.h"

#include <Qsci/qscistyle.h>
#include <Qsci/qscistyledtext.h>
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
// The compare delta after the line cost: red when B has more, green when fewer (same font).
QsciStyle& deltaStyle(bool more) {
    static QsciStyle up = [] {
        QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        font.setPointSize(10);
        return QsciStyle(-1, QStringLiteral("compare delta up"), QColor(170, 30, 30), Theme::marginPaper(), font, false);
    }();
    static QsciStyle down = [] {
        QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        font.setPointSize(10);
        return QsciStyle(-1, QStringLiteral("compare delta down"), QColor(0, 120, 40), Theme::marginPaper(), font, false);
    }();
    return more ? up : down;
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
    m_editor->setMarginWidth(kLineCostMargin, QStringLiteral(" R000 S000 "));
    // Line numbers as wide as the file needs (the editor's default fits 99999 lines): on a small
    // screen every column of the Source pane counts.
    auto numberWidth = [this] {
        const int digits = std::max(3, int(QString::number(m_editor->lines()).size()));
        m_editor->setMarginWidth(0, QString(digits + 1, QLatin1Char('0')));
    };
    connect(m_editor, &QsciScintilla::linesChanged, this, numberWidth);
    numberWidth();
    m_editor->setMarginSensitivity(kLineCostMargin, false);
    applyTheme();

    auto* findSc = new QShortcut(QKeySequence::Find, m_editor, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    findSc->setWhatsThis(tr("Find in the source"));
    connect(findSc, &QShortcut::activated, m_find, &FindBar::showFind);
    auto* replSc = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_H), m_editor, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    replSc->setWhatsThis(tr("Find and replace in the source"));
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
    lineCostStyle().setColor(Theme::isDark() ? QColor(160, 160, 160) : QColor(90, 90, 90));
    lineCostStyle().setPaper(Theme::marginPaper());
    deltaStyle(true).setColor(Theme::isDark() ? QColor(255, 130, 120) : QColor(170, 30, 30));
    deltaStyle(true).setPaper(Theme::marginPaper());
    deltaStyle(false).setColor(Theme::isDark() ? QColor(120, 220, 130) : QColor(0, 120, 40));
    deltaStyle(false).setPaper(Theme::marginPaper());
    m_editor->recolor();
    updateLineCosts();
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
    std::map<int, QString> costs;
    if (k) {
        const auto byLine = aggregateByLine(k->sass, m_session->attribution());
        const auto texts = lineMarginTexts(byLine, [this](const std::string& file) {
            SourceLoc loc;
            loc.file = file;
            loc.line = 1;
            return m_session->sourceLineForLoc(loc) > 0;
        });
        for (const auto& [line, text] : texts) costs[line] = text;
    }
    // Every cost text has the same width ("R%3 S%3"): a line with a delta but no cost in A is
    // padded so the deltas form one column.
    const int costWidth = costs.empty() ? 0 : int(costs.begin()->second.size());
    int widestDelta = 0;
    for (const auto& [line, delta] : m_compareDeltas) widestDelta = std::max(widestDelta, int(delta.size()));
    std::map<int, std::pair<QString, QString>> lines;
    for (const auto& [line, text] : costs) lines[line].first = text;
    for (const auto& [line, delta] : m_compareDeltas)
        if (!delta.isEmpty()) lines[line].second = delta;
    const int count = m_editor->lines();
    for (const auto& [line, parts] : lines) {
        if (line < 1 || line > count) continue;
        // A leading space keeps the text clear of the fold margin's boxes drawn next to it.
        QString cost = QLatin1Char(' ') + parts.first.leftJustified(costWidth);
        if (parts.second.isEmpty()) {
            m_editor->setMarginText(line - 1, cost, lineCostStyle());
            continue;
        }
        QList<QsciStyledText> styled;
        styled << QsciStyledText(cost + QLatin1Char(' '), lineCostStyle());
        const bool more = parts.second.startsWith(QLatin1Char('+'));
        styled << QsciStyledText(parts.second.rightJustified(widestDelta), deltaStyle(more));
        m_editor->setMarginText(line - 1, styled);
    }
    // The margin fits its widest text, so a delta is never clipped; without deltas it keeps the
    // width of the line costs alone.
    QString widest = QLatin1Char(' ') + QString(std::max(costWidth, 9), QLatin1Char('0')) + QLatin1Char(' ');
    if (widestDelta > 0) widest += QString(widestDelta, QLatin1Char('0')) + QLatin1Char(' ');
    m_editor->setMarginWidth(kLineCostMargin, widest);
}

QString SourcePane::lineMarginText(int line) const {
    if (line < 1 || line > m_editor->lines()) return {};
    const long length = m_editor->SendScintilla(QsciScintilla::SCI_MARGINGETTEXT, (unsigned long)(line - 1), (void*)nullptr);
    if (length <= 0) return {};
    QByteArray bytes(int(length) + 1, '\0');
    m_editor->SendScintilla(QsciScintilla::SCI_MARGINGETTEXT, (unsigned long)(line - 1), (void*)bytes.data());
    bytes.truncate(int(length));
    return QString::fromUtf8(bytes);
}

void SourcePane::updateCompareDeltas() {
    std::map<int, QString> deltas;
    if (m_session) {
        const QString mainFile = m_session->displayName();
        for (const LineDelta& d : m_session->compareLineDeltas()) {
            if (d.source.line <= 0) continue;
            if (!mainFile.isEmpty() && QFileInfo(QString::fromStdString(d.source.file)).fileName() != mainFile) continue;
            const QString text = LineDeltaModel::compactText(d);
            if (!text.isEmpty()) deltas[d.source.line] = text;
        }
    }
    if (deltas == m_compareDeltas) return;
    m_compareDeltas = std::move(deltas);
    updateLineCosts();
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
