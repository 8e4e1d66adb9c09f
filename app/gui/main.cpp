// lowerscope: the desktop explorer.
//   lowerscope [FILE.cu] [build options] [--select-line N] [--screenshot OUT.png]
//              [--dump-state OUT.json] [--quit-after-build] [--dark]
// Without a file the bundled example kernel (kernels/reduction.cu) opens.
#include "app/cli/build_flags.h"
#include "views/automation.h"
#include "views/main_window.h"
#include "views/workspace.h"
#include "views/theme.h"

#include <CLI/CLI.hpp>
#include <QApplication>
#include <QFileInfo>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv); // consumes Qt's own options (-platform, -style, ...)
    QApplication::setOrganizationName(QStringLiteral("Lowerscope"));
    QApplication::setApplicationName(QStringLiteral("lowerscope"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    CLI::App cli{"Lowerscope: what did my CUDA kernel become, and what did that cost?", "lowerscope"};
    std::string file;
    lowerscope::BuildOptions options;
    lowerscope::AutomationOptions automation;
    int selectLine = 0;
    std::string screenshot, dumpState;
    bool dark = false, light = false;
    cli.add_option("file", file, "CUDA source to open (default: the bundled example)");
    lowerscope::cli::addBuildOptionFlags(cli, options); // the same flags as lowerscope-cli build
    cli.add_option("--select-line", selectLine, "Select this source line after the first build");
    cli.add_option("--screenshot", screenshot, "Write a PNG of the window after the first build");
    cli.add_option("--dump-state", dumpState, "Write the window state (selection highlights, panes, build) as JSON");
    cli.add_flag("--quit-after-build", automation.quitAfterBuild, "Quit once the first build is done (exit 0 = ok)");
    cli.add_flag("--dark", dark, "Dark theme");
    cli.add_flag("--light", light, "Light theme");
    cli.set_version_flag("--version", "lowerscope 0.1.0");
    // Qt left the program name and non-Qt arguments in argv.
    const QStringList args = QApplication::arguments();
    std::vector<std::string> rest;
    for (qsizetype i = args.size() - 1; i >= 1; --i) rest.push_back(args[i].toStdString());
    try {
        cli.parse(rest);
    } catch (const CLI::ParseError& e) {
        return cli.exit(e) == 0 ? 0 : 2;
    }
    automation.selectLine = selectLine;
    automation.screenshot = QString::fromStdString(screenshot);
    automation.dumpState = QString::fromStdString(dumpState);

    lowerscope::MainWindow::Options wopts;
    // Automated runs are reproducible: no saved layout/options, no recovery dialog.
    wopts.useSettings = !automation.active();
    wopts.offerRecovery = !automation.active();
    wopts.autoBuildOnOpen = true;
    lowerscope::Theme::apply(dark ? lowerscope::ThemeKind::Dark : lowerscope::ThemeKind::Light);
    lowerscope::MainWindow window(wopts);
    if (dark || light) window.applyTheme(dark);
    // Command-line build options win over saved ones; only set when any was given.
    if (cli.get_options().size() && (options != lowerscope::BuildOptions{})) window.setBuildOptions(options);
    if (!file.empty()) {
        if (!window.openFile(QString::fromStdString(file))) {
            std::fprintf(stderr, "lowerscope: cannot open %s\n", file.c_str());
            return 2;
        }
    } else {
        window.openExample();
    }
    window.show();

    lowerscope::AutomationDriver driver(&window, automation);
    if (automation.active()) driver.start();
    return app.exec();
}
