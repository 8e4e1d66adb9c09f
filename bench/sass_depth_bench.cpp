// SASS-in-depth GUI benchmark (issue 6 targets, offscreen, on the 2-core machine):
//   arrows: all-edges mode on a 100,000-instruction listing; per frame, the table scrolls to a new
//           position and the arrow gutter repaints synchronously; median / p95 / max over 300
//           frames (≤ 16 ms per frame). Also the selected-instruction mode, and the one-off cost
//           of the lane layout when a kernel is loaded.
//   cfg:    a 2,000-block CFG laid out by the CFG pane (Graphviz dot on a worker thread, then the
//           scene built on the UI thread): wall time from setKernel to layoutFinished (≤ 2 s),
//           and the longest gap between 5 ms UI-thread timer ticks meanwhile (the UI never blocks).
// The listings are real SASS (tests/data/sm_90/reduction.*) tiled to length, with CFG and
// dependencies recomputed by the core, so operand and edge density are those of compiled code.
// Usage: sass_depth_bench [instructions=100000] [blocks=2000]
#include "sass_depth_fixture.h"
#include "views/code/arrow_gutter.h"
#include "views/code/cfg_view.h"
#include "views/code/sass_model.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>

using namespace lowerscope;

namespace {
struct Stats {
    double median, p95, max;
};
Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 95 / 100)], v.back()};
}
double ms(const QElapsedTimer& t) { return double(t.nsecsElapsed()) / 1e6; }
// CPU time of this (the UI) thread: on a loaded machine wall time also counts other processes.
double cpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
    const int wantBlocks = argc > 2 ? std::atoi(argv[2]) : 2000;

    const LoweringModel golden = testdata::goldenModel("sm_90", "reduction");
    if (golden.kernels.empty()) {
        std::fprintf(stderr, "tests/data/sm_90/reduction.* missing\n");
        return 2;
    }
    const KernelModel& base = golden.kernels.front();
    const int per = int(base.sass.instructions.size());

    // ---------------------------------------------------------------- arrows
    QElapsedTimer t;
    t.start();
    auto kernel = std::make_shared<KernelModel>(testdata::tiledKernel(base, (n + per - 1) / per, n));
    const double analysisMs = ms(t);
    std::printf("listing: %zu instructions, %zu dependency edges, %zu blocks (analysis %.0f ms)\n",
                kernel->sass.instructions.size(), kernel->deps.size(), kernel->cfg.blocks.size(), analysisMs);

    QWidget window;
    auto* lay = new QHBoxLayout(&window);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    auto* gutter = new ArrowGutter;
    auto* view = new QTableView;
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPointSize(10);
    view->setFont(mono);
    view->verticalHeader()->hide();
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(QFontMetrics(mono).height() + 4);
    auto* model = new SassModel(view);
    std::vector<int> lines(kernel->sass.instructions.size(), 0);
    model->setFunction(kernel, &kernel->sass, lines);
    view->setModel(model);
    lay->addWidget(gutter);
    lay->addWidget(view, 1);
    gutter->setView(view);
    t.restart();
    gutter->setKernel(kernel, &kernel->sass, &kernel->deps);
    const double laneMs = ms(t);
    window.resize(1400, 1000);
    window.show();
    QCoreApplication::processEvents();
    gutter->setShowAllEdges(true);
    QCoreApplication::processEvents();
    std::printf("gutter setKernel (lane layout of every edge): %.1f ms, %d lanes (%d drawn side by side)\n", laneMs,
                gutter->laneCount(), gutter->maxLanes());

    const int rows = int(kernel->sass.instructions.size());
    QScrollBar* bar = view->verticalScrollBar();
    auto runFrames = [&](const char* label, bool selected) {
        std::vector<double> frame, cpu;
        std::vector<ArrowGutter::Arrow> arrows;
        size_t arrowSum = 0;
        for (int f = 0; f < 300; ++f) {
            // Jumps across the whole listing (no cache warmth from the previous frame).
            const int top = int((int64_t(f) * 7919 * 13) % std::max(1, rows - 60));
            bar->setValue(top);
            if (selected) gutter->setSelectedRow(top + 20);
            QElapsedTimer ft;
            ft.start();
            const double c0 = cpuMs();
            gutter->repaint();
            cpu.push_back(cpuMs() - c0);
            frame.push_back(ms(ft));
            arrows.clear();
            const auto [a, b] = gutter->visibleRows();
            gutter->arrowsInRows(a, b, arrows);
            arrowSum += arrows.size();
        }
        const Stats s = stats(frame);
        const Stats c = stats(cpu);
        const auto [a, b] = gutter->visibleRows();
        std::printf("%s: %d rows in view, %.0f arrows/frame on average; paint per frame wall median %.2f ms, p95 %.2f ms, "
                    "max %.2f ms; UI-thread CPU median %.2f ms, p95 %.2f ms, max %.2f ms\n",
                    label, b - a + 1, double(arrowSum) / 300.0, s.median, s.p95, s.max, c.median, c.p95, c.max);
    };
    runFrames("all-edges paint", false);
    gutter->setShowAllEdges(false);
    runFrames("selected-instruction paint", true);

    // ---------------------------------------------------------------- CFG
    int tiles = 1;
    const int blocksPerTile = std::max<int>(1, int(base.cfg.blocks.size()));
    tiles = (wantBlocks + blocksPerTile - 1) / blocksPerTile;
    auto big = std::make_shared<KernelModel>(testdata::tiledKernel(base, tiles));
    // Trim to exactly `wantBlocks` blocks: cut the listing after the last instruction of block wantBlocks-1.
    if (int(big->cfg.blocks.size()) > wantBlocks) {
        const int last = big->cfg.blocks[size_t(wantBlocks - 1)].lastIndex;
        big = std::make_shared<KernelModel>(testdata::tiledKernel(base, tiles, last + 1));
    }
    std::printf("cfg: %zu blocks, %zu edges, %zu instructions\n", big->cfg.blocks.size(), big->cfg.edges.size(),
                big->sass.instructions.size());
    CfgView cfg;
    cfg.resize(1000, 800);
    cfg.show();
    QCoreApplication::processEvents();
    for (bool collapsed : {true, false}) {
        QTimer tick;
        qint64 last = 0, maxGap = 0;
        QElapsedTimer clock;
        clock.start();
        QObject::connect(&tick, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            maxGap = std::max(maxGap, now - last);
            last = now;
        });
        tick.start(5);
        bool done = false;
        const auto c = QObject::connect(&cfg, &CfgView::layoutFinished, [&] { done = true; });
        QElapsedTimer wall;
        wall.start();
        if (collapsed) cfg.setKernel(big, &big->sass, &big->cfg); // > 60 blocks: starts collapsed
        else cfg.setAllCollapsed(false);
        const double startMs = ms(wall);
        while (!done && wall.elapsed() < 120000) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
        QObject::disconnect(c);
        if (!done) {
            std::printf("cfg layout did not finish\n");
            return 1;
        }
        const double total = ms(wall);
        tick.stop();
        std::printf("cfg %s: setKernel/relayout returned in %.1f ms; layout on worker %.0f ms; until scene shown %.0f ms; "
                    "worker CPU %.0f ms; nodes %d, edges %d; longest UI-thread gap %lld ms\n",
                    collapsed ? "collapsed (headers)" : "expanded (all instructions)", startMs, cfg.lastLayoutMs(), total,
                    cfg.lastLayoutCpuMs(),
                    cfg.nodeCount(), cfg.edgeCount(), (long long)maxGap);
    }
    return 0;
}
