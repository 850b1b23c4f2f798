// The SSE4.2 (4 floats per register) kernels: unit_kernel.h and wide_traversal.h
// compiled with this level's flags (see CMakeLists.txt). Only constant data leaves this file.
#include "unit_kernel.h"

namespace farmrt {
namespace simd {

using Sse42Arch = xsimd::sse4_2;
const Kernels kSse42Kernels = {SimdLevel::Sse42,
                               WideTraversal<Sse42Arch>::N,
                               &WideTraversal<Sse42Arch>::closest_hit,
                               &PhiloxLanes<Sse42Arch>::blocks,
                               PhiloxLanes<Sse42Arch>::kBlocks,
                               &UnitKernel<Sse42Arch>::render_unit};

}  // namespace simd
}  // namespace farmrt
