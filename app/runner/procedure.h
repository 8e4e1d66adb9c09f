#pragma once
// What the runner does with the variants of a request: the seam between "what is loaded" and "what
// is done with it".
//
// runRequest() (request.h) loads every variant (module, kernel, buffers, parameters:
// LoadedVariant), and — when the procedure checksOutputs() — times each first launch, reads the
// outputs and shares the buffers; then it hands the variants to one Procedure, and finally adds
// the output agreement and the variants' results to the RunResult. procedureFor() picks it:
//
//   PlainLaunchProcedure  request.profileLaunches > 0: N plain launches each (L2 flushed unless
//                         hot, synchronised, event-timed), no helper kernel that an external
//                         profiler such as ncu would serialise behind; mode "profile".
//   TimingProcedure       otherwise: TIMING.md's measurement (timing_procedure.h).
//
// Profile requests (CUPTI kernel metrics, instruction counts, stall samples) do not go through a
// Procedure: PC sampling must be enabled before the module loads, so runRequest() hands them to
// runProfileRequest() (profile_request.h), which loads each variant inside the collection.

#include "app/runner/device_context.h"
#include "app/runner/request_progress.h"
#include "core/run/protocol.h"

#include <memory>
#include <vector>

namespace lowerscope::runner {

class LoadedVariant;

// What a procedure works with during one request (all borrowed for the request's duration).
struct RequestContext {
    DeviceContext& device;
    const RunRequest& request;
    RequestProgress& progress;
};

class Procedure {
public:
    virtual ~Procedure() = default;
    // "plain_launches", "timing", ...
    virtual const char* name() const = 0;
    // Whether each variant's first launch is timed and its outputs read (digests, unwritten
    // elements, agreement between variants) before run(). Throws RequestFailure.
    virtual bool checksOutputs() const = 0;
    // Before the variants are loaded: device-wide work (e.g. the copy ceiling, the event overhead).
    virtual void prepare(RequestContext& rc) { (void)rc; }
    // Runs the loaded variants; fills each one's `result` (samples, mode, stop reason, ...) and may
    // add to `result`. Throws RequestFailure.
    virtual void run(RequestContext& rc, const std::vector<LoadedVariant*>& variants, RunResult& result) = 0;
};

// Plain launches for an external profiler.
class PlainLaunchProcedure : public Procedure {
public:
    const char* name() const override { return "plain_launches"; }
    bool checksOutputs() const override { return false; }
    void run(RequestContext& rc, const std::vector<LoadedVariant*>& variants, RunResult& result) override;
};

// The procedure for `request` (see the top of this file).
std::unique_ptr<Procedure> procedureFor(const RunRequest& request);

} // namespace lowerscope::runner
