#include "core/experiment/report.h"
#include "core/format.h"

#include "core/run/measurement_data.h"
#include "core/run/profile_collect.h"
#include "core/run/profile_join.h"

#include "core/run/protocol.h"
#include "core/run/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

namespace lowerscope {

using nlohmann::json;

namespace {

std::string cell(const std::string& text) { return markdownCell(text); }

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


// compare --profile's counters ("profile" in the compare document; session documents are untrusted,
// so every field is checked): kernel metrics A, B, B/A; each side's top stall reasons; the SASS rows
// whose executed counts or samples changed most on the aligned diff.
void writeCounters(std::ostringstream& md, const nlohmann::json& doc, const std::string& la, const std::string& lb) {
    using nlohmann::json;
    const auto p = doc.find("profile");
    if (p == doc.end() || !p->is_object()) return;
    md << "## Hardware counters\n\n";
    md << "_One profiled launch per side after the timing (`compare --profile`: CUPTI Range Profiler, SASS "
          "Metrics, PC Sampling)._\n\n";
    // A count: a whole number that is not negative (parsed documents hold them as unsigned).
    auto countOf = [](const json& j) -> std::optional<uint64_t> {
        if (j.is_number_unsigned()) return j.get<uint64_t>();
        if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<uint64_t>(j.get<int64_t>());
        return std::nullopt;
    };
    auto num = [](const json& j, const char* k) -> std::optional<double> {
        auto it = j.find(k);
        if (it == j.end() || !it->is_number()) return std::nullopt;
        return it->get<double>();
    };
    if (auto m = p->find("metric_deltas"); m != p->end() && m->is_array() && !m->empty()) {
        md << "| metric | unit | " << cell(la) << " | " << cell(lb) << " | " << cell(lb) << "/" << cell(la) << " |\n";
        md << "|---|---|---:|---:|---:|\n";
        for (const json& x : *m) {
            if (!x.is_object()) continue;
            const auto va = num(x, "a"), vb = num(x, "b");
            if (!va || !vb) continue;
            const auto name = x.find("name");
            const auto unit = x.find("unit");
            md << "| " << cell(name != x.end() && name->is_string() ? name->get<std::string>() : "?") << " | "
               << cell(unit != x.end() && unit->is_string() ? unit->get<std::string>() : "") << " | "
               << fmt("%.6g", *va) << " | " << fmt("%.6g", *vb) << " | " << (*va != 0 ? fmt("%.3f", *vb / *va) : "–")
               << " |\n";
        }
        md << "\n";
    }
    for (const auto& [key, label] : {std::pair{"a", la}, std::pair{"b", lb}}) {
        const auto side = p->find(key);
        if (side == p->end() || !side->is_object()) continue;
        const auto totals = side->find("kernel_totals");
        if (totals == side->end() || !totals->is_object()) continue;
        const auto samples = totals->find("samples");
        if (samples == totals->end() || !samples->is_object()) continue;
        ProfileTotals t;
        for (auto it = samples->begin(); it != samples->end(); ++it)
            if (auto k = countOf(it.value())) t.samples[it.key()] = *k;
        const uint64_t total = t.sampleTotal();
        if (total == 0) continue;
        md << "Stall samples of " << cell(label) << " (" << formatCount(total) << "): ";
        int n = 0;
        for (const auto& [reason, share] : stallShares(t, 4))
            md << (n++ ? ", " : "") << cell(reason) << " " << fmt("%.1f %%", 100.0 * share);
        md << ".\n\n";
    }
    if (auto rows = p->find("rows"); rows != p->end() && rows->is_array() && !rows->empty()) {
        const auto ranked = rankProfileRows(*rows, 8);
        if (!ranked.empty() && ranked.front().second > 0) {
            md << "SASS rows whose counts changed most (aligned diff):\n\n| row | status | " << cell(la) << " | "
               << cell(lb) << " | executed " << cell(la) << " → " << cell(lb) << " | stall samples " << cell(la)
               << " → " << cell(lb) << " |\n|---:|---|---|---|---|---|\n";
            auto str = [](const json& r, const char* k) {
                auto it = r.find(k);
                return it != r.end() && it->is_string() ? it->get<std::string>() : std::string("–");
            };
            auto count = [&](const json& r, const char* k) {
                auto it = r.find(k);
                const auto c = it != r.end() ? countOf(*it) : std::nullopt;
                return c ? formatCount(*c) : std::string("–");
            };
            for (const auto& [entry, change] : ranked) {
                if (change == 0) break;
                const json& r = *entry;
                const auto row = r.find("row");
                md << "| " << (row != r.end() && row->is_number_integer() ? std::to_string(row->get<long long>()) : "?")
                   << " | " << cell(str(r, "status")) << " | " << cell(str(r, "opcode_a")) << " | "
                   << cell(str(r, "opcode_b")) << " | " << count(r, "executed_a") << " → " << count(r, "executed_b")
                   << " | " << count(r, "samples_a") << " → " << count(r, "samples_b") << " |\n";
            }
            md << "\n";
        }
    }
    if (auto e = p->find("errors"); e != p->end() && e->is_array() && !e->empty()) {
        md << "Collections that did not come back:\n\n";
        for (const json& x : *e)
            if (x.is_string()) md << "- " << cell(x.get<std::string>()) << "\n";
        md << "\n";
    }
}

} // namespace

std::string markdownCell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n' || c == '\r') out += ' ';
        else out += c;
    }
    return out;
}

