// `lowerscope-cli profile` (issue 14): build a kernel, have lowerscope-runner collect hardware
// evidence for one launch (kernel metrics through CUPTI's Range Profiler, counts per SASS
// instruction through SASS Metrics, warp stall samples through PC Sampling; one runner request per
// collection, each with its own deadline), join it onto the lowering model of the same build
// (core/run/profile_join.h) and write "lowerscope.profile/1":
//
//   {"schema": "lowerscope.profile/1", "file", "kernel" (mangled), "signature", "arch",
//    "build_options", "cubin_digest", "code_digest" (sassCodeDigest of the kernel), "launch": {"grid", "block", "args"}, "device": {...},
//    "collections": {"kernel"|"instructions"|"samples": {"ok": true, "collect_ms", "launches",
//                     "passes", "note"} | {"ok": false, "error": {...}}},
//    "metrics": [{"name", "value", "unit"}], "invalid_metrics": [...],
//    "samples": {"total", "dropped", "period_log2"},
//    "kernel_totals": {"counts": {...}, "samples": {...}, "sample_total"},
//    "instructions": [{"address", "opcode", "ptx_line", "file", "line", "profiled", "counts",
//                      "samples"}],                  every SASS instruction, address order
//    "ptx_lines": [{"line", "instructions", "counts", "samples", "sample_total"}],
//    "lines": [...as ptx_lines plus "file"]            source lines, inlined code at its call site
//    "callee_lines": [...]}                            the same with inlined code at the callee line
//
// Exit: 0 every collection asked for came back, 1 build error, kernel fault or a collection
// failed on the kernel, 2 usage, missing tool, no GPU or no profiling (CUPTI missing, counters not
// permitted). What did come back is written in every case.
#include "app/cli/build_flags.h"
#include "app/cli/commands.h"
#include "app/cli/compare_run.h"

#include "core/analysis/lowering.h"
#include "core/build/demangle.h"
#include "core/run/buffer_data.h"
#include "core/run/profile_collect.h"
#include "core/run/profile_join.h"
#include "core/run/protocol.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace lowerscope::cli {

namespace {

using nlohmann::json;

constexpr int kOk = 0, kKernelError = 1, kUsage = 2;

struct ProfileArgs {
    std::string file;
    std::string project;
    BuildOptions options;
    LaunchArgs launch;
    std::string collect = "kernel,instructions,samples";
    std::vector<std::string> kernelMetrics;
};

std::string metricText(const ProfileMetric& m) {
    char buf[64];
    if (m.unit == "nanosecond") {
        return formatDuration(m.value * 1e-6);
    }
    if (m.unit == "byte") {
        std::snprintf(buf, sizeof buf, "%.2f MB", m.value / 1e6);
        return buf;
    }
    if (m.unit == "percent") {
        std::snprintf(buf, sizeof buf, "%.1f %%", m.value);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "%.4g %s", m.value, escapeControl(m.unit).c_str());
    return buf;
}

} // namespace

ProfileSide profileSide(const BuiltLaunch& b, const std::string& file, const BuildOptions& options) {
    try {
        return profileTargetFor(b, file, options);
    } catch (const LaunchBuildError& e) {
        throw CliFailure{e.code, e.what()};
    }
}

void printProfileSummary(const json& doc, const ProfileJoin& join, const std::vector<ProfileMetric>& metrics) {
    std::printf("%s: profile of one launch (grid %s, block %s)\n", doc["signature"].get<std::string>().c_str(),
                doc["launch"]["grid"].dump().c_str(), doc["launch"]["block"].dump().c_str());
    for (const auto& [name, c] : doc["collections"].items()) {
        if (c.value("ok", false)) {
            std::printf("  %-12s ok, %.0f ms%s%s\n", name.c_str(), c.value("collect_ms", 0.0),
                        c.value("note", std::string()).empty() ? "" : ", note: ",
                        escapeControl(c.value("note", std::string())).c_str());
        } else {
            std::printf("  %-12s FAILED: %s\n", name.c_str(),
                        escapeControl(c["error"].value("message", std::string())).c_str());
        }
    }
    if (!metrics.empty()) {
        std::printf("  kernel metrics:\n");
        for (const auto& m : metrics) {
            std::printf("    %-60s %s\n", escapeControl(m.name).c_str(), metricText(m).c_str());
        }
    }
    const uint64_t executed = join.kernel.count("smsp__sass_inst_executed");
    const uint64_t samples = join.kernel.sampleTotal();
    if (executed > 0) {
        std::printf("  instructions executed (warp level): %s\n", formatCount(executed).c_str());
    }
    if (samples > 0) {
        std::string reasons;
        for (const auto& [r, share] : stallShares(join.kernel, 4)) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "%s%s %.0f%%", reasons.empty() ? "" : ", ", r.c_str(), share * 100);
            reasons += buf;
        }
        std::printf("  stall samples: %s (%s)\n", formatCount(samples).c_str(), reasons.c_str());
    }
    // The hottest source lines: by samples when there are any, else by instructions executed.
    std::vector<const ProfiledLine*> lines;
    for (const auto& l : join.sourceLines) {
        lines.push_back(&l);
    }
    auto weight = [&](const ProfiledLine* l) {
        return samples > 0 ? static_cast<double>(l->totals.sampleTotal())
                           : static_cast<double>(l->totals.count("smsp__sass_inst_executed"));
    };
    std::stable_sort(lines.begin(), lines.end(), [&](auto* a, auto* b) { return weight(a) > weight(b); });
    const double all = samples > 0 ? static_cast<double>(samples) : static_cast<double>(executed);
    if (all > 0 && !lines.empty()) {
        std::printf("  hottest source lines (%s):\n", samples > 0 ? "share of stall samples" : "share of instructions executed");
        for (size_t i = 0; i < lines.size() && i < 5 && weight(lines[i]) > 0; ++i) {
            const ProfiledLine& l = *lines[i];
            std::string why;
            for (const auto& [r, share] : stallShares(l.totals, 2)) {
                char buf[96];
                std::snprintf(buf, sizeof buf, "%s%s %.0f%%", why.empty() ? "" : ", ", r.c_str(), share * 100);
                why += buf;
            }
            std::printf("    %5.1f%%  %s:%d  (%d SASS, %s executed%s%s)\n", 100.0 * weight(lines[i]) / all,
                        escapeControl(std::filesystem::path(l.file).filename().string()).c_str(), l.line,
                        l.instructions, formatCount(l.totals.count("smsp__sass_inst_executed")).c_str(),
                        why.empty() ? "" : "; ", why.c_str());
        }
    }
}

