#pragma once
// Runs `lowerscope-cli ARGS... --runner RUNNER` with the real runner against the fake driver and
// CUPTI (run_fakes/fake_gpu.cpp) and the build cache in `cacheDir`. The test target defines
// LOWERSCOPE_CLI, RUNNER_BIN and FAKE_GPU. `env` adds to (or overrides) that environment.
#include "core/build/process.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lowerscope::testutil {

inline ProcessResult runCliOnFakeGpu(std::vector<std::string> args, const std::filesystem::path& cacheDir,
                                     const std::map<std::string, std::string>& env = {}) {
    ProcessSpec spec;
    spec.argv = {LOWERSCOPE_CLI};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.insert(spec.argv.end(), {"--runner", RUNNER_BIN});
    spec.env = {{"LOWERSCOPE_CACHE_DIR", cacheDir.string()},
                {"LOWERSCOPE_LIBCUDA", FAKE_GPU},
                {"LOWERSCOPE_LIBCUPTI", FAKE_GPU}};
    for (const auto& [k, v] : env) spec.env[k] = v;
    spec.timeout = std::chrono::seconds(300);
    return runProcess(spec);
}

} // namespace lowerscope::testutil
