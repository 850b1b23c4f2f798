// The AVX2 (8 floats per register) kernels: unit_kernel.h and wide_traversal.h
// compiled with this level's flags (see CMakeLists.txt). Only constant data leaves this file.
#include "simd/unit_kernel.h"

namespace farmrt {
namespace simd {

const Kernels kAvx2Kernels = kernels_of<xsimd::avx2>(SimdLevel::Avx2);

}  // namespace simd
}  // namespace farmrt
