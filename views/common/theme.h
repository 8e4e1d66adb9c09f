#pragma once
// Light and dark themes: the application palette, editor colours, the per-source-line colour bands
// shared by the Source, PTX and SASS panes, and the opcode category colours.

#include "core/model.h"

#include <QColor>
#include <QIcon>

class QApplication;
class QsciLexer;

namespace lowerscope {

enum class ThemeKind { Light, Dark };

class Theme {
public:
    // Sets the Fusion style and palette on the application and remembers the kind for the colour
    // queries below. Panes re-read colours on `QEvent::PaletteChange`.
    static void apply(ThemeKind kind);
    static ThemeKind current();
    static bool isDark() { return current() == ThemeKind::Dark; }

    // Colour band of a source line (one palette, adjacent lines differ). `dimmed` when the listing
    // is stale. Opaque colours meant as backgrounds under normal text.
    static QColor band(int sourceLine, bool dimmed = false);
    static int bandCount() { return 12; }
    static QColor bandByIndex(int index, bool dimmed = false);
    // Background of the highlighted (selected) rows/lines, and its stronger "current" variant.
    static QColor highlight();
    static QColor current_();
    static QColor categoryColor(InstrCategory category);
    static QColor editorPaper();
    static QColor editorText();
    static QColor marginPaper();
    static QColor commentText();
    static QColor keywordText();
    static QColor numberText();
    static QColor stringText();
    static QColor typeText();
    static QColor directiveText();  // preprocessor lines, PTX directives
    static QColor labelText();      // secondary keywords (CUDA built-ins), PTX labels
    static QColor errorPaper();
    static QColor warningPaper();
    // Opacity of the text of rows faded by a filter: they recede but keep a contrast of at least
    // 3:1 on the editor paper and the colour bands (the dark theme needs more than the light).
    static double fadedTextAlpha();
    // WCAG contrast ratio of two opaque colours (1 … 21).
    static double contrast(const QColor& a, const QColor& b);
    // Toolbar icons drawn for the current theme (Fusion's standard media icons are dark grey and
    // vanish on the dark toolbar). Re-fetch after a theme switch.
    enum class Icon { Build, Cancel };
    static QIcon icon(Icon which);
    // The part of a lexer's style every editor shares: the fixed-width 10 pt font and the editor
    // paper and text colours for every style; lexers then colour their own styles.
    static void styleLexerBase(QsciLexer& lexer);
};

} // namespace lowerscope

// Registers the .qrc files of the static views library (icons, example kernel, the examples
// gallery). Call once after QApplication exists; safe to call again.
void lowerscopeInitResources();
