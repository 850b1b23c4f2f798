// The split path tracer's kernels (wavefront.h). Included by the
// path_kernel_*.cu files after path_kernel.cuh, so that each is compiled with
// the math flags of its translation unit and shares its work items
// (begin_run, start_sample: the megakernel's own).
#pragma once

#include <cstddef>

#include "cuda/path_kernel.cuh"
#include "cuda/wavefront.h"

// Register caps (nvcc's __maxnreg__, CUDA 12.4 and later). The shade kernel
// takes 110-118 registers uncapped, 4 blocks of 128 threads a
// multiprocessor; at 96 (5 blocks; a few spills in the exact variant) it
// measured 4% faster on cornell.yaml, 3% on models.yaml, 2% on adaptive
// interior.yaml (one H200, results/cuda.md); at 80 Cornell gained 9% but
// models.yaml lost (its principled material spills), and capping intersect
// and shadow too gained nothing more. -DFARMRT_WAVEFRONT_SHADE_REGISTERS=N
// and -DFARMRT_WAVEFRONT_QUERY_REGISTERS=N (intersect and shadow) measure others.
// The kernels that shade one of the book's material types (Lambertian, metal
// or dielectric, each with emitters and misses) take 80-88 registers
// uncapped; at 64 (8 blocks a multiprocessor instead of 5, a few spills)
// they measured 8% faster on cornell.yaml, as fast on models.yaml, 2% faster
// on the million triangles and lights.yaml, than at 96 (one H200,
// results/cuda.md). -DFARMRT_WAVEFRONT_BASIC_SHADE_REGISTERS=N measures others.
#if !defined(FARMRT_WAVEFRONT_SHADE_REGISTERS)
#define FARMRT_WAVEFRONT_SHADE_REGISTERS 96
#endif
#if !defined(FARMRT_WAVEFRONT_BASIC_SHADE_REGISTERS)
#define FARMRT_WAVEFRONT_BASIC_SHADE_REGISTERS 64
#endif
#define FARMRT_HAS_MAXNREG (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#if FARMRT_HAS_MAXNREG
#define FARMRT_WAVEFRONT_SHADE_CAP(kTypes) __maxnreg__(ShadeRegisters<kTypes>::value)
#else
#define FARMRT_WAVEFRONT_SHADE_CAP(kTypes)
#endif
#if FARMRT_HAS_MAXNREG && defined(FARMRT_WAVEFRONT_QUERY_REGISTERS)
#define FARMRT_WAVEFRONT_QUERY_CAP __maxnreg__(FARMRT_WAVEFRONT_QUERY_REGISTERS)
#else
#define FARMRT_WAVEFRONT_QUERY_CAP
#endif

