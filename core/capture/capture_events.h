#pragma once
// The event stream between the injection library (app/inject: CUPTI callbacks and activity records
// inside the captured program) and `lowerscope-cli capture`: one JSON object per line, written by
// each process of the program to its own file (events-PID.jsonl) and read back here into a
// CaptureLog. Writing (capture_events.cpp, also compiled into the injection library) and reading
// (capture_log.cpp) are declared in this one header so that the two sides cannot disagree; the
// writers are plain functions without CUPTI so that tests can produce any stream.
//
// Lines (key "e" names the event):
//   process  pid, cupti (CUPTI's version), error ("" or why the injection could not record)
//   device   pid, id (CUDA device ordinal), name, cc [major, minor]
//   module   pid, module (CUPTI module id), hash (xxh3-128 hex of the cubin), bytes
//   kernel   pid, corr, name (mangled), device, context, stream, grid [3], block [3], cluster [3],
//            smem [dynamic, static], regs, start, end (GPU ns), graph, graph_node
//   end      pid, dropped (records CUPTI dropped): the process flushed at exit; a process without
//            it ended before its last records were written (killed, _exit, crash)
//   snapshot a selected launch's parameters and the device memory they reach, saved for replay
//            (written with snapshotEventLine; fields in core/capture/launch_snapshot.h)
// The reader treats the stream as untrusted: a line over 1 MiB, or that is not one of these events
// with the right types, is skipped and counted.

#include "core/capture/launch_snapshot.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lowerscope::capture {

struct CapturedLaunch {
    uint32_t pid = 0;
    uint32_t correlationId = 0; // the launch call's CUPTI correlation id (per process, increasing)
    std::string name;           // mangled (as the cubin's symbol table names it)
    uint32_t device = 0, context = 0, stream = 0;
    std::array<int64_t, 3> grid{}, block{};
    std::array<int64_t, 3> cluster{}; // 0 0 0 when the launch had no cluster dimensions
    int64_t dynamicSmem = 0, staticSmem = 0;
    int64_t registers = 0;
    uint64_t startNs = 0, endNs = 0;
    uint64_t graphId = 0, graphNodeId = 0; // non-zero for a kernel node of a CUDA graph
    uint64_t durationNs() const { return endNs > startNs ? endNs - startNs : 0; }
};

struct CapturedModule {
    uint32_t pid = 0;
    uint32_t moduleId = 0;
    std::string hash; // 32 lower-case hex digits: xxh3Hex of the cubin (core/build/cache.h)
    uint64_t bytes = 0;
};

struct CapturedDevice {
    uint32_t pid = 0;
    uint32_t id = 0;
    std::string name;
    int ccMajor = 0, ccMinor = 0;
};

struct CapturedProcess {
    uint32_t pid = 0;
    std::string cuptiVersion;
    std::string error;   // the injection's own failure ("" = it recorded)
    bool flushed = false; // an `end` event came
    uint64_t dropped = 0;
};

// Writers: one line each, '\n' included. Names that are not valid UTF-8 are written with U+FFFD.
std::string processEventLine(uint32_t pid, const std::string& cuptiVersion, const std::string& error);
std::string deviceEventLine(const CapturedDevice& d);
std::string moduleEventLine(const CapturedModule& m);
std::string kernelEventLine(const CapturedLaunch& k);
std::string endEventLine(uint32_t pid, uint64_t dropped);

// The longest event line read; longer ones are skipped.
constexpr size_t kMaxEventLineBytes = size_t(1) << 20;

// Everything the processes of one program reported.
struct CaptureLog {
    std::vector<CapturedProcess> processes; // in the order first seen
    std::vector<CapturedDevice> devices;
    std::vector<CapturedModule> modules;
    std::vector<CapturedLaunch> launches;   // in arrival order (see launchOrder)
    std::vector<LaunchSnapshot> snapshots;  // in arrival order; at most kMaxSnapshots
    size_t skippedLines = 0;                // malformed or unknown lines
    std::string firstSkipReason;

    // Reads one line (without or with its '\n'). False (and counted in skippedLines) when it is not
    // a valid event.
    bool addLine(std::string_view line);
    // Reads every line of an events file, streaming, each line bounded by kMaxEventLineBytes.
    // False with `error` when the file cannot be read.
    bool addFile(const std::string& path, std::string& error);
    // The launches in launch order, as indices into `launches`: processes in the order first seen,
    // then by correlation id, then by start time (the nodes of one graph launch share a correlation id).
    std::vector<size_t> launchOrder() const;

private:
    CapturedProcess& process(uint32_t pid);
};

} // namespace lowerscope::capture
