// lowerscope: the desktop explorer.
//   lowerscope [FILE] [build options] [--project DB] [--member NAME] [--select-line N]
//              [--screenshot OUT.png] [--dump-state OUT.json] [--quit-after-build] [--dark]
// FILE is anything docs/INPUTS.md lists: a .cu, .ptx, cubin, binary or Triton folder.
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
    cli.add_option("file", file, "what to open: .cu, .ptx, cubin, binary, Triton folder (default: the bundled example)");
    lowerscope::cli::addBuildOptionFlags(cli, options); // the same flags as lowerscope-cli build
    lowerscope::cli::InputFlags input;
    lowerscope::cli::addInputFlags(cli, input);
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
    // With a project, a member or an arch the first build waits until they are applied.
    const bool deferBuild = !file.empty() && (!input.project.empty() || !input.member.empty() || cli.count("--arch") > 0);
    wopts.autoBuildOnOpen = !deferBuild;
    lowerscope::Theme::apply(dark ? lowerscope::ThemeKind::Dark : lowerscope::ThemeKind::Light);
    lowerscope::MainWindow window(wopts);
    if (dark || light) window.applyTheme(dark);
    // Command-line build options win over saved ones (and the input's own arch); only set when any was given.
    if (cli.get_options().size() && (options != lowerscope::BuildOptions{})) window.setBuildOptions(options);
    if (!file.empty()) {
        if (!window.openFile(QString::fromStdString(file))) {
            std::fprintf(stderr, "lowerscope: cannot open %s\n", file.c_str());
            return 2;
        }
        // The project, the flags given here (they win) and the member apply before the first build.
        if (!input.project.empty()) {
            QString error;
            if (!window.openProject(QString::fromStdString(input.project), &error)) {
                std::fprintf(stderr, "lowerscope: --project: %s\n", error.toUtf8().constData());
                return 2;
            }
        }
        window.setBuildOptions(lowerscope::cli::overlayGivenFlags(cli, window.session()->options(), options));
        if (!input.member.empty()) window.session()->setVariant(QString::fromStdString(input.member), false);
        if (deferBuild) window.build();
    } else {
        window.openExample();
    }
    window.show();

    lowerscope::AutomationDriver driver(&window, automation);
    if (automation.active()) driver.start();
    return app.exec();
}
