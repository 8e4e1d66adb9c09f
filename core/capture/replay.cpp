// Replaying a captured launch (replay.h).
#include "core/capture/replay.h"

#include "core/capture/capture_document.h"
#include "core/bounded_json.h"

#include <fstream>
#include <iterator>

namespace lowerscope::capture {

namespace {

bool readWhole(const std::string& path, std::vector<uint8_t>& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

} // namespace

bool loadReplay(const std::string& documentPath, const std::string& launchId, ReplayInput& out, std::string& error) {
    out = ReplayInput{};
    out.documentPath = documentPath;
    const std::optional<nlohmann::json> read = readJsonFileBounded(documentPath, error);
    if (!read) return false;
    const nlohmann::json& doc = *read;
    CaptureSummary summary;
    if (!readCaptureDocument(doc, summary, error)) return false;
    std::vector<LaunchSnapshot> snapshots;
    if (!readSnapshots(doc, snapshots, error)) return false;
    if (snapshots.empty()) {
        error = "the capture saved no launch for replay (capture with --save-launches and a kernel filter)";
        return false;
    }
    const LaunchSnapshot* found = nullptr;
    std::string ids;
    for (const LaunchSnapshot& s : snapshots) {
        ids += (ids.empty() ? "" : ", ") + s.id();
        if (s.id() == launchId) found = &s;
    }
    if (launchId.empty()) {
        if (snapshots.size() != 1) {
            error = "the capture saved " + std::to_string(snapshots.size()) + " launches; choose one with --launch (" +
                    ids + ")";
            return false;
        }
        found = &snapshots[0];
    }
    if (!found) {
        error = "the capture saved no launch '" + launchId + "' (it has: " + ids + ")";
        return false;
    }
    out.snapshot = *found;
    const LaunchSnapshot& s = out.snapshot;
    if (!s.error.empty()) {
        error = "launch " + s.id() + " was not saved completely: " + s.error;
        return false;
    }
    if (s.params.empty() && !s.paramBytes.empty()) {
        error = "launch " + s.id() +
                " has no parameter layout (the driver could not say where each parameter lies: CUDA 12.4 or newer "
                "is needed)";
        return false;
    }
    for (const auto& [offset, size] : s.params) {
        if (size == 0 || uint64_t(offset) + size > s.paramBytes.size()) {
            error = "launch " + s.id() + ": a parameter lies outside the saved parameter bytes";
            return false;
        }
    }
    size_t kernelIndex = 0;
    if (!captureKernelCubin(documentPath, summary, s.name, out.cubinPath, kernelIndex, error)) return false;
    out.kernelDemangled = summary.kernels.at(kernelIndex).demangled;
    out.programSerialized = summary.serializedKernels;
    if (const auto ls = doc.find("launches"); s.launchIndex >= 0 && ls != doc.end() && ls->is_array() &&
                                              size_t(s.launchIndex) < ls->size() && (*ls)[s.launchIndex].is_object()) {
        const std::optional<double> d = jsonFiniteNumber((*ls)[s.launchIndex], "duration_ns");
        if (d && *d > 0 && *d < 1e15) out.programDurationNs = *d;
    }
    if (!readWhole(out.cubinPath, out.cubin)) {
        error = "cannot read " + out.cubinPath;
        return false;
    }
    for (const SnapshotRegion& r : s.regions) {
        std::vector<uint8_t> before, after;
        if (!readSnapshotFile(documentPath, r.before, r.bytes, before, error)) return false;
        if (!r.after.empty() && !readSnapshotFile(documentPath, r.after, r.bytes, after, error)) return false;
        out.before.push_back(std::move(before));
        out.after.push_back(std::move(after));
    }
    for (const SnapshotOmitted& o : s.omitted) {
        out.notes.push_back("memory at " + addressHex(o.address) + " (" + std::to_string(o.bytes) +
                            " bytes) was not saved: " + o.why + "; a replay that reads it reads other data or faults");
    }
    return true;
}

LaunchVariant replayVariant(const ReplayInput& in, std::vector<uint8_t> cubin, const std::string& label) {
    const LaunchSnapshot& s = in.snapshot;
    LaunchVariant v;
    v.label = label;
    v.cubin = std::move(cubin);
    v.kernel = s.name;
    for (int i = 0; i < 3; ++i) {
        v.grid[static_cast<size_t>(i)] = static_cast<uint32_t>(s.grid[static_cast<size_t>(i)]);
        v.block[static_cast<size_t>(i)] = static_cast<uint32_t>(s.block[static_cast<size_t>(i)]);
        v.cluster[static_cast<size_t>(i)] = static_cast<uint32_t>(s.cluster[static_cast<size_t>(i)]);
    }
    v.sharedBytes = static_cast<uint32_t>(s.dynamicSmem);
    v.paramBytes = static_cast<int>(s.paramBytes.size());
    int index = 0;
    for (const auto& [offset, size] : s.params) {
        ParamSlot p;
        p.name = "param" + std::to_string(index++);
        p.offset = static_cast<int>(offset);
        p.size = static_cast<int>(size);
        p.scalar.assign(s.paramBytes.begin() + offset, s.paramBytes.begin() + offset + size);
        v.params.push_back(std::move(p));
    }
    return v;
}

std::vector<MemoryRegion> replayRegions(const ReplayInput& in, ElemType type) {
    const LaunchSnapshot& s = in.snapshot;
    // Tensor maps (a 128-byte parameter, or a 128-byte allocation holding an address) need not pin
    // their memory: where the driver gives other addresses the runner re-points them with
    // cuTensorMapReplaceAddress (app/runner/restored_memory.h).
    std::vector<MemoryRegion> out;
    for (size_t i = 0; i < s.regions.size(); ++i) {
        MemoryRegion m;
        m.address = s.regions[i].address;
        m.data = in.before.at(i);
        m.type = m.data.size() % static_cast<size_t>(elemSize(type)) == 0 ? type : ElemType::U8;
        m.relocatePointers = s.regions[i].pointers;
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<ReplayCheck> checkReplay(const ReplayInput& in, const std::vector<OutputReport>& outputs) {
    std::vector<ReplayCheck> out;
    const LaunchSnapshot& s = in.snapshot;
    for (size_t i = 0; i < s.regions.size(); ++i) {
        ReplayCheck c;
        c.name = regionOutputName(s.regions[i].address);
        c.bytes = s.regions[i].bytes;
        const std::vector<uint8_t>& after = in.after.at(i);
        for (const OutputReport& o : outputs) {
            if (o.name != c.name || after.empty() || o.data.size() != after.size()) continue;
            c.compared = true;
            for (size_t k = 0; k < after.size(); ++k) {
                if (o.data[k] != after[k]) {
                    if (c.firstDifference < 0) c.firstDifference = static_cast<int64_t>(k);
                    ++c.differingBytes;
                }
            }
        }
        out.push_back(c);
    }
    return out;
}

} // namespace lowerscope::capture
