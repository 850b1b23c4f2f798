// The AVX-512 kernels (16 floats per register, and 8-wide nodes with AVX-512VL): unit_kernel.h and wide_traversal.h
// compiled with this level's flags (see CMakeLists.txt). Only constant data leaves this file.
#include "unit_kernel.h"

namespace farmrt {
namespace simd {

const Kernels kAvx512Kernels = kernels_of<xsimd::avx512bw>(SimdLevel::Avx512);

// 8-wide nodes and packets in 256-bit registers, compiled with AVX-512VL (32
// registers, mask compares), as Embree traverses BVH8 on AVX-512: on small
// scenes 16-wide nodes mostly test empty or missed lanes (results/simd.md).
const Kernels kAvx512NarrowKernels = kernels_of<xsimd::avx2, xsimd::avx512bw>(SimdLevel::Avx512);

}  // namespace simd
}  // namespace farmrt
