// The profiling procedure: kernel metrics by replay, instruction counts by patching, stall
// samples by repeated launches.
#include "app/runner/profile_procedure.h"

#include "app/runner/cupti_pcsampling.h"
#include "app/runner/cupti_range.h"
#include "app/runner/cupti_sass.h"
#include "core/run/buffer_data.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

namespace lowerscope::runner {

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void raise(CuptiFailure f, const std::string& what, const std::string& detail) {
    throw ProfileFailure(f == CuptiFailure::None ? CuptiFailure::Other : f,
                         cuptiFailureMessage(f, what, detail));
}

void progress(const ProfileHooks& h, const std::string& stage, int launches) {
    if (h.progress) {
        h.progress(stage, launches);
    }
}

// The rows of the profiled function: CUPTI names functions by their mangled name, which is what
// the driver reports too; a module may hold other functions, which are dropped.
std::vector<InstructionProfile> rowsOf(std::map<std::string, std::vector<InstructionProfile>>& byFunction,
                                       const std::string& function) {
    auto it = byFunction.find(function);
    if (it != byFunction.end()) {
        return std::move(it->second);
    }
    return {};
}

void kernelMetrics(const Cupti& cupti, CUcontext ctx, int device, const ProfileOptions& options,
                   const ProfileHooks& hooks, ProfileData& out) {
    const std::vector<std::string>& wanted =
        options.metrics.empty() ? defaultKernelMetrics() : options.metrics;
    RangeProfiler rp(cupti, ctx, device);
    std::string detail;
    if (CuptiFailure f = rp.open(detail); f != CuptiFailure::None) {
        raise(f, "kernel metrics", detail);
    }
    out.chip = rp.chip();
    std::vector<std::string> valid;
    std::vector<std::string> units;
    for (const auto& name : wanted) {
        MetricInfo info = rp.describe(name);
        if (info.valid) {
            valid.push_back(name);
            units.push_back(info.unit);
        } else {
            out.invalidMetrics.push_back(name);
        }
    }
    if (valid.empty()) {
        raise(CuptiFailure::Other, "kernel metrics", "none of the requested metrics is known on " + out.chip);
    }
    hooks.load();
    // One launch per pass: each pass is a cold launch on the declared inputs, like Nsight
    // Compute's kernel replay with its cache control.
    if (CuptiFailure f = rp.configure(valid, 1, detail, true); f != CuptiFailure::None) {
        raise(f, "kernel metrics", detail);
    }
    out.passes = static_cast<int>(rp.passes());
    if (rp.kernelReplay()) {
        out.note =
            "CUPTI refused user replay with automatic ranges: its kernel replay was used (no L2 flush or "
            "input restore between passes)";
    }
    bool allDone = false;
    int passes = 0;
    while (!allDone) {
        if (passes > out.passes + 4 || passes > 500) {
            raise(CuptiFailure::Other, "kernel metrics",
                  "CUPTI still wanted passes after " + std::to_string(passes) + " (it planned " +
                      std::to_string(out.passes) + ")");
        }
        hooks.prepare();
        if (CuptiFailure f = rp.beginPass(detail); f != CuptiFailure::None) {
            raise(f, "kernel metrics", detail);
        }
        hooks.launch();
        if (CuptiFailure f = rp.endPass(allDone, detail); f != CuptiFailure::None) {
            raise(f, "kernel metrics", detail);
        }
        ++passes;
        progress(hooks, "profile_kernel", passes);
    }
    out.launches = passes;
    std::vector<std::vector<double>> values;
    if (CuptiFailure f = rp.decode(values, detail); f != CuptiFailure::None) {
        raise(f, "kernel metrics", detail);
    }
    if (values.size() != 1) {
        raise(CuptiFailure::Other, "kernel metrics",
              "expected one range (one launch), CUPTI decoded " + std::to_string(values.size()));
    }
    for (size_t i = 0; i < valid.size(); ++i) {
        out.metrics.push_back(ProfileMetric{valid[i], values[0][i], units[i]});
    }
}

void instructionCounts(const Cupti& cupti, CUcontext ctx, int device, const ProfileHooks& hooks,
                       ProfileData& out) {
    hooks.load();
    SassCounters sc(cupti, ctx, device);
    std::string detail;
    if (CuptiFailure f = sc.begin(defaultInstructionMetrics(), out.invalidMetrics, detail);
        f != CuptiFailure::None) {
        raise(f, "instruction counts", detail);
    }
    out.chip = sc.chip();
    hooks.prepare();
    hooks.launch();
    out.launches = 1;
    progress(hooks, "profile_instructions", 1);
    std::map<std::string, std::vector<InstructionProfile>> byFunction;
    uint64_t recordCrc = 0;
    if (CuptiFailure f = sc.collect(byFunction, recordCrc, detail); f != CuptiFailure::None) {
        raise(f, "instruction counts", detail);
    }
    sc.end();
    out.instructions = rowsOf(byFunction, out.function);
    if (out.instructions.empty()) {
        // Which functions it did count says whether the launch went unpatched or under another name.
        std::string counted;
        for (const auto& [name, rows] : byFunction) {
            if (counted.size() > 400) {
                counted += ", ...";
                break;
            }
            counted += (counted.empty() ? "" : ", ") + (name.empty() ? std::string("(no name)") : name) + " (" +
                       std::to_string(rows.size()) + " rows)";
        }
        raise(CuptiFailure::Other, "instruction counts",
              "CUPTI returned no counts for " + out.function +
                  (counted.empty() ? std::string(" (nor for any function)") : "; it counted " + counted));
    }
}

void stallSamples(const Cupti& cupti, CUcontext ctx, int device, const ProfileOptions& options,
                  const ProfileHooks& hooks, ProfileData& out) {
    PcSampler ps(cupti, ctx, device);
    std::string detail;
    PcSampler::Options sampling = PcSampler::optionsFromEnvironment();
    if (options.samplePeriodLog2 != 0) sampling.periodLog2 = options.samplePeriodLog2;
    if (CuptiFailure f = ps.begin(sampling, detail); f != CuptiFailure::None) {
        raise(f, "stall samples", detail);
    }
    out.samplingPeriodLog2 = ps.periodLog2();
    out.chip = ps.chip();
    hooks.load();
    out.function = hooks.functionName();
    std::map<std::string, std::vector<InstructionProfile>> byFunction;
    uint64_t mine = 0;
    uint64_t crcIgnored = 0;
    auto read = [&]() {
        std::map<std::string, std::vector<InstructionProfile>> round;
        if (CuptiFailure f = ps.collect(round, crcIgnored, out.totalSamples, out.droppedSamples, detail);
            f != CuptiFailure::None) {
            raise(f, "stall samples", detail);
        }
        uint64_t got = 0;
        for (auto& [fn, rows] : round) {
            auto& acc = byFunction[fn];
            for (auto& r : rows) {
                if (fn == out.function) {
                    for (const auto& [reason, n] : r.samples) {
                        got += reason.find("not_issued") == std::string::npos ? n : 0;
                    }
                }
                acc.push_back(std::move(r));
            }
        }
        mine += got;
        return got;
    };
    const auto t0 = Clock::now();
    while (true) {
        hooks.prepare();
        if (CuptiFailure f = ps.start(detail); f != CuptiFailure::None) {
            raise(f, "stall samples", detail);
        }
        hooks.launch();
        if (CuptiFailure f = ps.stop(detail); f != CuptiFailure::None) {
            raise(f, "stall samples", detail);
        }
        ++out.launches;
        if (read() == 0) {
            // CUPTI decodes the hardware buffer on a worker thread (every 100 ms by default, every
            // 5 ms as PcSampler configures it): on an H200, kernels launched back to back with
            // little in between (sgemm_tiled, ffma_independent) showed no samples at all by the
            // 64th launch. Give it one worker period.
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min(20, ps.workerSleepMs())));
        }
        progress(hooks, "profile_samples", out.launches);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (mine >= options.targetSamples || out.launches >= options.maxLaunches || s >= options.maxSeconds) {
            break;
        }
    }
    // What the worker thread has not handed over yet: poll a little, then disable, which (CUPTI's
    // documentation) writes the remaining records into the configured buffer.
    // (Half a second at most, in worker periods.)
    const int period = std::max(1, std::min(50, ps.workerSleepMs()));
    for (int i = 0; i < 500 / period && mine < options.targetSamples; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(period));
        if (read() == 0 && mine > 0) {
            break;
        }
    }
    ps.end();
    std::map<std::string, std::vector<InstructionProfile>> tail;
    ps.parseBuffer(tail);
    for (auto& [fn, rows] : tail) {
        for (auto& r : rows) {
            byFunction[fn].push_back(std::move(r));
        }
    }
    // Merge the rounds: one row per offset.
    std::map<uint64_t, InstructionProfile> merged;
    for (auto& r : rowsOf(byFunction, out.function)) {
        InstructionProfile& m = merged[r.pcOffset];
        m.pcOffset = r.pcOffset;
        for (const auto& [reason, n] : r.samples) {
            m.samples[reason] += n;
        }
    }
    for (auto& [pc, row] : merged) {
        out.instructions.push_back(std::move(row));
    }
    if (out.instructions.empty()) {
        raise(CuptiFailure::Other, "stall samples",
              "no samples of " + out.function + " after " + std::to_string(out.launches) + " launches (" +
                  std::to_string(out.totalSamples) + " samples in all)");
    }
}

} // namespace

