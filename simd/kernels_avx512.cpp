// The AVX-512 (16 floats per register) kernels: wide_traversal.h compiled with this level's
// flags (see CMakeLists.txt). Only constant data leaves this file.
#include "philox_lanes.h"
#include "wide_traversal.h"

namespace farmrt {
namespace simd {

const Kernels kAvx512Kernels = {SimdLevel::Avx512, WideTraversal<xsimd::avx512bw>::N, &WideTraversal<xsimd::avx512bw>::closest_hit,
                                &PhiloxLanes<xsimd::avx512bw>::blocks, PhiloxLanes<xsimd::avx512bw>::kBlocks};

}  // namespace simd
}  // namespace farmrt
