#!/usr/bin/env python3
"""A Python program that calls a kernel through ctypes on libcuda, for the GPU test gpu_capture
(tests/gpu/capture_test.sh): cuModuleLoadData of PTX text (the driver JIT-compiles it; the capture
saves the resulting cubin), cuLaunchKernel of `fill` four times, the result checked on the host.
Exit 0 when the buffer holds the value written."""
import ctypes
import sys

PTX = r"""
.version 7.0
.target sm_70
.address_size 64

.visible .entry fill(.param .u64 out, .param .u32 n, .param .f32 value)
{
    .reg .pred %p;
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    .reg .f32 %f;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    ld.param.f32 %f, [value];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r2, %r2, %r3, %r4;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.f32 [%rd2], %f;
DONE:
    ret;
}
"""


def check(result, what):
    if result != 0:
        print(f"capture_ctypes: {what} failed with CUDA error {result}", file=sys.stderr)
        sys.exit(1)


def main():
    cuda = ctypes.CDLL("libcuda.so.1")
    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    context = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(PTX.encode())), "cuModuleLoadData")
    function = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(function), module, b"fill"), "cuModuleGetFunction")
    n = 1 << 16
    buffer = ctypes.c_uint64()
    check(cuda.cuMemAlloc_v2(ctypes.byref(buffer), ctypes.c_size_t(n * 4)), "cuMemAlloc")
    for i in range(4):
        out = ctypes.c_uint64(buffer.value)
        count = ctypes.c_uint32(n)
        value = ctypes.c_float(float(i + 1))
        params = (ctypes.c_void_p * 3)(ctypes.addressof(out), ctypes.addressof(count), ctypes.addressof(value))
        check(cuda.cuLaunchKernel(function, ctypes.c_uint(n // 256), 1, 1, ctypes.c_uint(256), 1, 1,
                                  0, None, params, None), "cuLaunchKernel")
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    host = (ctypes.c_float * n)()
    check(cuda.cuMemcpyDtoH_v2(host, buffer, ctypes.c_size_t(n * 4)), "cuMemcpyDtoH")
    check(cuda.cuMemFree_v2(buffer), "cuMemFree")
    print(f"capture_ctypes: out[{n - 1}] = {host[n - 1]}")
    sys.exit(0 if host[0] == 4.0 and host[n - 1] == 4.0 else 1)


if __name__ == "__main__":
    main()
