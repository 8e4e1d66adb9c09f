#pragma once
// Installs the "SASS in depth" features (issue 6) that live outside the SASS pane (the pane
// builds its own arrows, control codes, tooltips and pressure strip) with one call:
//  - instruction tooltips in the PTX pane;
//  - per-line "R<max live> S<stall sum>" text in the Source pane's margin;
//  - the CFG pane (id "cfg") and the SASS filter pane (id "sass-filter") with the instruction mix.
// Everything talks to the workspace facade; no pane calls another.

namespace lowerscope {

class MainWindow;
class CfgView;
class SassFilterPane;

struct SassDepthWidgets {
    CfgView* cfg = nullptr;
    SassFilterPane* filter = nullptr;
};

// Call once, while the window's panes exist (e.g. at the end of MainWindow::createPanes()).
// The widgets are owned by the window. Returns them for tests and the screenshot tool.
SassDepthWidgets installSassDepthFeatures(MainWindow* window);

// Source-pane margin used for the per-line register/stall text.
inline constexpr int kSassDepthMargin = 3;

} // namespace lowerscope