ProfileData collectProfile(const Cupti& cupti, CUcontext ctx, int device, const ProfileOptions& options,
                           const ProfileHooks& hooks) {
    const auto t0 = Clock::now();
    ProfileData out;
    out.collection = options.collection;
    switch (options.collection) {
    case ProfileCollection::Kernel:
        kernelMetrics(cupti, ctx, device, options, hooks, out);
        break;
    case ProfileCollection::Instructions:
        // The function name is known once the module is loaded (instructionCounts loads it).
        out.function.clear();
        {
            ProfileHooks h = hooks;
            h.load = [&] {
                hooks.load();
                out.function = hooks.functionName();
            };
            instructionCounts(cupti, ctx, device, h, out);
        }
        break;
    case ProfileCollection::Samples:
        stallSamples(cupti, ctx, device, options, hooks, out);
        break;
    case ProfileCollection::None:
        throw ProfileFailure(CuptiFailure::Other, "no profile collection requested");
    }
    if (out.function.empty()) {
        out.function = hooks.functionName();
    }
    const std::vector<uint8_t>& image = hooks.image();
    out.cubinDigest = digestHex(image.data(), image.size());
    // CUPTI's CRC of the image as loaded. The SASS Metrics records carry a CRC that on an H200
    // sometimes differed from it (and from PC Sampling's, which equals it): the image's is the key.
    out.cubinCrc = 0;
    if (!image.empty()) {
        auto p = cuptiParams<CUpti_GetCubinCrcParams>();
        p.cubin = image.data();
        p.cubinSize = image.size();
        if (cupti.cuptiGetCubinCrc(&p) == CUPTI_SUCCESS) {
            out.cubinCrc = p.cubinCrc;
        }
    }
    out.collectMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return out;
}

} // namespace lowerscope::runner
