// The path-tracing kernel's host-side interface. The kernel itself
// (path_kernel.cuh) is compiled in several variants: exact math
// (path_kernel_exact.cu, without fused multiply-add, so that its sums are
// bit-identical to the CPU tracer's, built with -ffp-contract=off) and fast
// math (path_kernel_fast.cu), each specialised to the kind of scene; more
// variants for measurements with -DFARMRT_CUDA_EXPERIMENTS=ON
// (path_kernel_experiments.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/integrator.h"
#include "cuda/wide_bvh_gpu.h"

namespace farmrt {

// How the band's pixels reach the threads. Static: grid-stride (thread t
// takes chunks t, t + T, ...). Dynamic: persistent threads take their next
// chunk from an atomic counter when they finish one. Either way each pixel's
// samples are summed by one thread in sample order, so sums never depend on
// the schedule, grid, block or chunk size.
enum class PathSchedule : uint32_t { Static = 0, Dynamic = 1 };

// The device's running totals of rays traced, added to by every launch
// (BandLaunch::rays): camera rays, closest-hit queries (camera rays and
// extension rays: core/ray_counts.h), shadow rays.
enum RayTotal : uint32_t { kCameraRays = 0, kClosestHitRays = 1, kShadowRays = 2, kRayTotals = 3 };

// One launch: a band's pixels (row-major from row_begin, `pixel_count` of
// them) and the samples to add to each.
struct BandLaunch {
    uint32_t row_begin = 0;
    uint32_t pixel_count = 0;
    uint32_t sample_begin = 0, sample_end = 0;
    uint32_t chunk_pixels = 1;  // consecutive pixels a thread takes at a time
    PathSchedule schedule = PathSchedule::Dynamic;
    // Work item i is pixel i of the band, or pixel pixel_count - 1 - i: the
    // last rows first. Threads that run out of work idle until the slowest
    // one's last pixel is done, so the pixels handed out last should be cheap
    // ones; in most scenes the sky is at the top.
    bool last_rows_first = false;
    const WideBvhNode* wide_nodes = nullptr;  // device: the 4-wide BVH (kernels with PathKernelVariant::wide_bvh)
    float* sums = nullptr;           // device: pixel_count records (FrameSettings::sampling), added to in place
    uint32_t* next_chunk = nullptr;  // device: zero before a dynamic launch
    // Per-sample work items: when set, the kernel stores each sample here,
    // (sample - sample_begin) * pixel_count + pixel groups of
    // sample_value_floats (RGB, and where the record keeps alpha whether the
    // path met the scene: store_sample_value), instead
    // of adding to `sums`; sum_sample_radiance then adds them to `sums` in
    // sample order. A thread takes chunk_samples samples of one
    // pixel at a time (a pixel's samples may run on several threads at once).
    float* radiance = nullptr;
    uint32_t chunk_samples = 1;
    // The band pixels that take the launch's samples
    // (launch_collect_active_pixels), `*active_count` of them; the launch's
    // items are theirs alone. Set for every per-sample launch with adaptive
    // sampling (the kernel makes no decision of its own there); null:
    // every pixel's.
    const uint32_t* active_pixels = nullptr;
    const uint32_t* active_count = nullptr;
    bool warp_fetch = false;  // dynamic schedule: one atomic per warp step (see next_dynamic_chunk)
    // Mapped host memory: the farm's stop flag (interrupt.h). A launch that
    // starts after a stop returns at once, so the rest of an abandoned band
    // costs nothing; null: never stop.
    const volatile int* stop = nullptr;
    unsigned long long* rays = nullptr;  // device: kRayTotals running totals (RayTotal)
};

// Floats per sample in BandLaunch::radiance: RGB, and alpha where the
// pixel record keeps its sum (core/pixel_record.h).
FARMRT_CPU_GPU FARMRT_INLINE uint32_t sample_value_floats(const PixelSampling& sampling) {
    return record_has_alpha(sampling.record_floats) ? 4u : 3u;
}

// Stores an ended path's sample at `out` (sample_value_floats of them):
// its radiance, and where alpha is kept 1 if its camera ray met the scene
// and 0 if it left through the film. sum_sample_radiance multiplies that by
// the camera sample's filter weight, recomputed from (pixel, sample): the
// path kernels keep no filter code and no sampler live for it.
FARMRT_CPU_GPU FARMRT_INLINE void store_sample_value(float* out, const PathState& path, uint32_t floats) {
    out[0] = path.radiance.x;
    out[1] = path.radiance.y;
    out[2] = path.radiance.z;
    if (floats == 4) out[3] = left_through_film(path) ? 0.0f : 1.0f;
}

// Adds the per-sample radiance of a launch (BandLaunch::radiance, samples
// [sample_begin, sample_begin + samples) of each pixel) to the pixels'
// records, in sample order, as add_sample_to_record does on the CPU, those
// that adaptive sampling left out skipped: the records are bit-identical to
// per-pixel accumulation; the band's pixels start at row `row_begin` of
// `frame`, whose camera sample filter gives each sample's alpha. With a `stop` flag (BandLaunch::stop), a launch
// is added whole or not at all: `passes` (device, 2 words, zero at the
// band's start) holds the gate that one thread sets from the flag before
// the sums, and the samples added so far. The flag only ever turns on, so
// a gate found open means that the path kernel before it never saw a stop
// and wrote every radiance; after a stop the band's sums hold exactly its
// first passes[1] samples.
cudaError_t launch_sum_sample_radiance(cudaStream_t stream, const FrameSettings& frame, uint32_t row_begin, float* sums,
                                       const float* radiance, uint32_t pixel_count, uint32_t sample_begin,
                                       uint32_t samples, const volatile int* stop, uint32_t* passes);

// Lists in `active_pixels` (its count in `*active_count`, zero before the
// launch) the band pixels that adaptive sampling leaves samples of
// [sample_begin, sample_end) to, as their records say (sums, `pixel_count`
// of them), in item order within each warp (BandLaunch::last_rows_first).
cudaError_t launch_collect_active_pixels(cudaStream_t stream, const float* sums, uint32_t pixel_count,
                                         const PixelSampling& sampling, uint32_t sample_begin, uint32_t sample_end,
                                         bool last_rows_first, uint32_t* active_pixels, uint32_t* active_count);

// The AOVs' first-hit features of every pixel of `frame` over its samples
// [0, samples) into device buffers (3, 3 and 1 floats per pixel): the CPU's
// floats (core/aov.h: pixel_first_hit_features), with exact math.
cudaError_t launch_first_hit_features(cudaStream_t stream, const SceneView& scene, const FrameSettings& frame,
                                      uint32_t samples, float* albedo, float* normal, float* depth);

// The geometry a kernel handles: General (anything, instances included),
// NoInstances (spheres, quads, triangles: the kernel without the nested
// instance traversal, which costs a third more registers even where it never
// runs), Spheres (spheres only: leaves without the type switch).
enum class KernelGeometry : uint32_t { General = 0, NoInstances = 1, Spheres = 2 };

// A compiled kernel. Two variants with equal fields are the same kernel.
struct PathKernelVariant {
    bool fast_math = false;
    KernelGeometry geometry = KernelGeometry::General;
    int leaf_quorum = kLeafQuorum;  // TraversalTraits::kQuorum (no effect on the sums)
    bool fused_slabs = false;       // TraversalTraits::kFusedSlabs (fast math only)
    int min_blocks = 0;             // register cap: __launch_bounds__(128, min_blocks); kRegisterCap64; 0 = none
    bool wide_bvh = false;          // traverses BandLaunch::wide_nodes (fast math, no instances)
    bool sample_items = true;       // per-sample work items (BandLaunch::radiance), else per-pixel
    bool naive_only = false;        // only frames of Integrator::Naive, with fewer registers
    // The material types of the scene's surfaces (a kernel compiled for the
    // book's types has no principled material), and whether the scene has
    // lights to sample (false: next-event estimation's light sample compiled
    // out). Scenes outside a kernel's set run the general one.
    MaterialTypes material_types = kAllMaterialTypes;
    bool samples_lights = true;

