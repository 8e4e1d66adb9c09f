#include "core/run/measure_job.h"

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
                         std::string* origin) {
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
    out.block = {"256"};
    out.grid = {anyBuffer ? "4096" : "1"};
    if (origin) *origin = params.empty() ? "defaults (no parameters)" : "PTX signature (guessed; edit to fit)";
    return out;
}

std::vector<std::string> runnerCommandFor(const std::string& host, const std::vector<std::string>& sshOptions,
                                          const std::string& remoteCommand) {
    if (host.empty()) return defaultRunnerCommand();
    std::vector<std::string> cmd = sshRunnerCommand(host, remoteCommand.empty() ? "lowerscope-runner" : remoteCommand);
    // Options go right after "ssh", before the destination.
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

MeasureOutcome runMeasureJob(const MeasureRequest& request, std::atomic<bool>* cancel, const MeasureProgressFn& progress) {
    MeasureOutcome out;
    out.jobId = request.jobId;
    auto fail = [&](RunErrorKind kind, const std::string& message, const json& extra = json::object()) {
        out.ok = false;
        out.errorKind = kind;
        out.errorMessage = message;
        json err{{"kind", runErrorKindName(kind)}, {"message", message}};
        for (auto it = extra.begin(); it != extra.end(); ++it) err[it.key()] = it.value();
        out.document = json{{"schema", "lowerscope.run/1"}, {"error", err}};
        return out;
    };
    if (request.sides.empty()) return fail(RunErrorKind::BadLaunch, "nothing to run: build A (and B) first");

    RunRequest run;
    run.id = std::to_string(request.jobId);
    run.mode = parseMode(request.mode).value_or(MeasureMode::Auto);
    std::optional<double> bytes, flops;
    for (const MeasureSide& side : request.sides) {
        if (side.cubin.empty()) return fail(RunErrorKind::BadLaunch, side.label + " has no cubin: build it first");
        LaunchSpec spec;
        spec.kernel = side.mangled;
        spec.grid = request.launch.grid;
        spec.block = request.launch.block;
        spec.sharedBytes = request.launch.sharedBytes;
        spec.args = request.launch.args;
        spec.outputs = request.launch.outputs;
        spec.bytes = request.launch.bytes;
        spec.flops = request.launch.flops;
        ResolvedLaunch resolved;
        try {
            resolved = resolveLaunch(spec, side.params, side.signature);
        } catch (const std::exception& e) {
            return fail(RunErrorKind::BadLaunch, side.label + ": " + e.what());
        }
        bytes = resolved.bytes;
        flops = resolved.flops;
        run.variants.push_back(makeVariant(resolved, side.cubin, side.mangled, request.sides.size() > 1 ? side.label : ""));
    }

    RunnerConfig config;
    config.command = request.runnerCommand;
    config.deadline = std::chrono::milliseconds(int64_t(std::max(1.0, request.deadlineS) * 1000));
    ProcessRunner runner(config);
    RunProgressFn onProgress = [&](const RunProgress& p) {
        if (progress) progress(MeasureProgress{p.stage, p.variant, int(p.samples), p.noise, p.elapsedS});
    };
    RunOutcome outcome = runner.run(run, onProgress, cancel);
    runner.stop();
    if (!outcome.ok) {
        out.cancelled = outcome.error.kind == RunErrorKind::Cancelled || (cancel && cancel->load());
        json extra = toJson(outcome.error);
        if (!outcome.runnerStderr.empty()) extra["runner_stderr"] = outcome.runnerStderr.substr(
            outcome.runnerStderr.size() > 2000 ? outcome.runnerStderr.size() - 2000 : 0);
        return fail(out.cancelled ? RunErrorKind::Cancelled : outcome.error.kind, outcome.error.message, extra);
    }
    const RunResult& r = outcome.result;
    json variants = json::array();
    for (const VariantResult& v : r.variants) {
        json jv = toJson(v);
        if (bytes) jv["bytes"] = *bytes;
        if (flops) jv["flops"] = *flops;
        variants.push_back(std::move(jv));
    }
    json agreement = json::array();
    for (const auto& a : r.agreement) agreement.push_back(toJson(a));
    out.ok = true;
    out.document = json{{"schema", "lowerscope.run/1"},
                        {"source", request.sourceName},
                        {"launch",
                         {{"grid", request.launch.grid},
                          {"block", request.launch.block},
                          {"shared_bytes", request.launch.sharedBytes},
                          {"args", request.launch.args},
                          {"bytes", bytes ? json(*bytes) : json(nullptr)},
                          {"flops", flops ? json(*flops) : json(nullptr)}}},
                        {"mode", request.mode},
                        {"device", toJson(r.device)},
                        {"variants", variants},
                        {"agreement", agreement},
                        {"wall_s", r.wallS}};
    return out;
}

} // namespace lowerscope
