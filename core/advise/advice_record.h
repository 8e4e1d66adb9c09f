#pragma once
// The advisor's record (issue 34, item 3): a tested suggestion judged against its prediction, and
// written as an experiment entry in the form of `lowerscope-cli experiment`'s (a `.lowerscope`
// session whose card holds the hypothesis = the finding and its prediction, the result = the
// measured B/A with its interval and the verdict), plus the advice document that lists every
// finding, variant and test, failures included ("lowerscope.advice/1", read by
// bench/advise_calibration.sh).
//
// Verdict (judgeSuggestion):
//   held          the measured difference is significant (core/run/stats.h: the medians' 95 %
//                 intervals apart and |B/A − 1| ≥ 0.5 %) and in the predicted direction;
//   failed        significant in the other direction; or not significant while the 95 % interval
//                 of B/A excludes the predicted ratio (the predicted change would have shown); or
//                 B's outputs disagree with A's; or the variant could not be built or measured;
//   inconclusive  not significant and the predicted ratio lies inside the interval (noise could
//                 hide it), or a prediction of no change (|predicted − 1| < 0.5 %).
// The prediction error is measured − predicted B/A (both as ratios), when measured.

#include "core/advise/findings.h"
#include "core/advise/variants.h"
#include "core/experiment/experiment_session.h"
#include "core/run/measurement.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace lowerscope {

enum class Verdict { Held, Failed, Inconclusive };
const char* verdictName(Verdict v); // "held", "failed", "inconclusive"

// What one test measured.
struct SuggestionTest {
    bool measured = false;
    std::string error;          // why it was not measured (build failure, kernel fault, ...)
    double ratio = 0, ciLow = 0, ciHigh = 0; // B/A, median of the pairs and its 95 % interval
    bool significant = false;
    double medianAMs = 0, medianBMs = 0;
    bool outputsCompared = false;
    bool outputsAgree = true;
    std::string outputNote;     // the first disagreeing output, when any
};

// The test of an interleaved A/B measurement (variants 0 = A, 1 = B).
SuggestionTest suggestionTestOf(const MeasurementRecord& record);

struct Judgement {
    Verdict verdict = Verdict::Inconclusive;
    std::string reason;
    std::optional<double> error;  // measured − predicted B/A
    std::optional<bool> directionRight; // the sign of (B/A − 1) as predicted; only when significant
};

Judgement judgeSuggestion(const Prediction& predicted, const SuggestionTest& test);

// Why B has nothing to measure, or nullopt: B launches like A and its build of the kernel is the
// same machine code (the kernel's .text section in both cubins, control codes included). A change
// that never reached the kernel is a failed suggestion, not a measurement of noise (--maxrregcount
// on a kernel with __launch_bounds__ was, before the rules stopped proposing it: ptxas keeps the
// bounds' register budget). The caller records it as the test's error, unmeasured.
std::optional<std::string> unchangedVariant(const PreparedSide& a, const PreparedSide& b);

// The experiment card of one tested suggestion: hypothesis (the finding, its evidence and the
// variant's prediction with its formula), implementation (the change), measurement, result (B/A,
// interval, verdict and why), interpretation (the prediction error).
ExperimentCard suggestionCard(const Finding& finding, const Variant& variant, const SuggestionTest& test,
                              const Judgement& judgement);

// One entry of the advice document's "tests".
nlohmann::json suggestionTestJson(const Variant& variant, const SuggestionTest& test, const Judgement& judgement);

} // namespace lowerscope
