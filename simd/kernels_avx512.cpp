// The AVX-512 (16 floats per register) kernels: unit_kernel.h and wide_traversal.h
// compiled with this level's flags (see CMakeLists.txt). Only constant data leaves this file.
#include "unit_kernel.h"

namespace farmrt {
namespace simd {

using Avx512Arch = xsimd::avx512bw;
const Kernels kAvx512Kernels = {SimdLevel::Avx512,
                               WideTraversal<Avx512Arch>::N,
                               &WideTraversal<Avx512Arch>::closest_hit,
                               &PhiloxLanes<Avx512Arch>::blocks,
                               PhiloxLanes<Avx512Arch>::kBlocks,
                               &UnitKernel<Avx512Arch>::render_unit};

}  // namespace simd
}  // namespace farmrt
