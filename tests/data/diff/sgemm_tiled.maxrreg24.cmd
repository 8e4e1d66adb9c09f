nvcc -cubin -arch=sm_90 -O3 -lineinfo -Xptxas -v -maxrregcount=24 kernels/sgemm_tiled.cu
