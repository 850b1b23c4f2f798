// The SSE4.2 (4 floats per register) kernels: wide_traversal.h compiled with this level's
// flags (see CMakeLists.txt). Only constant data leaves this file.
#include "philox_lanes.h"
#include "wide_traversal.h"

namespace farmrt {
namespace simd {

const Kernels kSse42Kernels = {SimdLevel::Sse42, WideTraversal<xsimd::sse4_2>::N, &WideTraversal<xsimd::sse4_2>::closest_hit,
                                &PhiloxLanes<xsimd::sse4_2>::blocks, PhiloxLanes<xsimd::sse4_2>::kBlocks};

}  // namespace simd
}  // namespace farmrt
