#include "views/code/code_editor.h"

#include "views/common/theme.h"

#include <QCheckBox>
#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

#include <algorithm>

namespace lowerscope {

CodeEditor::CodeEditor(QWidget* parent) : QsciScintilla(parent) {
    setUtf8(true);
    setMarginType(0, QsciScintilla::NumberMargin);
    setMarginLineNumbers(0, true);
    setMarginWidth(0, QStringLiteral("000000")); // five-digit line numbers and a little air (PTX runs long)
    // Margin 1: diagnostic symbols.
    setMarginType(1, QsciScintilla::SymbolMargin);
    setMarginWidth(1, 14);
    setMarginMarkerMask(1, (1 << ErrorMarker) | (1 << WarningMarker));
    setMarginMarkerMask(0, 0);
    setFolding(QsciScintilla::BoxedTreeFoldStyle, 2);
    setTabWidth(4);
    setIndentationsUseTabs(false);
    setAutoIndent(true);
    setBraceMatching(QsciScintilla::SloppyBraceMatch);
    setCaretLineVisible(false);
    setAnnotationDisplay(QsciScintilla::AnnotationBoxed);
    setWrapMode(QsciScintilla::WrapNone);
    SendScintilla(SCI_SETSCROLLWIDTHTRACKING, 1);
    SendScintilla(SCI_SETSCROLLWIDTH, 200);

    for (int m = BandFirst; m <= BandLast; ++m) markerDefine(QsciScintilla::Background, m);
    markerDefine(QsciScintilla::Background, HighlightMarker);
    markerDefine(QsciScintilla::Background, CurrentMarker);
    markerDefine(QsciScintilla::Circle, ErrorMarker);
    markerDefine(QsciScintilla::Circle, WarningMarker);
    for (int m = HeatFirst; m <= HeatLast; ++m) markerDefine(QsciScintilla::FullRectangle, m);
    setMarginType(kHeatMargin, QsciScintilla::SymbolMargin);
    setMarginMarkerMask(kHeatMargin, ((1 << (HeatLast + 1)) - 1) & ~((1 << HeatFirst) - 1));
    setMarginWidth(kHeatMargin, 0);
    CodeEditor::applyTheme();
    connect(this, &QsciScintilla::cursorPositionChanged, this, &CodeEditor::checkCursorLine);
}

void CodeEditor::checkCursorLine() {
    int line = 0, index = 0;
    getCursorPosition(&line, &index);
    if (line + 1 == m_reportedLine) return;
    m_reportedLine = line + 1;
    emit cursorLineChanged(line + 1);
}

void CodeEditor::mouseReleaseEvent(QMouseEvent* event) {
    QsciScintilla::mouseReleaseEvent(event);
    checkCursorLine();
    if (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier)) {
        int line = 0, index = 0;
        getCursorPosition(&line, &index);
        emit ctrlClicked(line + 1);
    }
}

void CodeEditor::keyReleaseEvent(QKeyEvent* event) {
    QsciScintilla::keyReleaseEvent(event);
    checkCursorLine();
}

void CodeEditor::applyTheme() {
    setPaper(Theme::editorPaper());
    setColor(Theme::editorText());
    setMarginsBackgroundColor(Theme::marginPaper());
    setMarginsForegroundColor(Theme::isDark() ? QColor(140, 140, 140) : QColor(110, 110, 110));
    setFoldMarginColors(Theme::marginPaper(), Theme::marginPaper());
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSize(10);
    setMarginsFont(mono);
    setCaretForegroundColor(Theme::editorText());
    // A translucent caret line, so the colour band / highlight of that line still shows through
    // (QScintilla's default is an opaque yellow that hides them and is unreadable when dark).
    setCaretLineBackgroundColor(Theme::isDark() ? QColor(255, 255, 255) : QColor(0, 0, 80));
    SendScintilla(SCI_SETCARETLINEBACKALPHA, Theme::isDark() ? 28 : 22);
    setSelectionBackgroundColor(Theme::isDark() ? QColor(38, 79, 120) : QColor(173, 205, 245));
    setMatchedBraceBackgroundColor(Theme::isDark() ? QColor(70, 70, 90) : QColor(220, 220, 255));
    setBandsDimmed(m_bandsDimmed);
    setMarkerBackgroundColor(Theme::highlight(), HighlightMarker);
    setMarkerBackgroundColor(Theme::current_(), CurrentMarker);
    setMarkerBackgroundColor(QColor(220, 40, 40), ErrorMarker);
    setMarkerForegroundColor(QColor(160, 0, 0), ErrorMarker);
    setMarkerBackgroundColor(QColor(240, 180, 0), WarningMarker);
    setMarkerForegroundColor(QColor(160, 110, 0), WarningMarker);
    for (int l = 1; l <= kHeatLevels; ++l) {
        // Pale amber to deep red: readable on both themes, and unlike the source-line bands.
        const QColor c = QColor::fromHsv(40 - 40 * (l - 1) / (kHeatLevels - 1), 60 + 195 * (l - 1) / (kHeatLevels - 1),
                                         Theme::isDark() ? 200 + 11 * l : 250 - 12 * l);
        setMarkerBackgroundColor(c, HeatFirst + l - 1);
        setMarkerForegroundColor(c, HeatFirst + l - 1);
    }
}

