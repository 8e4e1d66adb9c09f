// Writes the SASS-in-depth screenshots of docs/screenshots from the real main window on
// kernels/reduction.cu (its golden sm_90 build in tests/data, so no toolchain is needed):
//   sass-arrows.png      the SASS pane, one instruction selected: its producer/consumer arrows
//   sass-arrows-all.png  the SASS pane in all-edges mode
//   pressure.png         Source (per-line R/S margin) + SASS with the pressure strip, at the maximum
//   cfg.png              the CFG pane's whole scene
//   sass-filter.png      SASS + the filter pane: global/shared memory instructions found, the
//                        rest of the SASS pane faded
// Usage: sass_depth_shots OUT_DIR   (offscreen by default)
#include "sass_depth_fixture.h"
#include "views/code/arrow_gutter.h"
#include "views/code/cfg_view.h"
#include "views/shell/main_window.h"
#include "views/code/pressure_strip.h"
#include "views/code/sass_filter.h"
#include "views/code/sass_pane.h"
#include "views/common/workspace.h"
#include "views/common/theme.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QLineEdit>
#include <QPainter>
#include <QTableView>

#include <cstdio>

using namespace lowerscope;

namespace {
void settle(int msec = 300) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < msec) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}
bool save(const QImage& img, const QString& path) {
    const bool ok = !img.isNull() && img.save(path);
    std::printf("%s %s (%dx%d)\n", ok ? "wrote" : "FAILED", qPrintable(path), img.width(), img.height());
    return ok;
}
} // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QString out = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("docs/screenshots");
    QDir().mkpath(out);
    lowerscopeInitResources();
    Theme::apply(ThemeKind::Light);

    MainWindow::Options options;
    options.useSettings = false;
    options.offerRecovery = false;
    MainWindow window(options);
    window.session()->setBackend([](const BuildRequest& request, std::atomic<bool>*) {
        auto snap = std::make_shared<BuildSnapshot>();
        snap->jobId = request.jobId;
        snap->sourcePath = request.sourcePath;
        snap->buildPath = QStringLiteral("kernels/reduction.cu");
        snap->builtText = request.text;
        snap->options = request.options;
        snap->result.ok = true;
        snap->model = testdata::goldenModel("sm_90", "reduction");
        return snap;
    });
    const QString source = QStringLiteral(LOWERSCOPE_SOURCE_DIR "/kernels/reduction.cu");
    QFile f(source);
    if (!f.open(QIODevice::ReadOnly)) return 2;
    window.resize(1500, 900);
    window.show();
    window.loadText(source, QString::fromUtf8(f.readAll()));
    QElapsedTimer wait;
    wait.start();
    while (!window.session()->snapshot() && wait.elapsed() < 30000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    if (!window.session()->snapshot() || !window.session()->kernel()) {
        std::fprintf(stderr, "no listing\n");
        return 1;
    }
    auto* gutter = window.sassPane()->gutter();
    auto* strip = window.sassPane()->pressureStrip();
    auto* cfg = window.cfgView();
    if (!gutter || !strip || !cfg) {
        std::fprintf(stderr, "SASS-in-depth widgets not installed\n");
        return 1;
    }
    const KernelModel* k = window.session()->kernel();
    bool ok = true;

    // SASS pane alone across the window.
    for (const QString& id : window.paneIds()) window.pane(id)->setVisible(id == QLatin1String("sass"));
    settle();
    // The warp-shuffle reduction's third step: a FADD with a shuffle producer and consumers below.
    uint32_t address = k->sass.instructions[size_t(k->sass.instructions.size() / 3)].address;
    for (const SassInstruction& ins : k->sass.instructions)
        if (ins.mnemonic == "FADD" && ins.address > 0x200) {
            address = ins.address;
            break;
        }
    // As a click on the row would.
    const int row = window.session()->kernel()->sass.indexOf(address);
    window.sassPane()->view()->setCurrentIndex(window.sassPane()->view()->model()->index(row, 0));
    window.sassPane()->view()->scrollTo(window.sassPane()->view()->model()->index(row, 0), QAbstractItemView::PositionAtCenter);
    settle();
    ok &= save(window.sassPane()->grab().toImage(), out + QStringLiteral("/sass-arrows.png"));
    gutter->setShowAllEdges(true);
    settle();
    ok &= save(window.sassPane()->grab().toImage(), out + QStringLiteral("/sass-arrows-all.png"));
    gutter->setShowAllEdges(false);

    // Source margin + SASS with the pressure strip, at the maximum.
    window.pane(QStringLiteral("source"))->setVisible(true);
    settle();
    strip->jumpToMax();
    settle();
    ok &= save(window.grab().toImage(), out + QStringLiteral("/pressure.png"));

    // The filter: memory instructions found; the SASS pane fades everything else.
    if (auto* filter = window.sassFilterPane()) {
        for (const QString& id : window.paneIds())
            window.pane(id)->setVisible(id == QLatin1String("sass") || id == QLatin1String("sass-filter"));
        // Side by side: they share a tab stack by default, which a split would only extend.
        QDockWidget* sassDock = window.pane(QStringLiteral("sass"));
        QDockWidget* filterDock = window.pane(QStringLiteral("sass-filter"));
        window.removeDockWidget(filterDock);
        window.removeDockWidget(sassDock);
        window.addDockWidget(Qt::LeftDockWidgetArea, sassDock);
        window.addDockWidget(Qt::LeftDockWidgetArea, filterDock);
        window.splitDockWidget(sassDock, filterDock, Qt::Horizontal);
        sassDock->show();
        filterDock->show();
        window.resizeDocks({sassDock, filterDock}, {1000, 600}, Qt::Horizontal);
        filter->patternEdit()->setText(QStringLiteral("^(LDG|STG|LDS|STS|RED|ATOM)"));
        window.sassPane()->view()->scrollToTop();
        settle();
        ok &= save(window.grab().toImage(), out + QStringLiteral("/sass-filter.png"));
        filter->patternEdit()->clear();
    } else {
        std::fprintf(stderr, "no SASS filter pane\n");
        ok = false;
    }

    // The CFG: the whole scene, at 1:1, once its layout job has landed.
    wait.restart();
    while (cfg->isLayoutPending() && wait.elapsed() < 30000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    QGraphicsScene* scene = cfg->scene();
    const QRectF r = scene->sceneRect();
    QImage img(r.size().toSize(), QImage::Format_ARGB32);
    img.fill(Theme::editorPaper());
    {
        QPainter p(&img);
        p.setRenderHint(QPainter::Antialiasing);
        p.setRenderHint(QPainter::TextAntialiasing);
        scene->render(&p, QRectF(QPointF(0, 0), r.size()), r);
    }
    ok &= save(img, out + QStringLiteral("/cfg.png"));
    return ok ? 0 : 1;
}
