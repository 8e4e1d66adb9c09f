// Experiment 4 (CUDA Graph break-even): one small step of a fixed path of N kernels. Each launch
// reads and writes n floats in place (x = x * a + b), a few microseconds or less on an H200, so a
// path's time is dominated by how its launches are issued: one by one from a stream, or as one
// graph replay. Run: lowerscope-cli experiment docs/examples/graph_path.cu --graph-break-even 1,4,16,64 -o graph_path
__global__ void path_step(int n, float a, float b, float* x) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * a + b;
    }
}