namespace {

int runProfile(const ProfileArgs& a) {
    ProfileCollectOptions opts;
    std::string error;
    if (!parseProfileCollections(a.collect, opts.collections, error)) {
        std::cerr << "lowerscope-cli profile: --metrics: " << escapeControl(error) << '\n';
        return kUsage;
    }
    opts.kernelMetrics = a.kernelMetrics;
    try {
        Toolchain tc = discoverToolchain();
        BuiltLaunch b = buildLaunch(tc, a.file, a.options, a.launch.kernel, a.launch);
        auto runner = makeRunner(a.launch);
        ProfileSide side = profileSide(b, a.file, a.options);
        ProfileCollectResult r = collectProfile(*runner, side.target, opts);
        for (const auto& e : r.errors) {
            std::cerr << "lowerscope-cli profile: " << escapeControl(e) << '\n';
        }
        if (!a.launch.jsonOut.empty() && !writeJson(r.document, a.launch.jsonOut)) {
            return kUsage;
        }
        if (a.launch.jsonOut != "-" && r.document.contains("device")) {
            printProfileSummary(r.document, r.join, r.metrics);
        }
        return r.exitCode;
    } catch (const CliFailure& f) {
        std::cerr << "lowerscope-cli profile: " << f.message << '\n';
        return f.code;
    }
}

} // namespace

void registerProfileCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<ProfileArgs>();
    CLI::App* cmd = app.add_subcommand(
        "profile",
        "Build a kernel and collect hardware evidence for one launch through lowerscope-runner and CUPTI: kernel "
        "metrics (Range Profiler), counts per SASS instruction (SASS Metrics) and warp stall samples (PC "
        "Sampling), joined onto the SASS rows, PTX lines and source lines of the same build "
        "(lowerscope.profile/1). Without --kernel/--grid/--arg the sidecar FILE.json is used.\n"
        "Exit: 0 every collection came back, 1 build error, kernel fault or a failed collection, 2 usage error, "
        "missing tool, no GPU or profiling not available (CUPTI missing, counters not permitted).");
    cmd->add_option("file", a->file, "CUDA source file")->required()->type_name("FILE.cu");
    addBuildOptionFlags(*cmd, a->options);
    cmd->add_option("--project", a->project, "compile_commands.json (or its folder): the file's project flags")
        ->type_name("PATH");
    LaunchArgs& l = a->launch;
    addLaunchSpecFlags(*cmd, l);
    cmd->add_option("--metrics", a->collect,
                    "what to collect, comma-separated: kernel (counters), instructions (per-instruction counts), "
                    "samples (stall samples); default all three")
        ->type_name("LIST");
    cmd->add_option("--kernel-metrics", a->kernelMetrics,
                    "Nsight Compute metric names for the kernel collection (repeatable; default: the standard set)")
        ->type_name("NAME");
    cmd->add_option("--timeout", l.timeoutS, "deadline of each collection, seconds (default 60)")
        ->type_name("S")
        ->check(CLI::PositiveNumber);
    addRunnerFlag(*cmd, l);
    cmd->add_option("--json", l.jsonOut, "write the lowerscope.profile/1 document to OUT ('-' = stdout)")
        ->type_name("OUT");
    l.timeoutS = 60; // a kernel collection replays the launch once per pass
    cmd->callback([cmd, a, &exitCode] {
        if (!a->project.empty() && !applyProjectFlag(*cmd, a->project, a->file, a->options, "lowerscope-cli profile")) {
            exitCode = kUsage;
            return;
        }
        exitCode = runProfile(*a);
    });
}

} // namespace lowerscope::cli
