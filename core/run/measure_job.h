#pragma once
// One measurement job of the GUI: the launch as the user typed it applied to each build side, then
// core/run/measurement.h's measure() through a fresh runner process, and its one writer for the
// document that the measurement pane shows and the session stores. Runs on a worker thread; no Qt.
//
// Plain strings only in this header: the launch is given in the CLI's spec language.

#include "core/model.h"
#include "core/run/measurement.h"
#include "core/run/protocol.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lowerscope {

// The launch as the user typed it (every field in the CLI / sidecar language).
struct LaunchText {
    std::vector<std::string> grid{"1"};
    std::vector<std::string> block{"1"};
    std::string sharedBytes = "0";
    std::vector<std::string> args;
    std::vector<std::string> lets;    // defined, not passed (the buffer behind a tensor map)
    std::vector<std::string> cluster; // thread block cluster; empty = none
    std::vector<std::string> outputs; // empty = every non-const pointer
    std::string bytes;                // per launch, "" = not declared
    std::string flops;
};

// A sidecar's or the PTX signature's default launch for `kernel` (demangled or plain name) of
// `sourcePath`: the sidecar kernels/<name>.json when it has the kernel, else a guess from the PTX
// parameters (pointers → f32 buffers of 1 Mi elements, integers → 1048576, floats → 1.0).
// `origin` says which ("sidecar kernels/saxpy.json", "PTX signature").
// With `bounds` (the kernel's PTX launch bounds), the guessed block is their size instead of 256
// (launchBoundsBlockSize, core/analysis/occupancy.h), so the launch can work; a sidecar still wins.
LaunchText defaultLaunch(const std::string& sourcePath, const std::string& kernel, const std::vector<PtxParam>& params,
                         std::string* origin = nullptr, const PtxLaunchBounds* bounds = nullptr);

// Puts the launch as typed into `spec` (grid, block, shared bytes, arguments, outputs, declared
// bytes and FLOPs); the kernel and description are left as they are.
void applyLaunchText(const LaunchText& launch, LaunchSpec& spec);

struct MeasureRequest {
    uint64_t jobId = 0;
    std::vector<MeasureSide> sides;  // 1 = single run, 2 = A/B interleaved (their `spec` is
                                     // ignored: `launch` applies to every side)
    LaunchText launch;
    std::string mode = "auto";       // auto | cold | hot
    double deadlineS = 10;           // the client kills a runner silent for this long
    std::vector<std::string> runnerCommand; // empty = defaultRunnerCommand()
    std::string sourceName;          // recorded in the document for sides that name no file
};

struct MeasureOutcome {
    uint64_t jobId = 0;
    bool ok = false;
    bool cancelled = false;
    nlohmann::json document;         // writeMeasurement's document: run/1 or compare/1, or an error
    RunErrorKind errorKind = RunErrorKind::Unknown; // when !ok: KernelFault, Deadline, BadLaunch, ...
    std::string errorMessage;        // one or two sentences for the user
};

struct MeasureProgress {
    std::string stage;
    std::string variant;
    int samples = 0;
    double noise = 0;
    double elapsedS = 0;
};
using MeasureProgressFn = std::function<void(const MeasureProgress&)>;

// How a job is carried out (tests install fakes). Must not throw.
using MeasureBackend =
    std::function<MeasureOutcome(const MeasureRequest&, std::atomic<bool>* cancel, const MeasureProgressFn&)>;

// The real backend: a ProcessRunner started with request.runnerCommand for this job and stopped
// after it (a faulting kernel leaves nothing behind; the next job starts a fresh runner).
MeasureOutcome runMeasureJob(const MeasureRequest& request, std::atomic<bool>* cancel, const MeasureProgressFn& progress);
// The same on a runner the caller made (the GUI's Slurm target: a SlurmRunner, core/run/slurm.h);
// request.runnerCommand and deadlineS are then the caller's business.
MeasureOutcome runMeasureJobOn(Runner& runner, const MeasureRequest& request, std::atomic<bool>* cancel,
                               const MeasureProgressFn& progress);

// The runner command for preferences: local (host "") → defaultRunnerCommand(); remote →
// ssh [sshOptions...] -o BatchMode=yes HOST remoteCommand.
std::vector<std::string> runnerCommandFor(const std::string& host, const std::vector<std::string>& sshOptions = {},
                                          const std::string& remoteCommand = "lowerscope-runner");

// Asks the runner for its device (starts and stops it). False on failure, with the runner's error
// kind (NoDriver, NoDevice, RunnerStart, RunnerExited, ...) and message.
bool probeRunner(const std::vector<std::string>& command, std::string& deviceName, RunErrorKind& errorKind,
                 std::string& errorMessage, double timeoutS = 20);

} // namespace lowerscope
