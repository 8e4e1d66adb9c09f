#include "views/code/source_pane.h"

#include "core/analysis/aggregate.h"
#include "views/code/code_editor.h"
#include "views/code/cuda_lexer.h"
#include "views/code/pressure_strip.h" // lineMarginTexts
#include "views/common/input_file.h"
#include "views/common/theme.h"
#include "views/common/workspace.h"

#include <Qsci/qscistyle.h>
#include <Qsci/qscistyledtext.h>
#include <QComboBox>
#include <QCursor>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QShortcut>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <utility>

namespace lowerscope {

QString compactLineDeltaText(const LineDelta& d) {
    auto text = [](int v, QChar unit) { return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v) + unit; };
    if (d.instructionDelta() != 0) return text(d.instructionDelta(), QLatin1Char('i'));
    if (d.stallDelta() != 0) return text(d.stallDelta(), QLatin1Char('s'));
    if (d.maxLiveDelta() != 0) return text(d.maxLiveDelta(), QLatin1Char('r'));
    return {};
}

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
    m_files = new QComboBox(this);
    m_files->setObjectName(QStringLiteral("sourceFileCombo"));
    m_files->setToolTip(tr("The files this kernel's code comes from: the open document, its headers and "
                           "the CUDA toolkit's headers (read-only). Your headers can be edited: they are "
                           "saved before each build (• = unsaved). Ctrl+click an #include line to open "
                           "the header it names."));
    m_files->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_files->hide();
    m_editor = new CodeEditor(this);
    m_editor->setObjectName(QStringLiteral("sourceEditor"));
    m_lexer = new CudaLexer(m_editor);
    m_editor->setLexer(m_lexer);
    setUpEditor(m_editor);
    m_editor->SendScintilla(QsciScintilla::SCI_SETMOUSEDWELLTIME, 350);
    m_header = new CodeEditor(this);
    m_header->setObjectName(QStringLiteral("headerEditor"));
    m_headerLexer = new CudaLexer(m_header);
    m_header->setLexer(m_headerLexer);
    setUpEditor(m_header);
    m_header->setReadOnly(true);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_editor);
    m_stack->addWidget(m_header);
    m_find = new FindBar(m_editor, true, this);
    lay->addWidget(m_files);
    lay->addWidget(m_stack, 1);
    lay->addWidget(m_find);
    applyTheme();
    connect(m_files, &QComboBox::activated, this, [this](int i) {
        showFile(m_files->itemData(i).toString().toStdString());
    });
    // A line of the header selects its code (the header is never edited here).
    connect(m_header, &CodeEditor::cursorLineChanged, this, [this](int line) {
        if (m_updating || !m_session || m_shownFile.empty()) return;
        const Selection& sel = m_session->selection();
        if (sel.origin == Selection::Origin::Source && sel.sourceFile == m_shownFile && sel.fileLine == line) return;
        m_session->selectSourceLineIn(m_shownFile, line);
    });

    // Edits of the user's header go to the session (the toolkit's are read-only).
    connect(m_header, &QsciScintilla::textChanged, this, [this] {
        if (m_updating || !m_session || m_shownFile.empty() || m_header->isReadOnly()) return;
        m_session->setHeaderText(m_headerPath, m_header->text());
    });
    connect(session, &Workspace::headerEditsChanged, this, &SourcePane::updateFileLabels);
    // Ctrl+click on an #include line opens the header it names.
    for (CodeEditor* ed : {m_editor, m_header})
        connect(ed, &CodeEditor::ctrlClicked, this, [this](int line) {
            if (!openIncludeAt(line) && !m_includeError.isEmpty())
                QToolTip::showText(QCursor::pos(), m_includeError, this);
        });

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
    connect(session, &Workspace::staleChanged, this, [this](bool stale) {
        m_editor->setBandsDimmed(stale);
        m_header->setBandsDimmed(stale); // an edited header dims the listing too
    });
    connect(session, &Workspace::buildFinished, this, &SourcePane::onBuildFinished);
    connect(session, &Workspace::compareLineDeltasChanged, this, &SourcePane::updateCompareDeltas);
    connect(session, &Workspace::sourceRevealRequested, this, [this](int line, int column) {
        if (line < 1) return;
        m_editor->setFocus();
        m_editor->setCursorPosition(line - 1, std::max(0, column - 1));
        m_editor->ensureLineVisibleCentered(line);
        // The revealed line is selected as a click would (the caret's report needs the focus,
        // which an inactive window does not give).
        const Selection& sel = m_session->selection();
        if (sel.origin != Selection::Origin::Source || sel.sourceLine != line || sel.hover) m_session->selectSourceLine(line);
    });
}

