// `lowerscope-cli advise` (issue 34): findings from a profile (core/advise/findings.h), the variants
// Lowerscope can build to test them (core/advise/variants.h) and, with --test, each variant built
// and measured against the original in one interleaved run through the compare path (buildLaunch +
// measureSides, outputs compared), judged against its prediction and recorded as an experiment
// session + report per suggestion, failures included (core/advise/advice_record.h).
//
//   lowerscope-cli advise FILE [--a OPTS] [--profile PROFILE.json | --static [--sms N]] [--json OUT]
//                         [--test --out DIR]
//
// Without --profile the profile is collected first (kernel metrics, instruction counts, stall
// samples), which needs a GPU. --static takes no profile: only the rules that read the build and
// the launch speak (occupancy, few warps, spills from ptxas, tail, math from the SASS rows), on an
// assumed SM count; no GPU is needed unless --test. --json writes "lowerscope.advice/1":
//   {"schema", "file", "kernel", "build_options", "profile": "collected" | "static" | path,
//    "findings": [Finding], "variants": [Variant], "tests": [test entries, with --test]}
// Exit: 0 advice given (and every testable variant tested), 1 build error or kernel fault, or a
// test that could not be measured, 2 usage, missing tool, no GPU, a profile of another build.
#include "app/cli/build_flags.h"
#include "app/cli/commands.h"
#include "app/cli/compare_run.h"

#include "core/advise/advice_record.h"
#include "core/advise/findings.h"
#include "core/advise/variants.h"
#include "core/bounded_json.h"
#include "core/experiment/experiment_session.h"
#include "core/experiment/report.h"
#include "core/run/buffer_data.h"
#include "core/run/measurement.h"
#include "core/run/profile_document.h"
#include "core/untrusted.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace lowerscope::cli {

namespace {

using nlohmann::json;

constexpr int kOk = 0, kFailed = 1, kUsage = 2;

struct AdviseArgs {
    std::string file;
    std::string optsA;
    std::string profile;
    std::string out;
    bool test = false;
    bool staticOnly = false;
    int sms = 132;
    LaunchArgs launch;
};

std::string dims(const std::array<uint32_t, 3>& d) {
    return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

// "occupancy.registers/--maxrregcount 64" → "occupancy.registers-maxrregcount-64"
std::string slug(const std::string& id) {
    std::string s;
    for (char c : id) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_') {
            s += c;
        } else if (!s.empty() && s.back() != '-') {
            s += '-';
        }
    }
    while (!s.empty() && s.back() == '-') s.pop_back();
    return s.substr(0, 80);
}

void printAdvice(const std::vector<Finding>& findings, const std::vector<Variant>& variants) {
    if (findings.empty()) {
        std::printf("no findings: no rule's evidence points at a limiter\n");
        return;
    }
    for (const Finding& f : findings) {
        std::printf("\n[%s] %s\n", f.id.c_str(), escapeControl(f.limiter).c_str());
        for (const auto& fact : f.facts) std::printf("    %s\n", escapeControl(fact).c_str());
        for (const auto& r : f.rows) {
            std::string at;
            if (r.line > 0) {
                at = " " + std::filesystem::path(r.file).filename().string() + ":" + std::to_string(r.line);
            }
            std::printf("    0x%04x %-14s%s  %s\n", r.address, escapeControl(r.opcode).c_str(), escapeControl(at).c_str(),
                        escapeControl(r.detail).c_str());
        }
        std::printf("  predicted: %s\n  confidence: %s (%s)\n", escapeControl(f.prediction.formula).c_str(),
                    confidenceName(f.prediction.confidence), escapeControl(f.prediction.confidenceReason).c_str());
        for (const Variant& v : variants) {
            if (v.findingId != f.id) continue;
            std::printf("  variant: %s -> predicted B/A %s (%s)%s\n", escapeControl(v.change).c_str(),
                        ratioText(v.prediction.ratio).c_str(), confidenceName(v.prediction.confidence),
                        v.notTestable.empty() ? "" : (" [not testable here: " + v.notTestable + "]").c_str());
        }
    }
}

