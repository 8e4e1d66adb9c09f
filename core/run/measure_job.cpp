#include "core/run/measure_job.h"

#include "core/analysis/occupancy.h"
#include "core/run/argspec.h"
#include "core/run/protocol.h"
#include "core/run/runner_client.h"

#include <algorithm>
#include <filesystem>

namespace lowerscope {

using nlohmann::json;

namespace {

// "saxpy(int, float, float const*, float*)" → "saxpy"; "ns::k<int>(...)" → "k".
std::string plainName(const std::string& name) {
    std::string s = name.substr(0, name.find('('));
    if (auto lt = s.find('<'); lt != std::string::npos) s = s.substr(0, lt);
    if (auto colon = s.rfind("::"); colon != std::string::npos) s = s.substr(colon + 2);
    return s;
}

std::string paramArgName(const PtxParam& p, size_t index) {
    // PTX names parameters "<mangled>_param_<n>": too long to type, so the guess uses p0, p1, ...
    (void)p;
    return "p" + std::to_string(index);
}

} // namespace

LaunchText defaultLaunch(const std::string& sourcePath, const std::string& kernel, const std::vector<PtxParam>& params,
                         std::string* origin, const PtxLaunchBounds* bounds) {
    LaunchText out;
    if (!sourcePath.empty()) {
        const std::string sidecar = sidecarPathFor(sourcePath);
        std::error_code ec;
        if (std::filesystem::exists(sidecar, ec)) {
            try {
                for (const LaunchSpec& s : loadSidecar(sidecar)) {
                    if (s.kernel != kernel && plainName(s.kernel) != plainName(kernel)) continue;
                    out.grid = s.grid.empty() ? std::vector<std::string>{"1"} : s.grid;
                    out.block = s.block.empty() ? std::vector<std::string>{"1"} : s.block;
                    out.sharedBytes = s.sharedBytes.empty() ? "0" : s.sharedBytes;
                    out.args = s.args;
                    out.lets = s.lets;
                    out.cluster = s.cluster;
                    out.outputs = s.outputs;
                    out.bytes = s.bytes;
                    out.flops = s.flops;
                    if (origin) *origin = "sidecar " + std::filesystem::path(sidecar).filename().string();
                    return out;
                }
            } catch (const std::exception&) {
                // A broken sidecar must not stop the user: fall back to the PTX signature.
            }
        }
    }
    // Guess from the PTX signature: every pointer a 1 Mi-element f32 buffer, threads to cover it.
    bool anyBuffer = false;
    for (size_t i = 0; i < params.size(); ++i) {
        const PtxParam& p = params[i];
        const std::string name = paramArgName(p, i);
        const bool pointer = p.isPointer || ((p.type == "u64" || p.type == "b64" || p.type == "s64") && p.arrayCount == 1);
        if (pointer) {
            out.args.push_back(name + "=f32[1<<20]:random(seed=" + std::to_string(i + 1) + ")");
            anyBuffer = true;
        } else if (p.type == "f32" || p.type == "f64") {
            out.args.push_back(name + "=1.0");
        } else {
            out.args.push_back(name + "=" + std::to_string(1 << 20));
        }
    }
    // The block: the kernel's launch bounds when it has them (a larger block would not launch),
    // else 256; the grid covers the 1 Mi-element buffers either way.
    std::string boundsOrigin;
    const int boundsBlock = bounds ? launchBoundsBlockSize(*bounds, &boundsOrigin) : 0;
    if (bounds && bounds->requiredThreads() > 0) {
        out.block = {std::to_string(bounds->reqntid[0])};
        if (bounds->reqntid[1] > 1 || bounds->reqntid[2] > 1) out.block.push_back(std::to_string(bounds->reqntid[1]));
        if (bounds->reqntid[2] > 1) out.block.push_back(std::to_string(bounds->reqntid[2]));
    } else {
        out.block = {std::to_string(boundsBlock > 0 ? boundsBlock : 256)};
    }
    const int threads = boundsBlock > 0 ? boundsBlock : 256;
    out.grid = {anyBuffer ? std::to_string(((1 << 20) + threads - 1) / threads) : "1"};
    if (origin) {
        *origin = params.empty() ? "defaults (no parameters)" : "PTX signature (guessed; edit to fit)";
        if (boundsBlock > 0) *origin += "; block from " + boundsOrigin;
    }
    return out;
}

std::vector<std::string> runnerCommandFor(const std::string& host, const std::vector<std::string>& sshOptions,
                                          const std::string& remoteCommand) {
    if (host.empty()) return defaultRunnerCommand();
    std::vector<std::string> cmd = sshRunnerCommand(host, remoteCommand.empty() ? "lowerscope-runner" : remoteCommand);
    // Options go right after "ssh", before the "--" that ends them and the destination.
    cmd.insert(cmd.begin() + 1, sshOptions.begin(), sshOptions.end());
    return cmd;
}

bool probeRunner(const std::vector<std::string>& command, std::string& deviceName, RunErrorKind& errorKind,
                 std::string& errorMessage, double timeoutS) {
    RunnerConfig config;
    config.command = command;
    config.startTimeout = std::chrono::milliseconds(int64_t(timeoutS * 1000));
    ProcessRunner runner(config);
    DeviceInfo device;
    RunError error;
    if (!runner.device(device, error)) {
        errorKind = error.kind;
        errorMessage = error.message;
        return false;
    }
    deviceName = device.name;
    runner.stop();
    return true;
}

void applyLaunchText(const LaunchText& launch, LaunchSpec& spec) {
    spec.grid = launch.grid;
    spec.block = launch.block;
    spec.sharedBytes = launch.sharedBytes;
    spec.args = launch.args;
    spec.lets = launch.lets;
    spec.cluster = launch.cluster;
    spec.outputs = launch.outputs;
    spec.bytes = launch.bytes;
    spec.flops = launch.flops;
}

MeasureOutcome runMeasureJobOn(Runner& runner, const MeasureRequest& request, std::atomic<bool>* cancel,
                               const MeasureProgressFn& progress) {
    MeasureOutcome out;
    out.jobId = request.jobId;
    MeasurementRecord record;
    auto finish = [&] {
        out.ok = record.ok();
        if (record.error) {
            out.cancelled = record.error->kind == RunErrorKind::Cancelled || (cancel && cancel->load());
            if (out.cancelled) record.error->kind = RunErrorKind::Cancelled;
            out.errorKind = record.error->kind;
            out.errorMessage = record.error->message;
        }
        out.document = writeMeasurement(record);
        return out;
    };
    auto fail = [&](const std::string& message) {
        record.error = RunError{RunErrorKind::BadLaunch, message, "", 0, "", "", false};
        return finish();
    };
    if (request.sides.empty()) return fail("nothing to run: build A (and B) first");

    std::vector<PreparedSide> prepared;
    for (MeasureSide side : request.sides) {
        const std::string label = side.label;
        if (side.cubin.empty()) return fail(label + " has no cubin: build it first");
        side.spec.kernel = side.mangled;
        applyLaunchText(request.launch, side.spec);
        if (side.file.empty()) side.file = request.sourceName;
        // A single run is unlabelled, as in the CLI; A and B keep their labels.
        if (request.sides.size() == 1) side.label.clear();
        try {
            prepared.push_back(prepareSide(side));
        } catch (const std::exception& e) {
            return fail(label + ": " + e.what());
        }
    }

    MeasureSettings settings;
    settings.mode = parseMode(request.mode).value_or(MeasureMode::Auto);
    RunProgressFn onProgress = [&](const RunProgress& p) {
        if (progress) progress(MeasureProgress{p.stage, p.variant, int(p.samples), p.noise, p.elapsedS});
    };
    record = measure(runner, prepared, settings, onProgress, cancel);
    return finish();
}

MeasureOutcome runMeasureJob(const MeasureRequest& request, std::atomic<bool>* cancel, const MeasureProgressFn& progress) {
    RunnerConfig config;
    config.command = request.runnerCommand;
    config.deadline = std::chrono::milliseconds(int64_t(std::max(1.0, request.deadlineS) * 1000));
    ProcessRunner runner(config);
    MeasureOutcome out = runMeasureJobOn(runner, request, cancel, progress);
    runner.stop();
    return out;
}

} // namespace lowerscope
