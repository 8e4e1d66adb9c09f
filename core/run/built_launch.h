#pragma once
// One kernel built and its launch resolved against it: the step that `run`, `compare`, `profile`
// and a parameter series (core/experiment/series_job.h) share between building and measuring.

#include "core/analysis/lowering.h"
#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/run/measurement.h"
#include "core/run/profile_collect.h"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace lowerscope {

// A launch that cannot be built or resolved. `code` follows the CLI's exit codes: 1 the kernel's
// fault (compile error, kernel not in the PTX), 2 usage or setup (missing tool, no such kernel, a
// launch that does not fit the kernel).
struct LaunchBuildError : std::runtime_error {
    LaunchBuildError(int exitCode, const std::string& message)
        : std::runtime_error(message), code(exitCode) {}
    int code;
};

struct BuiltLaunch {
    LaunchSpec spec;     // the launch as resolved by the caller (sidecar, flags, typed text)
    PreparedSide side;   // the launch resolved against the kernel: what the runner gets
    std::string mangled; // the kernel's symbol
    BuildResult build;   // the build (its cubin moved into side.variant)
};

// Builds `file` with `options`, finds `spec.kernel` (demangled, plain or mangled name;
// core/build/kernel_name.h) and resolves `spec` against its PTX parameters. Error and warning
// diagnostics, "measuring anyway" notes and launch warnings go to `warn` (may be empty), one line
// each. Throws LaunchBuildError. `control` cancels or bounds the build.
BuiltLaunch buildKernelLaunch(const Toolchain& toolchain, const std::string& file,
                              const BuildOptions& options, const LaunchSpec& spec, const std::string& label,
                              const std::function<void(const std::string&)>& warn,
                              const BuildControl& control = {});

// What a profiled launch of a built kernel needs: the lowering model of its build (owned here) and
// the target pointing into it.
struct LaunchProfileTarget {
    std::unique_ptr<LoweringModel> model;
    ProfileTarget target;
};
// Throws LaunchBuildError (1) when the kernel has no SASS in the build. `file` is recorded by its
// file name only.
LaunchProfileTarget profileTargetFor(const BuiltLaunch& built, const std::string& file,
                                     const BuildOptions& options);

} // namespace lowerscope