QString SourcePane::lineCostMarginHelp() {
    return tr("R: the most GPRs live at any SASS instruction of this line (register pressure).\n"
              "S: the stall cycles its SASS instructions' control codes ask for, summed.\n"
              "Compare mode adds B − A: +Ni instructions, +Ns stall cycles, +Nr live registers.");
}

bool SourcePane::eventFilter(QObject* watched, QEvent* event) {
    // A click in the text is the user's caret even where the window is not active (no focus).
    if (event->type() == QEvent::MouseButtonPress && m_editor && watched == m_editor->viewport()) m_userClick = true;
    if (event->type() == QEvent::ToolTip) {
        for (CodeEditor* e : {m_editor, m_header}) {
            if (!e || watched != e->viewport()) continue;
            // The margins sit side by side from the left: the R/S one starts after those before it.
            int left = 0;
            for (int m = 0; m < kLineCostMargin; ++m) left += e->marginWidth(m);
            const int x = static_cast<QHelpEvent*>(event)->pos().x();
            if (x >= left && x < left + e->marginWidth(kLineCostMargin)) {
                QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), lineCostMarginHelp(), e);
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SourcePane::setUpEditor(CodeEditor* editor) {
    editor->setCaretLineVisible(true);
    editor->viewport()->installEventFilter(this);
    editor->setMarginType(kLineCostMargin, QsciScintilla::TextMargin);
    editor->setMarginWidth(kLineCostMargin, QStringLiteral(" R000 S000 "));
    // Line numbers as wide as the file needs (the editor's default fits 99999 lines): on a small
    // screen every column of the Source pane counts.
    auto numberWidth = [editor] {
        const int digits = std::max(3, int(QString::number(editor->lines()).size()));
        editor->setMarginWidth(0, QString(digits + 1, QLatin1Char('0')));
    };
    connect(editor, &QsciScintilla::linesChanged, this, numberWidth);
    numberWidth();
    editor->setMarginSensitivity(kLineCostMargin, false);
}

bool SourcePane::showFile(const std::string& recordedPath) {
    if (!m_session) return false;
    const auto files = m_session->sourceFiles();
    const ShownSourceFile* want = nullptr;
    for (const auto& f : files)
        if (f.recorded == recordedPath || (recordedPath.empty() && f.main)) want = &f;
    if (!want && !recordedPath.empty()) return false;
    if (!want || want->main) {
        m_shownFile.clear();
        m_stack->setCurrentWidget(m_editor);
    } else {
        if (m_headerPath != want->path || m_rereadHeader || m_header->text().isEmpty()) {
            // A header of the user's or of the build's toolkit (Workspace::sourceFiles only offers
            // those): its unsaved edits, else read as it is now.
            QString text = m_session->headerText(want->path);
            if (text.isNull()) {
                QString error; // unreadable (gone, replaced by a FIFO, too large): shown empty
                readUserTextFile(want->path, kMaxSourceBytes, "a header", text, error);
            }
            m_updating = true;
            // The same text (a rebuild of the header shown): keep the caret and the undo history.
            if (m_headerPath != want->path || text != m_header->text()) {
                m_header->setReadOnly(false);
                m_header->setText(text);
                if (m_headerPath != want->path) m_header->SendScintilla(QsciScintilla::SCI_EMPTYUNDOBUFFER);
            }
            m_header->checkCursorLine(); // the caret's move to line 1 is not the user's selection
            m_updating = false;
            m_headerPath = want->path;
            m_rereadHeader = false;
        }
        // The user's headers are edited here (saved before each build); the toolkit's are not.
        m_header->setReadOnly(!want->editable);
        m_shownFile = want->recorded;
        m_stack->setCurrentWidget(m_header);
        updateHeaderMarks();
    }
    // Without a build (a document just opened) nothing is offered: the document alone is shown.
    if (files.empty()) return true;
    const int index = m_files->findData(QString::fromStdString(m_shownFile.empty() ? files.front().recorded : m_shownFile));
    if (index >= 0) m_files->setCurrentIndex(index);
    return true;
}

QString SourcePane::fileLabel(const ShownSourceFile& f) const {
    if (f.main) return f.label;
    if (f.toolkit) return tr("%1 (toolkit, read-only)").arg(f.label);
    if (!f.editable) return tr("%1 (read-only)").arg(f.label);
    // Unsaved edits are marked as the window title marks the document's.
    return m_session && !m_session->headerText(f.path).isNull() ? f.label + QStringLiteral(" •") : f.label;
}

void SourcePane::updateFileLabels() {
    if (!m_session) return;
    for (const auto& f : m_session->sourceFiles()) {
        const int i = m_files->findData(QString::fromStdString(f.recorded));
        if (i >= 0 && m_files->itemText(i) != fileLabel(f)) m_files->setItemText(i, fileLabel(f));
    }
}

bool SourcePane::openIncludeAt(int line) {
    m_includeError.clear();
    if (!m_session) return false;
    CodeEditor* ed = m_shownFile.empty() ? m_editor : m_header;
    if (line < 1 || line > ed->lines()) return false;
    const std::string recorded = m_session->openInclude(ed->text(line - 1), m_shownFile, &m_includeError);
    if (recorded.empty()) return false;
    refreshFiles(); // an include with no code joins the selector
    return showFile(recorded == m_session->mainRecordedFile() ? std::string() : recorded);
}

void SourcePane::refreshFiles() {
    const auto files = m_session ? m_session->sourceFiles() : std::vector<ShownSourceFile>{};
    m_files->clear();
    for (const auto& f : files) {
        m_files->addItem(fileLabel(f), QString::fromStdString(f.recorded));
        m_files->setItemData(m_files->count() - 1, f.main ? m_session->sourcePath() : f.path, Qt::ToolTipRole);
    }
    m_files->setVisible(files.size() > 1);
    // The header shown stays when the new build still names it; else back to the document.
    if (!m_shownFile.empty()) {
        const std::string keep = m_shownFile;
        m_rereadHeader = true; // the header may have changed on disk
        if (!showFile(keep)) showFile({});
    } else if (!files.empty()) {
        m_files->setCurrentIndex(0);
    }
}

void SourcePane::updateHeaderMarks() {
    std::vector<std::pair<int, int>> bands;
    m_header->clearMarginText();
    const KernelModel* k = m_session && !m_shownFile.empty() ? m_session->kernel() : nullptr;
    if (k) {
        for (const SourceFrame& f : k->correlation.sourceLines(m_session->attribution()))
            if (f.file == m_shownFile && f.line > 0) bands.emplace_back(f.line, f.line);
        const auto texts = lineMarginTexts(aggregateByLine(k->sass, m_session->attribution()),
                                           [this](const std::string& file) { return file == m_shownFile; });
        int width = 9;
        for (const auto& [line, text] : texts) {
            if (line < 1 || line > m_header->lines()) continue;
            m_header->setMarginText(line - 1, QLatin1Char(' ') + text, lineCostStyle());
            width = std::max(width, int(text.size()));
        }
        m_header->setMarginWidth(kLineCostMargin, QLatin1Char(' ') + QString(width, QLatin1Char('0')) + QLatin1Char(' '));
    }
    m_header->setBands(bands);
    m_header->setBandsDimmed(m_session && m_session->isStale());
    const Selection* sel = m_session ? &m_session->selection() : nullptr;
    const int line = sel && !m_shownFile.empty() && sel->sourceFile == m_shownFile ? sel->fileLine : 0;
    m_header->setHighlightedLines(line > 0 ? std::vector<int>{line} : std::vector<int>{}, 0, false);
    m_header->clearAnnotations();
    m_header->markerDeleteAll(CodeEditor::ErrorMarker);
    m_header->markerDeleteAll(CodeEditor::WarningMarker);
    if (!m_shownFile.empty()) annotate(m_header, QFileInfo(QString::fromStdString(m_shownFile)).fileName(), nullptr);
}

void SourcePane::applyTheme() {
    m_lexer->applyTheme();
    m_editor->applyTheme();
    m_headerLexer->applyTheme();
    m_header->applyTheme();
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
    m_header->recolor();
    updateLineCosts();
}

void SourcePane::onDocumentChanged() {
    if (!m_session) return;
    // Another document: its headers are not this one's.
    if (!m_shownFile.empty()) showFile({});
    m_header->clear();
    m_headerPath.clear();
    if (m_editor->text() == m_session->text()) return;
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
    refreshFiles();
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
    if (!m_shownFile.empty()) updateHeaderMarks();
    // The margin fits its widest text, so a delta is never clipped; without deltas it keeps the
    // width of the line costs alone.
    QString widest = QLatin1Char(' ') + QString(std::max(costWidth, 9), QLatin1Char('0')) + QLatin1Char(' ');
    if (widestDelta > 0) widest += QString(widestDelta, QLatin1Char('0')) + QLatin1Char(' ');
    m_editor->setMarginWidth(kLineCostMargin, widest);
}

namespace {
QString marginText(CodeEditor* editor, int line) {
    if (line < 1 || line > editor->lines()) return {};
    const long length = editor->SendScintilla(QsciScintilla::SCI_MARGINGETTEXT, (unsigned long)(line - 1), (void*)nullptr);
    if (length <= 0) return {};
    QByteArray bytes(int(length) + 1, '\0');
    editor->SendScintilla(QsciScintilla::SCI_MARGINGETTEXT, (unsigned long)(line - 1), (void*)bytes.data());
    bytes.truncate(int(length));
    return QString::fromUtf8(bytes);
}
} // namespace

QString SourcePane::lineMarginText(int line) const { return marginText(m_editor, line); }

QString SourcePane::headerMarginText(int line) const { return marginText(m_header, line); }

void SourcePane::updateCompareDeltas() {
    std::map<int, QString> deltas;
    if (m_session) {
        const QString mainFile = m_session->displayName();
        for (const LineDelta& d : m_session->compareLineDeltas()) {
            if (d.source.line <= 0) continue;
            if (!mainFile.isEmpty() && QFileInfo(QString::fromStdString(d.source.file)).fileName() != mainFile) continue;
            const QString text = compactLineDeltaText(d);
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
    // A PTX/SASS click on a header line opens that header there; one on the document's line
    // brings the document back.
    if (sel.origin != Selection::Origin::Source && !sel.hover) {
        if (line > 0 && !m_shownFile.empty()) showFile({});
        else if (line == 0 && sel.fileLine > 0 && sel.sourceFile != m_shownFile) showFile(sel.sourceFile);
    }
    if (!m_shownFile.empty()) {
        const int headerLine = sel.sourceFile == m_shownFile ? sel.fileLine : 0;
        m_header->setHighlightedLines(headerLine > 0 ? std::vector<int>{headerLine} : std::vector<int>{}, 0, false);
        if (sel.origin != Selection::Origin::Source && headerLine > 0) {
            m_updating = true;
            m_header->setCursorPosition(headerLine - 1, 0);
            m_header->checkCursorLine();
            m_header->ensureLineVisibleCentered(headerLine);
            m_updating = false;
        }
    }
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
    // Only the user's caret selects, as in the PTX pane: Scintilla reports the caret of a freshly
    // loaded document (line 1) on its first repaint, which selected line 1 at every launch.
    const bool clicked = std::exchange(m_userClick, false);
    if (m_updating || !m_session || !(m_editor->hasFocus() || clicked)) return;
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
    m_diagnostics = snapshot;
    if (!snapshot || !m_session) return;
    annotate(m_editor, m_session->displayName(), &m_annotated);
    if (!m_shownFile.empty()) updateHeaderMarks();
}

void SourcePane::annotate(CodeEditor* editor, const QString& name, std::vector<int>* annotated) {
    if (!m_diagnostics) return;
    const bool document = editor == m_editor;
    // Group messages per line: one annotation box per line, worst severity decides its style.
    std::map<int, std::pair<QString, bool>> perLine;
    for (const Diagnostic& d : m_diagnostics->result.diagnostics) {
        if (d.line < 1 || d.line > editor->lines()) continue;
        // A message without a file belongs to the document, never to a header.
        if (d.file.empty() ? !document : QFileInfo(QString::fromStdString(d.file)).fileName() != name) continue;
        const bool error = d.severity == Severity::Error;
        if (d.severity != Severity::Error && d.severity != Severity::Warning) continue;
        auto& [text, isError] = perLine[d.line];
        if (!text.isEmpty()) text += QLatin1Char('\n');
        text += QStringLiteral("%1: %2").arg(error ? tr("error") : tr("warning"), QString::fromStdString(d.message));
        isError = isError || error;
    }
    for (const auto& [line, entry] : perLine) {
        editor->annotate(line - 1, entry.first, entry.second ? errorStyle() : warningStyle());
        editor->markerAdd(line - 1, entry.second ? CodeEditor::ErrorMarker : CodeEditor::WarningMarker);
        if (annotated) annotated->push_back(line);
    }
}

} // namespace lowerscope
