// The path-tracing kernel: the shared core's extend_path() run by persistent
// threads with path regeneration. Included by the path_kernel_*.cu files,
// which compile it with their math flags and list their variants.
#pragma once

#include "cuda/path_kernel.h"

namespace farmrt {
namespace FARMRT_PATH_KERNEL_VARIANT {

// One thread's current run: samples [sample, sample_end) of one pixel. The
// pixel's coordinates are recomputed for each sample rather than kept (fewer
// live registers across the traversal).
struct PixelWork {
    uint32_t pixel;  // in the band (BandLaunch::item_pixel)
    uint32_t sample, sample_end;
    float sum[kMaxRecordFloats];  // per-pixel items: the pixel's record (FrameSettings::sampling)
};

// A pixel record's 3 to 6 floats, by constant indices (registers, not local memory).
__device__ __forceinline__ void copy_record(float* to, const float* from, uint32_t floats) {
    to[0] = from[0];
    to[1] = from[1];
    to[2] = from[2];
    if (record_has_statistics(floats)) {
        to[kLuminanceDeviations] = from[kLuminanceDeviations];
        to[kSamplesTaken] = from[kSamplesTaken];
        if (floats == kStatisticsFloats + 1) to[kStatisticsFloats] = from[kStatisticsFloats];
    } else if (floats == kColorFloats + 1) {
        to[kColorFloats] = from[kColorFloats];
    }
}

// The band's pixel of work item `item` (BandLaunch::last_rows_first).
__device__ __forceinline__ uint32_t item_pixel(const BandLaunch& band, uint32_t item) {
    return band.last_rows_first ? band.pixel_count - 1 - item : item;
}

// The pixels of a per-sample launch: the band's, or those of its list of
// pixels that adaptive sampling leaves samples to (BandLaunch::active_pixels).
__device__ __forceinline__ uint32_t launch_pixel_count(const BandLaunch& band) {
    return band.active_pixels != nullptr ? *band.active_count : band.pixel_count;
}

// Per-pixel items: chunk c holds items [c * chunk_pixels, ...), each a pixel
// with every sample of the launch. Per-sample items (BandLaunch::radiance):
// chunk c holds samples [s, s + chunk_samples) of pixel c mod pixel_count,
// s = sample_begin + (c / pixel_count) * chunk_samples: the first chunks of
// every pixel come first, so a warp's lanes start on neighbouring pixels.
template <bool kSamples>
__device__ __forceinline__ uint32_t chunk_count_of(const BandLaunch& band) {
    if (kSamples) {
        const uint32_t samples = band.sample_end - band.sample_begin;
        return (samples + band.chunk_samples - 1) / band.chunk_samples * launch_pixel_count(band);
    }
    return (band.pixel_count + band.chunk_pixels - 1) / band.chunk_pixels;
}

// Sets up work item `item`; false when adaptive sampling leaves it no
// samples. A per-pixel item's run ends at the pixel's next decision (the
// thread then decides and goes on: trace_band). Per-sample launches never
// cross a decision (CudaRenderer::submit), and with adaptive sampling their
// items are those of the pixels listed as still sampling (active_pixels).
template <bool kSamples>
__device__ __forceinline__ bool begin_run(const FrameSettings& frame, const BandLaunch& band, uint32_t item,
                                          PixelWork& work) {
    uint32_t pixel_item = item;
    work.sample = band.sample_begin;
    work.sample_end = band.sample_end;
    if (kSamples) {
        const uint32_t pixels = launch_pixel_count(band);
        pixel_item = item % pixels;
        work.sample = band.sample_begin + item / pixels * band.chunk_samples;
        work.sample_end = min(work.sample + band.chunk_samples, band.sample_end);
    }
    const uint32_t pixel =
        kSamples && band.active_pixels != nullptr ? band.active_pixels[pixel_item] : item_pixel(band, pixel_item);
    work.pixel = pixel;
    if (!kSamples) {
        copy_record(work.sum, band.sums + size_t(pixel) * frame.sampling.record_floats, frame.sampling.record_floats);
        work.sample_end = adaptive_run_end(work.sum, frame.sampling, work.sample, band.sample_end);
    }
    return work.sample < work.sample_end;
}

// The random numbers of sample `sample` of the band's pixel `pixel`.
__device__ __forceinline__ PixelSampler band_pixel_sampler(const FrameSettings& frame, const BandLaunch& band,
                                                           uint32_t pixel, uint32_t sample) {
    const uint32_t x = pixel % frame.width, y = band.row_begin + pixel / frame.width;
    return PixelSampler(frame.key, frame.pixel_index(x, y), sample);
}

// The first path of the run's current sample.
template <bool kNaiveOnly>
__device__ __forceinline__ PathState start_sample(const FrameSettings& frame, const BandLaunch& band,
                                                  const PixelWork& work, PixelSampler& sampler) {
    const uint32_t x = work.pixel % frame.width, y = band.row_begin + work.pixel / frame.width;
    sampler = band_pixel_sampler(frame, band, work.pixel, work.sample);
    float filter_weight;
    const Ray ray = frame.camera_ray(x, y, sampler, filter_weight);
    return start_path(ray, kNaiveOnly ? Integrator::Naive : frame.integrator, filter_weight);
}

// The next chunk of the dynamic schedule (less the first grid's worth).
// BandLaunch::warp_fetch: the lanes of a warp that run out of work in the
// same step take consecutive chunks with one atomic operation (neighbouring
// pixels, the same sample: rays that start together stay together longer).
// Which thread takes which chunk never changes a sum.
__device__ __forceinline__ uint32_t next_dynamic_chunk(const BandLaunch& band) {
    if (!band.warp_fetch) return atomicAdd(band.next_chunk, 1u);
    const unsigned lanes = __activemask();
    const unsigned lane = threadIdx.x & 31u;
    const int leader = __ffs(lanes) - 1;
    uint32_t first = 0;
    if (int(lane) == leader) first = atomicAdd(band.next_chunk, uint32_t(__popc(lanes)));
    first = __shfl_sync(lanes, first, leader);
    return first + uint32_t(__popc(lanes & ((1u << lane) - 1u)));
}

// Moves on to the thread's next work item (the next of its chunk, else its
// next chunk); false when none is left.
__device__ __forceinline__ bool next_item(const BandLaunch& band, uint32_t thread_count, uint32_t chunk_count,
                                          uint32_t chunk_items, uint32_t item_count, uint32_t& chunk, uint32_t& item,
                                          uint32_t& item_end) {
    if (++item < item_end) return true;
    chunk = band.schedule == PathSchedule::Dynamic ? thread_count + next_dynamic_chunk(band) : chunk + thread_count;
    if (chunk >= chunk_count) return false;
    item = chunk * chunk_items;
    item_end = min(item + chunk_items, item_count);
    return true;
}

// The thread's next work item with samples to take; false when none is left.
template <bool kSamples>
__device__ __forceinline__ bool next_run(const FrameSettings& frame, const BandLaunch& band, uint32_t thread_count,
                                         uint32_t chunk_count, uint32_t chunk_items, uint32_t item_count,
                                         uint32_t& chunk, uint32_t& item, uint32_t& item_end, PixelWork& work) {
    do {
        if (!next_item(band, thread_count, chunk_count, chunk_items, item_count, chunk, item, item_end)) return false;
    } while (!begin_run<kSamples>(frame, band, item, work));
    return true;
}

// Adds a thread's counts of rays to the device's totals (BandLaunch::rays):
// the lanes that arrive together add theirs with one atomic per kind.
__device__ __forceinline__ void add_to_ray_totals(unsigned long long* totals, uint32_t camera, uint32_t closest_hit,
                                                  uint32_t shadow) {
#if __CUDA_ARCH__ >= 800
    const unsigned lanes = __activemask();
    camera = __reduce_add_sync(lanes, camera);
    closest_hit = __reduce_add_sync(lanes, closest_hit);
    shadow = __reduce_add_sync(lanes, shadow);
    if (int(threadIdx.x & 31u) != __ffs(lanes) - 1) return;
#endif
    if (camera != 0) atomicAdd(totals + kCameraRays, (unsigned long long)camera);
    atomicAdd(totals + kClosestHitRays, (unsigned long long)closest_hit);
    atomicAdd(totals + kShadowRays, (unsigned long long)shadow);
}

// The closest-hit query of a kernel: the core's binary traversal, or the wide BVH's.
template <class Traits, bool kWide>
struct QueryOf {
    __device__ static TraversalQuery<Traits> make(const BandLaunch&) { return {}; }
};
template <class Traits>
struct QueryOf<Traits, true> {
    __device__ static WideTraversalQuery<Traits> make(const BandLaunch& band) { return {band.wide_nodes}; }
};

// One path segment in a kernel for frames of the book's estimator alone
// (kNaiveOnly), for scenes of material types kTypes, or without lights
// (kLights = false), or the general one. The specialised kernels trace each
// estimator's segment in a copy of its own, query included: one copy with the
// estimator chosen after the query spilled more (the book's scene's exact
// kernel: 872 bytes of spill stores against 592).
template <bool kNaiveOnly, MaterialTypes kTypes, bool kLights, class Query>
__device__ __forceinline__ bool extend_kernel_path(const SceneView& scene, PathState& path, PixelSampler& sampler,
                                                   const Query& query) {
    if constexpr (kNaiveOnly) {
        return extend_path_with<Integrator::Naive, kTypes>(scene, path, sampler, query);
    } else if constexpr (kTypes == kAllMaterialTypes && kLights) {
        return extend_path(scene, path, sampler, query);
    } else {
        return path.integrator == Integrator::Naive
                   ? extend_path_with<Integrator::Naive, kTypes>(scene, path, sampler, query)
                   : extend_path_with<Integrator::NextEvent, kTypes, kLights>(scene, path, sampler, query);
    }
}

// Each thread owns one run of samples of one pixel at a time and traces them
// one after the other, in order; the loop body is one path segment, and a
// path that ends is replaced by the run's next sample (or the next run's
// first) in the same iteration, so lanes of a warp stay busy whatever their
// paths' lengths. Per-pixel items add each sample to the pixel's sum in
// registers; per-sample items store each sample's radiance for
// sum_sample_radiance, which adds them in sample order after the launch: the
// same additions in the same order, so the same sums, but a thread's work
// unit is a few samples instead of a whole pixel, and the launch's tail (the
// time its last items take while other threads idle) is a path or two long.
// kSamples: per-sample items (BandLaunch::radiance set), else per-pixel items.
// kNaiveOnly: a kernel for frames of the book's estimator only, without the
// registers of next-event estimation; the others run either (FrameSettings::integrator).
// kTypes: the material types the scene's surfaces may have; kLights: false
// for scenes without lights (no light sample compiled in: extend_path_with).
template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, MaterialTypes kTypes, bool kLights>
__device__ __forceinline__ void trace_band(const SceneView& scene, const FrameSettings& frame, const BandLaunch& band) {
    const uint32_t thread_count = gridDim.x * blockDim.x;
    const uint32_t chunk_count = chunk_count_of<kSamples>(band);
    const uint32_t chunk_items = kSamples ? 1u : band.chunk_pixels;
    const uint32_t item_count = kSamples ? chunk_count : band.pixel_count;
    uint32_t chunk = blockIdx.x * blockDim.x + threadIdx.x;
    if (chunk >= chunk_count) return;
    if (band.stop != nullptr && *band.stop != 0) return;  // the band is abandoned
    uint32_t item = chunk * chunk_items;
    uint32_t item_end = min(item + chunk_items, item_count);

    const auto query = QueryOf<Traits, kWide>::make(band);
    // The thread's rays: every closest-hit query (camera rays among them) and
    // shadow ray, and per-pixel items' paths ended (one camera ray each;
    // per-sample launches trace every sample of their items, counted once).
    uint32_t closest_rays = 0, shadow_rays = 0, paths = 0;
    if (kSamples && blockIdx.x == 0 && threadIdx.x == 0) {
        atomicAdd(band.rays + kCameraRays,
                  (unsigned long long)launch_pixel_count(band) * (band.sample_end - band.sample_begin));
    }
    const ShadowCountingQuery<std::remove_const_t<decltype(query)>, uint32_t> counted{query, &shadow_rays};
    PixelWork work;
    if (!begin_run<kSamples>(frame, band, item, work) &&
        !next_run<kSamples>(frame, band, thread_count, chunk_count, chunk_items, item_count, chunk, item, item_end,
                            work)) {
        return;
    }
    PixelSampler sampler(frame.key, 0, 0);
    PathState path = start_sample<kNaiveOnly>(frame, band, work, sampler);
    for (;;) {
        const bool going = extend_kernel_path<kNaiveOnly, kTypes, kLights>(scene, path, sampler, counted);
        if (going && path.depth < frame.max_depth) continue;
        closest_rays += closest_hit_queries(path);
        if (!kSamples) ++paths;
        if (kSamples) {
            const uint32_t floats = sample_value_floats(frame.sampling);
            store_sample_value(
                band.radiance + (size_t(work.sample - band.sample_begin) * band.pixel_count + work.pixel) * floats,
                path, floats);
        } else {
            // The camera sample's filter weight again (the sample's alpha), only where alpha is kept.
            const float filter_weight =
                record_has_alpha(frame.sampling.record_floats) ? frame.filter_weight(sampler) : 1.0f;
            add_sample_to_record(work.sum, path_sample(path, filter_weight), frame.sampling.record_floats);
        }
        if (++work.sample == work.sample_end) {
            if (!kSamples) {
                // At a decision (adaptive sampling) or the launch's end.
                work.sample_end = adaptive_run_end(work.sum, frame.sampling, work.sample, band.sample_end);
                if (work.sample < work.sample_end) {
                    path = start_sample<kNaiveOnly>(frame, band, work, sampler);
                    continue;
                }
                copy_record(band.sums + size_t(work.pixel) * frame.sampling.record_floats, work.sum,
                            frame.sampling.record_floats);
            }
            if (!next_run<kSamples>(frame, band, thread_count, chunk_count, chunk_items, item_count, chunk, item,
                                    item_end, work)) {
                break;
            }
        }
        path = start_sample<kNaiveOnly>(frame, band, work, sampler);
    }
    add_to_ray_totals(band.rays, paths, closest_rays, shadow_rays);
}

template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, MaterialTypes kTypes, bool kLights>
__global__ void path_kernel(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>(scene, frame, band);
}

// With a register cap: at most 128 threads per block, at least kMinBlocks
// blocks per multiprocessor.
template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, MaterialTypes kTypes, bool kLights, int kMinBlocks>
__global__ void __launch_bounds__(128, kMinBlocks)
    path_kernel_bounded(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>(scene, frame, band);
}

// At most 64 registers, any block size (kRegisterCap64).
template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, MaterialTypes kTypes, bool kLights>
__global__ void __launch_bounds__(1024, 1)
    path_kernel_capped(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>(scene, frame, band);
}

template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, MaterialTypes kTypes, bool kLights>
cudaError_t launch_capped(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                          const FrameSettings& frame, const BandLaunch& band) {
    path_kernel_capped<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>
        <<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, MaterialTypes kTypes, bool kLights>
cudaError_t launch(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                   const FrameSettings& frame, const BandLaunch& band) {
    path_kernel<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>
        <<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, MaterialTypes kTypes, bool kLights, int kMinBlocks>
cudaError_t launch_bounded(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                           const FrameSettings& frame, const BandLaunch& band) {
    path_kernel_bounded<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights, kMinBlocks>
        <<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

// The table entry of one variant. kSamples: per-sample work items (the default).
template <KernelGeometry kGeometry, int kQuorum, bool kFusedSlabs, int kMinBlocks = 0, bool kWide = false,
          bool kSamples = true, bool kNaiveOnly = false, MaterialTypes kTypes = kAllMaterialTypes, bool kLights = true>
PathKernelEntry entry(bool fast_math) {
    using Traits = TraversalTraits<kGeometry == KernelGeometry::General, kGeometry == KernelGeometry::Spheres, kQuorum,
                                   kFusedSlabs>;
    PathKernelEntry e;
    e.variant.fast_math = fast_math;
    e.variant.geometry = kGeometry;
    e.variant.leaf_quorum = kQuorum;
    e.variant.fused_slabs = kFusedSlabs;
    e.variant.min_blocks = kMinBlocks;
    e.variant.wide_bvh = kWide;
    e.variant.sample_items = kSamples;
    e.variant.naive_only = kNaiveOnly;
    e.variant.material_types = kTypes;
    e.variant.samples_lights = kLights;
    if constexpr (kMinBlocks == kRegisterCap64) {
        e.function =
            reinterpret_cast<const void*>(&path_kernel_capped<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>);
        e.launch = &launch_capped<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>;
    } else if constexpr (kMinBlocks > 0) {
        e.function = reinterpret_cast<const void*>(
            &path_kernel_bounded<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights, kMinBlocks>);
        e.launch = &launch_bounded<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights, kMinBlocks>;
    } else {
        e.function = reinterpret_cast<const void*>(&path_kernel<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>);
        e.launch = &launch<Traits, kWide, kSamples, kNaiveOnly, kTypes, kLights>;
    }
    return e;
}

}  // namespace FARMRT_PATH_KERNEL_VARIANT
}  // namespace farmrt
