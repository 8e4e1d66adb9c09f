// `lowerscope-cli experiment`: one A/B experiment end to end. Runs the interleaved comparison of
// `compare` (or reads a compare document saved earlier, --from-json), records it with both build
// configurations, the launch and the experiment card in a `.lowerscope` session, and writes the
// Markdown report of core/experiment/report.h next to it (with the aligned SASS diff when nvcc is available).
#include "app/cli/build_flags.h"
#include "app/cli/commands.h"
#include "app/cli/compare_run.h"

#include "core/analysis/liveness.h"
#include "core/bounded_json.h"
#include "core/build/build.h"
#include "core/build/option_safety.h"
#include "core/experiment/report.h"
#include "core/run/measurement.h"
#include "core/untrusted.h"
#include "core/run/stats.h"
#include "core/parse/sass_parser.h"
#include "core/experiment/experiment_session.h"
#include "core/build/toolchain.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace lowerscope::cli {

namespace {

using nlohmann::json;

constexpr int kOk = 0, kUsage = 2;

struct ExperimentArgs {
    CompareArgs compare;
    std::string fromJson;
    std::string out;
    std::string title;
    std::string cardFile;
    std::string hypothesis, implementation, interpretation;
    bool noDiff = false;
    bool trust = false;
    std::string vary; // --vary: a parameter series instead of A/B
    GraphPathFlags graphPath; // --graph-break-even, --replays, --graph-max-time: experiment 4 instead of A/B
    double pricePerHour = 2.50;     // --price-per-hour: for the report's cost section
    double launchesPerRequest = 1;  // --launches-per-request
};

std::optional<std::string> readText(const std::string& path) {
    std::string text, error;
    if (!readFileBounded(path, text, error)) {
        return std::nullopt;
    }
    return text;
}

// A JSON document the user named (card, compare document): bounded in size and depth
// (core/bounded_json.h); the message names the limit that was passed.
json readJsonFile(const std::string& path, const char* what) {
    std::string error;
    auto j = readJsonFileBounded(path, error);
    if (!j) {
        throw CliFailure{kUsage, "cannot read " + std::string(what) + " " + error};
    }
    if (!j->is_object()) {
        throw CliFailure{kUsage, path + " is not a JSON object"};
    }
    return std::move(*j);
}

// A source file named inside the compare document: it must lie in the current directory or the
// document's folder (core/untrusted.h), so a document cannot make this command read (and copy
// into the session) a file elsewhere.
std::string documentSource(const std::string& name, const std::string& documentPath, const std::string& key) {
    const std::string docDir = std::filesystem::path(documentPath).parent_path().string();
    std::string resolved, error;
    if (!resolveDocumentPath(name, {".", docDir.empty() ? "." : docDir}, documentPath + ": " + key, resolved,
                             error)) {
        throw CliFailure{kUsage, error};
    }
    // Keep the name as the document wrote it when it is relative and found from here: the session
    // records names relative to where the command runs.
    return name.front() != '/' && std::filesystem::exists(name) ? name : resolved;
}

// "ffma_dependent(float*, int, float, float)" → "ffma_dependent" (the sidecar's name).
std::string baseName(const std::string& kernel) { return kernel.substr(0, kernel.find('(')); }

// The launch of a compare document read back (--from-json): the sidecar entry of A's kernel when
// there is one (the expressions, as the comparison resolved them unless flags overrode them), else
// the resolved numbers recorded in the document.
SessionLaunch launchFromRecord(const LaunchRecord& launch, const std::string& file, const std::string& kernel) {
    const std::string sidecar = sidecarPathFor(file);
    if (std::filesystem::exists(sidecar)) {
        try {
            for (const auto& s : loadSidecar(sidecar)) {
                if (s.kernel == kernel) {
                    return sessionLaunchFrom(s);
                }
            }
        } catch (const ArgSpecError& e) {
            std::cerr << "warning: " << e.what() << " (taking the launch from the document)\n";
        }
    }
    SessionLaunch l;
    l.grid.clear();
    l.block.clear();
    for (uint32_t v : launch.grid) {
        l.grid.push_back(std::to_string(v));
    }
    for (uint32_t v : launch.block) {
        l.block.push_back(std::to_string(v));
    }
    l.sharedBytes = std::to_string(launch.sharedBytes);
    for (const RecordedArg& a : launch.args) {
        l.args.push_back(a.name + "=" + a.value);
    }
    return l;
}

BuildConfig sideConfig(const std::string& label, const std::string& kernel, const std::string& optionString,
                       const std::string& file, const std::string& sessionFile) {
    BuildConfig c = BuildConfig::named(label);
    c.kernel = kernel;
    try {
        c.options = parseBuildOptionString(optionString);
    } catch (const std::invalid_argument& e) {
        throw CliFailure{kUsage, "build options of " + label + " (\"" + optionString + "\"): " + e.what()};
    }
    if (file != sessionFile) {
        c.ownSource = true;
        c.source.name = file;
        auto text = readText(file);
        if (!text) {
            throw CliFailure{kUsage, "cannot read " + file + " (the source of " + label + ")"};
        }
        c.source.text = *text;
    }
    return c;
}

std::string fmtNum(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// The card's "measurement": how the numbers were taken, from the document itself.
std::string measurementText(const MeasurementRecord& rec) {
    const VariantResult& a = rec.result.variants.at(0);
    const VariantResult& b = rec.result.variants.at(1);
    const DeviceInfo& d = rec.result.device;
    const RatioStats ratio = compareSamples(a.samplesMs, b.samplesMs);
    std::string text = "Interleaved A/B timing through lowerscope-runner (`lowerscope-cli experiment`, the "
                       "`compare` path): A and B alternate A B, B A, ... so neither always runs second; " +
                       (d.name.empty() ? std::string("unnamed device") : d.name) + " (compute capability " +
                       std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor) + ", " +
                       std::to_string(d.smCount) + " SMs), " + (a.mode.empty() ? std::string("?") : a.mode) + " mode";
    if (a.mode == "cold") {
        text += " (L2 flushed by a read pass before every sample, one launch per sample, events behind a spin gate)";
    } else if (a.mode == "hot") {
        text += " (CUDA graph of " + std::to_string(a.launchesPerSample) + " launches per sample)";
    }
    text += "; " + std::to_string(a.samplesMs.size()) + " samples of A and " + std::to_string(b.samplesMs.size()) +
            " of B (" + std::to_string(ratio.pairs) + " pairs; stop: " +
            (a.stopReason.empty() ? std::string("?") : a.stopReason) + "), mean SM clock " +
            fmtNum("%.0f", meanClockMhz(rec, 0)) + " / " + fmtNum("%.0f", meanClockMhz(rec, 1)) + " MHz, " +
            std::to_string(a.throttledSamples + b.throttledSamples) +
            " throttled samples discarded. Outputs compared element-wise with atol " + fmtNum("%.1g", rec.atol) +
            " + rtol " + fmtNum("%.1g", rec.rtol) + " × |A|.";
    return text;
}

// The card's "result": the numbers and the verdict.
std::string resultText(const MeasurementRecord& rec) {
    const VariantResult& a = rec.result.variants.at(0);
    const VariantResult& b = rec.result.variants.at(1);
    const TimingVerdict v = timingVerdict(rec.result);
    const RatioStats r = compareSamples(a.samplesMs, b.samplesMs);
    const SampleStats sa = computeStats(a.samplesMs), sb = computeStats(b.samplesMs);
    const std::string verdict = !r.significant ? "no significant difference" : r.ratio < 1 ? "B is faster" : "A is faster";
    std::string text = "Median A " + formatDuration(sa.median) + ", B " + formatDuration(sb.median) + "; B/A = " +
                       fmtNum("%.4f", r.ratio) + " (95 % CI " + fmtNum("%.4f", r.ciLow) + "–" +
                       fmtNum("%.4f", r.ciHigh) + "), verdict: " + verdict + ".";
    if (v.valid) {
        text += " " + v.sentence + ".";
    }
    const double clockA = meanClockMhz(rec, 0), clockB = meanClockMhz(rec, 1);
    const double cyclesA = sa.median * 1e-3 * clockA * 1e6, cyclesB = sb.median * 1e-3 * clockB * 1e6;
    if (cyclesA > 0 && cyclesB > 0) {
        text += " That is " + fmtNum("%.0f", cyclesA) + " vs " + fmtNum("%.0f", cyclesB) + " SM cycles.";
    }
    auto rate = [](const std::optional<double>& work, const SampleStats& st) {
        return work && st.median > 0 ? *work / (st.median * 1e-3) / 1e9 : 0.0;
    };
    const LaunchRecord& la = rec.launches.at(0);
    const LaunchRecord& lb = rec.launches.at(1);
    if (rate(la.flops, sa) > 0 && rate(lb.flops, sb) > 0) {
        text += " " + fmtNum("%.0f", rate(la.flops, sa)) + " vs " + fmtNum("%.0f", rate(lb.flops, sb)) +
                " GFLOP/s (declared FLOPs).";
    }
    if (rate(la.bytes, sa) > 0 && rate(lb.bytes, sb) > 0) {
        text += " " + fmtNum("%.0f", rate(la.bytes, sa)) + " vs " + fmtNum("%.0f", rate(lb.bytes, sb)) +
                " GB/s (declared bytes).";
    }
    bool agree = !rec.result.agreement.empty();
    for (const OutputAgreement& g : rec.result.agreement) {
        agree = agree && g.agree;
    }
    text += std::string(" Outputs ") + (agree ? "agree" : "do not agree") + " within tolerance";
    for (const OutputAgreement& g : rec.result.agreement) {
        text += "; " + g.name + ": max abs error " + fmtNum("%.3g", g.maxAbsError) + ", max rel error " +
                fmtNum("%.3g", g.maxRelError) + ", " + std::to_string(g.mismatches) + " of " +
                std::to_string(g.count) + " elements beyond tolerance";
    }
    return text + ".";
}

// `path` relative to the current directory when it is absolute and lies below it; else unchanged.
std::string relativeToHere(const std::string& path) {
    if (path.empty() || path.front() != '/') {
        return path;
    }
    std::error_code ec;
    const std::filesystem::path here = std::filesystem::current_path(ec);
    if (ec) {
        return path;
    }
    const std::filesystem::path rel = std::filesystem::path(path).lexically_relative(here);
    if (rel.empty() || *rel.begin() == "..") {
        return path;
    }
    return rel.generic_string();
}

// The SASS of one side, rebuilt here (the cache makes this cheap after the comparison built it).
struct SideSass {
    SassListing listing;
    const SassFunction* function = nullptr;
    Resources resources;
};

std::optional<SideSass> sassOf(const Toolchain& tc, const std::string& file, const BuildOptions& options,
                               const std::string& kernel) {
    BuildResult r = buildFile(tc, file, options);
    if (!r.ok) {
        std::cerr << "warning: rebuilding " << file << " for the SASS diff failed"
                  << (r.error.empty() ? "" : ": " + r.error) << " (the report leaves the diff out)\n";
        return std::nullopt;
    }
    for (const auto& k : r.kernels) {
        if (k.mangled == kernel || k.name == kernel || baseName(k.name) == kernel) {
            SideSass s;
            s.listing = parseSassTexts(k.sass, k.sassPtxLines, {});
            analyseLiveness(s.listing); // the SASS diff shows live registers per line
            // nvcc records the absolute source path in the line info; the report names files as
            // the session does (relative to where the command runs), not this machine's paths.
            for (auto& f : s.listing.functions) {
                for (auto& ins : f.instructions) {
                    ins.source.file = relativeToHere(ins.source.file);
                    for (auto& frame : ins.source.inlinedAt) {
                        frame.file = relativeToHere(frame.file);
                    }
                }
            }
            s.resources = k.resources;
            for (const auto& f : s.listing.functions) {
                if (f.name == k.mangled) {
                    s.function = &f;
                }
            }
            if (!s.function && !s.listing.functions.empty()) {
                s.function = &s.listing.functions.front();
            }
            if (s.function) {
                return s;
            }
        }
    }
    std::cerr << "warning: no SASS for kernel " << kernel << " in " << file << " (the report leaves the diff out)\n";
    return std::nullopt;
}

int runExperiment(const ExperimentArgs& a) {
    const char* const prefix = "lowerscope-cli experiment: ";
    try {
        if (a.out.empty()) {
            throw CliFailure{kUsage, "give --out OUT (writes OUT.lowerscope and OUT.md)"};
        }
        // The card text first: a bad card file should fail before minutes of measuring.
        ExperimentCard card;
        if (!a.cardFile.empty()) {
            try {
                // Only the text: measurement and result are written from the numbers below.
                const ExperimentCard c = cardFromJson(readJsonFile(a.cardFile, "card file"));
                card.hypothesis = c.hypothesis;
                card.implementation = c.implementation;
                card.interpretation = c.interpretation;
            } catch (const SessionError& e) {
                throw CliFailure{kUsage, a.cardFile + ": " + e.what()};
            }
        }
        if (!a.hypothesis.empty()) card.hypothesis = a.hypothesis;
        if (!a.implementation.empty()) card.implementation = a.implementation;
        if (!a.interpretation.empty()) card.interpretation = a.interpretation;

        json doc;
        std::optional<LaunchSpec> specA;
        if (!a.fromJson.empty()) {
            doc = readJsonFile(a.fromJson, "compare document");
            if (doc.value("schema", std::string()) != "lowerscope.compare/1") {
                throw CliFailure{kUsage, a.fromJson + " is not a lowerscope.compare/1 document (from `compare --json`)"};
            }
        } else {
            if (a.compare.file.empty()) {
                throw CliFailure{kUsage, "give FILE.cu to measure, or --from-json COMPARE.json"};
            }
            CompareRun run = runCompareDocument(a.compare);
            doc = std::move(run.doc);
            specA = run.specA;
            printCompareSummary(doc);
        }
        MeasurementRecord rec;
        try {
            rec = readMeasurement(doc);
        } catch (const MeasurementError& e) {
            throw CliFailure{kUsage, std::string("unreadable compare document: ") + e.what()};
        }
        if (rec.error || rec.result.variants.size() != 2 || rec.launches.size() != 2) {
            throw CliFailure{kUsage, "the compare document does not hold a measured A and B"};
        }
        if (!rec.optionsA || !rec.optionsB) {
            throw CliFailure{kUsage, "the compare document does not say how A and B were built (build_options_a/b)"};
        }
        auto need = [](const std::string& value, const char* what) {
            if (value.empty()) {
                throw CliFailure{kUsage, std::string("the compare document does not name ") + what};
            }
            return value;
        };
        std::string fileA = need(rec.launches[0].file, "A's source file (a.file)");
        std::string fileB = need(rec.launches[1].file, "B's source file (b.file)");
        if (!a.fromJson.empty()) {
            fileA = documentSource(fileA, a.fromJson, "a.file");
            fileB = documentSource(fileB, a.fromJson, "b.file");
        }
        const std::string kernelA = baseName(need(rec.launches[0].kernelName, "A's kernel (a.kernel)"));
        const std::string kernelB = baseName(need(rec.launches[1].kernelName, "B's kernel (b.kernel)"));
        const std::string optsA = *rec.optionsA;
        const std::string optsB = *rec.optionsB;

        ExperimentSession s;
        s.source.name = fileA;
        if (auto text = readText(fileA)) {
            s.source.text = *text;
        } else {
            throw CliFailure{kUsage, "cannot read " + fileA + " (paths in the document are relative to where "
                                     "compare ran; run from there)"};
        }
        s.a = sideConfig("A", kernelA, optsA, fileA, fileA);
        s.b = sideConfig("B", kernelB, optsB, fileB, fileA);
        s.hasB = true;
        s.launch = specA ? sessionLaunchFrom(*specA) : launchFromRecord(rec.launches[0], fileA, kernelA);
        s.title = !a.title.empty() ? a.title
                  : kernelA != kernelB ? kernelA + " vs " + kernelB
                                       : kernelA + ": " + (optsA.empty() ? std::string("defaults") : optsA) +
                                             " vs " + (optsB.empty() ? std::string("defaults") : optsB);
        s.measurements.push_back(doc);
        s.card = card;
        s.card.measurement = measurementText(rec);
        s.card.result = resultText(rec);

        const std::string sessionPath = a.out + ".lowerscope";
        const std::string reportPath = a.out + ".md";
        saveSession(s, sessionPath);
        // Read back what was written: the report is rendered from the saved session.
        const ExperimentSession saved = loadSession(sessionPath);

        ReportInputs in;
        in.pricePerGpuHour = a.pricePerHour;
        in.launchesPerRequest = a.launchesPerRequest;
        in.session = &saved;
        in.diffOptions.naming = RegisterNaming::PerAnchor;  // robust when B is more than a renaming (diff.h)
        const LaunchRecord& la = rec.launches[0];
        in.blockThreads = static_cast<int>(la.block[0] * la.block[1] * la.block[2]);
        in.dynamicSharedBytes = static_cast<int>(la.sharedBytes);
        std::optional<SideSass> sassA, sassB;
        bool rebuild = !a.noDiff;
        if (rebuild && !a.fromJson.empty() && !a.trust) {
            // Options read from a document pass through the trust policy before anything is built.
            std::vector<TrustItem> items = optionTrustItems(saved.a.options, "A");
            for (auto& t : optionTrustItems(saved.b.options, "B")) items.push_back(std::move(t));
            if (!items.empty()) {
                std::cerr << "warning: not rebuilding for the SASS diff: " << a.fromJson
                          << " carries build settings that need your consent (pass --trust to build them):\n";
                for (const auto& t : items) {
                    std::cerr << "  " << t.side << ": " << t.setting << " " << escapeControl(t.value) << '\n';
                }
                rebuild = false;
            }
        }
        if (rebuild) {
            Toolchain tc = discoverToolchain();
            sassA = sassOf(tc, fileA, saved.a.options, kernelA);
            sassB = sassA ? sassOf(tc, fileB, saved.b.options, kernelB) : std::nullopt;
        }
        if (sassA && sassB) {
            in.sassA = sassA->function;
            in.sassB = sassB->function;
            in.resourcesA = sassA->resources;
            in.resourcesB = sassB->resources;
        }
        std::string md = renderMarkdownReport(in);
        {
            std::ofstream out(reportPath, std::ios::binary | std::ios::trunc);
            out << md;
            out.flush();
            if (!out) {
                throw CliFailure{kUsage, "cannot write " + reportPath};
            }
        }
        std::printf("%s\nsession: %s\nreport:  %s%s\n", s.card.result.c_str(), sessionPath.c_str(),
                    reportPath.c_str(), in.sassA ? "" : " (without the SASS diff)");
        return kOk;
    } catch (const CliFailure& f) {
        std::cerr << prefix << f.message << '\n';
        return f.code;
    } catch (const SessionError& e) {
        std::cerr << prefix << e.what() << '\n';
        return kUsage;
    } catch (const std::exception& e) {
        // A malformed document that passed the checks above: still a clear message, not a crash.
        std::cerr << prefix << "unreadable compare document: " << e.what() << '\n';
        return kUsage;
    }
}

} // namespace

void registerExperimentCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<ExperimentArgs>();
    CLI::App* cmd = app.add_subcommand(
        "experiment",
        "Run an A/B experiment (the interleaved comparison of `compare`) and record it: OUT.lowerscope (session with "
        "both builds, the launch, the measurement and the experiment card) and OUT.md (the Markdown report with the "
        "aligned SASS diff). The card's measurement and result are written from the numbers. With --from-json, "
        "the session and report are made from a compare document saved earlier (no GPU needed).\n"
        "Exit: 0 recorded, 1 build error or kernel fault/timeout, 2 usage error, missing tool or no GPU.");
    CompareArgs& c = args->compare;
    addCompareSideFlags(*cmd, c, false);
    addLaunchFlagsTo(*cmd, c.launch, true);
    addClusterFlags(*cmd, c.launch.cluster);
    cmd->add_option("--out,-o", args->out, "write OUT.lowerscope and OUT.md")->required()->type_name("OUT");
    cmd->add_option("--from-json", args->fromJson, "make the session and report from this compare document "
                                                   "instead of measuring")
        ->type_name("COMPARE.json");
    cmd->add_option("--title", args->title, "report title (default: the kernels or the option strings)");
    cmd->add_option("--card", args->cardFile, "experiment card: JSON with hypothesis/implementation/interpretation "
                                              "(or a .lowerscope session, whose card is used)")
        ->type_name("FILE.json");
    cmd->add_option("--hypothesis", args->hypothesis, "what you expect and why (overrides --card)");
    cmd->add_option("--implementation", args->implementation, "what A and B are (overrides --card)");
    cmd->add_option("--interpretation", args->interpretation, "what the numbers mean (overrides --card)");
    cmd->add_flag("--no-diff", args->noDiff, "do not rebuild for the SASS diff");
    cmd->add_flag("--trust", args->trust, "with --from-json: build the document's defines, include dirs and extra "
                                          "flags for the SASS diff (without it such settings are listed and the "
                                          "diff is left out); values nvcc's shell would interpret are refused "
                                          "either way");
    cmd->add_option("--vary", args->vary,
                    "a parameter series instead of A/B: one build or launch per value, all measured interleaved in "
                    "one run; writes OUT.series.json, OUT.md and OUT.svg. SPEC: -D NAME=v1,v2,... | "
                    "--maxrregcount=32,64 (any build option, FLAG=v1,v2; a flag without a value: --fast-math=off,on) | --arg NAME=v1,v2 | --grid=a;b | --block=a;b")
        ->type_name("SPEC");
    cmd->add_option(
           "--graph-break-even", args->graphPath.lengths,
           "experiment 4 instead of A/B: a path of N launches of the kernel from the stream against the "
           "same path as a CUDA graph (capture + instantiate + upload + R replays), for each N of the "
           "list; predicted and measured break-even R; writes OUT.graph.json, OUT.md and OUT.svg")
        ->type_name("N1,N2,...");
    cmd->add_option("--replays", args->graphPath.replays,
                    "with --graph-break-even: the replay counts R, increasing (default "
                    "1,2,3,4,6,8,12,16,24,32,64,128,256,512,1024)")
        ->type_name("R1,R2,...");
    auto* graphTime =
        cmd->add_option("--graph-max-time", args->graphPath.maxTimeS,
                        "with --graph-break-even: wall limit of the graph-path measurement in seconds "
                        "(default 120); past it the runner stops and the report says where")
            ->check(CLI::Range(0.001, 3600.0))
            ->type_name("S");
    cmd->add_option("--price-per-hour", args->pricePerHour,
                    "price of one GPU-hour for the report's cost section (any currency; default 2.50)")
        ->check(CLI::NonNegativeNumber)
        ->type_name("PRICE");
    cmd->add_option("--launches-per-request", args->launchesPerRequest,
                    "launches of this kernel per request of your workload, for the cost per million requests "
                    "(default 1)")
        ->check(CLI::PositiveNumber)
        ->type_name("N");
    cmd->callback([args, graphTime, &exitCode] {
        if (!args->compare.launch.cluster.cluster.empty() && args->vary.empty()) {
            std::cerr << "lowerscope-cli experiment: --cluster measures a series (--vary); for A/B on a cluster use "
                         "`compare --cluster slurm`\n";
            exitCode = kUsage;
            return;
        }
        if (!args->graphPath.lengths.empty() || !args->graphPath.replays.empty() || graphTime->count() > 0) {
            const char* clash = !args->vary.empty()       ? "--vary"
                                : !args->fromJson.empty() ? "--from-json"
                                                          : nullptr;
            if (clash) {
                std::cerr << "lowerscope-cli experiment: --graph-break-even and " << clash
                          << " do not go together\n";
                exitCode = kUsage;
            } else if (args->graphPath.lengths.empty()) {
                std::cerr
                    << "lowerscope-cli experiment: --replays and --graph-max-time need --graph-break-even "
                       "N1,N2,...\n";
                exitCode = kUsage;
            } else {
                exitCode = runGraphBreakEven(args->compare, args->graphPath, args->out, args->title,
                                             args->hypothesis, args->pricePerHour, args->launchesPerRequest);
            }
            return;
        }
        exitCode = args->vary.empty() ? runExperiment(*args)
                                      : runSeries(args->compare, args->vary, args->out, args->title, args->hypothesis,
                                                  args->pricePerHour, args->launchesPerRequest);
    });
}

} // namespace lowerscope::cli
