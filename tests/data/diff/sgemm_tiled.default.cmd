nvcc -cubin -arch=sm_90 -O3 -lineinfo -Xptxas -v  kernels/sgemm_tiled.cu
