// `capture --metrics` (capture_metrics.h).
#include "app/cli/capture_metrics.h"

#include "app/cli/commands.h"
#include "app/cli/compare_run.h"
#include "app/cli/replay_run.h"

#include "core/analysis/lowering.h"
#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/capture/launch_snapshot.h"
#include "core/capture/replay.h"
#include "core/run/profile_collect.h"
#include "core/untrusted.h"

#include <filesystem>
#include <iostream>

namespace lowerscope::cli {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> savedLaunches(const std::string& capturePath) {
    std::string error;
    const auto doc = readJsonFileBounded(capturePath, error);
    std::vector<capture::LaunchSnapshot> snapshots;
    if (!doc || !capture::readSnapshots(*doc, snapshots, error)) throw CliFailure{2, escapeControl(error)};
    std::vector<std::string> ids;
    for (const auto& s : snapshots) ids.push_back(s.id());
    return ids;
}

} // namespace

std::vector<CapturedProfile> profileCapturedLaunches(const std::string& capturePath, const std::string& collections,
                                                     double timeoutS, const std::string& runnerCommand) {
    ProfileCollectOptions options;
    std::string error;
    if (!parseProfileCollections(collections, options.collections, error)) throw CliFailure{2, "--metrics: " + error};
    LaunchArgs launchArgs;
    launchArgs.timeoutS = timeoutS;
    launchArgs.runner = runnerCommand;
    const std::unique_ptr<ProcessRunner> replay = replayRunner(launchArgs);
    ProcessRunner& runner = *replay;
    const Toolchain tc = discoverToolchain();

    std::vector<CapturedProfile> out;
    for (const std::string& id : savedLaunches(capturePath)) {
        CapturedProfile p;
        p.launch = id;
        capture::ReplayInput in;
        if (!capture::loadReplay(capturePath, id, in, error)) {
            p.exitCode = 2;
            p.errors.push_back(error);
            out.push_back(p);
            continue;
        }
        // The captured kernel's SASS, PTX-less: the cubin is the build.
        const BuildResult build = buildFile(tc, in.cubinPath, BuildOptions{});
        if (!build.ok) {
            p.exitCode = 2;
            p.errors.push_back("cannot disassemble " + in.cubinPath + ": " + build.error);
            out.push_back(p);
            continue;
        }
        const LoweringModel model = buildLoweringModel(build);
        ProfileTarget target;
        for (const auto& k : model.kernels)
            if (k.mangled == in.snapshot.name) target.sass = &k.sass;
        if (!target.sass) {
            p.exitCode = 2;
            p.errors.push_back("the captured cubin has no SASS for " + in.snapshot.name);
            out.push_back(p);
            continue;
        }
        target.variant = capture::replayVariant(in, in.cubin, "");
        target.mangled = in.snapshot.name;
        target.signature = in.kernelDemangled.empty() ? in.snapshot.name : in.kernelDemangled;
        target.file = fs::path(in.cubinPath).filename().string();
        target.arch = model.arch;
        target.buildOptions = "(captured)";
        target.args = {"captured launch " + id};
        target.regions = capture::replayRegions(in, ElemType::U8);
        ProfileCollectResult r = collectProfile(runner, target, options, [&](const std::string& stage) {
            std::cerr << "lowerscope-cli capture: launch " << id << ": collecting " << stage << '\n';
        });
        r.document["captured_launch"] = {{"capture", capturePath}, {"launch", id}, {"notes", in.notes}};
        p.exitCode = r.exitCode;
        p.errors = r.errors;
        const fs::path dir = fs::path(capturePath).parent_path() / (fs::path(capturePath).stem().string() + ".launches") / id;
        std::error_code ec;
        fs::create_directories(dir, ec);
        p.document = (dir / "profile.json").string();
        if (!writeJson(r.document, p.document)) p.document.clear();
        std::printf("\nlaunch %s (replayed on its captured memory):\n", id.c_str());
        printProfileSummary(r.document, r.join, r.metrics);
        for (const std::string& e : r.errors) std::cerr << "lowerscope-cli capture: launch " << id << ": " << escapeControl(e) << '\n';
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace lowerscope::cli
