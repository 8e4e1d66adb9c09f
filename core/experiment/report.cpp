#include "core/experiment/report.h"

#include "core/run/protocol.h"
#include "core/run/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace lowerscope {

using nlohmann::json;

namespace {

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// Table cells: a '|' would end the cell, a newline the row.
std::string cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

std::string code(const std::string& text) {
    // Inline code that may itself hold backticks: fence with more backticks than it contains.
    size_t run = 0, longest = 0;
    for (char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(longest + 1, '`');
    const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
    return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

// 10^ceil(log10(x)) as text: the smallest power of ten that bounds x ("1e-6", "0.01", "1").
std::string powerOfTenAbove(double x) {
    if (!(x > 0)) return "0";
    const int k = int(std::ceil(std::log10(x) - 1e-12));
    if (k >= -2 && k <= 3) return fmt("%g", std::pow(10.0, k));
    return "1e" + std::to_string(k);
}

std::string ratioText(double v) {
    return std::fabs(v - 1.0) < 0.01 ? fmt("%.3f", v) : fmt("%.2f", v);
}

std::string dims(const std::vector<std::string>& d) {
    std::string out;
    for (size_t i = 0; i < d.size(); ++i) out += (i ? ", " : "") + d[i];
    return "(" + out + ")";
}

std::string resourceValue(double v, const std::string& name) {
    if (v < 0) return "–";
    if (name == "occupancy (%)") return fmt("%.1f", v);
    return fmt("%.0f", v);
}

std::string signedValue(double v, const std::string& name) {
    if (v == 0) return "0";
    const std::string body = name == "occupancy (%)" ? fmt("%.1f", std::fabs(v)) : fmt("%.0f", std::fabs(v));
    return (v > 0 ? "+" : "−") + body;
}

std::string nvccLine(const ExperimentSession& s, const BuildConfig& c) {
    std::vector<std::string> argv{"nvcc"};
    for (auto& a : toNvccArgs(c.options)) argv.push_back(a);
    argv.push_back("-cubin");
    argv.push_back(s.sourceFor(c).name.empty() ? "kernel.cu" : s.sourceFor(c).name);
    return shellQuote(argv);
}

} // namespace

std::string reportDuration(double ms) {
    const double a = std::fabs(ms);
    auto four = [](double v, const char* unit) {
        const char* f = v >= 100 ? "%.1f %s" : v >= 10 ? "%.2f %s" : "%.3f %s";
        char buf[64];
        std::snprintf(buf, sizeof buf, f, v, unit);
        return std::string(buf);
    };
    if (a == 0) return "0 ms";
    if (a < 1e-3) return four(ms * 1e6, "ns");
    if (a < 1) return four(ms * 1e3, "µs");
    if (a < 1000) return four(ms, "ms");
    return four(ms / 1000, "s");
}

namespace {

// One variant of the CLI's "lowerscope.run/1" document as the runner's VariantResult.
VariantResult variantFromCliDocument(const json& doc, const std::string& label) {
    VariantResult v;
    v.label = label;
    const json launch = doc.value("launch", json::object());
    v.kernel = launch.value("kernel", doc.value("kernel", std::string()));
    v.mode = launch.value("mode", std::string());
    v.launchesPerSample = launch.value("launches_per_sample", 1);
    v.resources.registers = launch.value("registers", 0);
    v.resources.staticSharedBytes = launch.value("static_shared_bytes", 0);
    v.resources.localBytes = launch.value("local_bytes", 0);
    v.resources.constBytes = launch.value("const_bytes", 0);
    v.firstLaunchMs = doc.value("first_launch_ms", 0.0);
    const json& samples = doc.at("samples_ms");
    if (!samples.is_array()) throw std::runtime_error("samples_ms is not an array");
    for (const auto& x : samples) v.samplesMs.push_back(x.get<double>());
    // Per-sample SM clock (documents written before it was added have only the mean clock_mhz).
    if (const auto it = doc.find("sample_clock_mhz"); it != doc.end() && it->is_array())
        for (const auto& x : *it) v.sampleClockMhz.push_back(x.get<double>());
    v.throttledSamples = doc.value("throttled_samples", 0);
    return v;
}

DeviceInfo deviceFromCliDocument(const json& doc) {
    DeviceInfo d;
    const json dev = doc.value("device", json::object());
    d.name = dev.value("name", std::string());
    d.smCount = dev.value("sm_count", 0);
    d.clockMhz = dev.value("clock_mhz", 0.0);
    const std::string cc = dev.value("compute_capability", std::string());
    if (std::sscanf(cc.c_str(), "%d.%d", &d.ccMajor, &d.ccMinor) != 2) d.ccMajor = d.ccMinor = 0;
    return d;
}

} // namespace

std::optional<json> runResultOf(const json& document, std::string* error) {
    auto fail = [&](const std::string& why) -> std::optional<json> {
        if (error) *error = why;
        return std::nullopt;
    };
    if (!document.is_object()) return fail("not a JSON object");
    if (document.contains("error") && document["error"].is_object()) {
        const json& e = document["error"];
        std::string why = e.value("kind", std::string("error"));
        if (e.contains("message") && e["message"].is_string()) why += ": " + e["message"].get<std::string>();
        return fail(why);
    }
    try {
        const std::string schema = document.value("schema", std::string());
        // The CLI's documents (lowerscope-cli run/compare --json), recast as a runner result.
        if (schema == "lowerscope.run/1" && document.contains("samples_ms")) {
            RunResult r;
            r.device = deviceFromCliDocument(document);
            r.variants.push_back(variantFromCliDocument(document, ""));
            return toJson(r);
        }
        if (schema == "lowerscope.compare/1") {
            RunResult r;
            r.device = deviceFromCliDocument(document.at("a"));
            r.variants.push_back(variantFromCliDocument(document.at("a"), "A"));
            r.variants.push_back(variantFromCliDocument(document.at("b"), "B"));
            if (document.contains("agreement") && document["agreement"].is_array())
                for (const auto& g : document["agreement"]) {
                    OutputAgreement ag;
                    fromJson(g, ag);
                    r.agreement.push_back(ag);
                }
            return toJson(r);
        }
    } catch (const std::exception& e) {
        return fail(std::string("unreadable result: ") + e.what());
    }
    const json* r = &document;
    if (document.contains("result") && document["result"].is_object()) r = &document["result"];
    if (!r->contains("variants") || !(*r)["variants"].is_array()) return fail("no \"variants\" in the result");
    try {
        RunResult parsed;
        fromJson(*r, parsed); // validates the fields the report reads
    } catch (const std::exception& e) {
        return fail(std::string("unreadable result: ") + e.what());
    }
    return *r;
}

TimingVerdict timingVerdict(const json& runResult) {
    TimingVerdict v;
    RunResult r;
    try {
        fromJson(runResult, r);
    } catch (const std::exception&) {
        return v;
    }
    if (r.variants.size() < 2 || r.variants[0].samplesMs.empty() || r.variants[1].samplesMs.empty()) return v;
    const VariantResult& a = r.variants[0];
    const VariantResult& b = r.variants[1];
    v.labelA = a.label.empty() ? "A" : a.label;
    v.labelB = b.label.empty() ? "B" : b.label;
    // Interleaved samples: the i-th sample of A and of B were taken next to each other.
    const RatioStats rs = compareSamples(a.samplesMs, b.samplesMs);
    v.valid = rs.pairs > 0;
    if (!v.valid) return v;
    v.medianA = rs.medianA;
    v.medianB = rs.medianB;
    v.ratio = rs.ratio;
    v.ratioLow = rs.ciLow;
    v.ratioHigh = rs.ciHigh;
    v.significant = rs.significant;
    v.notCalledBecause = insignificanceReason(rs);

    if (!r.agreement.empty()) {
        bool allSame = true, allAgree = true;
        double maxAbs = 0;
        std::string differ;
        for (const OutputAgreement& ag : r.agreement) {
            allSame = allSame && ag.sameDigest;
            allAgree = allAgree && ag.agree;
            maxAbs = std::max(maxAbs, ag.maxAbsError);
            if (!ag.agree && differ.empty()) {
                if (ag.sizeMismatch)
                    differ = ag.name + " has a different size";
                else
                    differ = ag.name + ": " + std::to_string(ag.mismatches) + " of " + std::to_string(ag.count) +
                             " elements beyond tolerance (max abs error " + fmt("%.3g", ag.maxAbsError) +
                             ", max rel error " + fmt("%.3g", ag.maxRelError) + ")";
            }
        }
        if (allSame) v.outputs = "outputs are bit-identical";
        else if (allAgree) v.outputs = "outputs match within " + powerOfTenAbove(maxAbs);
        else v.outputs = "outputs DIFFER: " + differ;
    } else if (!a.outputs.empty() && a.outputs.size() == b.outputs.size()) {
        // No element-wise comparison in the result: the outputs' digests still tell identical ones.
        bool same = true;
        for (size_t i = 0; same && i < a.outputs.size(); ++i)
            same = !a.outputs[i].digest.empty() && a.outputs[i].digest == b.outputs[i].digest;
        if (same) v.outputs = "outputs are bit-identical";
    }

    const std::string ci = [&] {
        if (v.ratio < 1) return ratioText(1 / v.ratioHigh) + "–" + ratioText(1 / v.ratioLow);
        return ratioText(v.ratioLow) + "–" + ratioText(v.ratioHigh);
    }();
    if (!v.significant) {
        v.sentence = "no significant difference between " + v.labelA + " and " + v.labelB + ": " + v.labelB + "/" +
                     v.labelA + " = " + ratioText(v.ratio) + " (95 % CI " + ratioText(v.ratioLow) + "–" +
                     ratioText(v.ratioHigh) + "; " + v.notCalledBecause + ")";
    } else if (v.ratio < 1) {
        v.sentence = v.labelB + " is " + ratioText(1 / v.ratio) + "× faster (95 % CI " + ci + ")";
    } else {
        v.sentence = v.labelB + " is " + ratioText(v.ratio) + "× slower (95 % CI " + ci + ")";
    }
    if (!v.outputs.empty()) v.sentence += ", " + v.outputs;
    return v;
}

std::string renderMarkdownReport(const ReportInputs& in) {
    std::ostringstream md;
    if (!in.session) return "# Experiment\n\n_No session._\n";
    const ExperimentSession& s = *in.session;
    const std::string arch = in.arch.empty() ? s.a.options.arch : in.arch;

    md << "# " << (s.title.empty() ? "Experiment" : s.title) << "\n\n";
    md << "Source " << code(s.source.name.empty() ? "(unnamed)" : s.source.name);
    if (!s.a.kernel.empty()) md << ", kernel " << code(s.a.kernel);
    md << ". Exported by Lowerscope.\n\n";

    // ------------------------------------------------------------------ card
    md << "## Experiment card\n\n";
    const std::pair<const char*, const std::string*> card[] = {{"Hypothesis", &s.card.hypothesis},
                                                               {"Implementation", &s.card.implementation},
                                                               {"Measurement", &s.card.measurement},
                                                               {"Result", &s.card.result},
                                                               {"Interpretation", &s.card.interpretation}};
    for (const auto& [name, text] : card)
        md << "**" << name << ".** " << (text->empty() ? "_(not filled in)_" : *text) << "\n\n";

    // ------------------------------------------------------------------ builds
    md << "## Builds\n\n";
    md << "| | " << cell(s.a.label) << (s.hasB ? " | " + cell(s.b.label) : std::string()) << " |\n";
    md << "|---|---" << (s.hasB ? "|---" : "") << "|\n";
    auto row = [&](const char* name, auto get) {
        md << "| " << name << " | " << cell(get(s.a)) << (s.hasB ? " | " + cell(get(s.b)) : std::string()) << " |\n";
    };
    row("source", [&](const BuildConfig& c) { return s.sourceFor(c).name; });
    row("kernel", [&](const BuildConfig& c) { return c.kernel.empty() ? std::string("(first)") : c.kernel; });
    row("arch", [&](const BuildConfig& c) { return c.options.arch; });
    md << "\n```sh\n";
    md << "# " << s.a.label << "\n" << nvccLine(s, s.a) << "\n";
    if (s.hasB) md << "# " << s.b.label << "\n" << nvccLine(s, s.b) << "\n";
    md << "```\n\n";

    // ------------------------------------------------------------------ launch
    md << "## Launch\n\n";
    md << "grid " << code(dims(s.launch.grid)) << ", block " << code(dims(s.launch.block))
       << ", dynamic shared memory " << code(s.launch.sharedBytes) << " bytes";
    if (!s.launch.args.empty()) {
        md << ", arguments:\n\n```\n";
        for (const auto& a : s.launch.args) md << a << "\n";
        md << "```\n\n";
    } else {
        md << ".\n\n";
    }

    // ------------------------------------------------------------------ measurement
    std::optional<json> result;
    std::vector<std::string> failures;
    int chosen = -1;
    for (size_t i = 0; i < s.measurements.size(); ++i) {
        std::string why;
        auto r = runResultOf(s.measurements[i], &why);
        if (!r) failures.push_back("run " + std::to_string(i + 1) + ": " + why);
        const bool wanted = in.measurementIndex < 0 ? bool(r) : int(i) == in.measurementIndex;
        if (wanted && r) {
            result = r;
            chosen = int(i);
        }
    }
    RunResult run;
    bool haveRun = false;
    if (result) {
        try {
            fromJson(*result, run);
            haveRun = true;
        } catch (const std::exception&) {
        }
    }

    // ------------------------------------------------------------------ resources
    md << "## Resources\n\n";
    std::optional<Resources> ra = in.resourcesA, rb = in.resourcesB;
    auto fromRun = [&](size_t i) -> std::optional<Resources> {
        if (!haveRun || run.variants.size() <= i) return std::nullopt;
        Resources r;
        r.registers = run.variants[i].resources.registers;
        r.sharedBytes = run.variants[i].resources.staticSharedBytes;
        r.localBytes = run.variants[i].resources.localBytes;
        return r;
    };
    const bool fromMeasurement = !ra && !rb;
    if (!ra) ra = fromRun(0);
    if (!rb && s.hasB) rb = fromRun(1);
    if (!ra) {
        md << "_No build or measurement with resource figures._\n\n";
    } else {
        const auto rows = resourceDeltas(*ra, rb.value_or(Resources{}), arch, in.blockThreads, in.dynamicSharedBytes);
        md << "| resource | " << cell(s.a.label) << " | " << cell(s.hasB ? s.b.label : "B") << " | Δ |\n|---|---:|---:|---:|\n";
        for (const auto& r : rows) {
            if (r.a < 0 && r.b < 0) continue;
            md << "| " << r.name << " | " << resourceValue(r.a, r.name) << " | " << resourceValue(r.b, r.name) << " | "
               << (r.known() ? signedValue(r.delta(), r.name) : "–") << " |\n";
        }
        md << "\n";
        if (fromMeasurement) md << "_Figures as the runner read them from the loaded module._\n\n";
        if (in.blockThreads > 0)
            md << "_Occupancy: theoretical, for " << in.blockThreads << " threads per block on " << arch << "._\n\n";
    }

    // ------------------------------------------------------------------ timing
    md << "## Timing\n\n";
    if (!haveRun) {
        md << "_No measurement in this session._\n\n";
    } else {
        const DeviceInfo& d = run.device;
        md << "Measured on " << (d.name.empty() ? "an unnamed device" : d.name);
        if (d.ccMajor > 0) md << " (compute capability " << d.ccMajor << "." << d.ccMinor << ", " << d.smCount << " SMs)";
        md << "; run " << (chosen + 1) << " of " << s.measurements.size() << ".\n\n";
        md << "| variant | kernel | mode | samples | median | 95 % CI of the median | min | p10 – p90 | noise | outliers |\n";
        md << "|---|---|---|---:|---:|---|---:|---|---:|---:|\n";
        for (const VariantResult& v : run.variants) {
            const SampleStats st = computeStats(v.samplesMs);
            md << "| " << cell(v.label.empty() ? "–" : v.label) << " | " << cell(v.kernel) << " | " << v.mode << " | "
               << st.count << " | ";
            if (st.count == 0) {
                md << "– | – | – | – | – | – |\n";
                continue;
            }
            md << reportDuration(st.median) << " | " << reportDuration(st.ciLow) << " – " << reportDuration(st.ciHigh)
               << " | " << reportDuration(st.min) << " | " << reportDuration(st.p10) << " – "
               << reportDuration(st.p90) << " | " << fmt("%.2f %%", 100 * st.noise) << " | " << st.outliers.size()
               << " |\n";
        }
        md << "\n";
        const TimingVerdict verdict = timingVerdict(*result);
        if (verdict.valid) {
            md << "**Verdict:** " << verdict.sentence << ".\n\n";
            md << "_Ratio " << verdict.labelB << "/" << verdict.labelA << " = " << ratioText(verdict.ratio)
               << " (95 % CI " << ratioText(verdict.ratioLow) << "–" << ratioText(verdict.ratioHigh)
               << ") is the median of the paired ratios of interleaved samples; a difference is called only when "
                  "the two medians' 95 % confidence intervals do not overlap._\n\n";
        } else if (run.variants.size() == 1) {
            md << "_One variant measured: no comparison._\n\n";
        }
    }
    if (!failures.empty()) {
        md << "Runs without a result:\n\n";
        for (const auto& f : failures) md << "- " << f << "\n";
        md << "\n";
    }

    // ------------------------------------------------------------------ SASS diff
    if (in.sassA && in.sassB) {
        const SassDiff diff = diffSass(*in.sassA, *in.sassB, in.diffOptions);
        const auto& sum = diff.summary;
        md << "## SASS diff\n\n";
        md << s.a.label << ": " << sum.instructionsA << " instructions, " << (s.hasB ? s.b.label : "B") << ": "
           << sum.instructionsB << " instructions; " << sum.equal << " equal, " << sum.changed << " changed, "
           << sum.added << " added, " << sum.removed << " removed (aligned by source line, then by instruction; "
           << (in.diffOptions.mode == DiffMode::Full ? "full instructions" : "opcodes only")
           << (in.diffOptions.naming == RegisterNaming::Exact ? "" : ", register names ignored") << ").\n\n";
        if (diff.hunks.empty()) {
            md << "_The two listings are the same._\n\n";
        } else {
            md << "The " << std::min<size_t>(diff.hunks.size(), size_t(std::max(in.excerptHunks, 0)))
               << " largest of " << diff.hunks.size() << " differing regions (`=` equal, `~` changed, `-` only in "
               << s.a.label << ", `+` only in " << (s.hasB ? s.b.label : "B") << "):\n\n```\n"
               << formatDiffExcerpt(diff, *in.sassA, *in.sassB, in.excerptHunks, in.excerptContext) << "```\n\n";
        }

        auto lines = lineDeltas(*in.sassA, *in.sassB, in.diffOptions.attribution);
        lines.erase(std::remove_if(lines.begin(), lines.end(),
                                   [](const LineDelta& l) {
                                       return l.instructionDelta() == 0 && l.stallDelta() == 0 && l.maxLiveDelta() == 0;
                                   }),
                    lines.end());
        std::stable_sort(lines.begin(), lines.end(), [](const LineDelta& x, const LineDelta& y) {
            return std::abs(x.instructionDelta()) > std::abs(y.instructionDelta());
        });
        if (!lines.empty()) {
            md << "### Source lines that changed most\n\n| line | instructions | stall cycles | max live registers |\n"
                  "|---|---:|---:|---:|\n";
            for (size_t i = 0; i < std::min<size_t>(lines.size(), 8); ++i) {
                const LineDelta& l = lines[i];
                const std::string where = l.source.line > 0 ? l.source.file + ":" + std::to_string(l.source.line)
                                                            : std::string("(no line info)");
                auto live = [](int v) { return v < 0 ? std::string("–") : std::to_string(v); };
                md << "| " << cell(where) << " | " << l.a.instructions << " → " << l.b.instructions << " | "
                   << l.a.stallCycles << " → " << l.b.stallCycles << " | " << live(l.a.maxLiveGpr) << " → "
                   << live(l.b.maxLiveGpr) << " |\n";
            }
            md << "\n";
        }
        const auto mix = mnemonicMix(*in.sassA, *in.sassB);
        if (!mix.empty() && mix.front().delta() != 0) {
            md << "### Instruction mix (largest changes)\n\n| opcode | " << cell(s.a.label) << " | "
               << cell(s.hasB ? s.b.label : "B") << " | Δ |\n|---|---:|---:|---:|\n";
            for (size_t i = 0; i < std::min<size_t>(mix.size(), 10) && mix[i].delta() != 0; ++i)
                md << "| " << mix[i].name << " | " << mix[i].a << " | " << mix[i].b << " | "
                   << (mix[i].delta() > 0 ? "+" : "−") << std::abs(mix[i].delta()) << " |\n";
            md << "\n";
        }
    }

    // ------------------------------------------------------------------ charts
    if (!in.charts.empty()) {
        md << "## Charts\n\n";
        for (const auto& c : in.charts) md << "![" << cell(c.title) << "](" << c.fileName << ")\n\n";
    }
    std::string text = md.str();
    while (text.size() >= 2 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
    return text;
}

} // namespace lowerscope
