// The AVX-512 (16 floats per register) kernels: unit_kernel.h and wide_traversal.h
// compiled with this level's flags (see CMakeLists.txt). Only constant data leaves this file.
#include "simd/unit_kernel.h"

namespace farmrt {
namespace simd {

const Kernels kAvx512Kernels = kernels_of<xsimd::avx512bw>(SimdLevel::Avx512);

}  // namespace simd
}  // namespace farmrt
