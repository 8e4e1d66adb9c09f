// lowerscope: the desktop explorer.
//   lowerscope [FILE] [build options] [--project DB] [--member NAME] [--frame F] [--select-line N]
//              [--select-sass ADDR] [--kernel NAME] [--profile P.json]
//              [--screenshot OUT.png] [--size WxH] [--dump-state OUT.json] [--quit-after-build]
//              [--dark|--light] [--compare | --compare-with "B's build flags"]
//              [--profile-dialog "PROGRAM ARGS"]
// FILE is anything docs/INPUTS.md lists: a .cu, .ptx, cubin, binary or Triton folder, or a capture
// document (lowerscope-cli capture; --kernel picks the captured kernel that opens).
// Without a file the bundled example kernel (kernels/reduction.cu) opens.
#include "app/cli/build_flags.h"
#include "core/capture/capture_document.h"
#include "views/capture/capture_form.h"
#include "views/capture/capture_room.h"
#include "views/capture/profile_dialog.h"
#include "views/shell/automation.h"
#include "views/compare/compare_measure.h"
#include "views/compare/compare_panel.h"
#include "views/shell/main_window.h"
#include "views/common/dialogs.h"
#include "views/common/workspace.h"
#include "views/common/theme.h"

#include <CLI/CLI.hpp>
#include <QApplication>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <regex>

namespace {

struct Args {
    std::string file;
    lowerscope::BuildOptions options;
    lowerscope::cli::InputFlags input;
    lowerscope::AutomationOptions automation;
    std::string selectLine; // "N" or "FILE:N"
    std::string selectSass; // "0x1a0" or "416"
    std::string frame;      // "call-site", "callee", "any"
    std::string kernel;     // as lowerscope-cli --kernel
    std::string profile;
    std::string screenshot, dumpState, size, compareWith;
    std::string profileDialog; // "PROGRAM ARGS" for File → Profile a program…
    bool dark = false, light = false, compare = false;
};

void describe(CLI::App& cli, Args& a) {
    cli.add_option("file", a.file, "what to open: .cu, .ptx, cubin, binary, Triton folder (default: the bundled example)");
    lowerscope::cli::addBuildOptionFlags(cli, a.options); // the same flags as lowerscope-cli build
    lowerscope::cli::addInputFlags(cli, a.input);
    cli.add_option("--select-line", a.selectLine,
                   "Select this source line after the first build: N in the opened file, or FILE:N in a header "
                   "the code maps to (a path or its file name)")
        ->type_name("[FILE:]N")
        ->check([](const std::string& s) {
            return std::regex_match(s, std::regex("(.+:)?[1-9][0-9]{0,8}")) ? std::string()
                                                                            : std::string("expected N or FILE:N, N a positive line number");
        });
    cli.add_option("--select-sass", a.selectSass,
                   "Select the SASS instruction at this address after the first build (and any --select-line), "
                   "as a click on its row: the Source pane opens the file and line it is attributed to")
        ->type_name("ADDR")
        ->check([](const std::string& s) {
            return std::regex_match(s, std::regex("0[xX][0-9a-fA-F]{1,8}|[0-9]{1,10}")) ? std::string()
                                                                                        : std::string("expected an address, e.g. 0x1a0");
        });
    cli.add_option("--kernel", a.kernel,
                   "Show this kernel after the first build: mangled or demangled name, name with template "
                   "arguments ('scaled_gemm<8>') or a plain name only one kernel has")
        ->type_name("NAME");
    cli.add_option("--frame", a.frame,
                   "Inlined code → call-site, callee or any (the toolbar's attribution), set before selecting")
        ->check(CLI::IsMember({"call-site", "callee", "any"}));
    cli.add_option("--profile", a.profile,
                   "Show this lowerscope.profile/1 document (lowerscope-cli profile --json) on the SASS rows")
        ->type_name("PROFILE.json");
    cli.add_option("--profile-dialog", a.profileDialog,
                   "Open File → Profile a program… with this program and its arguments filled in (split as a shell "
                   "would); --screenshot then pictures the dialog")
        ->type_name("\"PROGRAM ARGS\"");
    cli.add_option("--screenshot", a.screenshot, "Write a PNG of the window after the first build");
    cli.add_option("--size", a.size, "Window size for this run, e.g. 1024x700 (the layout is made for it)")
        ->check([](const std::string& s) {
            return std::regex_match(s, std::regex("[0-9]{3,4}x[0-9]{3,4}")) ? std::string()
                                                                              : std::string("expected WIDTHxHEIGHT, e.g. 1920x1080");
        });
    cli.add_option("--dump-state", a.dumpState, "Write the window state (selection highlights, panes, build) as JSON");
    cli.add_flag("--quit-after-build", a.automation.quitAfterBuild, "Quit once the first build is done (exit 0 = ok)");
    cli.add_flag("--dark", a.dark, "Dark theme");
    cli.add_flag("--light", a.light, "Light theme");
    cli.add_flag("--compare", a.compare, "Start with Compare with… on (configuration B, a copy of A, built beside A)");
    cli.add_option("--compare-with", a.compareWith,
                   "Start comparing with B built with these flags, as lowerscope-cli compare --b (e.g. \"--fast-math\")");
    cli.set_version_flag("--version", "lowerscope 0.1.0");
}

// --help and --version need no window: answer them before QApplication exists, which would abort
// without a display.
bool wantsTextOnly(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0) break;
        if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "--version"))
            return true;
    }
    return false;
}

