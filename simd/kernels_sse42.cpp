// The SSE4.2 (4 floats per register) kernels: unit_kernel.h and wide_traversal.h
// compiled with this level's flags (see CMakeLists.txt). Only constant data leaves this file.
#include "simd/unit_kernel.h"

namespace farmrt {
namespace simd {

const Kernels kSse42Kernels = kernels_of<xsimd::sse4_2>(SimdLevel::Sse42);

}  // namespace simd
}  // namespace farmrt
