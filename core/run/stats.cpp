// Sample statistics and the stopping rule.
#include "core/run/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace lowerscope {

double quantileSorted(const std::vector<double>& s, double q) {
    if (s.empty()) {
        return 0;
    }
    q = std::clamp(q, 0.0, 1.0);
    double h = (static_cast<double>(s.size()) - 1.0) * q;
    size_t lo = static_cast<size_t>(std::floor(h));
    size_t hi = std::min(lo + 1, s.size() - 1);
    return s[lo] + (h - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

namespace {

// log of the binomial(n, 1/2) probability mass at k (lgamma keeps large n stable).
double logBinomHalf(size_t n, size_t k) {
    return std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(k) + 1) -
           std::lgamma(static_cast<double>(n - k) + 1) - static_cast<double>(n) * std::log(2.0);
}

} // namespace

std::pair<size_t, size_t> medianCiRanks(size_t n, double confidence) {
    if (n == 0) {
        return {0, 0};
    }
    // The interval [X(k), X(n+1-k)] covers the median with probability 1 - 2·P(Bin(n,1/2) ≤ k-1).
    // Grow the tail mass from k = 1 while coverage stays ≥ confidence.
    const double alpha = 1.0 - confidence;
    double tail = std::exp(logBinomHalf(n, 0));  // F(k-1) = P(Bin ≤ k-1), for k = 1
    size_t best = 0;                             // largest k whose coverage ≥ confidence
    for (size_t k = 1; k <= (n + 1) / 2; ++k) {
        if (2 * tail > alpha) {
            break;
        }
        best = k;
        tail += std::exp(logBinomHalf(n, k));
    }
    if (best == 0) {
        return {1, n};
    }
    return {best, n + 1 - best};
}

SampleStats computeStats(const std::vector<double>& samples) {
    SampleStats st;
    st.count = samples.size();
    if (samples.empty()) {
        return st;
    }
    std::vector<double> s = samples;
    std::sort(s.begin(), s.end());
    st.min = s.front();
    st.max = s.back();
    st.median = quantileSorted(s, 0.5);
    st.p10 = quantileSorted(s, 0.10);
    st.p90 = quantileSorted(s, 0.90);
    st.q1 = quantileSorted(s, 0.25);
    st.q3 = quantileSorted(s, 0.75);
    // Two-pass mean/variance: samples are few enough, and this is the accurate way.
    double sum = std::accumulate(s.begin(), s.end(), 0.0);
    st.mean = sum / static_cast<double>(s.size());
    if (s.size() > 1) {
        double ss = 0;
        for (double v : s) {
            ss += (v - st.mean) * (v - st.mean);
        }
        st.stdev = std::sqrt(ss / static_cast<double>(s.size() - 1));
    }
    st.noise = st.mean != 0 ? st.stdev / std::fabs(st.mean) : 0;
    st.iqrOverMedian = st.median != 0 ? (st.q3 - st.q1) / std::fabs(st.median) : 0;
    auto [lo, hi] = medianCiRanks(s.size());
    st.ciLow = s[lo - 1];
    st.ciHigh = s[hi - 1];
    double fence = st.q3 + 3.0 * (st.q3 - st.q1);
    for (size_t i = 0; i < samples.size(); ++i) {
        if (samples[i] > fence) {
            st.outliers.push_back(i);
        }
    }
    return st;
}

std::string stopReasonName(StopReason reason) {
    switch (reason) {
    case StopReason::Continue: return "continue";
    case StopReason::NoiseReached: return "noise";
    case StopReason::NoiseStable: return "noise_stable";
    case StopReason::WallLimit: return "wall_limit";
    case StopReason::MaxSamples: return "max_samples";
    }
    return "?";
}

void StopRule::add(double sample, double secondsPerUnit) {
    m_samples.push_back(sample);
    m_gpuTimeS += sample * secondsPerUnit;
    double n = static_cast<double>(m_samples.size());
    double delta = sample - m_mean;
    m_mean += delta / n;
    m_m2 += delta * (sample - m_mean);
    if (m_samples.size() >= 2) {
        m_noiseHistory.push_back(noise());
    }
}

double StopRule::noise() const {
    if (m_samples.size() < 2 || m_mean == 0) {
        return 0;
    }
    double var = m_m2 / static_cast<double>(m_samples.size() - 1);
    return std::sqrt(std::max(var, 0.0)) / std::fabs(m_mean);
}

StopReason StopRule::decide(double wallS) const {
    if (m_samples.size() >= m_options.maxSamples) {
        return StopReason::MaxSamples;
    }
    if (wallS >= m_options.wallLimitS) {
        return StopReason::WallLimit;
    }
    if (m_samples.size() < m_options.minSamples || m_gpuTimeS < m_options.minGpuTimeS) {
        return StopReason::Continue;
    }
    if (noise() <= m_options.maxNoise) {
        return StopReason::NoiseReached;
    }
    // Stabilised: over the last window of noise estimates, the estimate moves by less than the
    // tolerance (relative): more samples would not make the reported noise any smaller.
    const size_t w = m_options.stableWindow;
    if (w >= 2 && m_noiseHistory.size() >= w) {
        auto first = m_noiseHistory.end() - static_cast<std::ptrdiff_t>(w);
        auto [mn, mx] = std::minmax_element(first, m_noiseHistory.end());
        double mean = std::accumulate(first, m_noiseHistory.end(), 0.0) / static_cast<double>(w);
        if (mean > 0 && (*mx - *mn) / mean <= m_options.stableTolerance) {
            return StopReason::NoiseStable;
        }
    }
    return StopReason::Continue;
}

std::string insignificanceReason(bool intervalsOverlap, double minEffect) {
    if (intervalsOverlap) return "the medians' intervals overlap";
    char buf[64];
    std::snprintf(buf, sizeof buf, "under the %g %% minimum effect", minEffect * 100);
    return buf;
}

std::string insignificanceReason(const RatioStats& r) {
    return r.significant ? std::string() : insignificanceReason(r.intervalsOverlap, r.minEffect);
}

RatioStats compareSamples(const std::vector<double>& a, const std::vector<double>& b, double minEffect) {
    RatioStats r;
    size_t n = std::min(a.size(), b.size());
    std::vector<double> ratios;
    for (size_t i = 0; i < n; ++i) {
        if (a[i] > 0) {
            ratios.push_back(b[i] / a[i]);
        }
    }
    r.pairs = ratios.size();
    SampleStats sa = computeStats(a), sb = computeStats(b);
    r.medianA = sa.median;
    r.medianB = sb.median;
    r.ciALow = sa.ciLow;
    r.ciAHigh = sa.ciHigh;
    r.ciBLow = sb.ciLow;
    r.ciBHigh = sb.ciHigh;
    if (!ratios.empty()) {
        SampleStats sr = computeStats(ratios);
        r.ratio = sr.median;
        r.ciLow = sr.ciLow;
        r.ciHigh = sr.ciHigh;
    }
    r.intervalsOverlap = !(sa.count > 0 && sb.count > 0 && (sa.ciHigh < sb.ciLow || sb.ciHigh < sa.ciLow));
    r.minEffect = minEffect;
    r.significant = !r.intervalsOverlap && !ratios.empty() && std::fabs(r.ratio - 1) >= minEffect;
    return r;
}

} // namespace lowerscope
