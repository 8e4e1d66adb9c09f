// A stand-in lowerscope-runner for CPU-only client tests. It speaks the real protocol (built
// with core/run/protocol.h) and behaves according to the kernel name of the first variant:
//   "ok"        progress, then a result with three samples
//   "slow"      a progress line every 100 ms for 1.5 s, then a result (must survive a 1 s deadline)
//   "hang"      says nothing and never answers (the client must kill it at the deadline)
//   "fault"     a fatal kernel_fault error, then exits 5 (like a poisoned context)
//   "crash"     exits 9 without answering
//   "soft"      a non-fatal error (kernel_not_found) and keeps running
// Misbehaving modes (issue 13: the runner is not trusted), same selection:
//   "short"     a result with one variant fewer than requested
//   "empty"     a result without samples
//   "negative"  a result with a negative sample
//   "endless"   one line that never ends (bytes without a newline, as fast as the pipe takes them)
//   "chatty"    progress every 50 ms, forever
//   "stale"     results for another request id, forever
//   "control"   a fatal error whose message holds terminal escape sequences
//   "names"     a good result whose outputs have hostile names ("../../escaped", "/abs", "..", "")
//   "oneshot"   after 300 ms a result that says the runner ends (runner_exits, as the real runner's
//               instruction and sample collections do), then exits 0
// Arguments (any order, so that tests can pass them through --runner / $LOWERSCOPE_RUNNER):
//   --no-driver    prints the no_driver error line and exits 3 (as the real runner does)
//   --mode M       behave as mode M whatever the kernel is called (for the CLI, whose kernels
//                  have real names)
//   --silent       never says hello (sleeps)
//   --mark FILE    writes its pid to FILE first (tests check it was killed)
//   --exclusive F  holds an exclusive lock on F while it lives; a second fake that cannot take it
//                  prints a fatal no_device error and exits 4 (a GPU in exclusive-process mode)
#include "core/run/protocol.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace lowerscope;

namespace {
void out(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}
} // namespace

int main(int argc, char** argv) {
    std::string forcedMode;
    bool silent = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--no-driver") {
            out(errorLine(RunError{RunErrorKind::NoDriver, "no CUDA driver found (fake)", "", 0, "", "", true}));
            return 3;
        }
        if (a == "--silent") silent = true;
        if (a == "--mode" && i + 1 < argc) forcedMode = argv[++i];
        if (a == "--mark" && i + 1 < argc) std::ofstream(argv[++i]) << ::getpid() << "\n";
        if (a == "--exclusive" && i + 1 < argc) {
            const int fd = ::open(argv[++i], O_CREAT | O_RDWR, 0600);
            if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
                out(errorLine(RunError{RunErrorKind::NoDevice, "the GPU is in use by another process (fake)", "", 0, "", "",
                                       true}));
                return 4;
            }
        }
    }
    if (silent) {
        std::this_thread::sleep_for(std::chrono::hours(1));
    }
    DeviceInfo d;
    d.name = "Fake GPU";
    d.smCount = 2;
    d.clockMhz = 1000;
    out(hello(d, "fake-runner"));
    std::string line;
    while (std::getline(std::cin, line)) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded()) {
            continue;
        }
        if (j.value("op", "") == "quit") {
            return 0;
        }
        RunRequest req;
        try {
            fromJson(j, req);
        } catch (const std::exception& e) {
            out(errorLine(RunError{RunErrorKind::BadRequest, e.what(), "", 0, "", "", false}, j.value("id", "")));
            continue;
        }
        const std::string kernel = forcedMode.empty() ? req.variants[0].kernel : forcedMode;
        if (kernel == "endless") {
            const std::string chunk(65536, 'x');
            for (;;) std::fwrite(chunk.data(), 1, chunk.size(), stdout);
        } else if (kernel == "chatty") {
            for (size_t i = 0;; ++i) {
                out(progressLine(RunProgress{req.id, "measure", "", i, 0.01, i * 0.05}));
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        } else if (kernel == "control") {
            out(errorLine(RunError{RunErrorKind::KernelFault, "fault \x1b[2J\x1b]0;pwned\x07 here", "", 0, "", "", true}, req.id));
            _exit(5);
        }
        if (kernel == "hang") {
            std::this_thread::sleep_for(std::chrono::hours(1));
        } else if (kernel == "crash") {
            _exit(9);
        } else if (kernel == "fault") {
            out(progressLine(RunProgress{req.id, "first_launch", "", 0, 0, 0}));
            out(errorLine(RunError{RunErrorKind::KernelFault, "the kernel faulted (fake)", "CUDA_ERROR_ILLEGAL_ADDRESS", 700,
                                   "first_launch", "", true},
                          req.id));
            _exit(5);
        } else if (kernel == "soft") {
            out(errorLine(RunError{RunErrorKind::KernelNotFound, "no kernel 'soft'", "", 0, "module_load", "", false}, req.id));
            continue;
        } else if (kernel == "oneshot") {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            RunResult r;
            r.id = req.id;
            r.device = d;
            VariantResult v;
            v.kernel = req.variants[0].kernel;
            v.mode = "profile";
            v.stopReason = "profile";
            v.samplesMs = {1.0};
            r.variants.push_back(v);
            r.runnerExits = true;
            out(resultLine(r));
            return 0;
        } else if (kernel == "slow") {
            for (int i = 0; i < 15; ++i) {
                out(progressLine(RunProgress{req.id, "measure", "", static_cast<size_t>(i), 0.01, i * 0.1}));
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        } else {
            out(progressLine(RunProgress{req.id, "measure", "", 2, 0.01, 0.1}));
        }
        RunResult r;
        r.id = req.id;
        r.device = d;
        for (const LaunchVariant& lv : req.variants) {
            VariantResult v;
            v.kernel = lv.kernel;
            v.label = lv.label;
            v.mode = "cold";
            v.samplesMs = {1.0, 1.1, 0.9};
            if (kernel == "empty") v.samplesMs.clear();
            if (kernel == "negative") v.samplesMs[1] = -1.0;
            // Echo what the runner received, so tests can check what the client sent.
            v.stopReason = "timeout=" + std::to_string(static_cast<int>(req.kernelTimeoutS));
            r.variants.push_back(v);
        }
        if (kernel == "short") r.variants.pop_back();
        if (kernel == "names") {
            for (const char* name : {"../../escaped", "/tmp/abs", "..", "", "a/b", "a_b"}) {
                OutputReport o;
                o.name = name;
                o.type = ElemType::F32;
                o.count = 2;
                o.digest = "0";
                o.fullyWritten = true;
                if (req.returnOutputs) o.data = {0, 0, 128, 63, 0, 0, 0, 64}; // 1.0f, 2.0f
                r.variants[0].outputs.push_back(o);
            }
        }
        if (kernel == "stale") {
            r.id = req.id + "-old";
            for (;;) out(resultLine(r));
        }
        out(resultLine(r));
    }
    return 0;
}
