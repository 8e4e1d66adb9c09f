// Headline clock of cold samples (duration_clock.h).
#include "core/run/duration_clock.h"

#include <cmath>

namespace lowerscope {

namespace {

// Best first: Nsight Compute's own number, then the kernel's start/end timestamps (no event
// overhead), then the event pair.
constexpr const char* kPreference[] = {kClockGpuTimeDuration, kClockKernelTimestamps, kClockEvents};

size_t missingIn(const VariantResult& v, const char* clock) {
    auto it = v.samplesByClock.find(clock);
    if (it == v.samplesByClock.end() || it->second.size() != v.samplesMs.size()) {
        return v.samplesMs.size();
    }
    size_t missing = 0;
    for (double x : it->second) {
        if (!std::isfinite(x)) {
            ++missing;
        }
    }
    return missing;
}

void appendNote(std::string& to, const std::string& what) {
    if (what.empty() || to.find(what) != std::string::npos) {
        return;
    }
    to += to.empty() ? what : "; " + what;
}

} // namespace

void settleDurationClock(const std::vector<VariantResult*>& variants, const std::string& note) {
    std::string why = note;
    const char* chosen = nullptr;
    for (const char* clock : kPreference) {
        // A clock nobody took is explained by `note`; one taken (a series for some variant) but
        // not for every sample of every variant is noted here.
        bool taken = false;
        bool complete = !variants.empty();
        for (const VariantResult* v : variants) {
            taken = taken || v->samplesByClock.count(clock) > 0;
            complete = complete && !v->samplesMs.empty() && missingIn(*v, clock) == 0;
        }
        if (taken && !complete && clock != std::string(kClockEvents)) {
            for (const VariantResult* v : variants) {
                if (const size_t missing = missingIn(*v, clock); missing > 0) {
                    const std::string who = v->label.empty() ? v->kernel : v->label;
                    appendNote(why, std::string(clock) + " missing for " + std::to_string(missing) + " of " +
                                        std::to_string(v->samplesMs.size()) + " samples of " + who);
                }
            }
        }
        if (complete && !chosen) {
            chosen = clock;
        }
    }
    for (VariantResult* v : variants) {
        // Only series without gaps stay, so samples_by_clock is always parallel to samples_ms.
        for (auto it = v->samplesByClock.begin(); it != v->samplesByClock.end();) {
            if (it->second.empty() || missingIn(*v, it->first.c_str()) > 0) {
                it = v->samplesByClock.erase(it);
            } else {
                ++it;
            }
        }
        if (chosen) {
            v->samplesMs = v->samplesByClock.at(chosen);
        }
        v->durationClock = chosen ? chosen : kClockEvents;
        v->clockNote = why;
    }
}

} // namespace lowerscope
