// The path kernel with fused multiply-add and approximate division and square
// root (-fmad=true -prec-div=false -prec-sqrt=false -ftz=true): faster, and
// statistically (not bitwise) equal to the CPU tracer.
#define FARMRT_PATH_KERNEL_VARIANT path_kernel_fast
#include "path_kernel.cuh"
