#pragma once
// One variant of a request on the device: its module loaded and its kernel found (with the
// resources and occupancy the driver reports), its buffers allocated and filled with the declared
// data, its parameter buffer packed; then its first launch timed and its outputs read (digests,
// bytes for comparisons, which elements were written). Owns the module and the buffers (freed by
// the destructor; after a fault the process exits without running it).

#include "app/runner/cuda_api.h"
#include "app/runner/device_context.h"
#include "app/runner/device_copies.h"
#include "app/runner/request_progress.h"
#include "core/run/output_agreement.h"
#include "core/run/protocol.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lowerscope::runner {

class ReplayGraph;
class RestoredMemory;

class LoadedVariant {
public:
    // Nothing happens on the device until load(). `spec` is borrowed and must outlive this object.
    // `memory` (a replay's captured memory, shared by every variant of the request; may be null)
    // too: its regions are restored with the inputs and read back as outputs after the buffers.
    LoadedVariant(DeviceContext& ctx, const LaunchVariant& spec, RestoredMemory* memory = nullptr);
    ~LoadedVariant();
    LoadedVariant(const LoadedVariant&) = delete;
    LoadedVariant& operator=(const LoadedVariant&) = delete;

    // Loads the module, finds the kernel (the exact symbol, else a plain name among the module's
    // functions), checks the block against the kernel's limits, computes the occupancy, allocates
    // and fills the buffers and packs the parameters. Throws RequestFailure.
    void load(RequestProgress& progress);
    // Queues one launch on `stream` (cuLaunchKernelEx with the cluster attribute when the variant
    // has a cluster); launchAsync returns the driver's answer unchecked (for graph capture).
    void launch(CUstream stream);
    CUresult launchAsync(CUstream stream);
    // Times the first launch, reads the outputs (digests; the bytes too, kept for comparisons and
    // returned when `returnOutputs`), finds unwritten elements with two poison launches, and
    // restores the inputs. Throws RequestFailure.
    void firstLaunchAndOutputs(bool returnOutputs, RequestProgress& progress);
    // Copies the declared input data into every buffer again.
    void restoreInputs();

    // True when `other` declares the same buffers (type, count, initial data, output flag, in order).
    bool sameBuffersAs(const LoadedVariant& other) const;
    // Points this variant's buffer parameters at `other`'s device buffers (same layout required).
    void useBuffersOf(const LoadedVariant& other);

    // The outputs as read after the first launch, in buffer order (empty before it).
    std::vector<OutputBytes> outputs() const;

    const std::string& label() const { return m_spec.label; }
    const LaunchVariant& spec() const { return m_spec; }
    CUfunction function() const { return m_fn; }
    void** params() { return m_paramPtrs.data(); }

    VariantResult result;               // filled by load(), firstLaunchAndOutputs() and the procedure
    double estimateMs = 0;              // one launch's GPU time: the first launch, then the warm-up median
    std::unique_ptr<ReplayGraph> graph; // K launches captured (hot mode, graph costs)

private:
    DeviceContext& m_ctx;
    const LaunchVariant& m_spec;
    RestoredMemory* m_memory = nullptr;
    std::vector<std::vector<uint8_t>> m_regionOutputs; // per region, after the first launch
    CUmodule m_module = nullptr;
    CUfunction m_fn = nullptr;
    std::vector<CUdeviceptr> m_buffers;
    std::vector<std::vector<uint8_t>> m_initData;
    DeviceCopies m_copies{m_ctx};         // of m_initData, restored from (restoreInputs)
    std::vector<RestorableBuffer> restorable() const; // m_buffers with m_initData
    // Encodes every tensor map over `buffers` (this variant's or the shared ones) and writes it
    // into its parameter slot (by value) or into its device copy (by pointer). Throws RequestFailure.
    void encodeTensorMaps(const std::vector<CUdeviceptr>& buffers);

    std::vector<uint8_t> m_paramBuf;
    std::vector<void*> m_paramPtrs;
    std::vector<CUdeviceptr> m_mapCopies;   // per tensor map: its device copy (by pointer), or 0
    CUlaunchAttribute m_clusterAttr;
    std::vector<std::vector<uint8_t>> m_firstOutputs; // per buffer index (outputs only)
};

// Points every variant's buffer parameters at variant 0's device buffers when all variants declare
// the same buffers; returns whether it did. Call after each variant's outputs were read from its
// own buffers.
bool shareBuffers(const std::vector<LoadedVariant*>& variants);

} // namespace lowerscope::runner
