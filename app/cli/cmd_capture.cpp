// `lowerscope-cli capture [--kernel REGEX] [--launch-skip N] [--launch-count N] -o OUT -- PROGRAM
// ARGS...`: run a program unmodified under the injection library (app/inject; CUDA's
// CUDA_INJECTION64_PATH), record every kernel launch and every loaded cubin, write the
// lowerscope.capture/1 document OUT with the cubins next to it (HASH.cubin), and print the kernel
// table (share of GPU time, total, launches, median with its 95 % interval, min, max), largest
// total first. `inspect OUT --kernel NAME` opens a captured kernel's cubin. With --save-launches
// the selected launches' parameters and the device memory they reach are saved next to OUT
// (STEM.launches/, core/capture/launch_snapshot.h) for `run --from-capture OUT --launch ID`;
// --metrics profiles each saved launch on its replay (capture_metrics.h).
// Exit: 0 captured and the program exited 0 (and every --metrics collection came back); 1 captured but the program failed (exit status,
// signal, cancelled or timed out: the document says which); 2 usage error, the program or the
// injection library could not be started, or the document could not be written.
#include "app/cli/capture_metrics.h"
#include "app/cli/commands.h"
#include "app/cli/compare_run.h"

#include "core/build/demangle.h"
#include "core/capture/capture_run.h"
#include "core/untrusted.h"

#include <algorithm>
#include <iostream>
#include <memory>

namespace lowerscope::cli {

namespace {

struct CaptureArgs {
    std::string output;
    std::string kernel;
    uint64_t skip = 0;
    int64_t count = -1;
    std::string workingDir;
    std::vector<std::string> env;
    double timeoutS = 0;
    bool saveLaunches = false;
    bool serializeKernels = false;
    double memoryLimitMiB = 1024;
    std::string metrics;      // --metrics kernel,instructions,samples: profiles of the saved launches, replayed
    double runnerTimeoutS = 30; // --runner-timeout: the runner's silence deadline for --metrics
    std::string runner;       // --runner: the runner command for --metrics
    std::vector<std::string> command;
};

int runCaptureCommand(const CaptureArgs& a) {
    capture::CaptureSpec spec;
    spec.argv = a.command;
    spec.outputPath = a.output;
    spec.workingDir = a.workingDir;
    spec.filter.kernelRegex = a.kernel;
    spec.filter.skip = a.skip;
    if (a.count >= 0) spec.filter.count = static_cast<uint64_t>(a.count);
    spec.timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeoutS * 1000));
    if (!a.metrics.empty() && !a.saveLaunches) {
        std::cerr << "lowerscope-cli capture: note: --metrics profiles the launches it saves (--save-launches implied)\n";
    }
    const bool saveLaunches = a.saveLaunches || !a.metrics.empty();
    if (!a.metrics.empty()) {
        // The list is checked before the program runs.
        std::vector<ProfileCollection> collections;
        std::string listError;
        if (!parseProfileCollections(a.metrics, collections, listError)) {
            std::cerr << "lowerscope-cli capture: error: --metrics: " << escapeControl(listError) << '\n';
            return 2;
        }
    }
    spec.saveLaunches = saveLaunches;
    spec.serializeKernels = a.serializeKernels;
    spec.memoryLimit = static_cast<uint64_t>(a.memoryLimitMiB * 1024.0 * 1024.0);
    if (saveLaunches && a.count < 0) {
        spec.filter.count = 1;
        std::cerr << "lowerscope-cli capture: note: --save-launches without --launch-count saves the first selected "
                     "launch only (give --launch-count N for more)\n";
    }
    for (const std::string& kv : a.env) {
        const size_t eq = kv.find('=');
        if (eq == 0 || eq == std::string::npos) {
            std::cerr << "lowerscope-cli capture: error: --env takes NAME=VALUE, not '" << escapeControl(kv) << "'\n";
            return 2;
        }
        spec.env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    std::string error;
    spec.injectionLibrary = capture::findInjectionLibrary(error);
    if (spec.injectionLibrary.empty()) {
        std::cerr << "lowerscope-cli capture: error: " << escapeControl(error) << '\n';
        return 2;
    }
    const capture::CaptureOutcome o = capture::runCapture(spec);
    if (!o.ok) {
        std::cerr << "lowerscope-cli capture: error: " << escapeControl(o.error) << '\n';
        return 2;
    }
    const capture::CaptureSummary& s = o.summary;
    std::cout << "\nlowerscope-cli capture: " << s.launchTotal << " kernel launches of " << s.kernels.size()
              << " kernels, " << s.modules.size() << " modules; written to " << escapeControl(a.output) << '\n';
    for (const std::string& d : s.devices) std::cout << "device: " << escapeControl(d) << '\n';
    if (!s.kernels.empty()) std::cout << '\n' << capture::kernelTableText(s);
    uint64_t selected = 0;
    for (const auto& k : s.kernels) selected += k.selected;
    if (!a.kernel.empty() || a.skip > 0 || a.count >= 0 || saveLaunches)
        std::cout << "\nthe filter selected " << selected << " launches (\"selected\" in the document)\n";
    size_t saved = 0;
    if (saveLaunches) {
        for (const capture::LaunchSnapshot& snap : o.snapshots) {
            if (!snap.error.empty()) continue; // said in the notes
            uint64_t bytes = 0;
            for (const auto& r : snap.regions) bytes += r.bytes;
            std::cout << "saved launch " << snap.id() << ": " << escapeControl(boundedText(demangle(snap.name), 200)) << ", "
                      << snap.regions.size() << " allocations, " << bytes << " bytes"
                      << (snap.omitted.empty() ? "" : " (" + std::to_string(snap.omitted.size()) + " left out)") << '\n'
                      << "  replay with: lowerscope-cli run --from-capture " << escapeControl(a.output) << " --launch "
                      << snap.id() << '\n';
            ++saved;
        }
        if (saved == 0)
            std::cerr << "lowerscope-cli capture: note: no launch was saved for replay (none selected, or each "
                         "failed: see the notes)\n";
    }
    for (const std::string& n : s.notes) std::cerr << "lowerscope-cli capture: note: " << escapeControl(n) << '\n';
    std::cout.flush();
    int metricsCode = 0;
    if (!a.metrics.empty() && saved > 0) {
        // Counters of each saved launch, taken on its replay (capture_metrics.h).
        try {
            for (const CapturedProfile& p : profileCapturedLaunches(a.output, a.metrics, a.runnerTimeoutS, a.runner)) {
                if (!p.document.empty()) std::cout << "profile of launch " << p.launch << ": " << escapeControl(p.document) << '\n';
                for (const std::string& e : p.errors)
                    std::cerr << "lowerscope-cli capture: launch " << p.launch << ": " << escapeControl(e) << '\n';
                metricsCode = std::max(metricsCode, p.exitCode);
            }
        } catch (const CliFailure& f) {
            std::cerr << "lowerscope-cli capture: --metrics: " << escapeControl(f.message) << '\n';
            metricsCode = 2;
        }
        std::cout.flush();
    }
    if (o.run.cancelled || o.run.timedOut) {
        std::cerr << "lowerscope-cli capture: the program was " << (o.run.timedOut ? "stopped at the timeout" : "cancelled")
                  << "; what it had recorded is in the document\n";
        return 1;
    }
    if (o.run.signal != 0) {
        std::cerr << "lowerscope-cli capture: the program was killed by signal " << o.run.signal << '\n';
        return 1;
    }
    if (o.run.exitCode != 0) {
        std::cerr << "lowerscope-cli capture: the program exited with status " << o.run.exitCode << '\n';
        return 1;
    }
    return metricsCode == 0 ? 0 : 1;
}

} // namespace

void registerCaptureCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<CaptureArgs>();
    CLI::App* cmd = app.add_subcommand(
        "capture",
        "Run a program unmodified (a CUDA binary, `python3 script.py`, ...) and record every kernel launch (name, "
        "grid, block, cluster, shared memory, stream, GPU duration) and every loaded cubin, through CUDA's "
        "injection mechanism and CUPTI; write the lowerscope.capture/1 document OUT with the cubins next to it and "
        "print the kernel table. `inspect OUT --kernel NAME` opens a captured kernel.\n"
        "Exit: 0 captured and the program exited 0, 1 captured but the program failed, 2 usage error or nothing "
        "could be captured.");
    cmd->add_option("-o,--output", args->output, "the capture document to write; cubins go into its folder")
        ->required()
        ->type_name("OUT");
    cmd->add_option("--kernel", args->kernel,
                    "select the launches of kernels whose demangled or mangled name matches this regular expression "
                    "(ECMAScript; every kernel without it)")
        ->type_name("REGEX");
    cmd->add_option("--launch-skip", args->skip, "skip this many matching launches before selecting")->type_name("N");
    cmd->add_option("--launch-count", args->count, "select at most this many matching launches")
        ->type_name("N")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--working-dir", args->workingDir, "run the program in this folder")->type_name("DIR");
    cmd->add_option("--env", args->env, "set NAME=VALUE in the program's environment (repeatable)")
        ->type_name("NAME=VALUE");
    cmd->add_option("--timeout", args->timeoutS, "stop the program (its whole process group) after S seconds")
        ->type_name("S")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--save-launches", args->saveLaunches,
                  "save the selected launches' parameters and the device memory they reach next to OUT (STEM.launches/) "
                  "for `lowerscope-cli run --from-capture OUT --launch ID`; without --launch-count the first selected "
                  "launch only. The program runs without address-space randomisation");
    cmd->add_flag("--serialize-kernels", args->serializeKernels,
                  "take the kernels' GPU durations from CUPTI's serialising records: each kernel runs alone (as under "
                  "Nsight Compute) and its duration includes the front end's work around the blocks, comparable with "
                  "ncu's gpu__time_duration. Default: the concurrent records (the program's concurrency kept; the "
                  "blocks' span, as Nsight Systems shows, about 1 us shorter)");
    cmd->add_option("--metrics", args->metrics,
                    "profile each saved launch on its replay (implies --save-launches): kernel, instructions, "
                    "samples, joined onto the captured kernel's SASS and source lines as `profile` does; written to "
                    "STEM.launches/ID/profile.json")
        ->type_name("kernel,instructions,samples");
    cmd->add_option("--runner", args->runner, "with --metrics: the command that starts lowerscope-runner")->type_name("CMD");
    cmd->add_option("--runner-timeout", args->runnerTimeoutS,
                    "with --metrics: seconds the runner may stay silent before it is stopped (default 30)")
        ->type_name("S")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--memory-limit", args->memoryLimitMiB,
                    "with --save-launches: at most this much device memory saved per launch (MiB; as much again for "
                    "the memory after the launch; default 1024)")
        ->type_name("MIB")
        ->check(CLI::PositiveNumber);
    cmd->add_option("command", args->command, "the program and its arguments, after --")
        ->required()
        ->type_name("-- PROGRAM ARGS...");
    cmd->callback([args, &exitCode] { exitCode = runCaptureCommand(*args); });
}

} // namespace lowerscope::cli
