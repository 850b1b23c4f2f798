// The AVX2 (8 floats per register) kernels: wide_traversal.h compiled with this level's
// flags (see CMakeLists.txt). Only constant data leaves this file.
#include "philox_lanes.h"
#include "wide_traversal.h"

namespace farmrt {
namespace simd {

const Kernels kAvx2Kernels = {SimdLevel::Avx2, WideTraversal<xsimd::avx2>::N, &WideTraversal<xsimd::avx2>::closest_hit,
                                &PhiloxLanes<xsimd::avx2>::blocks, PhiloxLanes<xsimd::avx2>::kBlocks};

}  // namespace simd
}  // namespace farmrt
