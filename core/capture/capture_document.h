#pragma once
// The `lowerscope.capture/1` document: what `lowerscope-cli capture` recorded of a program — the
// program, its exit, the devices, every kernel launch (grid, block, cluster, shared memory,
// stream, GPU duration), per-kernel statistics (count, median with its 95 % interval from
// core/run/stats.h, total and share of GPU time) sorted by total time, and the modules whose
// cubins were saved next to the document (file named by content hash, arch, kernels it holds).
// Built from a CaptureLog (capture_events.h) with no CUPTI here; read back as untrusted input
// (bounded, every field checked, cubin paths only inside the document's folder).
//
// Document (ns integers unless said):
//   schema "lowerscope.capture/1", program, args [], working_dir, exit {code, signal, cancelled,
//   wall_ms}, environment {name: value} (the CUDA_* and LOWERSCOPE_* variables the program saw),
//   filter {kernel, launch_skip, launch_count|null}, durations ("concurrent": CUPTI's concurrent
//   kernel records, the blocks' span; "serialized": its serialising records, every kernel alone,
//   comparable with ncu's gpu__time_duration), processes [{pid, cupti, error, flushed,
//   dropped}], devices [{id, name, cc}], total_gpu_ns, launch_total, launches_written,
//   launches [{id, pid, kernel (index into kernels), correlation, device, stream, grid [3],
//   block [3], cluster [3], dynamic_smem, static_smem, registers, start_ns, duration_ns, graph,
//   selected}], kernels [{name, demangled, count, total_ns, share, median_ns, ci_low_ns,
//   ci_high_ns, min_ns, max_ns, mean_ns, selected, modules [index into modules]}] sorted by
//   total_ns (largest first), modules [{file, hash, bytes, arch, kernels [mangled], pids []}],
//   snapshots [{id "PID-CORR", pid, corr, launch (index into launches, -1 when its kernel record
//   is missing), name, grid, block, cluster, smem, params [[offset, size]], param_bytes (hex),
//   regions [{address "0x..", bytes, before, after, pointers}] (files relative to the document's
//   folder: "STEM.launches/PID-CORR/before-ADDRESS.bin"), omitted [{address, bytes, why}], error}]
//   (launch_snapshot.h; only with `capture --save-launches`; a launch with a snapshot has
//   "snapshot": its id), notes [sentences].

#include "core/capture/capture_events.h"
#include "core/capture/launch_filter.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lowerscope::capture {

inline constexpr const char* kCaptureSchema = "lowerscope.capture/1";
// At most this many launches are written one by one (statistics always use all of them): a
// document stays within the bounded reader's limits (64 MiB, 4 million values).
constexpr size_t kMaxDocumentLaunches = 100000;

struct CaptureRunInfo {
    std::string program;
    std::vector<std::string> args;
    std::string workingDir;
    std::map<std::string, std::string> environment;
    int exitCode = 0;
    int signal = 0;
    bool cancelled = false;
    bool timedOut = false;
    double wallMs = 0;
    bool serializedKernels = false; // CaptureSpec::serializeKernels: how the durations were taken
};

// A saved cubin as the document describes it (read from the file in the capture's folder).
struct ModuleFile {
    std::string file; // base name in the capture's folder: HASH.cubin
    std::string hash;
    uint64_t bytes = 0;
    std::string arch;                 // "sm_90", "" when the ELF header does not say
    std::vector<std::string> kernels; // mangled, from the cubin's symbol table
    std::vector<uint32_t> pids;
    std::string error;                // why the file could not be read ("" = read)
};

// Reads every module's cubin from `folder` (HASH.cubin, written by the injection), checks its
// hash and lists its kernels and arch. One entry per distinct hash, in the order first loaded.
std::vector<ModuleFile> describeModules(const CaptureLog& log, const std::string& folder);

// A launch as the document lists it.
struct DocumentLaunch {
    CapturedLaunch launch;
    size_t kernel = 0;     // index into the document's kernels
    bool selected = false;
    std::string snapshot;  // the id of its snapshot, "" when none
};

