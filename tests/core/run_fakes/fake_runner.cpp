// A stand-in lowerscope-runner for CPU-only client tests. It speaks the real protocol (built
// with core/run/protocol.h) and behaves according to the kernel name of the first variant:
//   "ok"        progress, then a result with three samples
//   "slow"      a progress line every 100 ms for 1.5 s, then a result (must survive a 1 s deadline)
//   "hang"      says nothing and never answers (the client must kill it at the deadline)
//   "fault"     a fatal kernel_fault error, then exits 5 (like a poisoned context)
//   "crash"     exits 9 without answering
//   "soft"      a non-fatal error (kernel_not_found) and keeps running
// argv[1] == "--no-driver": prints the no_driver error line and exits 3 (as the real runner does).
#include "core/run/protocol.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
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
    if (argc > 1 && std::string(argv[1]) == "--no-driver") {
        out(errorLine(RunError{RunErrorKind::NoDriver, "no CUDA driver found (fake)", "", 0, "", "", true}));
        return 3;
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
        const std::string kernel = req.variants[0].kernel;
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
        VariantResult v;
        v.kernel = kernel;
        v.mode = "cold";
        v.samplesMs = {1.0, 1.1, 0.9};
        // Echo what the runner received, so tests can check what the client sent.
        v.stopReason = "timeout=" + std::to_string(static_cast<int>(req.kernelTimeoutS));
        r.variants.push_back(v);
        out(resultLine(r));
    }
    return 0;
}
