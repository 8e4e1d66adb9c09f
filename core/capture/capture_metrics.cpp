// Profiles of captured launches (capture_metrics.h).
#include "core/capture/capture_metrics.h"

#include "core/analysis/lowering.h"
#include "core/atomic_file.h"
#include "core/bounded_json.h"
#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/capture/capture_run.h"
#include "core/capture/launch_snapshot.h"
#include "core/capture/replay.h"

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace lowerscope::capture {

namespace {

namespace fs = std::filesystem;

// Reads the launch, disassembles its cubin and collects; fills `p`.
void profileOne(const std::string& capturePath, const std::string& id, const ProfileCollectOptions& options,
                Runner& runner, const Toolchain& tc, const CapturedStageFn& stage, std::atomic<bool>* cancel,
                CapturedProfile& p) {
    std::string error;
    ReplayInput in;
    if (!loadReplay(capturePath, id, in, error)) {
        p.exitCode = 2;
        p.errors.push_back(error);
        return;
    }
    p.kernel = in.snapshot.name;
    // The captured kernel's SASS, PTX-less: the cubin is the build.
    BuildControl control;
    control.cancel = cancel;
    const BuildResult build = buildFile(tc, in.cubinPath, BuildOptions{}, control);
    if (cancel && cancel->load()) {
        p.cancelled = true;
        p.exitCode = 1;
        p.errors.push_back("cancelled before it was profiled");
        return;
    }
    if (!build.ok) {
        p.exitCode = 2;
        p.errors.push_back("cannot disassemble " + in.cubinPath + ": " + build.error);
        return;
    }
    const LoweringModel model = buildLoweringModel(build);
    ProfileTarget target;
    for (const auto& k : model.kernels)
        if (k.mangled == in.snapshot.name) target.sass = &k.sass;
    if (!target.sass) {
        p.exitCode = 2;
        p.errors.push_back("the captured cubin has no SASS for " + in.snapshot.name);
        return;
    }
    target.variant = replayVariant(in, in.cubin, "");
    target.mangled = in.snapshot.name;
    target.signature = in.kernelDemangled.empty() ? in.snapshot.name : in.kernelDemangled;
    target.file = fs::path(in.cubinPath).filename().string();
    target.arch = model.arch;
    target.buildOptions = "(captured)";
    target.args = {"captured launch " + id};
    target.regions = replayRegions(in, ElemType::U8);
    p.collected = true;
    p.profile = collectProfile(
        runner, target, options, [&](const std::string& name) { if (stage) stage(id, name); }, cancel);
    p.profile.document["captured_launch"] = {{"capture", capturePath}, {"launch", id}, {"notes", in.notes}};
    p.exitCode = p.profile.exitCode;
    p.errors = p.profile.errors;
    p.cancelled = cancel && cancel->load();
    const std::string path = capturedProfilePath(capturePath, id);
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    // As the CLI writes every JSON document: two-space indent, invalid UTF-8 replaced, a final newline.
    if (writeFileAtomically(path, p.profile.document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                            error))
        p.document = path;
    else
        p.writeFailed = path;
}

} // namespace

bool replayRunnerConfig(RunnerConfig& config, std::string& error, const std::vector<AddressRange>& hold) {
    std::vector<std::string> command = config.command;
    if (command.empty()) {
        command = defaultRunnerCommand(&error);
        if (command.empty()) return false;
    }
    command.push_back("--fixed-addresses");
    // LOWERSCOPE_REPLAY_HOLD=0 starts the runner without the holds (a diagnostic of issue 29's
    // address question: bench/replay_probe.sh compares both).
    const char* holdEnv = std::getenv("LOWERSCOPE_REPLAY_HOLD");
    if (!hold.empty() && !(holdEnv && std::string(holdEnv) == "0")) {
        command.push_back("--hold-addresses");
        command.push_back(formatAddressRanges(hold));
    }
    config.command = std::move(command);
    return true;
}

std::vector<AddressRange> snapshotAddressRanges(const std::vector<LaunchSnapshot>& snapshots) {
    std::vector<AddressRange> ranges;
    for (const LaunchSnapshot& s : snapshots) {
        if (!s.error.empty()) continue;
        for (const SnapshotRegion& r : s.regions)
            if (r.bytes > 0 && r.address + r.bytes > r.address) ranges.push_back({r.address, r.address + r.bytes});
    }
    std::vector<AddressRange> merged = mergeAddressRanges(std::move(ranges));
    if (merged.size() > kMaxAddressRanges) merged.resize(kMaxAddressRanges); // the runner takes no more
    return merged;
}

bool captureAddressRanges(const std::string& capturePath, std::vector<AddressRange>& ranges, std::string& error) {
    std::vector<LaunchSnapshot> snapshots;
    const auto doc = readJsonFileBounded(capturePath, error);
    if (!doc || !readSnapshots(*doc, snapshots, error)) return false;
    ranges = snapshotAddressRanges(snapshots);
    return true;
}

std::string capturedProfilePath(const std::string& capturePath, const std::string& launchId) {
    const fs::path capture(capturePath);
    return (capture.parent_path() / snapshotFolderName(capturePath) / launchId / "profile.json").string();
}

CapturedProfiles profileCapturedLaunches(const std::string& capturePath, const ProfileCollectOptions& options,
                                         Runner& runner, const CapturedStageFn& stage, std::atomic<bool>* cancel,
                                         const CapturedProfileFn& done) {
    CapturedProfiles out;
    std::vector<LaunchSnapshot> snapshots;
    {
        const auto doc = readJsonFileBounded(capturePath, out.error);
        if (!doc || !readSnapshots(*doc, snapshots, out.error)) return out;
    }
    out.ok = true;
    std::optional<Toolchain> tc; // found once, when a launch needs it
    for (const LaunchSnapshot& s : snapshots) {
        CapturedProfile p;
        p.launch = s.id();
        if (cancel && cancel->load()) {
            p.kernel = s.name;
            p.cancelled = true;
            p.exitCode = 1;
            p.errors.push_back("cancelled before it was profiled");
        } else {
            if (stage) stage(p.launch, kCapturedProfilePrepareStage);
            if (!tc) tc = discoverToolchain();
            profileOne(capturePath, p.launch, options, runner, *tc, stage, cancel, p);
        }
        if (done) done(p);
        out.launches.push_back(std::move(p));
    }
    return out;
}

} // namespace lowerscope::capture