// The document with its launches apart: a document of 100,000 launches built as one JSON value took
// most of `capture`'s time after the program (each launch an object of 16 members), so the launches
// are written straight into the text.
struct CaptureDocumentParts {
    nlohmann::json head;                  // the whole document but for its launches ("launches": [])
    std::vector<DocumentLaunch> launches; // the launches written: the first kMaxDocumentLaunches
    // The document's text as the file holds it: head dumped with an indent of 1 (keys sorted,
    // invalid UTF-8 as U+FFFD), its launches one compact line each (keys sorted; a third of the
    // indented size, and a launch per line for grep), '\n' at the end.
    std::string text() const;
};

// The document. `filter` marks the selected launches (launch order, see launch_filter.h); it must
// be a valid filter (LaunchFilter's constructor throws otherwise).
// `snapshotFolder`: the name, relative to the document's folder, of the folder the injection saved
// the snapshots' files in ("run.launches"); the document's region paths start with it.
CaptureDocumentParts captureDocumentParts(const CaptureLog& log, const CaptureRunInfo& run,
                                          const LaunchFilterOptions& filter, const std::vector<ModuleFile>& modules,
                                          const std::string& snapshotFolder = "");
// The same document as one JSON value: its text (CaptureDocumentParts::text) parsed.
nlohmann::json captureDocument(const CaptureLog& log, const CaptureRunInfo& run, const LaunchFilterOptions& filter,
                               const std::vector<ModuleFile>& modules, const std::string& snapshotFolder = "");

// The launch of the document's ordered launches (CaptureLog::launchOrder, by address) a snapshot belongs
// to: the kernel record of the same process and correlation id; else (a launch through the
// runtime API whose kernel record carries the runtime call's correlation id) the nearest earlier
// record of the same process, kernel, grid and block that no other snapshot took. -1 when none.
int64_t snapshotLaunchIndex(const std::vector<const CapturedLaunch*>& ordered, const LaunchSnapshot& s,
                            const std::vector<bool>& taken);

// ---------------------------------------------------------------------------- reading back

struct CaptureKernelRow {
    std::string name, demangled;
    uint64_t count = 0;
    double totalNs = 0, share = 0, medianNs = 0, ciLowNs = 0, ciHighNs = 0, minNs = 0, maxNs = 0;
    uint64_t selected = 0;
    std::vector<size_t> modules; // indices into CaptureSummary::modules
};

struct CaptureModuleRow {
    std::string file, hash, arch;
    uint64_t bytes = 0;
    std::vector<std::string> kernels;
};

struct CaptureSummary {
    std::string program;
    std::vector<std::string> args;
    int exitCode = 0;
    int signal = 0;
    bool cancelled = false;
    double totalGpuNs = 0;
    uint64_t launchTotal = 0;
    bool serializedKernels = false;   // "durations": "serialized" (else "concurrent")
    std::vector<std::string> devices; // "NVIDIA H200 (sm_90)"
    std::vector<CaptureKernelRow> kernels;
    std::vector<CaptureModuleRow> modules;
    std::vector<std::string> notes;
};

// Reads a capture document someone else may have written: schema, types, index ranges and the
// module file names (a plain HASH.cubin base name) checked; false with `error` one sentence.
bool readCaptureDocument(const nlohmann::json& doc, CaptureSummary& out, std::string& error);

// Reads the document at `path` (bounded) into `out`.
bool readCaptureFile(const std::string& path, CaptureSummary& out, std::string& error);

// True when the file at `path` starts like a capture document (its first 4 KiB name the schema).
bool looksLikeCaptureDocument(const std::string& path);

// The cubin that holds the kernel `query` names (mangled, demangled, name with template
// arguments or a unique plain name; core/build/kernel_name.h): `cubinPath` is the module's file
// resolved inside the folder of `documentPath` (symlinks out of it refused), its content checked
// against the recorded hash; `kernelIndex` into summary.kernels. With an empty query the document
// must hold exactly one kernel. False with `error` one sentence.
bool captureKernelCubin(const std::string& documentPath, const CaptureSummary& summary, const std::string& query,
                        std::string& cubinPath, size_t& kernelIndex, std::string& error);

// The kernel table as `lowerscope-cli capture` prints it (like Nsight Systems' cuda_gpu_kern_sum):
// share of GPU time, total, launches, median with its 95 % interval, min, max, name; µs.
std::string kernelTableText(const CaptureSummary& summary, size_t maxRows = 50);

} // namespace lowerscope::capture
