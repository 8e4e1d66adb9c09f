// lowerscope-cli: every subcommand registers itself on the CLI11 app.
#include "app/cli/commands.h"

#include "core/build/lifetime.h"
#include "core/untrusted.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
    CLI::App app{"Lowerscope: what did my CUDA kernel become, and what did that cost?", "lowerscope-cli"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "lowerscope-cli 0.1.0");
    // Ctrl-C / SIGTERM: every running tool's process group is killed, the command unwinds (temporary
    // folders removed) and exits 128+signal; a killed CLI leaves nothing running (the watchdog).
    lowerscope::installInterruptHandlers();
    int exitCode = 0;
    lowerscope::cli::registerBuildCommands(app, exitCode);
    lowerscope::cli::registerInspectCommand(app, exitCode);
    lowerscope::cli::registerRunCommands(app, exitCode);
    lowerscope::cli::registerExperimentCommand(app, exitCode);
    lowerscope::cli::registerDiffCommand(app, exitCode);
    lowerscope::cli::registerProfileCommand(app, exitCode);
    lowerscope::cli::registerChartCommand(app, exitCode);
    lowerscope::cli::registerCaptureCommand(app, exitCode);
    lowerscope::cli::registerAdviseCommand(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        // Usage errors are exit code 2 (documented); --help/--version exit 0.
        return rc == 0 ? 0 : 2;
    } catch (const std::exception& e) {
        // Never abort(): whatever a command did not expect (a malformed document or answer that slipped
        // past its checks) ends as an error with a message, exit 2.
        std::cerr << "lowerscope-cli: " << lowerscope::escapeControl(e.what()) << '\n';
        return lowerscope::interruptSignal() ? 128 + lowerscope::interruptSignal() : 2;
    }
    if (int sig = lowerscope::interruptSignal()) {
        std::cerr << "lowerscope-cli: interrupted (signal " << sig << "); every tool it started was stopped\n";
        return 128 + sig;
    }
    return exitCode;
}
