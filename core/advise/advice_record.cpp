#include "core/advise/advice_record.h"
#include "core/format.h"
#include "core/parse/cuda_elf.h"

#include "core/run/stats.h"

#include <cmath>
#include <cstdio>

namespace lowerscope {

using nlohmann::json;

const char* verdictName(Verdict v) {
    switch (v) {
    case Verdict::Held: return "held";
    case Verdict::Failed: return "failed";
    case Verdict::Inconclusive: break;
    }
    return "inconclusive";
}

SuggestionTest suggestionTestOf(const MeasurementRecord& rec) {
    SuggestionTest t;
    if (!rec.ok() || rec.result.variants.size() != 2) {
        t.error = rec.error ? rec.error->message : "the measurement holds no A and B";
        return t;
    }
    const RatioStats r = compareSamples(rec.result.variants[0].samplesMs, rec.result.variants[1].samplesMs);
    if (r.pairs == 0) {
        t.error = "no pairs of samples";
        return t;
    }
    t.measured = true;
    t.ratio = r.ratio;
    t.ciLow = r.ciLow;
    t.ciHigh = r.ciHigh;
    t.significant = r.significant;
    t.medianAMs = r.medianA;
    t.medianBMs = r.medianB;
    t.outputsCompared = !rec.result.agreement.empty();
    for (const OutputAgreement& g : rec.result.agreement) {
        if (!g.agree && t.outputsAgree) {
            t.outputsAgree = false;
            t.outputNote = g.name + ": " + std::to_string(g.mismatches) + " of " + std::to_string(g.count) +
                           " elements beyond tolerance (max rel error " + fmt("%.3g", g.maxRelError) + ")";
        }
    }
    return t;
}

Judgement judgeSuggestion(const Prediction& p, const SuggestionTest& t) {
    Judgement j;
    if (!t.measured) {
        j.verdict = Verdict::Failed;
        j.reason = "not measured: " + (t.error.empty() ? std::string("unknown error") : t.error);
        return j;
    }
    j.error = t.ratio - p.ratio;
    const std::string measured = "measured B/A " + fmt("%.4f", t.ratio) + " (95 % CI " + fmt("%.4f", t.ciLow) + "–" +
                                 fmt("%.4f", t.ciHigh) + "), predicted " + fmt("%.3f", p.ratio);
    if (!t.outputsAgree) {
        j.verdict = Verdict::Failed;
        j.reason = "B's outputs disagree with A's (" + t.outputNote + "); " + measured;
        return j;
    }
    const bool predictsChange = std::fabs(p.ratio - 1) >= kMinEffect;
    if (t.significant) {
        const bool faster = t.ratio < 1;
        const bool predictedFaster = p.ratio < 1;
        j.directionRight = predictsChange && faster == predictedFaster;
        j.verdict = *j.directionRight ? Verdict::Held : Verdict::Failed;
        j.reason = std::string(*j.directionRight ? "the change went the predicted way"
                               : predictsChange  ? "the change went the other way"
                                                 : "no change was predicted, one was measured") +
                   "; " + measured;
        return j;
    }
    if (!predictsChange || (p.ratio >= t.ciLow && p.ratio <= t.ciHigh)) {
        j.verdict = Verdict::Inconclusive;
        j.reason = "no significant difference, and the predicted ratio lies inside the interval; " + measured;
        return j;
    }
    j.verdict = Verdict::Failed;
    j.reason = "no significant difference, and the interval excludes the predicted ratio; " + measured;
    return j;
}

std::optional<std::string> unchangedVariant(const PreparedSide& a, const PreparedSide& b) {
    if (a.variant.grid != b.variant.grid || a.variant.block != b.variant.block ||
        a.variant.sharedBytes != b.variant.sharedBytes || a.variant.kernel != b.variant.kernel)
        return std::nullopt;
    const std::string_view cubinA(reinterpret_cast<const char*>(a.variant.cubin.data()), a.variant.cubin.size());
    const std::string_view cubinB(reinterpret_cast<const char*>(b.variant.cubin.data()), b.variant.cubin.size());
    const std::string section = ".text." + a.variant.kernel;
    const auto textA = elfSection(cubinA, section);
    const auto textB = elfSection(cubinB, section);
    if (!textA || !textB || textA->empty() || *textA != *textB) return std::nullopt;
    return "the change did not reach the kernel: B builds " + a.variant.kernel + " to the same machine code as A (" +
           std::to_string(textA->size()) + " bytes) and launches it the same way, so there is nothing to measure";
}

ExperimentCard suggestionCard(const Finding& f, const Variant& v, const SuggestionTest& t, const Judgement& j) {
    ExperimentCard c;
    c.hypothesis = "Advisor finding " + f.id + ": " + f.limiter + ".";
    for (const auto& fact : f.facts) c.hypothesis += " " + fact + ".";
    if (!f.rows.empty()) {
        c.hypothesis += " Evidence:";
        for (const auto& r : f.rows) {
            c.hypothesis += " " + fmt("0x%04x", r.address) + (r.opcode.empty() ? "" : " " + r.opcode) +
                            (r.line > 0 ? " line " + std::to_string(r.line) : "") + ": " + r.detail + ";";
        }
    }
    c.hypothesis += " Prediction for " + v.change + ": " + v.prediction.formula + " (confidence " +
                    confidenceName(v.prediction.confidence) + ": " + v.prediction.confidenceReason + ").";
    c.implementation = "B = A with " + v.change + (v.optionFlags.empty() ? "" : " (build options: " + v.optionFlags + ")") +
                       "; built and measured by `lowerscope-cli advise --test` through the compare path.";
    if (t.measured) {
        c.measurement = "Interleaved A/B timing through lowerscope-runner (the `compare` path), outputs compared" +
                        std::string(t.outputsCompared ? "" : " (no outputs declared)") + ".";
        c.result = "Median A " + fmt("%.4f", t.medianAMs) + " ms, B " + fmt("%.4f", t.medianBMs) + " ms; B/A = " +
                   fmt("%.4f", t.ratio) + " (95 % CI " + fmt("%.4f", t.ciLow) + "–" + fmt("%.4f", t.ciHigh) + ")" +
                   (t.significant ? ", significant" : ", not significant") + ". Verdict: " + verdictName(j.verdict) +
                   " (" + j.reason + ").";
        c.interpretation = "Prediction error (measured − predicted B/A): " + fmt("%+.3f", *j.error) + ".";
    } else {
        c.measurement = "Not measured.";
        c.result = std::string("Verdict: ") + verdictName(j.verdict) + " (" + j.reason + ").";
    }
    return c;
}

json suggestionTestJson(const Variant& v, const SuggestionTest& t, const Judgement& j) {
    json out{{"variant", v.id},
             {"finding", v.findingId},
             {"change", v.change},
             {"predicted", v.prediction.ratio},
             {"confidence", confidenceName(v.prediction.confidence)},
             {"measured", t.measured},
             {"verdict", verdictName(j.verdict)},
             {"reason", j.reason}};
    if (t.measured) {
        out["ratio"] = t.ratio;
        out["ci"] = {t.ciLow, t.ciHigh};
        out["significant"] = t.significant;
        out["outputs_agree"] = t.outputsAgree;
        out["error"] = *j.error;
    } else {
        out["error_message"] = t.error;
    }
    if (j.directionRight) out["direction_right"] = *j.directionRight;
    return out;
}

} // namespace lowerscope
