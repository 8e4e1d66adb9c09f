#pragma once
// QScintilla editor set up the way every Lowerscope code pane needs it: line numbers, folding,
// per-source-line colour bands and highlight markers, diagnostic markers and annotations, themes.
// A find/replace bar (FindBar) goes with it.

#include <Qsci/qsciscintilla.h>
#include <QWidget>

#include <vector>

class QLineEdit;
class QCheckBox;
class QLabel;

namespace lowerscope {

class CodeEditor : public QsciScintilla {
    Q_OBJECT
public:
    // Marker numbers. Backgrounds with a higher number are drawn over lower ones.
    enum Marker { BandFirst = 0, BandLast = 11, HighlightMarker = 12, CurrentMarker = 13, ErrorMarker = 14,
                  WarningMarker = 15, HeatFirst = 16, HeatLast = 20 };
    // Margin of the profile heat strip (issue 14): one coloured cell per line, hidden without heat.
    static constexpr int kHeatMargin = 4;
    static constexpr int kHeatLevels = HeatLast - HeatFirst + 1;
    static constexpr int kAllBandsMask = (1 << 12) - 1;

    explicit CodeEditor(QWidget* parent = nullptr);

    // Colour bands: `lines` are 1-based editor lines, each with the source line whose colour it takes.
    void setBands(const std::vector<std::pair<int, int>>& lineAndSourceLine);
    void setBandsDimmed(bool dimmed);
    // Highlighted lines (1-based) and the current one (0 = none); scrolls `current` into view.
    void setHighlightedLines(const std::vector<int>& lines, int current, bool scroll);
    std::vector<int> highlightedLines() const;

    // Profile heat: each 1-based line with its weight in (0, 1] (its share of the hottest line's
    // samples or executed instructions) gets a cell of one of kHeatLevels colours in the heat
    // margin. An empty list clears the strip and hides the margin.
    void setHeat(const std::vector<std::pair<int, double>>& lineAndWeight);
    // The heat level of a line (1..kHeatLevels), 0 when it has none.
    int heatLevel(int line) const;
    // Heat level of `weight` in (0, 1]: 1 (coolest) .. kHeatLevels.
    static int heatLevelOf(double weight);

    // 1-based helpers.
    void ensureLineVisibleCentered(int line);
    int lineAtPosition(const QPoint& pos) const; // 1-based, 0 = none

    virtual void applyTheme();

signals:
    // The caret moved to another line (1-based), by mouse, keyboard or setCursorPosition.
    void cursorLineChanged(int line);
    // A left click with Ctrl held, on the line (1-based) the caret went to (after cursorLineChanged).
    void ctrlClicked(int line);

public slots:
    // Emits cursorLineChanged when the caret's line differs from the last one reported.
    // QScintilla itself reports caret moves only when it repaints; this does not wait for that.
    void checkCursorLine();

protected:
    void changeEvent(QEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    int m_reportedLine = 0;
    bool m_bandsDimmed = false;
};

// Find / replace bar for a CodeEditor (Ctrl+F / Ctrl+H). Hidden until asked for.
class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(CodeEditor* editor, bool allowReplace, QWidget* parent = nullptr);
    void showFind();
    void showReplace();
    bool findNext(bool forward = true);
    int replaceAll();
    QLineEdit* findEdit() const { return m_find; }
    QLineEdit* replaceEdit() const { return m_replace; }

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    CodeEditor* m_editor;
    QLineEdit* m_find;
    QLineEdit* m_replace = nullptr;
    QCheckBox* m_case;
    QCheckBox* m_regex;
    QLabel* m_status;
    bool m_allowReplace;
};

} // namespace lowerscope