namespace farmrt {
namespace FARMRT_PATH_KERNEL_VARIANT {

template <MaterialTypes kTypes>
struct ShadeRegisters {
    static constexpr int value = (kTypes & material_type_bit(MaterialType::Principled)) != 0
                                     ? FARMRT_WAVEFRONT_SHADE_REGISTERS
                                     : FARMRT_WAVEFRONT_BASIC_SHADE_REGISTERS;
};

// Appends `value` to a queue where `push`, one atomic per warp; the lanes
// keep their order within the warp (neighbouring slots stay neighbours).
__device__ __forceinline__ void push_to_queue(bool push, uint32_t value, uint32_t* queue, uint32_t* count) {
    const unsigned lanes = __activemask();
    const unsigned pushing = __ballot_sync(lanes, push);
    if (pushing == 0) return;
    const unsigned lane = threadIdx.x & 31u;
    const int leader = __ffs(pushing) - 1;
    uint32_t first = 0;
    if (int(lane) == leader) first = atomicAdd(count, uint32_t(__popc(pushing)));
    first = __shfl_sync(lanes, first, leader);
    if (push) queue[first + uint32_t(__popc(pushing & ((1u << lane) - 1u)))] = value;
}

// The launch's work items: one sample of one pixel each, as the megakernel's
// per-sample items with one sample a chunk (CudaRenderer::submit sets
// BandLaunch::chunk_samples to 1).
__device__ __forceinline__ uint32_t wavefront_item_count(const BandLaunch& band) {
    return launch_pixel_count(band) * (band.sample_end - band.sample_begin);
}

// The rank of each thread of the block that `takes` one place, among them in
// thread order, and their number (`total`). Every thread of the block calls
// it, converged (block sizes are multiples of 32, at most 1,024).
__device__ __forceinline__ uint32_t block_rank(bool takes, uint32_t& total) {
    __shared__ uint32_t warp_counts[32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned taking = __ballot_sync(0xffffffffu, takes);
    if (lane == 0) warp_counts[warp] = uint32_t(__popc(taking));
    __syncthreads();
    uint32_t before = 0;
    total = 0;
    for (unsigned w = 0; w < (blockDim.x >> 5); ++w) {
        const uint32_t count = warp_counts[w];
        before += w < warp ? count : 0u;
        total += count;
    }
    __syncthreads();  // warp_counts is read by all before it is written again
    return before + uint32_t(__popc(taking & ((1u << lane) - 1u)));
}

// Takes the next work item for each thread of the block that `wants` one;
// returns the thread's item, or `item_count` when none is left. Once the
// items run out the counter is read, not added to, so it never wraps. One
// atomic per block: generate visits every slot of the pool, and one
// same-address atomic a warp held its warps waiting for the counter (the
// Cornell box: a quarter of an iteration). Every thread of the block calls it.
__device__ __forceinline__ uint32_t claim_item_for_block(bool wants, uint32_t item_count, uint32_t* next_item) {
    __shared__ uint32_t block_first;
    uint32_t total;
    const uint32_t rank = block_rank(wants, total);
    if (threadIdx.x == 0) {
        uint32_t first = item_count;
        if (total != 0 && *static_cast<volatile uint32_t*>(next_item) < item_count) first = atomicAdd(next_item, total);
        block_first = first;
    }
    __syncthreads();
    const uint32_t first = block_first;
    __syncthreads();  // block_first is read by all before a later call writes it
    if (!wants || first >= item_count) return item_count;
    const uint32_t item = first + rank;
    return item < item_count ? item : item_count;
}

// push_to_queue with one atomic per block; the queue keeps thread order.
// Every thread of the block calls it.
__device__ __forceinline__ void push_to_queue_for_block(bool push, uint32_t value, uint32_t* queue, uint32_t* count) {
    __shared__ uint32_t block_first;
    uint32_t total;
    const uint32_t rank = block_rank(push, total);
    if (threadIdx.x == 0 && total != 0) block_first = atomicAdd(count, total);
    __syncthreads();
    if (push) queue[block_first + rank] = value;
}

// Calls body(i) for the entries i < count of a queue, 32 at a time, the
// lanes of a whole warp together (body skips i >= count; its ballots see
// every lane). kFetch false: each warp walks the grid-stride share of its
// place in the grid. kFetch true: each warp first takes the
// pool.fetch_rounds * 32 entries of its place in the grid, then lane 0
// takes the next as many from the counter `fetch` with one atomic, until the
// queue is done, so that warps whose rays end early take more: a deep
// tree's traversals vary many times in length, and fixed shares end
// unevenly, the multiprocessors idling while the last warps finish theirs.
// A queue that the first shares cover (the short queues of adaptive
// sampling's passes) costs no atomic. Which warp takes which entries changes
// no path's result.
template <bool kFetch, class Body>
__device__ __forceinline__ void for_each_queue_entry(const WavefrontPool& pool, uint32_t count, uint32_t fetch,
                                                     Body&& body) {
    const uint32_t lane = threadIdx.x & 31u;
    if constexpr (!kFetch) {
        const uint32_t stride = gridDim.x * blockDim.x;
        for (uint32_t base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < count; base += stride) {
            body(base + lane);
        }
    } else {
        const uint32_t entries = pool.fetch_rounds * 32u;
        // The first entry after every warp's first share: the counter counts from there.
        const uint32_t fetched_from = (gridDim.x * blockDim.x >> 5) * entries;
        uint32_t first = ((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * entries;
        for (;;) {
            if (first >= count) return;
            const uint32_t end = min(first + entries, count);
            for (uint32_t base = first; base < end; base += 32u) body(base + lane);
            if (fetched_from >= count) return;
            uint32_t taken = 0;
            if (lane == 0) taken = atomicAdd(pool.counters + fetch, entries);
            first = fetched_from + __shfl_sync(0xffffffffu, taken, 0);
        }
    }
}

// One thread per slot. A finished path writes its sample's radiance where the
// megakernel writes it; a free slot takes the next item and its camera ray;
// every slot with a ray joins the ray queue. After a stop nothing is written
// or started: the launch's sums are thrown away (launch_sum_sample_radiance's gate).
__global__ void wavefront_generate(const FrameSettings frame, const BandLaunch band, const WavefrontPool pool) {
    const uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
    const bool stopped = pool.counters[kStopped] != 0;
    const bool in_pool = slot < pool.capacity;
    WavefrontSlot work;
    if (in_pool) work = pool.slots.load(slot);
    if (in_pool && work.status == SlotStatus::Finished && !stopped) {
        const uint32_t floats = sample_value_floats(frame.sampling);
        store_sample_value(
            band.radiance + (size_t(work.sample - band.sample_begin) * band.pixel_count + work.pixel) * floats,
            pool.paths.load(slot), floats);
    }
    if (stopped || work.status == SlotStatus::Finished) work.status = SlotStatus::Free;
    const uint32_t item_count = wavefront_item_count(band);
    const uint32_t item = claim_item_for_block(in_pool && !stopped && work.status == SlotStatus::Free, item_count,
                                               pool.items + kNextItem);
    if (item < item_count) {
        PixelWork run;
        begin_run<true>(frame, band, item, run);
        PixelSampler sampler(frame.key, 0, 0);
        pool.paths.store(slot, start_sample<false>(frame, band, run, sampler));
        work.status = SlotStatus::Tracing;
        work.pixel = run.pixel;
        work.sample = run.sample;
    }
    if (in_pool) pool.slots.store(slot, work);
    push_to_queue_for_block(in_pool && work.status == SlotStatus::Tracing, slot, pool.ray_queue,
                            pool.counters + kRayCount);
}

// The closest hit of each queued ray. With the shading queues, the path
// joins the queue of its hit's material type (misses and emitters: the
// emitter queue). Also empties the shadow queue for shade.
// kFetch: for_each_queue_entry's.
template <class Traits, bool kWide, bool kFetch>
__global__ void FARMRT_WAVEFRONT_QUERY_CAP wavefront_intersect(const SceneView scene, const BandLaunch band,
                                                               const WavefrontPool pool) {
    const uint32_t count = pool.counters[kRayCount];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        pool.counters[kShadowCount] = 0;
        pool.counters[kShadowFetch] = 0;
    }
    const auto query = QueryOf<Traits, kWide>::make(band);
    for_each_queue_entry<kFetch>(pool, count, kIntersectFetch, [&](uint32_t i) {
        uint32_t slot = 0;
        uint32_t type = kMaterialTypeCount;  // none: no path in this lane
        if (i < count) {
            slot = pool.ray_queue[i];
            const Ray ray = pool.paths.load_member<Ray, offsetof(PathState, ray)>(slot);
            WavefrontHit record;
            record.found = query(scene, ray, kMinHitDistance, record.hit) ? 1u : 0u;
            pool.hits.store(slot, record);
            if (pool.shade_queues != nullptr) {
                type = record.found != 0 ? uint32_t(scene.materials[hit_material(scene, record.hit)].type)
                                         : pool.emitter_queue;
                if (type == uint32_t(MaterialType::Emissive)) type = pool.emitter_queue;
            }
        }
        if (pool.shade_queues == nullptr) return;
#pragma unroll
        for (uint32_t t = 0; t < kMaterialTypeCount; ++t) {
            push_to_queue(type == t, slot, pool.shade_queues + size_t(t) * pool.capacity,
                          pool.counters + kShadeCounts + t);
        }
    });
}

// The shared core's segment for each path of a queue (the ray queue, or a
// shading queue whose hits all have a material of a type in kTypes); the
// light sample's shadow ray joins the shadow queue, and a path that ends is
// marked finished (generate hands in its radiance after its shadow ray has
// been traced).
template <MaterialTypes kTypes>
__global__ void FARMRT_WAVEFRONT_SHADE_CAP(kTypes)
    wavefront_shade(const SceneView scene, const FrameSettings frame, const BandLaunch band, const WavefrontPool pool,
                    const uint32_t* queue, uint32_t counter) {
    const uint32_t count = pool.counters[counter];
    // Whole warps step together, so that the queue's ballots see every lane.
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < count; base += stride) {
        const uint32_t i = base + (threadIdx.x & 31u);
        bool pending = false;
        uint32_t slot = 0;
        if (i < count) {
            slot = queue[i];
            const WavefrontSlot work = pool.slots.load(slot);
            const WavefrontHit record = pool.hits.load(slot);
            PathState path = pool.paths.load(slot);
            PixelSampler sampler = band_pixel_sampler(frame, band, work.pixel, work.sample);
            DeferredShadow shadow;
            const bool going = continue_path_deferring_shadow<kTypes>(scene, path, sampler, record.found != 0,
                                                                      record.hit, shadow, pending);
            if (pending) pool.shadows.store(slot, shadow);
            if (!(going && path.depth < frame.max_depth)) {
                pool.slots.store_member<SlotStatus, offsetof(WavefrontSlot, status)>(slot, SlotStatus::Finished);
            }
            pool.paths.store(slot, path);
        }
        push_to_queue(pending, slot, pool.shadow_queue, pool.counters + kShadowCount);
    }
}

// The shading kernel of surface type kType (and emitters and misses).
template <MaterialType kType>
constexpr MaterialTypes kShadedWith = material_type_bit(kType) | material_type_bit(MaterialType::Emissive);

// Where the frame shades kType: kType's kernel over kType's queue (sorted)
// or over the ray queue (a scene of one surface type).
template <MaterialType kType>
void launch_shade(const WavefrontGrids& grids, cudaStream_t stream, const SceneView& scene, const FrameSettings& frame,
                  const BandLaunch& band, const WavefrontPool& pool) {
    constexpr uint32_t t = uint32_t(kType);
    if ((grids.shaded_types & material_type_bit(kType)) == 0) return;
    const bool sorted = pool.shade_queues != nullptr;
    wavefront_shade<kShadedWith<kType>><<<grids.shade_by_type[t], grids.block_size, 0, stream>>>(
        scene, frame, band, pool, sorted ? pool.shade_queues + size_t(t) * pool.capacity : pool.ray_queue,
        sorted ? kShadeCounts + t : uint32_t(kRayCount));
}

// One thread, between shade and shadow: adds the iteration's rays to the
// totals (BandLaunch::rays): the ray queue's closest-hit queries, the camera
// rays among them (the items generate has claimed since the last count), and
// the shadow queue's. A kernel of its own keeps the counting out of the
// tracing kernels' registers.
__global__ void wavefront_count_rays(const BandLaunch band, const WavefrontPool pool) {
    const uint32_t claimed = min(pool.items[kNextItem], wavefront_item_count(band));
    // Atomics: another stream's megakernel may add to the same totals, and
    // another pool's count to the items counted (each item once: the
    // counted mark only rises, and whoever raises it counts the rise).
    const uint32_t counted = atomicMax(pool.items + kItemsCounted, claimed);
    if (claimed > counted) atomicAdd(band.rays + kCameraRays, (unsigned long long)(claimed - counted));
    atomicAdd(band.rays + kClosestHitRays, (unsigned long long)pool.counters[kRayCount]);
    atomicAdd(band.rays + kShadowRays, (unsigned long long)pool.counters[kShadowCount]);
}

// The any-hit query of each queued shadow ray and the light it lets through,
// added before the path's next segment as the immediate form adds it. Also
// empties the ray queue for the next generate and reads the stop flag for
// it. kFetch: for_each_queue_entry's (false: each thread its grid-stride share).
template <class Traits, bool kWide, bool kFetch>
__global__ void FARMRT_WAVEFRONT_QUERY_CAP wavefront_shadow(const SceneView scene, const BandLaunch band,
                                                            const WavefrontPool pool) {
    const uint32_t first = blockIdx.x * blockDim.x + threadIdx.x;
    if (first == 0) {
        pool.counters[kRayCount] = 0;
        pool.counters[kIntersectFetch] = 0;
        for (uint32_t t = 0; t < kMaterialTypeCount; ++t) pool.counters[kShadeCounts + t] = 0;
        pool.counters[kStopped] = band.stop != nullptr && *band.stop != 0 ? 1u : 0u;
    }
    const uint32_t count = pool.counters[kShadowCount];
    const auto query = QueryOf<Traits, kWide>::make(band);
    const auto trace = [&](uint32_t i) {
        if (i >= count) return;
        const uint32_t slot = pool.shadow_queue[i];
        // The ray first, the light it may let through after the traversal,
        // so that the light holds no registers across it (a whole record
        // loaded at once took the kernel from 96 registers to 101).
        constexpr size_t kSample = offsetof(DeferredShadow, sample);
        const Ray ray = pool.shadows.load_member<Ray, kSample + offsetof(DirectLightSample, shadow_ray)>(slot);
        const float end = pool.shadows.load_member<float, kSample + offsetof(DirectLightSample, shadow_end)>(slot);
        const bool blocked = query.occluded(scene, ray, end);
        DeferredShadow shadow;
        shadow.sample.light = pool.shadows.load_member<Color, kSample + offsetof(DirectLightSample, light)>(slot);
        shadow.throughput = pool.shadows.load_member<Color, offsetof(DeferredShadow, throughput)>(slot);
        shadow.scatterings = pool.shadows.load_member<uint32_t, offsetof(DeferredShadow, scatterings)>(slot);
        Color radiance = pool.paths.load_member<Color, offsetof(PathState, radiance)>(slot);
        add_deferred_light(scene, radiance, shadow, blocked);
        pool.paths.store_member<Color, offsetof(PathState, radiance)>(slot, radiance);
    };
    if constexpr (kFetch) {
        for_each_queue_entry<true>(pool, count, kShadowFetch, trace);
    } else {
        for (uint32_t i = first; i < count; i += gridDim.x * blockDim.x) trace(i);
    }
}

template <class Traits, bool kWide>
cudaError_t wavefront_iterate(const WavefrontGrids& grids, cudaStream_t stream, const SceneView& scene,
                              const FrameSettings& frame, const BandLaunch& band, const WavefrontPool& pool,
                              uint32_t* ray_count_copy) {
    wavefront_generate<<<grids.generate, grids.block_size, 0, stream>>>(frame, band, pool);
    if (ray_count_copy != nullptr) {
        const cudaError_t copied = cudaMemcpyAsync(ray_count_copy, pool.counters + kRayCount, sizeof(uint32_t),
                                                   cudaMemcpyDeviceToHost, stream);
        if (copied != cudaSuccess) return copied;
    }
    const bool fetching = pool.fetch_rounds != 0;
    if (fetching) {
        wavefront_intersect<Traits, kWide, true><<<grids.intersect, grids.block_size, 0, stream>>>(scene, band, pool);
    } else {
        wavefront_intersect<Traits, kWide, false><<<grids.intersect, grids.block_size, 0, stream>>>(scene, band, pool);
    }
    const MaterialTypes types = grids.shaded_types;
    if (pool.shade_queues == nullptr && several_material_types(types)) {
        if ((types & ~kBookMaterialTypes) == 0) {
            wavefront_shade<kBookMaterialTypes><<<grids.shade_book, grids.block_size, 0, stream>>>(
                scene, frame, band, pool, pool.ray_queue, kRayCount);
        } else {
            wavefront_shade<kAllMaterialTypes>
                <<<grids.shade, grids.block_size, 0, stream>>>(scene, frame, band, pool, pool.ray_queue, kRayCount);
        }
    } else {
        launch_shade<MaterialType::Lambertian>(grids, stream, scene, frame, band, pool);
        launch_shade<MaterialType::Metal>(grids, stream, scene, frame, band, pool);
        launch_shade<MaterialType::Dielectric>(grids, stream, scene, frame, band, pool);
        launch_shade<MaterialType::Emissive>(grids, stream, scene, frame, band, pool);
        launch_shade<MaterialType::Principled>(grids, stream, scene, frame, band, pool);
    }
    wavefront_count_rays<<<1, 1, 0, stream>>>(band, pool);
    if (fetching) {
        wavefront_shadow<Traits, kWide, true><<<grids.shadow, grids.block_size, 0, stream>>>(scene, band, pool);
    } else {
        wavefront_shadow<Traits, kWide, false><<<grids.shadow, grids.block_size, 0, stream>>>(scene, band, pool);
    }
    return cudaGetLastError();
}

template <KernelGeometry kGeometry, bool kWide, bool kFusedSlabs>
WavefrontEntry wavefront_entry(bool fast_math) {
    using Traits = TraversalTraits<kGeometry == KernelGeometry::General, kGeometry == KernelGeometry::Spheres,
                                   kLeafQuorum, kFusedSlabs>;
    WavefrontEntry e;
    e.variant.fast_math = fast_math;
    e.variant.geometry = kGeometry;
    e.variant.fused_slabs = kFusedSlabs;
    e.variant.wide_bvh = kWide;
    e.generate = reinterpret_cast<const void*>(&wavefront_generate);
    e.intersect = reinterpret_cast<const void*>(&wavefront_intersect<Traits, kWide, false>);
    e.intersect_fetching = reinterpret_cast<const void*>(&wavefront_intersect<Traits, kWide, true>);
    e.shade = reinterpret_cast<const void*>(&wavefront_shade<kAllMaterialTypes>);
    e.shade_book = reinterpret_cast<const void*>(&wavefront_shade<kBookMaterialTypes>);
    e.shade_by_type[0] = reinterpret_cast<const void*>(&wavefront_shade<kShadedWith<MaterialType(0)>>);
    e.shade_by_type[1] = reinterpret_cast<const void*>(&wavefront_shade<kShadedWith<MaterialType(1)>>);
    e.shade_by_type[2] = reinterpret_cast<const void*>(&wavefront_shade<kShadedWith<MaterialType(2)>>);
    e.shade_by_type[3] = reinterpret_cast<const void*>(&wavefront_shade<kShadedWith<MaterialType(3)>>);
    e.shade_by_type[4] = reinterpret_cast<const void*>(&wavefront_shade<kShadedWith<MaterialType(4)>>);
    static_assert(kMaterialTypeCount == 5, "a shading kernel per material type");
    e.shadow = reinterpret_cast<const void*>(&wavefront_shadow<Traits, kWide, false>);
    e.shadow_fetching = reinterpret_cast<const void*>(&wavefront_shadow<Traits, kWide, true>);
    e.iterate = &wavefront_iterate<Traits, kWide>;
    return e;
}

}  // namespace FARMRT_PATH_KERNEL_VARIANT
}  // namespace farmrt
