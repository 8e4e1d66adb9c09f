// Device copies of buffers' starting bytes (device_copies.h).
#include "app/runner/device_copies.h"

#include "app/runner/device_context.h"

namespace lowerscope::runner {

DeviceCopies::~DeviceCopies() {
    Driver& d = m_ctx.driver();
    for (CUdeviceptr p : m_copies)
        if (p && d.cuMemFree) d.cuMemFree(p);
}

void DeviceCopies::keep(const std::vector<RestorableBuffer>& buffers, const std::string& stage,
                        const std::string& label) {
    Driver& d = m_ctx.driver();
    m_copies.assign(buffers.size(), 0);
    size_t total = 0, freeBytes = 0, totalBytes = 0;
    for (const RestorableBuffer& b : buffers) total += b.initial->size();
    if (total == 0 || !d.cuMemGetInfo || !d.cuMemcpyDtoDAsync || d.cuMemGetInfo(&freeBytes, &totalBytes) != CUDA_SUCCESS ||
        total > freeBytes / 4)
        return;
    for (size_t i = 0; i < buffers.size(); ++i) {
        const size_t bytes = buffers[i].initial->size();
        if (bytes == 0 || d.cuMemAlloc(&m_copies[i], bytes) != CUDA_SUCCESS) {
            m_copies[i] = 0; // restored from the host
            continue;
        }
        m_ctx.check(d.cuMemcpyDtoDAsync(m_copies[i], buffers[i].device, bytes, m_ctx.stream()), "cuMemcpyDtoDAsync",
                    stage, label);
    }
    m_ctx.check(d.cuStreamSynchronize(m_ctx.stream()), "cuStreamSynchronize", stage, label);
}

void DeviceCopies::restore(const std::vector<RestorableBuffer>& buffers, const std::string& stage,
                           const std::string& label) {
    Driver& d = m_ctx.driver();
    bool onStream = false;
    for (size_t i = 0; i < buffers.size(); ++i) {
        const std::vector<uint8_t>& bytes = *buffers[i].initial;
        if (i < m_copies.size() && m_copies[i]) {
            m_ctx.check(d.cuMemcpyDtoDAsync(buffers[i].device, m_copies[i], bytes.size(), m_ctx.stream()),
                        "cuMemcpyDtoDAsync", stage, label);
            onStream = true;
        } else {
            m_ctx.check(d.cuMemcpyHtoD(buffers[i].device, bytes.data(), bytes.size()), "cuMemcpyHtoD", stage, label);
        }
    }
    // Landed when this returns (a read-back on the legacy stream does not wait for the runner's
    // non-blocking stream).
    if (onStream) m_ctx.check(d.cuStreamSynchronize(m_ctx.stream()), "cuStreamSynchronize", stage, label);
}

} // namespace lowerscope::runner
