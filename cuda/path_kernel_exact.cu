// The path kernel without fused multiply-add (compiled with -fmad=false):
// every operation rounds as on the CPU, so GPU sums equal CPU sums bit for bit.
#define FARMRT_PATH_KERNEL_VARIANT path_kernel_exact
#include "path_kernel.cuh"
