// The table of SIMD kernels, one per instruction-set level. Each table is
// constant data defined in its own translation unit (kernels_*.cpp, built with
// that level's -m flags), so nothing compiled for a wide instruction set runs
// before simd_level_supported() has said that the CPU can run it.
#pragma once

#include "core/ray_counts.h"
#include "core/scene.h"
#include "simd/simd_level.h"
#include "simd/unit_pixels.h"

namespace farmrt {
namespace simd {

// Closest hit in (t_min, hit.t) against a WideBvhView<width>: the same
// contract and the same results, bit for bit, as intersect_closest().
using ClosestHitFunction = bool (*)(const void* wide_bvh_view, const Ray& ray, float t_min, Hit& hit);

// Closest hits in (t_min, infinity) of rays [0, count) (count <= width),
// traced together as one packet: each the same as ClosestHitFunction's from
// no hit. Returns false, leaving `hits` and `found` untouched, when they
// cannot share a packet: a wide BVH with more than spheres, or rays whose
// direction signs differ.
using PacketClosestHitsFunction = bool (*)(const void* wide_bvh_view, const Ray* rays, int count, float t_min,
                                           Hit* hits, bool* found);

// Philox blocks 0 .. philox_block_count - 1 of one (pixel, sample): the
// values of philox4x32_10 (src/core/sampler.h), several blocks per instruction,
// in BlockSampler's layout (`words`: 4 * kMaxLaneBlocks, 64-byte aligned).
using PhiloxBlocksFunction = void (*)(const SamplerKey& key, uint32_t pixel, uint32_t sample, uint64_t* words);

// The whole tracer for one work unit against a WideBvhView<width>: shading
// compiled with the level's instruction set too, no call per ray. The same
// sums, bit for bit, as the scalar path (CpuRenderer). Adds the rays it
// traces to `rays`.
using RenderUnitFunction = void (*)(const SceneView& scene, const void* wide_bvh_view, const FrameSettings& frame,
                                    const WorkUnit& unit, uint32_t row_begin, uint32_t sample_begin,
                                    uint32_t sample_end, float* sums, RayCounts& rays);

struct Kernels {
    SimdLevel level;
    int width;  // floats per register: node width and packet width of its wide BVH
    ClosestHitFunction closest_hit;
    PacketClosestHitsFunction packet_closest_hits;
    PhiloxBlocksFunction philox_blocks;
    int philox_block_count;  // 64-bit lanes per register: 2, 4 or 8
    RenderUnitFunction render_unit;
};

extern const Kernels kSse42Kernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kAvx512Kernels;

// The table of a level this binary carries (nullptr for Off or when built without SIMD).
const Kernels* kernels_for(SimdLevel level);

}  // namespace simd
}  // namespace farmrt