int CodeEditor::heatLevelOf(double weight) {
    if (!(weight > 0)) return 0;
    return std::clamp(1 + int(weight * kHeatLevels - 1e-9), 1, kHeatLevels);
}

void CodeEditor::setHeat(const std::vector<std::pair<int, double>>& lineAndWeight) {
    for (int m = HeatFirst; m <= HeatLast; ++m) markerDeleteAll(m);
    int shown = 0;
    for (const auto& [line, weight] : lineAndWeight) {
        const int level = heatLevelOf(weight);
        if (line < 1 || level == 0 || line > lines()) continue;
        markerAdd(line - 1, HeatFirst + level - 1);
        ++shown;
    }
    setMarginWidth(kHeatMargin, shown ? 8 : 0);
}

int CodeEditor::heatLevel(int line) const {
    if (line < 1) return 0;
    const unsigned mask = const_cast<CodeEditor*>(this)->markersAtLine(line - 1);
    for (int m = HeatLast; m >= HeatFirst; --m)
        if (mask & (1u << m)) return m - HeatFirst + 1;
    return 0;
}

void CodeEditor::changeEvent(QEvent* event) {
    QsciScintilla::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) applyTheme();
}

void CodeEditor::setBands(const std::vector<std::pair<int, int>>& lineAndSourceLine) {
    for (int m = BandFirst; m <= BandLast; ++m) markerDeleteAll(m);
    for (const auto& [line, source] : lineAndSourceLine) {
        if (line < 1 || source < 1) continue;
        markerAdd(line - 1, BandFirst + (source % Theme::bandCount()));
    }
}

void CodeEditor::setBandsDimmed(bool dimmed) {
    m_bandsDimmed = dimmed;
    for (int i = 0; i < Theme::bandCount(); ++i) setMarkerBackgroundColor(Theme::bandByIndex(i, dimmed), BandFirst + i);
}

void CodeEditor::setHighlightedLines(const std::vector<int>& lines, int current, bool scroll) {
    markerDeleteAll(HighlightMarker);
    markerDeleteAll(CurrentMarker);
    for (int l : lines)
        if (l >= 1) markerAdd(l - 1, HighlightMarker);
    if (current >= 1) markerAdd(current - 1, CurrentMarker);
    if (scroll) {
        const int target = current >= 1 ? current : (lines.empty() ? 0 : lines.front());
        if (target >= 1) ensureLineVisibleCentered(target);
    }
}

std::vector<int> CodeEditor::highlightedLines() const {
    std::vector<int> out;
    const unsigned mask = (1u << HighlightMarker) | (1u << CurrentMarker);
    int line = const_cast<CodeEditor*>(this)->markerFindNext(0, mask);
    while (line >= 0) {
        out.push_back(line + 1);
        line = const_cast<CodeEditor*>(this)->markerFindNext(line + 1, mask);
    }
    return out;
}

void CodeEditor::ensureLineVisibleCentered(int line) {
    const int first = firstVisibleLine();
    const int visible = int(SendScintilla(SCI_LINESONSCREEN));
    const int l = line - 1;
    if (l >= first && l < first + visible - 1) return; // already in view: do not jump
    setFirstVisibleLine(std::max(0, l - visible / 3));
}

