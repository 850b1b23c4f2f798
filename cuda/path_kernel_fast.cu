// The path kernel with fused multiply-add (-fmad=true): faster, and
// statistically (not bitwise) equal to the CPU tracer.
#define FARMRT_PATH_KERNEL_VARIANT path_kernel_fast
#include "path_kernel.cuh"
