// `lowerscope-cli experiment FILE --vary SPEC -o OUT` (issue 15): a parameter series. Each value of
// the varied parameter is one build (define, build option) or one launch (argument, dimension) of
// the same kernel; all points are measured in one interleaved run (core/experiment/series_job.h runs
// them, with the CLI's flag language and launch resolution as hooks), and OUT.series.json, OUT.md
// (table, chart, how to reproduce) and OUT.svg are written.
#include "app/cli/build_flags.h"
#include "app/cli/compare_run.h"
#include "core/analysis/diff.h"
#include "core/build/build_options.h"
#include "core/experiment/series.h"
#include "core/experiment/series_job.h"
#include "core/build/lifetime.h"
#include "core/untrusted.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>

namespace lowerscope::cli {

namespace {

constexpr int kOk = 0, kUsage = 2;

} // namespace

bool writeText(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    return static_cast<bool>(f);
}

std::string launchReproduceFlags(const CompareArgs& a) {
    std::string command;
    if (!a.launch.kernel.empty()) command += " --kernel " + shellQuote({a.launch.kernel});
    if (!a.optsA.empty()) command += " --a " + shellQuote({a.optsA});
    // Everything that shapes the launch, so the command reproduces it (e.g. a blocked input pattern).
    for (const auto& arg : a.launch.args) command += " --arg " + shellQuote({arg});
    if (!a.launch.grid.empty()) command += " --grid " + shellQuote({a.launch.grid});
    if (!a.launch.block.empty()) command += " --block " + shellQuote({a.launch.block});
    if (!a.launch.shared.empty()) command += " --shared " + shellQuote({a.launch.shared});
    for (const auto& let : a.launch.lets) command += " --let " + shellQuote({let});
    if (!a.launch.clusterDims.empty()) command += " --cluster-dims " + shellQuote({a.launch.clusterDims});
    if (a.launch.mode != "auto") command += " --mode " + shellQuote({a.launch.mode});
    return command;
}

int experimentExitCode(const std::function<int()>& body) {
    try {
        return body();
    } catch (const CliFailure& f) {
        std::cerr << "lowerscope-cli experiment: " << f.message << '\n';
        return f.code;
    } catch (const MeasurementError& e) {
        std::cerr << "lowerscope-cli experiment: " << e.what() << '\n';
        return kUsage;
    }
}

namespace {

// The reproduce command of a series (the output's own name only: the folder is wherever the reader
// wants it, no paths of this machine).
std::string seriesCommand(const CompareArgs& a, const std::string& vary, const std::string& out) {
    std::string command = "lowerscope-cli experiment " + shellQuote({a.file}) + " --vary " + shellQuote({vary});
    command += launchReproduceFlags(a);
    if (a.launch.profile) command += " --profile --profile-metrics " + shellQuote({a.launch.profileCollect});
    command += " -o " + shellQuote({std::filesystem::path(out).filename().string()});
    return command;
}

// Writes OUT.series.json, OUT.md and OUT.svg and prints the points.
void writeSeriesFiles(const nlohmann::json& doc, const std::string& out, const std::string& title,
                      const std::string& hypothesis, const std::string& command, double pricePerHour,
                      double launchesPerRequest) {
    const std::string svgName = std::filesystem::path(out).filename().string() + ".svg";
    if (!writeText(out + ".series.json", doc.dump(1) + "\n") || !writeText(out + ".svg", seriesSvg(doc)) ||
        !writeText(out + ".md", seriesMarkdown(doc, title, hypothesis, svgName, command, pricePerHour,
                                               launchesPerRequest)))
        throw CliFailure{kUsage, "cannot write " + out + ".series.json / .md / .svg"};
    for (const auto& p : doc["points"]) {
        std::printf("%-24s median %-12s [%s, %s]", escapeControl(p["label"].get<std::string>()).c_str(),
                    formatDuration(p["median_ms"].get<double>()).c_str(),
                    formatDuration(p["ci_low_ms"].get<double>()).c_str(),
                    formatDuration(p["ci_high_ms"].get<double>()).c_str());
        if (p.contains("ratio_ci_low"))
            std::printf("  x%.3f of the first [%.3f, %.3f]%s", p["ratio_to_first"].get<double>(),
                        p["ratio_ci_low"].get<double>(), p["ratio_ci_high"].get<double>(),
                        p["significant"].get<bool>() ? "" : " (not significant)");
        if (p["registers"].is_number()) std::printf("  %d regs", p["registers"].get<int>());
        std::printf("\n");
    }
    std::printf("wrote %s.series.json, %s.md, %s.svg\n", out.c_str(), out.c_str(), out.c_str());
}

// experiment --vary --cluster slurm: the whole series is one request per group (GPU type ×
// repetition), so its points are always measured interleaved on one GPU. One group writes what a
// local run writes. Several: OUT.LABEL.series.json / .md / .svg per group that landed, OUT.md with
// the groups side by side (device, clocks, driver, node; the median of every point per group) and
// OUT.svg with every group on one chart. A failed group is reported (stderr, OUT.md) and the others
// still land; the exit code is then 1.
int seriesOnCluster(const CompareArgs& a, const SeriesSpec& spec, SeriesJobHooks hooks, const std::string& out,
                    const std::string& title, const std::string& hypothesis, const std::string& command,
                    double pricePerHour, double launchesPerRequest) {
    if (a.launch.profile) throw CliFailure{kUsage, "--cluster does not take --profile (yet)"};
    const std::vector<ClusterGroup> groups = clusterGroups(a.launch.cluster);
    const std::string stateDir = clusterStateDir(a.launch.cluster, out);
    std::vector<ClusterRecord> recs;
    bool measured = false;
    size_t current = 0;
    // Every group's document is made from the same builds: each point is built once.
    std::vector<std::optional<BuiltLaunch>> built(spec.values.size());
    hooks.build = [&built, build = hooks.build](size_t i, const BuildOptions& o, const std::string& label) {
        if (!built.at(i)) built[i] = build(i, o, label);
        return *built[i];
    };
    hooks.measure = [&](const std::vector<PreparedSide>& sides) {
        if (!measured) {
            recs = measureOnCluster(sides, a.launch, stateDir);
            measured = true;
        }
        return recs.at(current).record;
    };
    std::vector<nlohmann::json> docs(groups.size());
    const std::string fileName = std::filesystem::path(a.file).filename().string();
    for (current = 0; current < groups.size(); ++current) {
        try {
            docs[current] = runSeriesJob(spec, fileName, hooks);
        } catch (const LaunchBuildError& e) {
            if (!measured) throw CliFailure{e.code, e.what()}; // a build failed: nothing was measured
            if (interruptSignal()) throw CliFailure{130, "interrupted; the cluster jobs were cancelled (scancel)"};
            std::cerr << "lowerscope-cli experiment: group " << (groups[current].label.empty() ? "all" : groups[current].label)
                      << " failed on the cluster: " << e.what() << '\n';
        }
    }
    if (groups.size() == 1) {
        if (docs[0].is_null()) return 1;
        writeSeriesFiles(docs[0], out, title, hypothesis, command, pricePerHour, launchesPerRequest);
        return kOk;
    }
    std::vector<std::pair<std::string, nlohmann::json>> lines;
    std::vector<std::string> rowNames;
    std::vector<std::vector<std::string>> rows(spec.values.size());
    for (size_t i = 0; i < spec.values.size(); ++i) rowNames.push_back(seriesPointLabel(spec, i) + " median");
    bool allLanded = true;
    for (size_t g = 0; g < groups.size(); ++g) {
        for (size_t i = 0; i < spec.values.size(); ++i) {
            const nlohmann::json& d = docs[g];
            rows[i].push_back(d.is_object() && i < d["points"].size()
                                  ? formatDuration(d["points"][i]["median_ms"].get<double>())
                                  : "");
        }
        if (docs[g].is_null()) {
            allLanded = false;
            continue;
        }
        std::printf("== %s\n", groups[g].label.c_str());
        writeSeriesFiles(docs[g], out + "." + groups[g].label, title, hypothesis, command, pricePerHour,
                         launchesPerRequest);
        lines.emplace_back(groups[g].label, docs[g]);
    }
    std::string md = "# " + (title.empty() ? "Series " + escapeControl(spec.name) + " on " +
                                                  std::to_string(groups.size()) + " cluster groups"
                                            : title) +
                     "\n\n";
    if (!hypothesis.empty()) md += "**Hypothesis.** " + hypothesis + "\n\n";
    md += "Each column is one group (GPU type × repetition): the whole series measured interleaved in one "
          "request on one GPU, so the points of a column are comparable with each other; columns come from "
          "different GPUs. Each group's own report: `" +
          std::filesystem::path(out).filename().string() + ".GROUP.md`.\n\n";
    md += clusterColumnsMarkdown(recs, rowNames, rows);
    const std::string svgName = std::filesystem::path(out).filename().string() + ".svg";
    if (!lines.empty()) md += "\n![every group](" + svgName + ")\n";
    md += "\nReproduce: `" + command + " --cluster slurm" +
          (a.launch.cluster.on.empty() ? "" : " --on " + shellQuote({a.launch.cluster.on})) +
          (a.launch.cluster.repeat > 1 ? " --repeat " + std::to_string(a.launch.cluster.repeat) : "") + "`\n";
    if (!writeText(out + ".md", md) ||
        (!lines.empty() && !writeText(out + ".svg", seriesOverlaySvg(lines, "median per point, per group", false))))
        throw CliFailure{kUsage, "cannot write " + out + ".md / .svg"};
    std::printf("wrote %s.md%s (the groups side by side)\n", out.c_str(), lines.empty() ? "" : (", " + out + ".svg").c_str());
    return allLanded ? kOk : 1;
}

} // namespace

int runSeries(const CompareArgs& a, const std::string& vary, const std::string& out, const std::string& title,
              const std::string& hypothesis, double pricePerHour, double launchesPerRequest) {
    return experimentExitCode([&] {
        SeriesSpec spec;
        try {
            spec = parseSeriesSpec(vary);
        } catch (const std::invalid_argument& e) {
            throw CliFailure{kUsage, std::string("--vary: ") + e.what()};
        }
        if (a.file.empty()) throw CliFailure{kUsage, "give FILE.cu to measure"};
        if (!a.fileB.empty() || !a.optsB.empty() || !a.kernelB.empty())
            throw CliFailure{kUsage,
                             "--vary measures one kernel over a list of values: --b, --file-b and --kernel-b "
                             "do not apply"};
        std::optional<BuildOptions> base;
        if (!a.project.empty()) base = projectOptions(a.project, a.file).options;
        Toolchain tc = discoverToolchain();
        ProfileCollectOptions profileOptions;
        if (a.launch.profile) {
            std::string error;
            if (!parseProfileCollections(a.launch.profileCollect, profileOptions.collections, error))
                throw CliFailure{kUsage, "--profile-metrics: " + error};
        }
        std::unique_ptr<ProcessRunner> runner;
        SeriesJobHooks hooks;
        hooks.options = [&](size_t i) {
            std::string opts = a.optsA;
            for (const auto& w : seriesBuildWords(spec, i)) opts += " " + w;
            try {
                return parseBuildOptionString(opts, base ? &*base : nullptr);
            } catch (const std::exception& e) {
                throw CliFailure{kUsage, "--vary " + seriesPointLabel(spec, i) + ": " + e.what()};
            }
        };
        hooks.build = [&](size_t i, const BuildOptions& o, const std::string& label) {
            LaunchArgs l = a.launch;
            if (spec.kind == SeriesKind::LaunchArg) l.args.push_back(spec.name + "=" + spec.values[i]);
            if (spec.kind == SeriesKind::Grid) l.grid = spec.values[i];
            if (spec.kind == SeriesKind::Block) l.block = spec.values[i];
            return buildLaunch(tc, a.file, o, a.launch.kernel, l, label);
        };
        hooks.measure = [&](const std::vector<PreparedSide>& sides) {
            runner = makeRunner(a.launch);
            return measureSides(*runner, sides, a.launch);
        };
        // --profile: after the timing (counters never disturb it), one profiled launch per point.
        if (a.launch.profile) {
            hooks.profile = [&](size_t i, const BuiltLaunch& b, const BuildOptions& o) {
                ProfileSide side = profileSide(b, a.file, o);
                ProfileCollectResult r = collectProfile(*runner, side.target, profileOptions);
                for (const auto& e : r.errors)
                    std::cerr << "lowerscope-cli experiment: profile " << seriesPointLabel(spec, i) << ": "
                              << escapeControl(e) << '\n';
                return std::move(r.document);
            };
        }
        const std::string command = seriesCommand(a, vary, out);
        if (!a.launch.cluster.cluster.empty()) return seriesOnCluster(a, spec, hooks, out, title, hypothesis, command,
                                                                      pricePerHour, launchesPerRequest);
        nlohmann::json doc;
        try {
            doc = runSeriesJob(spec, std::filesystem::path(a.file).filename().string(), hooks);
        } catch (const LaunchBuildError& e) {
            throw CliFailure{e.code, e.what()};
        }
        writeSeriesFiles(doc, out, title, hypothesis, command, pricePerHour, launchesPerRequest);
        return kOk;
    });
}

} // namespace lowerscope::cli
