// The AVX2 (8 floats per register) kernels: unit_kernel.h and wide_traversal.h
// compiled with this level's flags (see CMakeLists.txt). Only constant data leaves this file.
#include "unit_kernel.h"

namespace farmrt {
namespace simd {

using Avx2Arch = xsimd::avx2;
const Kernels kAvx2Kernels = {SimdLevel::Avx2,
                               WideTraversal<Avx2Arch>::N,
                               &WideTraversal<Avx2Arch>::closest_hit,
                               &PhiloxLanes<Avx2Arch>::blocks,
                               PhiloxLanes<Avx2Arch>::kBlocks,
                               &UnitKernel<Avx2Arch>::render_unit};

}  // namespace simd
}  // namespace farmrt
