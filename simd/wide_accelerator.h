// The SIMD tracer's acceleration structure for one instruction-set level: the
// wide BVH of the level's width and the level's kernel, behind a closest-hit
// query that trace_path() takes in place of the scalar BVH's.
#pragma once

#include <memory>

#include "simd/simd_kernels.h"
#include "simd/wide_bvh.h"

namespace farmrt {
namespace simd {

// Calls the level's kernel: one indirect call per ray, the traversal inside it.
struct WideQuery {
    ClosestHitFunction function = nullptr;
    const void* view = nullptr;

    bool operator()(const SceneView&, const Ray& ray, float t_min, Hit& hit) const {
        return function(view, ray, t_min, hit);
    }
};

class WideAccelerator {
public:
    // `level` must be supported by this CPU (simd_level_supported) and not Off.
    WideAccelerator(const SceneView& scene, SimdLevel level, const WideBvhOptions& options = {});
    ~WideAccelerator();
    WideAccelerator(const WideAccelerator&) = delete;
    WideAccelerator& operator=(const WideAccelerator&) = delete;

    SimdLevel level() const { return kernels_->level; }
    int width() const { return kernels_->width; }
    WideQuery closest_hit() const { return WideQuery{kernels_->closest_hit, view_}; }
    // Kernels::packet_closest_hits on this accelerator's wide BVH.
    bool packet_closest_hits(const Ray* rays, int count, float t_min, Hit* hits, bool* found) const {
        return kernels_->packet_closest_hits(view_, rays, count, t_min, hits, found);
    }
    const Kernels& kernels() const { return *kernels_; }
    // The level's whole tracer for one work unit (Kernels::render_unit).
    void render_unit(const SceneView& scene, const FrameSettings& frame, const WorkUnit& unit, uint32_t row_begin,
                     uint32_t sample_begin, uint32_t sample_end, float* sums, RayCounts& rays) const {
        kernels_->render_unit(scene, view_, frame, unit, row_begin, sample_begin, sample_end, sums, rays);
    }
    WideBvhStats stats() const;

private:
    const Kernels* kernels_;
    std::unique_ptr<WideBvh<4>> bvh4_;
    std::unique_ptr<WideBvh<8>> bvh8_;
    std::unique_ptr<WideBvh<16>> bvh16_;
    WideBvhView<4> view4_;
    WideBvhView<8> view8_;
    WideBvhView<16> view16_;
    const void* view_ = nullptr;
};

}  // namespace simd
}  // namespace farmrt
