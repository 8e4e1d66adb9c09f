#pragma once
// Experiment 4, the CUDA Graph break-even (RunRequest::graphPath): a fixed path of N launches of a
// variant, launched from the stream against the same path captured into a graph, instantiated,
// uploaded and replayed. For each N, in this order:
//
//   warm-up:  one throwaway graph of N launches, one replay and one path from the stream;
//   costs:    capture, instantiate and upload (until the stream is idle) of a fresh graph, host
//             wall time, `repetitions` times (each graph destroyed before the next);
//   steady:   M paths back to back (M chosen so a batch from the stream lasts about 5 ms) from the
//             stream, and M replays of one instantiated graph, each batch followed by an event the
//             host waits for: host wall ÷ M and the GPU time between events ÷ M, `repetitions`
//             times, the two sides alternating which goes first;
//   measured: for each R, end to end host wall time of R paths from the stream + wait, against
//             capture + instantiate + upload (not waited for) + R replays + wait, of a fresh graph
//             destroyed after the clock stopped; `repetitions` rounds over all R, within a round the
//             side that goes first alternating from one R to the next and from round to round.
//
// "Wait" is an event recorded behind the work and polled by the host (DeviceContext::waitEvent,
// with the runner's watchdog), the same on both sides. Host times are std::chrono::steady_clock.
// Past `wallLimitS` the measurement stops between two timings and says so in the note; progress
// lines keep coming throughout (the client's silence deadline). Throws RequestFailure on a driver
// error; every graph made is destroyed on every path out.

#include "app/runner/device_context.h"
#include "app/runner/request_progress.h"
#include "core/run/protocol.h"

namespace lowerscope::runner {

class LoadedVariant;

GraphPathResult measureGraphPath(DeviceContext& ctx, LoadedVariant& variant, const GraphPathOptions& options,
                                 RequestProgress& progress);

} // namespace lowerscope::runner