#if defined(Q_OS_LINUX)
// Without a display Qt aborts with a platform-plugin message; say what to do instead.
bool hasDisplay(int argc, char** argv) {
    for (const char* var : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        if (const char* v = std::getenv(var); v && *v) return true;
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "-platform") || !std::strncmp(argv[i], "-platform=", 10)) return true;
    return false;
}
#endif

} // namespace

int main(int argc, char** argv) {
    if (wantsTextOnly(argc, argv)) {
        CLI::App cli{"Lowerscope: what did my CUDA kernel become, and what did that cost?", "lowerscope"};
        Args args;
        describe(cli, args);
        try {
            cli.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            return cli.exit(e) == 0 ? 0 : 2;
        }
        return 0;
    }
#if defined(Q_OS_LINUX)
    if (!hasDisplay(argc, argv)) {
        std::fprintf(stderr, "lowerscope: no display (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                             "  Run it under xvfb-run, or with QT_QPA_PLATFORM=offscreen for screenshots;\n"
                             "  lowerscope --help lists the options, lowerscope-cli works without a display.\n");
        return 2;
    }
#endif
    QApplication app(argc, argv); // consumes Qt's own options (-platform, -style, ...)
    QApplication::setOrganizationName(QStringLiteral("Lowerscope"));
    QApplication::setApplicationName(QStringLiteral("lowerscope"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    CLI::App cli{"Lowerscope: what did my CUDA kernel become, and what did that cost?", "lowerscope"};
    Args args;
    describe(cli, args);
    // Qt left the program name and non-Qt arguments in argv.
    const QStringList qtArgs = QApplication::arguments();
    std::vector<std::string> rest;
    for (qsizetype i = qtArgs.size() - 1; i >= 1; --i) rest.push_back(qtArgs[i].toStdString());
    try {
        cli.parse(rest);
    } catch (const CLI::ParseError& e) {
        return cli.exit(e) == 0 ? 0 : 2;
    }
    lowerscope::AutomationOptions automation = args.automation;
    if (!args.selectLine.empty()) {
        const size_t colon = args.selectLine.rfind(':');
        automation.selectLine = std::stoi(colon == std::string::npos ? args.selectLine : args.selectLine.substr(colon + 1));
        if (colon != std::string::npos) automation.selectFile = QString::fromStdString(args.selectLine.substr(0, colon));
    }
    if (!args.selectSass.empty()) {
        const bool hex = args.selectSass.size() > 2 && (args.selectSass[1] == 'x' || args.selectSass[1] == 'X');
        automation.selectSass = std::stoll(hex ? args.selectSass.substr(2) : args.selectSass, nullptr, hex ? 16 : 10);
    }
    automation.kernel = QString::fromStdString(args.kernel);
    if (!args.frame.empty()) automation.attribution = lowerscope::parseAttribution(args.frame);
    automation.screenshot = QString::fromStdString(args.screenshot);
    automation.dumpState = QString::fromStdString(args.dumpState);
    automation.profileDialog = !args.profileDialog.empty();
    const std::string& file = args.file;

    // A scripted run has nobody to answer a dialog: questions take their safe answer, problems go
    // to stderr (views/common/dialogs.h).
    if (automation.active()) lowerscope::setDialogsAllowed(false);
    lowerscope::MainWindow::Options wopts;
    // Automated runs are reproducible: no saved layout/options, no recovery dialog.
    wopts.useSettings = !automation.active();
    wopts.offerRecovery = !automation.active();
    // With a project, a member or an arch the first build waits until they are applied.
    const bool deferBuild =
        !file.empty() && (!args.input.project.empty() || !args.input.member.empty() || cli.count("--arch") > 0);
    wopts.autoBuildOnOpen = !deferBuild;
    lowerscope::Theme::apply(args.dark ? lowerscope::ThemeKind::Dark : lowerscope::ThemeKind::Light);
    lowerscope::MainWindow window(wopts);
    if (args.dark || args.light) window.applyTheme(args.dark);
    if (!args.size.empty()) {
        const auto x = args.size.find('x');
        window.resize(std::stoi(args.size.substr(0, x)), std::stoi(args.size.substr(x + 1)));
    }
    // Command-line build options win over saved ones (and the input's own arch); only set when any was given.
    if (cli.get_options().size() && (args.options != lowerscope::BuildOptions{})) window.setBuildOptions(args.options);
    // B's options are applied once the file is open (opening a file starts B from A's options).
    std::optional<lowerscope::BuildOptions> optionsB;
    if (!args.compareWith.empty()) {
        try {
            optionsB = lowerscope::cli::parseBuildOptionString(args.compareWith);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "lowerscope: --compare-with: %s\n", e.what());
            return 2;
        }
    }
    if (args.compare || !args.compareWith.empty()) window.setCompareMode(true);
    if (!file.empty() && QString::fromStdString(file).endsWith(QStringLiteral(".lowerscope"))) {
        // An experiment session (docs/examples/*.lowerscope): sources, both builds, measurements, card.
        if (!window.experiment()->openSession(QString::fromStdString(file))) {
            std::fprintf(stderr, "lowerscope: cannot open the session %s\n", file.c_str());
            return 2;
        }
    } else if (!file.empty()) {
        // A capture document opens the kernel --kernel names (else its largest with a saved cubin).
        const bool isCapture = QFileInfo(QString::fromStdString(file)).isFile() &&
                               lowerscope::capture::looksLikeCaptureDocument(file);
        if (isCapture ? !window.openCapture(QString::fromStdString(file), QString::fromStdString(args.kernel))
                      : !window.openFile(QString::fromStdString(file))) {
            std::fprintf(stderr, "lowerscope: cannot open %s\n", file.c_str());
            if (automation.active()) return 2;
            // Interactive: the window opens on the example with the reason, rather than vanishing.
            const QString reason = window.statusText().isEmpty()
                                       ? QObject::tr("Cannot open %1").arg(QString::fromStdString(file))
                                       : window.statusText();
            window.openExample();
            window.show();
            window.showStatus(reason, 0);
            QTimer::singleShot(0, &window, [&window, reason] { lowerscope::showProblem(&window, QObject::tr("Open"), reason); });
        } else {
            // The project, the flags given here (they win) and the member apply before the first build.
            if (!args.input.project.empty()) {
                QString error;
                if (!window.openProject(QString::fromStdString(args.input.project), &error)) {
                    std::fprintf(stderr, "lowerscope: --project: %s\n", error.toUtf8().constData());
                    return 2;
                }
            }
            window.setBuildOptions(lowerscope::cli::overlayGivenFlags(cli, window.session()->options(), args.options));
            if (!args.input.member.empty()) window.session()->setVariant(QString::fromStdString(args.input.member), false);
            if (deferBuild) window.build();
        }
    } else {
        window.openExample();
    }
    if (optionsB) window.comparePanel()->setOptionsB(*optionsB);
    if (!args.profile.empty()) {
        // Shown once the build it belongs to is there (the SASS pane checks the cubin digest).
        QString error;
        if (!window.openProfile(QString::fromStdString(args.profile), &error)) {
            std::fprintf(stderr, "lowerscope: --profile: %s\n", error.toUtf8().constData());
            return 2;
        }
    }
    window.show();
    if (!args.profileDialog.empty()) {
        QStringList words;
        QString error;
        if (!lowerscope::splitShellWords(QString::fromStdString(args.profileDialog), words, error) || words.isEmpty()) {
            std::fprintf(stderr, "lowerscope: --profile-dialog: %s\n", error.isEmpty() ? "no program" : qPrintable(error));
            return 2;
        }
        lowerscope::ProfileProgramDialog* dialog = window.captureRoom()->profileDialog();
        lowerscope::CaptureFormFields fields = dialog->fields();
        fields.program = words.takeFirst();
        fields.arguments = lowerscope::joinShellWords(words);
        dialog->setFields(fields);
        window.captureRoom()->showProfileDialog();
    }

    lowerscope::AutomationDriver driver(&window, automation);
    if (automation.active()) driver.start();
    return app.exec();
}
