// The split (wavefront) path tracer's host-side interface. A pool of paths
// lives in device memory, and each step of a path is a kernel of its own
// over a queue of the paths that take it (Laine, Karras and Aila,
// "Megakernels considered harmful", HPG 2013):
//   generate   finished paths hand in their radiance; free slots take the
//              launch's next work items (camera rays); every path with a
//              ray to trace joins the ray queue;
//   intersect  the closest hit of each queued ray;
//   shade      the shared core's segment (continue_path_deferring_shadow):
//              emission, the light sample, the BSDF sample; a light sample's
//              shadow ray joins the shadow queue. The kernel is compiled
//              for the scene's material types, so that no material pays
//              for another's registers; or intersect sorts the paths into
//              a queue per surface type (Lambertian, metal, dielectric,
//              principled), each shaded by a kernel compiled for that type
//              and for emitters and misses, whose segments only add light
//              (as pbrt-v4's and Cycles' do): a warp runs one material's code;
//   shadow     the any-hit query of each queued shadow ray, and the light it lets through.
// Each kernel is small (no traversal stack beside the material's state), so
// more warps are resident than in the megakernel, and shadow rays are traced
// together rather than inside shading. A path's steps run in the megakernel's
// order and each sample's radiance is written as the megakernel writes it
// (BandLaunch::radiance), so the sums are the same bytes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/integrator.h"
#include "cuda/path_kernel.h"
#include "cuda/planar_array.h"

namespace farmrt {

// What a slot of the pool holds (WavefrontSlot::status).
enum class SlotStatus : uint32_t { Free = 0, Tracing = 1, Finished = 2 };

// The work item a slot traces: a pixel of the band (BandLaunch::item_pixel) and one of its samples.
struct WavefrontSlot {
    SlotStatus status = SlotStatus::Free;
    uint32_t pixel = 0;
    uint32_t sample = 0;
};

// The closest-hit query's answer for one path.
struct WavefrontHit {
    Hit hit;
    uint32_t found = 0;
};

// Counters in device memory, per pool (WavefrontPool::counters). kStopped:
// the farm's stop flag (BandLaunch::stop) as the last iteration's shadow
// kernel read it, so that generate's threads read device memory, not the
// mapped host page (a read over PCIe each).
enum WavefrontCounter : uint32_t {
    kRayCount = 0,
    kShadowCount = 1,
    kStopped = 2,
    kShadeCounts = 3,  // kMaterialTypeCount words: the shading queues' lengths
    // Where intersect's and shadow's warps take their next entries
    // (for_each_queue_entry, WavefrontPool::fetch_rounds).
    kIntersectFetch = kShadeCounts + kMaterialTypeCount,
    kShadowFetch = kIntersectFetch + 1,
    kWavefrontCounters = kShadowFetch + 1
};

// The launch's work items, shared by the pools that trace it (WavefrontPool::items).
enum WavefrontItemCounter : uint32_t {
    kNextItem = 0,
    kItemsCounted = 1,  // the work items whose camera rays are counted (BandLaunch::rays)
    kItemCounters = 2
};

// The surface types a scene's paths are shaded with (WavefrontGrids::shaded_types):
// the types of its materials but emitters, or Emissive alone for a scene of emitters.
MaterialTypes surface_types_of(const Material* materials, uint32_t count);

// The pool: device arrays of `capacity` entries each (the queues hold slot
// indices); the per-path records in planes (planar_array.h), so that a
// warp's accesses of neighbouring slots coalesce.
struct WavefrontPool {
    uint32_t capacity = 0;
    PlanarArray<PathState> paths;
    PlanarArray<WavefrontSlot> slots;
    PlanarArray<WavefrontHit> hits;
    PlanarArray<DeferredShadow> shadows;
    uint32_t* ray_queue = nullptr;
    uint32_t* shadow_queue = nullptr;
    // kMaterialTypeCount queues of `capacity` entries, one per surface type
    // (queue t at shade_queues + t * capacity), where a scene has several;
    // null: one shading kernel, over the ray queue.
    uint32_t* shade_queues = nullptr;
    uint32_t emitter_queue = 0;    // the queue of misses and emitters' hits: one of the scene's surface types
    uint32_t* counters = nullptr;  // kWavefrontCounters words
    uint32_t* items = nullptr;     // kItemCounters words, the same for every pool of the tracer
    // How intersect's and shadow's warps share their queues: 0, each warp
    // the share fixed by its place in the grid (a grid-stride loop); N > 0,
    // each warp takes the N * 32 entries of its place in the grid, then
    // N * 32 at a time from a counter, so that warps whose rays finish early
    // take more (GpuTuning::queue_fetch). Shading
    // keeps fixed shares: its paths cost about the same.
    uint32_t fetch_rounds = 0;
};

// Blocks per launch of each kernel: generate covers the pool; the queue
// kernels fill the device once and loop over a queue whose length only the
// device knows (intersect and shadow: the form WavefrontPool::fetch_rounds picks).
struct WavefrontGrids {
    unsigned generate = 1, intersect = 1, shade = 1, shadow = 1;
    unsigned shade_by_type[kMaterialTypeCount] = {1, 1, 1, 1, 1};
    unsigned block_size = 128;
    // The types the shading kernels are compiled for. Sorted
    // (WavefrontPool::shade_queues): each type's kernel (shade_by_type) over
    // its queue; else one kernel over the ray queue: a single type's, the
    // book's types' (shade_book) or every type's (shade).
    MaterialTypes shaded_types = kAllMaterialTypes;
    unsigned shade_book = 1;
};

// One iteration: generate, intersect, shade, shadow. With `ray_count_copy`
// (pinned host memory), the ray queue's length after generate is copied
// there; zero means that the launch's last path has handed in its radiance.
using WavefrontIteration = cudaError_t (*)(const WavefrontGrids& grids, cudaStream_t stream, const SceneView& scene,
                                           const FrameSettings& frame, const BandLaunch& band,
                                           const WavefrontPool& pool, uint32_t* ray_count_copy);

// The kernels of one variant (PathKernelVariant: fast_math, geometry,
// wide_bvh and naive_only count; the other fields keep their defaults).
struct WavefrontEntry {
    PathKernelVariant variant;
    const void* generate;
    const void* intersect;
    const void* shade;                              // every material type
    const void* shade_book;                         // kBookMaterialTypes
    const void* shade_by_type[kMaterialTypeCount];  // type t, emitters and misses
    const void* shadow;
    // The forms whose warps fetch their entries (WavefrontPool::fetch_rounds).
    const void* intersect_fetching;
    const void* shadow_fetching;
    WavefrontIteration iterate;
};

const WavefrontEntry* wavefront_exact_entries(size_t& count);
const WavefrontEntry* wavefront_fast_entries(size_t& count);

// The compiled kernels for `variant`, or nullptr.
const WavefrontEntry* find_wavefront(const PathKernelVariant& variant);

}  // namespace farmrt
