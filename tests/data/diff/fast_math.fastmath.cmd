nvcc -cubin -arch=sm_90 -O3 -lineinfo -Xptxas -v --use_fast_math kernels/fast_math.cu
