#pragma once
// Installs the "SASS in depth" features (issue 6) into the main window with one call:
//  - the dependency-arrow gutter left of the SASS table (toggle: all edges in view), clicking a
//    register operand highlights its defs and uses;
//  - the control-code graphic in the Control column, opcode/control tooltips in the SASS table
//    and instruction tooltips in the PTX pane;
//  - the register-pressure strip right of the SASS table (click to jump; F7 / Shift+F7 next /
//    previous peak, Ctrl+F7 maximum; GPRs, predicates or uniform GPRs from the context menu);
//  - per-line "R<max live> S<stall sum>" text in the Source pane's margin;
//  - the CFG pane (id "cfg") and the SASS filter pane (id "sass-filter") with the instruction mix.
// Everything talks to the workspace facade; no pane calls another.

class QAction;

namespace lowerscope {

class MainWindow;
class ArrowGutter;
class PressureStrip;
class CfgView;
class SassFilterPane;

struct SassDepthWidgets {
    ArrowGutter* gutter = nullptr;
    PressureStrip* pressure = nullptr;
    CfgView* cfg = nullptr;
    SassFilterPane* filter = nullptr;
    QAction* allEdges = nullptr;
    QAction* maxPressure = nullptr;
    QAction* nextPeak = nullptr;
    QAction* previousPeak = nullptr;
    // Which live-register class the pressure strip shows (exclusive; GPRs by default).
    QAction* pressureGpr = nullptr;
    QAction* pressurePred = nullptr;
    QAction* pressureUgpr = nullptr;
};

// Call once, while the window's panes exist (e.g. at the end of MainWindow::createPanes()).
// The widgets are owned by the window. Returns them for tests and the screenshot tool.
SassDepthWidgets installSassDepthFeatures(MainWindow* window);

// Source-pane margin used for the per-line register/stall text.
inline constexpr int kSassDepthMargin = 3;

} // namespace lowerscope
