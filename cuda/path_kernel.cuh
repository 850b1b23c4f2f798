// The path-tracing kernel: the shared core's extend_path() run by persistent
// threads with path regeneration. Included by the path_kernel_*.cu files,
// which compile it with their math flags and list their variants.
#pragma once

#include "path_kernel.h"

namespace farmrt {
namespace FARMRT_PATH_KERNEL_VARIANT {

// One thread's current pixel.
struct PixelWork {
    uint32_t x, y;
    uint32_t sample;
    float sum[3];
};

// The band's pixel of work item `item` (BandLaunch::last_rows_first).
__device__ __forceinline__ uint32_t item_pixel(const BandLaunch& band, uint32_t item) {
    return band.last_rows_first ? band.pixel_count - 1 - item : item;
}

__device__ __forceinline__ void begin_pixel(const FrameSettings& frame, const BandLaunch& band, uint32_t item,
                                            PixelWork& work) {
    const uint32_t pixel = item_pixel(band, item);
    work.x = pixel % frame.width;
    work.y = band.row_begin + pixel / frame.width;
    work.sample = band.sample_begin;
    const float* sum = band.sums + size_t(pixel) * 3;
    work.sum[0] = sum[0];
    work.sum[1] = sum[1];
    work.sum[2] = sum[2];
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

// Each thread owns one pixel at a time and runs its samples one after the
// other, in order; the loop body is one path segment, and a path that ends
// is replaced by the pixel's next sample (or the next pixel's first) in the
// same iteration, so lanes of a warp stay busy whatever their paths' lengths.
template <class Traits, bool kWide>
__device__ __forceinline__ void trace_band(const SceneView& scene, const FrameSettings& frame,
                                           const BandLaunch& band) {
    const uint32_t thread_count = gridDim.x * blockDim.x;
    const uint32_t chunk_count = (band.pixel_count + band.chunk_pixels - 1) / band.chunk_pixels;
    uint32_t chunk = blockIdx.x * blockDim.x + threadIdx.x;
    if (chunk >= chunk_count) return;
    uint32_t item = chunk * band.chunk_pixels;
    uint32_t item_end = min(item + band.chunk_pixels, band.pixel_count);

    const auto closest_hit = QueryOf<Traits, kWide>::make(band);
    PixelWork work;
    begin_pixel(frame, band, item, work);
    PixelSampler sampler(frame.key, work.y * frame.width + work.x, work.sample);
    PathState path = start_path(frame.camera.generate_ray(work.x, work.y, sampler));
    for (;;) {
        if (extend_path(scene, path, sampler, closest_hit) && path.depth < frame.max_depth) continue;
        add_sample(work.sum, path.radiance);
        if (++work.sample == band.sample_end) {
            float* sum = band.sums + size_t(item_pixel(band, item)) * 3;
            sum[0] = work.sum[0];
            sum[1] = work.sum[1];
            sum[2] = work.sum[2];
            if (++item == item_end) {
                chunk = band.schedule == PathSchedule::Dynamic ? thread_count + atomicAdd(band.next_chunk, 1u)
                                                               : chunk + thread_count;
                if (chunk >= chunk_count) break;
                item = chunk * band.chunk_pixels;
                item_end = min(item + band.chunk_pixels, band.pixel_count);
            }
            begin_pixel(frame, band, item, work);
        }
        sampler = PixelSampler(frame.key, work.y * frame.width + work.x, work.sample);
        path = start_path(frame.camera.generate_ray(work.x, work.y, sampler));
    }
}

template <class Traits, bool kWide>
__global__ void path_kernel(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide>(scene, frame, band);
}

// With a register cap: at most 128 threads per block, at least kMinBlocks
// blocks per multiprocessor.
template <class Traits, bool kWide, int kMinBlocks>
__global__ void __launch_bounds__(128, kMinBlocks)
    path_kernel_bounded(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide>(scene, frame, band);
}

// At most 64 registers, any block size (kRegisterCap64).
template <class Traits, bool kWide>
__global__ void __launch_bounds__(1024, 1)
    path_kernel_capped(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide>(scene, frame, band);
}

template <class Traits, bool kWide>
cudaError_t launch_capped(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                          const FrameSettings& frame, const BandLaunch& band) {
    path_kernel_capped<Traits, kWide><<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

template <class Traits, bool kWide>
cudaError_t launch(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                   const FrameSettings& frame, const BandLaunch& band) {
    path_kernel<Traits, kWide><<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

template <class Traits, bool kWide, int kMinBlocks>
cudaError_t launch_bounded(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                           const FrameSettings& frame, const BandLaunch& band) {
    path_kernel_bounded<Traits, kWide, kMinBlocks><<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

// The table entry of one variant.
template <KernelGeometry kGeometry, int kQuorum, bool kFusedSlabs, int kMinBlocks = 0, bool kWide = false>
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
    if constexpr (kMinBlocks == kRegisterCap64) {
        e.function = reinterpret_cast<const void*>(&path_kernel_capped<Traits, kWide>);
        e.launch = &launch_capped<Traits, kWide>;
    } else if constexpr (kMinBlocks > 0) {
        e.function = reinterpret_cast<const void*>(&path_kernel_bounded<Traits, kWide, kMinBlocks>);
        e.launch = &launch_bounded<Traits, kWide, kMinBlocks>;
    } else {
        e.function = reinterpret_cast<const void*>(&path_kernel<Traits, kWide>);
        e.launch = &launch<Traits, kWide>;
    }
    return e;
}

}  // namespace FARMRT_PATH_KERNEL_VARIANT
}  // namespace farmrt