int CodeEditor::lineAtPosition(const QPoint& pos) const {
    const long p = SendScintilla(SCI_POSITIONFROMPOINTCLOSE, (unsigned long)pos.x(), (long)pos.y());
    if (p < 0) return 0;
    return int(SendScintilla(SCI_LINEFROMPOSITION, (unsigned long)p)) + 1;
}

// ----------------------------------------------------------------------------------- FindBar

FindBar::FindBar(CodeEditor* editor, bool allowReplace, QWidget* parent)
    : QWidget(parent), m_editor(editor), m_allowReplace(allowReplace) {
    auto* lay = new QHBoxLayout(this);
    lay->setContentsMargins(4, 2, 4, 2);
    m_find = new QLineEdit(this);
    m_find->setPlaceholderText(tr("Find"));
    m_find->setClearButtonEnabled(true);
    lay->addWidget(m_find, 2);
    auto* prev = new QToolButton(this);
    prev->setText(QStringLiteral("\u25B2"));
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* next = new QToolButton(this);
    next->setText(QStringLiteral("\u25BC"));
    next->setToolTip(tr("Next match (Enter)"));
    lay->addWidget(prev);
    lay->addWidget(next);
    if (allowReplace) {
        m_replace = new QLineEdit(this);
        m_replace->setPlaceholderText(tr("Replace with"));
        lay->addWidget(m_replace, 2);
        auto* one = new QToolButton(this);
        one->setText(tr("Replace"));
        auto* all = new QToolButton(this);
        all->setText(tr("All"));
        lay->addWidget(one);
        lay->addWidget(all);
        connect(one, &QToolButton::clicked, this, [this] {
            if (m_editor->hasSelectedText()) m_editor->replace(m_replace->text());
            findNext(true);
        });
        connect(all, &QToolButton::clicked, this, [this] { replaceAll(); });
    }
    m_case = new QCheckBox(tr("Aa"), this);
    m_case->setToolTip(tr("Match case"));
    m_regex = new QCheckBox(tr(".*"), this);
    m_regex->setToolTip(tr("Regular expression"));
    lay->addWidget(m_case);
    lay->addWidget(m_regex);
    m_status = new QLabel(this);
    lay->addWidget(m_status);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("\u2715"));
    close->setAutoRaise(true);
    lay->addWidget(close);
    connect(close, &QToolButton::clicked, this, [this] {
        hide();
        m_editor->setFocus();
    });
    connect(next, &QToolButton::clicked, this, [this] { findNext(true); });
    connect(prev, &QToolButton::clicked, this, [this] { findNext(false); });
    connect(m_find, &QLineEdit::returnPressed, this, [this] { findNext(true); });
    hide();
}

void FindBar::showFind() {
    if (m_replace) m_replace->setVisible(m_allowReplace);
    show();
    if (m_editor->hasSelectedText() && !m_editor->selectedText().contains(QLatin1Char('\n')))
        m_find->setText(m_editor->selectedText());
    m_find->setFocus();
    m_find->selectAll();
}

void FindBar::showReplace() {
    showFind();
}

bool FindBar::findNext(bool forward) {
    if (m_find->text().isEmpty()) return false;
    int line = 0, index = 0;
    m_editor->getCursorPosition(&line, &index);
    if (!forward && m_editor->hasSelectedText()) {
        int l1, i1, l2, i2;
        m_editor->getSelection(&l1, &i1, &l2, &i2);
        line = l1;
        index = i1;
    }
    const bool found = m_editor->findFirst(m_find->text(), m_regex->isChecked(), m_case->isChecked(), false, true,
                                           forward, forward ? -1 : line, forward ? -1 : index);
    m_status->setText(found ? QString() : tr("not found"));
    return found;
}

int FindBar::replaceAll() {
    if (!m_replace || m_find->text().isEmpty()) return 0;
    int count = 0;
    m_editor->beginUndoAction();
    bool found = m_editor->findFirst(m_find->text(), m_regex->isChecked(), m_case->isChecked(), false, false, true,
                                     0, 0);
    while (found) {
        m_editor->replace(m_replace->text());
        ++count;
        found = m_editor->findNext();
    }
    m_editor->endUndoAction();
    m_status->setText(tr("%1 replaced").arg(count));
    return count;
}

void FindBar::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape) {
        hide();
        m_editor->setFocus();
        return;
    }
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && (event->modifiers() & Qt::ShiftModifier)) {
        findNext(false);
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace lowerscope