// The profile document: read (--profile, checked against this build) or collected now.
json profileDocument(const AdviseArgs& a, const BuiltLaunch& built, const ProfileSide& side) {
    if (!a.profile.empty()) {
        std::string error;
        auto doc = readJsonFileBounded(a.profile, error);
        if (!doc) throw CliFailure{kUsage, error};
        try {
            const ProfileDocument pd = readProfileDocument(*doc);
            const auto& cubin = side.target.variant.cubin;
            if (side.target.sass) {
                if (auto why = profileDocumentMismatch(pd, digestHex(cubin.data(), cubin.size()), *side.target.sass,
                                                       built.mangled)) {
                    throw CliFailure{kUsage, a.profile + " does not fit this build: " + *why};
                }
            }
        } catch (const ProfileDocumentError& e) {
            throw CliFailure{kUsage, a.profile + ": " + e.what()};
        }
        return *doc;
    }
    auto runner = makeRunner(a.launch);
    ProfileCollectOptions opts;
    ProfileCollectResult r = collectProfile(*runner, side.target, opts);
    for (const auto& e : r.errors) std::cerr << "lowerscope-cli advise: profile: " << escapeControl(e) << '\n';
    if (!r.document.contains("device")) {
        throw CliFailure{r.exitCode ? r.exitCode : kUsage, "no profile could be collected"};
    }
    return r.document;
}

struct TestedSuggestion {
    json entry;
    bool measured = false;
};

TestedSuggestion testVariant(const AdviseArgs& a, const Toolchain& tc, const BuiltLaunch& builtA, const Finding& f,
                             const Variant& v, ProcessRunner& runner, int index) {
    const std::string optsB = a.optsA + (v.optionFlags.empty() ? "" : " " + v.optionFlags);
    LaunchArgs launchB = a.launch;
    if (v.block) launchB.block = dims(*v.block);
    if (v.grid) launchB.grid = dims(*v.grid);
    SuggestionTest test;
    json measurement;
    try {
        BuildOptions optionsB;
        try {
            optionsB = parseBuildOptionString(optsB);
        } catch (const std::invalid_argument& e) {
            throw CliFailure{kUsage, std::string("build options of B: ") + e.what()};
        }
        std::printf("\ntesting %s: %s\n", v.id.c_str(), escapeControl(v.change).c_str());
        std::fflush(stdout);
        BuiltLaunch builtB = buildLaunch(tc, a.file, optionsB, builtA.spec.kernel, launchB, "B");
        if (auto same = unchangedVariant(builtA.side, builtB.side)) {
            test.error = *same;
        } else {
            // The compare path: both sides interleaved on the same device buffers, outputs compared.
            MeasurementRecord rec = measureSides(runner, {builtA.side, builtB.side}, a.launch);
            rec.optionsA = a.optsA;
            rec.optionsB = optsB;
            measurement = writeMeasurement(rec);
            test = suggestionTestOf(rec);
        }
    } catch (const CliFailure& e) {
        test.error = e.message;
    } catch (const std::exception& e) {
        test.error = e.what();
    }
    const Judgement j = judgeSuggestion(v.prediction, test);
    std::printf("  %s: %s\n", verdictName(j.verdict), escapeControl(j.reason).c_str());

    // The record: one experiment session + report per tested suggestion.
    ExperimentSession s;
    s.title = "advise " + std::filesystem::path(a.file).filename().string() + ": " + v.id;
    s.source.name = a.file;
    std::string text, error;
    if (readFileBounded(a.file, text, error)) s.source.text = text;
    s.a = BuildConfig::named("A");
    s.a.kernel = builtA.spec.kernel;
    s.a.options = parseBuildOptionString(a.optsA);
    s.hasB = true;
    s.b = BuildConfig::named("B");
    s.b.kernel = builtA.spec.kernel;
    try {
        s.b.options = parseBuildOptionString(optsB);
    } catch (const std::invalid_argument&) {
        s.b.options = s.a.options;
    }
    s.launch = sessionLaunchFrom(builtA.spec);
    if (!measurement.is_null()) s.measurements.push_back(measurement);
    s.card = suggestionCard(f, v, test, j);
    if (v.block || v.grid) {
        s.card.implementation += " B's launch: grid " + (v.grid ? dims(*v.grid) : std::string("as A")) + ", block " +
                                 (v.block ? dims(*v.block) : std::string("as A")) + " (the session's launch is A's).";
    }
    json entry = suggestionTestJson(v, test, j);
    if (!a.out.empty()) {
        const std::string base = (std::filesystem::path(a.out) / (std::to_string(index) + "-" + slug(v.id))).string();
        try {
            saveSession(s, base + ".lowerscope");
            ReportInputs in;
            in.session = &s;
            in.blockThreads = static_cast<int>(builtA.side.launch.block[0] * builtA.side.launch.block[1] *
                                               builtA.side.launch.block[2]);
            const std::string md = renderMarkdownReport(in);
            std::ofstream out(base + ".md", std::ios::binary | std::ios::trunc);
            out << md;
            entry["session"] = base + ".lowerscope";
            entry["report"] = base + ".md";
        } catch (const SessionError& e) {
            std::cerr << "lowerscope-cli advise: " << e.what() << '\n';
        }
    }
    return TestedSuggestion{std::move(entry), test.measured};
}

