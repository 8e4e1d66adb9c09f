// Test source (scripts/gen-golden): kernels with real subroutine calls (CALL/RET), to check the
// calling convention of the liveness analysis against nvdisasm -lrm.

// A helper that stays a call (__noinline__), with a loop and a float division (itself a call
// to the division slow path).
__device__ __noinline__ float series(float a, float b, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += a * i + b / (i + 1);
    return s;
}

__global__ void noinline_calls(const float* x, float* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = series(x[i], x[i + 1], n) + series(x[i] * 2.0f, 1.0f, i);
}

// Recursion cannot be inlined: a self-calling subroutine that saves its registers on the stack.
__device__ int fib_like(int n) { return n <= 1 ? 1 : n * fib_like(n - 1) + fib_like(n - 2); }

__global__ void recursive_calls(int* y, int n) { y[threadIdx.x] = fib_like(n + threadIdx.x); }
