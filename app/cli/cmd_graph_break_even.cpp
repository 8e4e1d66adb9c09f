// `lowerscope-cli experiment FILE --graph-break-even 1,4,16,64 [--replays ...] -o OUT` (issue 15,
// experiment 4): the kernel timed as usual, then a path of N launches of it from the stream
// against the same path as a CUDA graph (app/runner/graph_path.h), for every N; writes
// OUT.graph.json (core/experiment/graph_break_even.h), OUT.md and OUT.svg.
#include "app/cli/build_flags.h"
#include "app/cli/compare_run.h"
#include "core/build/build_options.h"
#include "core/build/compile_db.h"
#include "core/experiment/graph_break_even_job.h"
#include "core/untrusted.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace lowerscope::cli {

namespace {

constexpr int kOk = 0, kUsage = 2;

// The request's graph path from the two lists; CliFailure (usage) naming the flag otherwise.
GraphPathOptions graphPathOptions(const std::string& lengths, const std::string& replays) {
    GraphPathOptions o;
    try {
        o.pathLengths = parseCountList(lengths, 4096);
    } catch (const std::invalid_argument& e) {
        throw CliFailure{kUsage, std::string("--graph-break-even: ") + e.what()};
    }
    try {
        o.replays = replays.empty() ? defaultGraphReplays() : parseCountList(replays, 100000);
    } catch (const std::invalid_argument& e) {
        throw CliFailure{kUsage, std::string("--replays: ") + e.what()};
    }
    const std::string problem = checkGraphPathOptions(o);
    if (!problem.empty()) {
        const bool lengthsWrong = problem.rfind("path_lengths", 0) == 0;
        throw CliFailure{kUsage, std::string(lengthsWrong ? "--graph-break-even: " : "--replays: ") +
                                     problem.substr(problem.find(": ") + 2)};
    }
    return o;
}

} // namespace

int runGraphBreakEven(const CompareArgs& a, const GraphPathFlags& flags, const std::string& out,
                      const std::string& title, const std::string& hypothesis, double pricePerHour,
                      double pathsPerRequest) {
    return experimentExitCode([&] {
        LaunchArgs launch = a.launch;
        const std::string& lengths = flags.lengths;
        const std::string& replays = flags.replays;
        launch.graphPath = graphPathOptions(lengths, replays);
        launch.graphPath->wallLimitS = flags.maxTimeS;
        if (!(flags.maxTimeS > 0 && flags.maxTimeS <= 3600))
            throw CliFailure{kUsage, "--graph-max-time: give seconds in (0, 3600]"};
        if (a.file.empty()) throw CliFailure{kUsage, "give FILE.cu to measure"};
        if (!a.fileB.empty() || !a.optsB.empty() || !a.kernelB.empty())
            throw CliFailure{
                kUsage, "--graph-break-even measures one kernel: --b, --file-b and --kernel-b do not apply"};
        if (launch.profile) throw CliFailure{kUsage, "--graph-break-even does not take --profile"};
        std::optional<BuildOptions> base;
        if (!a.project.empty()) base = projectOptions(a.project, a.file).options;
        BuildOptions o;
        try {
            o = parseBuildOptionString(a.optsA, base ? &*base : nullptr);
        } catch (const std::exception& e) {
            throw CliFailure{kUsage, std::string("--a: ") + e.what()};
        }
        BuiltLaunch b = buildLaunch(discoverToolchain(), a.file, o, launch.kernel, launch);
        auto runner = makeRunner(launch);
        MeasurementRecord rec = measureSides(*runner, {b.side}, launch);
        nlohmann::json doc;
        try {
            doc = graphBreakEvenOfRecord(std::filesystem::path(a.file).filename().string(), rec);
        } catch (const std::invalid_argument& e) {
            throw CliFailure{kUsage, e.what()};
        }
        std::string command = "lowerscope-cli experiment " + shellQuote({a.file}) + " --graph-break-even " +
                              shellQuote({lengths});
        if (!replays.empty()) command += " --replays " + shellQuote({replays});
        if (flags.maxTimeS != GraphPathFlags{}.maxTimeS)
            command += " --graph-max-time " + std::to_string(flags.maxTimeS);
        command += launchReproduceFlags(a);
        // The output's own name only: the folder is wherever the reader wants it.
        const std::string name = std::filesystem::path(out).filename().string();
        command += " -o " + shellQuote({name});
        if (!writeText(out + ".graph.json", doc.dump(1) + "\n") ||
            !writeText(out + ".svg", graphBreakEvenSvg(doc)) ||
            !writeText(out + ".md", graphBreakEvenMarkdown(doc, title, hypothesis, name + ".svg", command,
                                                           pricePerHour, pathsPerRequest)))
            throw CliFailure{kUsage, "cannot write " + out + ".graph.json / .md / .svg"};
        for (const auto& p : doc["paths"]) {
            char predicted[32] = "none", measured[48] = "not within the replays measured";
            if (p["predicted_break_even"].is_number())
                std::snprintf(predicted, sizeof predicted, "%.1f", p["predicted_break_even"].get<double>());
            if (p["measured_break_even"].is_number())
                std::snprintf(measured, sizeof measured, "%d", p["measured_break_even"].get<int>());
            std::printf(
                "N=%-5d fixed %-10s per path: stream %-10s graph %-10s predicted R* %-8s measured R* %s\n",
                p["path_length"].get<int>(), formatDuration(p["fixed_ms"].get<double>()).c_str(),
                formatDuration(p["stream_path_us"].get<double>() / 1000).c_str(),
                formatDuration(p["graph_path_us"].get<double>() / 1000).c_str(), predicted, measured);
        }
        if (!doc["note"].get<std::string>().empty())
            std::printf("note: %s\n", escapeControl(doc["note"].get<std::string>()).c_str());
        std::printf("wrote %s.graph.json, %s.md, %s.svg\n", out.c_str(), out.c_str(), out.c_str());
        return kOk;
    });
}

} // namespace lowerscope::cli
