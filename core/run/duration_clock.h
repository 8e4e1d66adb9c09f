#pragma once
// The headline duration clock of a request's cold samples (issue 19, ../shared/design/TIMING.md).
// The runner takes each kept sample on every clock it can (CUDA events always; CUPTI's kernel
// timestamps and the Range Profiler's gpu__time_duration when they run) and then settles on one
// clock for every variant of the request, so that statistics, the verdict, the charts and A/B
// ratios all compare like with like. A pure function, so the choice is tested without a GPU.

#include "core/run/protocol.h"

#include <string>
#include <vector>

namespace lowerscope {

// Picks the headline clock for `variants` (all of one request, borrowed, not null) and rewrites
// each one's samplesMs, samplesByClock, durationClock and clockNote.
//
// On entry each variant's samplesByClock holds, per clock taken, one value (ms) per kept sample,
// parallel to samplesMs; a sample that clock missed is NaN (a clock with a series in any variant
// counts as taken; a variant without that series missed every sample). The first of gpu_time_duration,
// kernel_timestamps, events that has a finite value for every sample of every variant becomes
// durationClock, and samplesMs becomes its series (events stays the fallback: when nothing else
// is complete, samplesMs is left as it is, the event series). Series that are incomplete are
// removed (samples_by_clock never carries gaps), and clockNote says why a GPU clock is missing:
// `note` (why the runner could not take it) and, for an incomplete series, how many samples of
// which variant lacked it.
void settleDurationClock(const std::vector<VariantResult*>& variants, const std::string& note);

} // namespace lowerscope
