// The table of SIMD kernels, one per instruction-set level. Each table is
// constant data defined in its own translation unit (kernels_*.cpp, built with
// that level's -m flags), so nothing compiled for a wide instruction set runs
// before simd_level_supported() has said that the CPU can run it.
#pragma once

#include "scene.h"
#include "simd_level.h"

namespace farmrt {
namespace simd {

// Closest hit in (t_min, hit.t) against a WideBvhView<width>: the same
// contract and the same results, bit for bit, as intersect_closest().
using ClosestHitFunction = bool (*)(const void* wide_bvh_view, const Ray& ray, float t_min, Hit& hit);

struct Kernels {
    SimdLevel level;
    int width;  // floats per register: node width and packet width of its wide BVH
    ClosestHitFunction closest_hit;
};

extern const Kernels kSse42Kernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;

// The table of a level this binary carries (nullptr for Off or when built without SIMD).
const Kernels* kernels_for(SimdLevel level);

}  // namespace simd
}  // namespace farmrt
