#pragma once
// Device copies of buffers' starting bytes, to restore them from (a declared variant's buffers,
// loaded_variant.h; a replay's captured memory, restored_memory.h). Restoring 128 MiB from
// pageable host memory took tens of ms before every profiled pass; a device copy takes well under
// one. Copies are kept only when a quarter of the free device memory holds them all; a buffer
// without one is restored from its host bytes.

#include "app/runner/cuda_api.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lowerscope::runner {

class DeviceContext;

// A buffer on the device and the bytes it starts with (`initial` outlives the DeviceCopies).
struct RestorableBuffer {
    CUdeviceptr device = 0;
    const std::vector<uint8_t>* initial = nullptr;
};

class DeviceCopies {
public:
    explicit DeviceCopies(DeviceContext& ctx) : m_ctx(ctx) {}
    ~DeviceCopies(); // frees the copies
    DeviceCopies(const DeviceCopies&) = delete;
    DeviceCopies& operator=(const DeviceCopies&) = delete;

    // Copies each buffer as it is now (holding its starting bytes), when they all fit in a quarter
    // of the free memory; a buffer whose copy cannot be allocated gets none. Throws RequestFailure.
    void keep(const std::vector<RestorableBuffer>& buffers, const std::string& stage, const std::string& label = "");
    // Puts the starting bytes back into each buffer (the same list as keep's): from its copy on the
    // runner's stream, synchronised before this returns, else from the host (cuMemcpyHtoD, staged:
    // the caller synchronises those as before). Throws RequestFailure.
    void restore(const std::vector<RestorableBuffer>& buffers, const std::string& stage, const std::string& label = "");

private:
    DeviceContext& m_ctx;
    std::vector<CUdeviceptr> m_copies; // per buffer, 0 for none
};

} // namespace lowerscope::runner
