#pragma once
// How the runner ends a request: a RequestFailure carries the RunError to send and, when the CUDA
// context is unusable (a kernel faulted or is still running), the exit code the runner must leave
// with right after sending it. Exit codes are those of core/run/protocol.h.

#include "core/run/protocol.h"

#include <stdexcept>

namespace lowerscope::runner {

// An error that ends the request. `exitCode` != 0: the runner must exit after reporting it.
struct RequestFailure : std::runtime_error {
    RunError error;
    int exitCode = 0;
    RequestFailure(RunError e, int code)
        : std::runtime_error(e.message), error(std::move(e)), exitCode(code) {}
};

// Runner exit codes (see core/run/protocol.h).
enum ExitCode : int {
    kExitOk = 0,
    kExitUsage = 2,
    kExitNoDriver = 3,
    kExitNoDevice = 4,
    kExitKernelFault = 5,
    kExitKernelTimeout = 6,
    kExitCudaError = 7,
};

} // namespace lowerscope::runner
