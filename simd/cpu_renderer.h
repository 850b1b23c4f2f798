// The CPU tracer: OpenMP threads take square tiles of a band of rows
// dynamically; each pixel's samples are traced in order by one thread, so the
// sums do not depend on threads, tiles or bands. With a SIMD level, closest-hit
// units are traced by that level's kernel: the wide BVH, and the core's
// shading compiled with the level's instruction set (same sums, bit for bit).
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "core/scene.h"
#include "render/band_renderer.h"
#include "simd/simd_level.h"
#include "simd/unit_pixels.h"

namespace farmrt {
namespace simd {
class WideAccelerator;
struct Kernels;
}  // namespace simd

class CpuRenderer : public BandRenderer {
public:
    // What a SIMD level does: the wide BVH and the level's Philox blocks
    // (Wide), the scalar path unchanged (Scalar), or whichever
    // wide_traversal_pays() picks for the scene (Auto). Same image either way.
    // threads <= 0: every hardware thread (or OMP_NUM_THREADS). `simd` must be
    // supported (resolve_simd_level); Off traces with the scalar binary BVH.
    // `tuning`: the measurement switches (render/tuning.h): the traversal a
    // SIMD level uses, the wide BVH's collapse, the split tail of cpu_work_units.
    CpuRenderer(const SceneView& scene, int threads, int tile_size, SimdLevel simd = SimdLevel::Off,
                const CpuTuning& tuning = CpuTuning{});
    ~CpuRenderer() override;

    void render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                std::atomic<uint64_t>* samples_done) override;
    // "cpu-scalar", "cpu-sse4.2", "cpu-avx2", "cpu-avx512".
    std::string description() const override;
    int threads() const override { return threads_; }
    RayCounts rays_traced() const override;
    uint32_t rows_finished_at_stop() const override { return rows_finished_at_stop_; }
    int tile_size() const { return tile_size_; }
    SimdLevel simd_level() const { return simd_; }
    // Whether closest hits go through the wide BVH (a SIMD level on a scene where it pays).
    bool wide_traversal() const { return accelerator_ != nullptr; }

    // A rectangle of pixels that one thread traces (simd/unit_pixels.h).
    using WorkUnit = farmrt::WorkUnit;

private:
    SceneView scene_;
    int threads_;
    int tile_size_;
    SimdLevel simd_;
    bool split_tail_;
    uint32_t rows_finished_at_stop_ = 0;  // of the last band rendered
    std::atomic<uint64_t> camera_rays_{0}, extension_rays_{0}, shadow_rays_{0};
    std::unique_ptr<simd::WideAccelerator> accelerator_;  // a SIMD level's wide BVH and kernels
};

// Scenes with fewer top-level primitives outside instances than this trace
// faster with the scalar binary BVH: the wide traversal's per-ray set-up and
// full-width packet tests cost more than a few scalar tests (textured.yaml:
// 4 primitives, one an instance, rendered 15-30% slower with it), and the
// primitives inside instances are traversed by the scalar core either way
// (stress.yaml). cornell.yaml (18 quads) gains 1.6x from it.
constexpr uint32_t kWideTraversalMinPrimitives = 8;
bool wide_traversal_pays(const SceneView& scene);

// The units of a band in the order threads take them: tiles of `tile` pixels,
// row by row, the last 2 x `threads` of them (with split_tail and more than
// one thread) cut into sub-tiles of a quarter of the edge. They cover every
// pixel of the band once.
std::vector<CpuRenderer::WorkUnit> cpu_work_units(uint32_t width, RowRange rows, uint32_t tile, int threads,
                                                  bool split_tail);

}  // namespace farmrt