std::string costMarkdown(const std::vector<std::pair<std::string, double>>& variants, double price,
                         double launchesPerRequest) {
    std::vector<std::pair<std::string, double>> v;
    for (const auto& x : variants)
        if (x.second > 0 && std::isfinite(x.second)) v.push_back(x);
    if (v.empty() || !(price >= 0) || !(launchesPerRequest > 0)) return {};
    std::ostringstream md;
    md << "## Cost\n\n";
    md << "At " << fmt("%.2f", price) << " per GPU-hour and " << fmt("%g", launchesPerRequest)
       << " launch" << (launchesPerRequest == 1 ? "" : "es") << " of this kernel per request (set with "
       << "`--price-per-hour` and `--launches-per-request`), from each variant's median:\n\n";
    md << "| variant | GPU-s per million launches | cost per million launches | GPU time per request | cost per "
          "million requests | change |\n|---|---:|---:|---:|---:|---:|\n";
    const CostLine first = costLine(v.front().second, price, launchesPerRequest);
    for (size_t i = 0; i < v.size(); ++i) {
        const CostLine c = costLine(v[i].second, price, launchesPerRequest);
        md << "| " << cell(v[i].first) << " | " << fmt(c.gpuSecondsPerMillion < 10 ? "%.2f" : "%.1f", c.gpuSecondsPerMillion)
           << " | " << fmt(c.costPerMillion < 1 ? "%.4f" : "%.2f", c.costPerMillion) << " | "
           << formatDuration(c.gpuMsPerRequest) << " | "
           << fmt(c.costPerMillionRequests < 1 ? "%.4f" : "%.2f", c.costPerMillionRequests) << " | "
           << (i == 0 ? std::string("–") : fmt("%+.1f %%", 100 * costChange(first, c))) << " |\n";
    }
    md << "\n_GPU time is the kernel's own time on the GPU; launch overhead, host work and idle time between "
          "launches are not in it, so a real service pays at least this._\n\n";
    return md.str();
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
    RunResult run;
    bool haveRun = false;
    std::vector<std::string> failures;
    int chosen = -1;
    for (size_t i = 0; i < s.measurements.size(); ++i) {
        std::optional<MeasurementRecord> rec;
        std::string why;
        try {
            rec = readMeasurement(s.measurements[i]);
            if (rec->error) {
                why = std::string(runErrorKindName(rec->error->kind));
                if (!rec->error->message.empty()) why += ": " + rec->error->message;
                rec.reset();
            }
        } catch (const MeasurementError& e) {
            why = std::string("unreadable result: ") + e.what();
        }
        if (!rec) failures.push_back("run " + std::to_string(i + 1) + ": " + why);
        const bool wanted = in.measurementIndex < 0 ? bool(rec) : int(i) == in.measurementIndex;
        if (wanted && rec) {
            run = std::move(rec->result);
            haveRun = true;
            chosen = int(i);
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
            md << formatDuration(st.median) << " | " << formatDuration(st.ciLow) << " – " << formatDuration(st.ciHigh)
               << " | " << formatDuration(st.min) << " | " << formatDuration(st.p10) << " – "
               << formatDuration(st.p90) << " | " << fmt("%.2f %%", 100 * st.noise) << " | " << st.outliers.size()
               << " |\n";
        }
        md << "\n";
        const TimingVerdict verdict = timingVerdict(run);
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

    // ------------------------------------------------------------------ cost
    if (haveRun) {
        std::vector<std::pair<std::string, double>> medians;
        for (const VariantResult& v : run.variants)
            medians.emplace_back(v.label.empty() ? v.kernel : v.label, computeStats(v.samplesMs).median);
        md << costMarkdown(medians, in.pricePerGpuHour, in.launchesPerRequest);
    }

    // ------------------------------------------------------------------ counters
    if (haveRun) writeCounters(md, s.measurements[chosen], s.a.label, s.hasB ? s.b.label : "B");

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