int runAdvise(const AdviseArgs& a) {
    try {
        if (a.test && a.out.empty()) throw CliFailure{kUsage, "--test needs --out DIR (one session and report per test)"};
        if (a.staticOnly && !a.profile.empty()) throw CliFailure{kUsage, "--static and --profile exclude each other"};
        if (a.sms < 1 || a.sms > 1024) throw CliFailure{kUsage, "--sms: 1 to 1024"};
        BuildOptions options;
        try {
            options = parseBuildOptionString(a.optsA);
        } catch (const std::invalid_argument& e) {
            throw CliFailure{kUsage, std::string("--a: ") + e.what()};
        }
        Toolchain tc = discoverToolchain();
        BuiltLaunch built = buildLaunch(tc, a.file, options, a.launch.kernel, a.launch, "A");
        ProfileSide side = profileSide(built, a.file, options);
        AdviseEvidence e;
        if (a.staticOnly) {
            // The build and the launch only: SASS rows without counts, an assumed SM count.
            e = staticEvidence(built.mangled, side.target.sass, a.sms, "assumed (--sms " + std::to_string(a.sms) + ")");
        } else {
            const json doc = profileDocument(a, built, side);
            try {
                e = evidenceFromProfileDocument(doc);
            } catch (const ProfileDocumentError& err) {
                throw CliFailure{kUsage, std::string("profile: ") + err.what()};
            }
        }
        for (const auto& k : built.build.kernels) {
            if (k.mangled == built.mangled) e.resources = k.resources;
        }
        if (const KernelModel* km = side.model->kernel(built.mangled); km && km->ptxFunction >= 0 &&
                                                                       km->ptxFunction < static_cast<int>(side.model->ptx.functions.size())) {
            e.bounds = side.model->ptx.functions[km->ptxFunction].launchBounds;
        }
        if (e.arch.empty()) e.arch = built.build.arch;
        e.maxRegCount = options.maxRegCount;
        e.fastMath = options.fastMath;
        e.dynamicSharedBytes = static_cast<int>(built.side.variant.sharedBytes);
        if (e.block[0] == 0) e.block = built.side.variant.block;
        if (e.grid[0] == 0) e.grid = built.side.variant.grid;

        std::vector<Tunable> tunables;
        const std::string sidecar = sidecarPathFor(a.file);
        if (std::filesystem::exists(sidecar)) {
            std::string error;
            if (auto j = readJsonFileBounded(sidecar, error)) {
                try {
                    tunables = tunablesFromSidecar(*j, built.spec.kernel);
                } catch (const std::invalid_argument& err) {
                    throw CliFailure{kUsage, sidecar + ": " + err.what()};
                }
            }
        }
        const std::vector<Finding> findings = adviseFindings(e);
        const std::vector<Variant> variants = proposeVariants(findings, e, tunables, options);
        std::printf("%s (%s): %zu finding(s), %zu variant(s)\n", escapeControl(side.target.signature).c_str(),
                    escapeControl(a.file).c_str(), findings.size(), variants.size());
        printAdvice(findings, variants);

        json advice{{"schema", "lowerscope.advice/1"},
                    {"file", a.file},
                    {"kernel", built.mangled},
                    {"build_options", a.optsA},
                    {"profile", a.staticOnly        ? std::string("static")
                                : a.profile.empty() ? std::string("collected")
                                                    : a.profile},
                    {"findings", json::array()},
                    {"variants", json::array()}};
        for (const auto& f : findings) advice["findings"].push_back(toJson(f));
        for (const auto& v : variants) advice["variants"].push_back(toJson(v));

        int exit = kOk;
        if (a.test) {
            std::filesystem::create_directories(a.out);
            advice["tests"] = json::array();
            auto runner = makeRunner(a.launch);
            int index = 0;
            for (const Variant& v : variants) {
                if (!v.notTestable.empty()) {
                    advice["tests"].push_back({{"variant", v.id},
                                               {"finding", v.findingId},
                                               {"change", v.change},
                                               {"predicted", v.prediction.ratio},
                                               {"measured", false},
                                               {"verdict", "not_tested"},
                                               {"reason", v.notTestable}});
                    continue;
                }
                const Finding* f = nullptr;
                for (const auto& x : findings) {
                    if (x.id == v.findingId) f = &x;
                }
                TestedSuggestion t = testVariant(a, tc, built, *f, v, *runner, ++index);
                if (!t.measured) exit = kFailed;
                advice["tests"].push_back(std::move(t.entry));
            }
            const std::string path = (std::filesystem::path(a.out) / "advice.json").string();
            if (!writeJson(advice, path)) exit = kUsage;
        }
        if (!a.launch.jsonOut.empty() && !writeJson(advice, a.launch.jsonOut)) return kUsage;
        return exit;
    } catch (const CliFailure& f) {
        std::cerr << "lowerscope-cli advise: " << f.message << '\n';
        return f.code;
    } catch (const std::exception& e) {
        std::cerr << "lowerscope-cli advise: " << e.what() << '\n';
        return kUsage;
    }
}

} // namespace

void registerAdviseCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<AdviseArgs>();
    CLI::App* cmd = app.add_subcommand(
        "advise",
        "Findings from a profile of the kernel (occupancy, uncoalesced access, bank conflicts, latency, divergence, "
        "spills, launch overhead, tail, math precision), each with its evidence rows, a predicted effect with its "
        "formula and a confidence, and the variants Lowerscope can build to test it. --test builds and measures each "
        "variant against the original (interleaved, outputs compared), judges the prediction (held / failed / "
        "inconclusive) and records each test as an experiment session and report in --out.\n"
        "Exit: 0 advice given (and every testable variant measured), 1 build error, kernel fault or an unmeasured "
        "test, 2 usage, missing tool, no GPU or a profile of another build.");
    cmd->add_option("file", a->file, "CUDA source file")->required()->type_name("FILE.cu");
    cmd->add_option("--a", a->optsA, "build options of the original, e.g. \"--arch sm_90 -D N=4\"")->type_name("OPTS");
    cmd->add_option("--profile", a->profile, "a lowerscope.profile/1 document of this build (default: collect one)")
        ->type_name("PROFILE.json");
    cmd->add_flag("--static", a->staticOnly,
                  "no profile: findings from the build (resources, SASS rows without counts) and the launch alone, "
                  "on --sms SMs; needs no GPU unless --test");
    cmd->add_option("--sms", a->sms, "--static: the SM count assumed (default 132, an H100 SXM or H200)")->type_name("N");
    cmd->add_flag("--test", a->test, "build and measure every testable variant against the original");
    cmd->add_option("--out", a->out, "folder for the record of --test: N-ID.lowerscope, N-ID.md, advice.json")
        ->type_name("DIR");
    LaunchArgs& l = a->launch;
    addLaunchSpecFlags(*cmd, l);
    cmd->add_option("--json", l.jsonOut, "write the lowerscope.advice/1 document to OUT ('-' = stdout)")->type_name("OUT");
    cmd->add_option("--mode", l.mode, "timing mode of --test: auto, cold, hot")->type_name("MODE");
    cmd->add_option("--min-samples", l.minSamples, "--test: samples per side at least (default 10)")->type_name("N");
    cmd->add_option("--min-time", l.minTimeS, "--test: GPU time per side at least, seconds (default 0.5)")->type_name("S");
    cmd->add_option("--max-noise", l.maxNoisePct, "--test: stop at this noise, % (default 0.5)")->type_name("PCT");
    cmd->add_option("--max-time", l.maxTimeS, "--test: wall-clock limit per test, seconds (default 15)")->type_name("S");
    cmd->add_option("--timeout", l.timeoutS, "deadline of each runner request, seconds (default 60)")->type_name("S");
    cmd->add_option("--atol", l.atol, "--test: output agreement, absolute tolerance (default 1e-5)")->type_name("X");
    cmd->add_option("--rtol", l.rtol, "--test: output agreement, relative tolerance (default 1e-4)")->type_name("X");
    addRunnerFlag(*cmd, l);
    l.timeoutS = 60;
    cmd->callback([a, &exitCode] { exitCode = runAdvise(*a); });
}

} // namespace lowerscope::cli