    bool operator==(const PathKernelVariant& o) const {
        return fast_math == o.fast_math && geometry == o.geometry && leaf_quorum == o.leaf_quorum &&
               fused_slabs == o.fused_slabs && min_blocks == o.min_blocks && wide_bvh == o.wide_bvh &&
               sample_items == o.sample_items && naive_only == o.naive_only && material_types == o.material_types &&
               samples_lights == o.samples_lights;
    }
};

// PathKernelVariant::min_blocks for __launch_bounds__(1024, 1): at most 64
// registers (65,536 per multiprocessor / 1,024 threads) whatever the block size.
constexpr int kRegisterCap64 = -1;

using PathKernelLauncher = cudaError_t (*)(unsigned grid_blocks, unsigned block_size, cudaStream_t stream,
                                           const SceneView& scene, const FrameSettings& frame, const BandLaunch& band);

// One compiled variant: the kernel function (for occupancy and attribute
// queries) and its launch.
struct PathKernelEntry {
    PathKernelVariant variant;
    const void* function;
    PathKernelLauncher launch;
};

// The compiled variants of each translation unit.
const PathKernelEntry* path_kernel_exact_entries(size_t& count);
const PathKernelEntry* path_kernel_fast_entries(size_t& count);
const PathKernelEntry* path_kernel_experiment_entries(size_t& count);  // empty unless FARMRT_CUDA_EXPERIMENTS

// The compiled kernel for `variant`, or nullptr when it is not compiled in.
const PathKernelEntry* find_path_kernel(const PathKernelVariant& variant);

}  // namespace farmrt
