#pragma once
// What a capture saves of a selected launch so that it can be replayed standalone
// (`lowerscope-cli run --from-capture FILE --launch ID`, core/capture/replay.h): the kernel's
// parameter bytes and the device memory the parameters reach. Written by the injection library
// (app/inject) at the launch call (CUPTI driver-API callback, before the launch: the memory as the
// kernel will find it; after it: the memory as the kernel left it), read back by the CLI into the
// lowerscope.capture/1 document's "snapshots".
//
// Which memory: every 8-byte-aligned word of the parameter bytes that falls into a device
// allocation (cuMemGetAddressRange) names that whole allocation; allocations of at most 64 KiB are
// scanned the same way once more (an array of pointers, a tensor map kept in device memory), one
// level deep. Each allocation is saved once, up to the capture's memory limit; what is left out
// is listed with the reason. The captured program runs without address-space randomisation
// (personality ADDR_NO_RANDOMIZE, inherited by its children), which makes the CUDA driver's
// device addresses repeat in another process started the same way: the runner maps the memory
// back at the original addresses (lowerscope-runner --fixed-addresses).
//
// Event line (core/capture/capture_events.h's stream, key "e": "snapshot"):
//   pid, corr (the launch's CUPTI correlation id: the kernel record with the same pid and corr is
//   this launch), name (mangled), grid [3], block [3], cluster [3], smem (dynamic bytes),
//   params [[offset, size], ...] (cuFuncGetParamInfo; [] when the driver cannot say),
//   param_bytes (hex of the packed parameter buffer), regions [{address "0x..", bytes, before,
//   after, pointers}], omitted [{address, bytes, why}], error ("" or why nothing was saved).
// `before`/`after` are file names relative to the snapshot folder given to the injection
// ($LOWERSCOPE_CAPTURE_SNAPSHOTS): "PID-CORR/before-ADDRESS.bin" and ".../after-ADDRESS.bin"
// (ADDRESS in lower-case hex without 0x); `after` is "" when it could not be read.

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

namespace lowerscope::capture {

struct SnapshotRegion {
    uint64_t address = 0;     // the allocation's base (cuMemGetAddressRange)
    uint64_t bytes = 0;
    std::string before;       // file, relative to the snapshot folder
    std::string after;        // "" when not saved
    bool pointers = false;    // words inside it point into saved regions (replay needs the original addresses)
};

struct SnapshotOmitted {
    uint64_t address = 0;
    uint64_t bytes = 0;
    std::string why;          // "over the memory limit", "host memory", ...
};

struct LaunchSnapshot {
    uint32_t pid = 0;
    uint32_t correlationId = 0;
    std::string name;                                  // mangled
    std::array<int64_t, 3> grid{}, block{}, cluster{};
    int64_t dynamicSmem = 0;
    std::vector<std::pair<uint32_t, uint32_t>> params; // (offset, size) per parameter
    std::vector<uint8_t> paramBytes;                   // the packed parameter buffer
    std::vector<SnapshotRegion> regions;
    std::vector<SnapshotOmitted> omitted;
    std::string error;
    // Read from a document (readSnapshots): the index of this launch in the document's
    // "launches", -1 when its kernel record is missing. Not part of the event line.
    int64_t launchIndex = -1;
    // "PID-CORR": how `--launch` names it.
    std::string id() const { return std::to_string(pid) + "-" + std::to_string(correlationId); }
};

// The event line ('\n' included).
std::string snapshotEventLine(const LaunchSnapshot& s);

// The largest parameter buffer kept (CUDA allows 32,764 bytes of parameters).
constexpr size_t kMaxParamBytes = 32768;
// The most parameters, regions and omitted allocations one snapshot lists.
constexpr size_t kMaxSnapshotParams = 1024;
constexpr size_t kMaxSnapshotRegions = 64;
constexpr size_t kMaxSnapshotOmitted = 256;
// The most snapshots one document (or one events stream) holds.
constexpr size_t kMaxSnapshots = 4096;
// The largest saved region file read back (readSnapshotFile).
constexpr uint64_t kMaxSnapshotFileBytes = uint64_t(4) << 30;

// "PID-CORR/before-ADDRESS.bin" (`which` "before" or "after"; ADDRESS lower-case hex, no 0x):
// the file name, relative to the snapshot folder, of a region of this launch.
std::string snapshotFileName(uint32_t pid, uint32_t correlationId, const char* which, uint64_t address);
// "0x7f3a00000000": how documents and event lines write an address.
std::string snapshotAddressText(uint64_t address);
// Lower-case hex of bytes, and back (false on odd length or a non-hex digit).
std::string hexBytes(const uint8_t* data, size_t size);
bool parseHexBytes(const std::string& text, std::vector<uint8_t>& out);

// ------------------------------------------------------------------ reading (core library only)

// One "snapshot" event line's object (capture_log.cpp), untrusted: counts bounded (above), hex
// checked, region files exactly snapshotFileName(pid, corr, ...) of their address. False with
// `error` one sentence.
bool snapshotFromEvent(const nlohmann::json& event, LaunchSnapshot& out, std::string& error);

// The document's "snapshots" entry of `s` (capture_document.h): the region files relative to the
// document's folder, `folder` ("run.launches", the snapshot folder's name next to the document;
// "" for none) put before the event line's names; `launchIndex` as given.
nlohmann::json snapshotDocumentEntry(const LaunchSnapshot& s, const std::string& folder, int64_t launchIndex);

// The "snapshots" of a lowerscope.capture/1 document someone else may have written (none: an
// empty list). Untrusted: at most kMaxSnapshots, every count bounded as above, ids "PID-CORR"
// matching pid and corr, param_bytes hex of at most kMaxParamBytes, addresses "0x..." strings,
// region files plain relative paths (no "..", no absolute path, no empty or "." component) whose
// last two components are exactly "PID-CORR/before-ADDRESS.bin" (".../after-ADDRESS.bin"), and
// `launch` an index into the document's launches or -1. In `out`, SnapshotRegion::before/after are
// relative to the DOCUMENT's folder (pass them to readSnapshotFile). False with `error` one
// sentence naming the snapshot.
bool readSnapshots(const nlohmann::json& doc, std::vector<LaunchSnapshot>& out, std::string& error);
// The same for a document whose launches are written apart (CaptureDocumentParts::head):
// `launchCount` launches, whatever its own "launches" holds.
bool readSnapshots(const nlohmann::json& doc, size_t launchCount, std::vector<LaunchSnapshot>& out,
                   std::string& error);

// Reads one saved region: `relative` (a SnapshotRegion's before/after as readSnapshots returned
// it) resolved inside the folder of `documentPath` (a symlink leading out of it refused), a
// regular file of exactly `bytes` bytes (at most kMaxSnapshotFileBytes). False with `error` one
// sentence naming the file.
bool readSnapshotFile(const std::string& documentPath, const std::string& relative, uint64_t bytes,
                      std::vector<uint8_t>& out, std::string& error);

} // namespace lowerscope::capture
