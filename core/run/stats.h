#pragma once
// Statistics of timing samples (../shared/design/TIMING.md): median with a 95 % confidence interval
// from order statistics, min, mean, p10/p90, stdev/mean, IQR/median, outliers beyond Q3 + 3·IQR
// (flagged, never dropped), the stopping rule as a pure function, and the A/B ratio of interleaved
// samples with its interval. Units are whatever the samples are in (the runner uses milliseconds).

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lowerscope {

struct SampleStats {
    size_t count = 0;
    double median = 0;
    double ciLow = 0, ciHigh = 0;  // 95 % CI of the median (distribution-free, order statistics)
    double min = 0, max = 0;
    double mean = 0;
    double stdev = 0;              // sample standard deviation (n-1)
    double p10 = 0, p90 = 0;       // linear interpolation between order statistics
    double q1 = 0, q3 = 0;
    double noise = 0;              // stdev / mean
    double iqrOverMedian = 0;
    std::vector<size_t> outliers;  // indices (into the input order) of samples > Q3 + 3·IQR
};

// Statistics of `samples` (any order). Empty input gives count 0 and zeros.
SampleStats computeStats(const std::vector<double>& samples);

// Quantile q in [0, 1] of sorted data, linear interpolation (type 7). Empty → 0.
double quantileSorted(const std::vector<double>& sorted, double q);

// 1-based ranks (lo, hi) of the order statistics that bound a `confidence` CI of the median of n
// samples: the smallest symmetric interval whose binomial(n, 1/2) coverage ≥ confidence. For
// n < 6 no interval reaches 95 %: (1, n) is returned.
std::pair<size_t, size_t> medianCiRanks(size_t n, double confidence = 0.95);

// When to stop taking samples. Defaults from TIMING.md.
struct StopOptions {
    size_t minSamples = 10;
    double minGpuTimeS = 0.5;    // sum of kept sample times
    double maxNoise = 0.005;     // stdev / mean
    double wallLimitS = 15.0;    // hard limit on the measuring loop
    size_t maxSamples = 100000;  // safety cap
    size_t stableWindow = 64;    // noise estimates (one per sample) looked at for stabilisation
    double stableTolerance = 0.05; // (max - min) / mean of the noise over the window
    bool operator==(const StopOptions&) const = default;
};

enum class StopReason { Continue, NoiseReached, NoiseStable, WallLimit, MaxSamples };
std::string stopReasonName(StopReason reason);  // "continue", "noise", "noise_stable", "wall_limit", "max_samples"

// Tracks the noise estimate as samples arrive and decides when to stop. Pure state machine: the
// caller feeds samples and elapsed times; nothing here reads a clock.
class StopRule {
public:
    explicit StopRule(StopOptions options = {}) : m_options(options) {}
    // Adds one kept sample (same unit as `gpuTimeScale` converts to seconds: sampleS = sample * scale).
    void add(double sample, double secondsPerUnit = 1e-3);
    // The decision after the samples so far, `wallS` seconds into the measuring loop.
    StopReason decide(double wallS) const;
    size_t count() const { return m_samples.size(); }
    double gpuTimeS() const { return m_gpuTimeS; }
    double noise() const;  // current stdev/mean (0 with fewer than 2 samples)
    const std::vector<double>& noiseHistory() const { return m_noiseHistory; }
    const StopOptions& options() const { return m_options; }

private:
    StopOptions m_options;
    std::vector<double> m_samples;
    std::vector<double> m_noiseHistory;
    double m_gpuTimeS = 0;
    // Running sums (Welford) for the noise.
    double m_mean = 0, m_m2 = 0;
};

// Ratio B/A of interleaved samples: the median of the paired ratios b[i]/a[i] with its CI from
// order statistics, plus both medians' CIs; `significant` follows TIMING.md: the two medians'
// 95 % CIs do not overlap.
// The smallest difference a comparison calls, as |B/A − 1|: below it the verdict is "no significant
// difference" even when the two medians' intervals are apart. A/A tests of the method (the same
// build against itself, bench/compare_bias.sh on an H200) found systematic offsets up to 0.3 %
// with intervals far narrower than that, so non-overlap alone would call noise of the method a win.
constexpr double kMinEffect = 0.005;

struct RatioStats {
    size_t pairs = 0;
    double ratio = 0;             // median of b[i] / a[i]
    double ciLow = 0, ciHigh = 0; // 95 % CI of that median
    double medianA = 0, medianB = 0;
    double ciALow = 0, ciAHigh = 0, ciBLow = 0, ciBHigh = 0;
    bool intervalsOverlap = true; // the medians' 95 % intervals overlap
    double minEffect = kMinEffect;
    bool significant = false;     // intervals apart and |ratio − 1| ≥ minEffect
};
// Pairs a[i] with b[i] for i < min(sizes). Non-positive a[i] are skipped.
RatioStats compareSamples(const std::vector<double>& a, const std::vector<double>& b, double minEffect = kMinEffect);

// Why a comparison was not called, for verdict texts: "the medians' intervals overlap" or
// "under the 0.5 % minimum effect"; "" when it is significant.
std::string insignificanceReason(const RatioStats& r);
std::string insignificanceReason(bool intervalsOverlap, double minEffect);

} // namespace lowerscope
