// The path-tracing kernel: the shared core's extend_path() run by persistent
// threads with path regeneration. Included by path_kernel_exact.cu and
// path_kernel_fast.cu, which set FARMRT_PATH_KERNEL_VARIANT (the entry
// points' namespace) and compile without or with fused multiply-add.
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

__device__ __forceinline__ void begin_pixel(const FrameSettings& frame, const BandLaunch& band, uint32_t item,
                                            PixelWork& work) {
    work.x = item % frame.width;
    work.y = band.row_begin + item / frame.width;
    work.sample = band.sample_begin;
    const float* sum = band.sums + size_t(item) * 3;
    work.sum[0] = sum[0];
    work.sum[1] = sum[1];
    work.sum[2] = sum[2];
}

// Each thread owns one pixel at a time and runs its samples one after the
// other, in order; the loop body is one path segment, and a path that ends
// is replaced by the pixel's next sample (or the next pixel's first) in the
// same iteration, so lanes of a warp stay busy whatever their paths' lengths.
template <bool kInstances>
__global__ void path_kernel(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    const uint32_t thread_count = gridDim.x * blockDim.x;
    const uint32_t chunk_count = (band.pixel_count + band.chunk_pixels - 1) / band.chunk_pixels;
    uint32_t chunk = blockIdx.x * blockDim.x + threadIdx.x;
    if (chunk >= chunk_count) return;
    uint32_t item = chunk * band.chunk_pixels;
    uint32_t item_end = min(item + band.chunk_pixels, band.pixel_count);

    PixelWork work;
    begin_pixel(frame, band, item, work);
    PixelSampler sampler(frame.key, work.y * frame.width + work.x, work.sample);
    PathState path = start_path(frame.camera.generate_ray(work.x, work.y, sampler));
    for (;;) {
        if (extend_path(scene, path, sampler, BvhQuery<kInstances>()) && path.depth < frame.max_depth) continue;
        add_sample(work.sum, path.radiance);
        if (++work.sample == band.sample_end) {
            float* sum = band.sums + size_t(item) * 3;
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


const void* function(bool instances) {
    return instances ? reinterpret_cast<const void*>(&path_kernel<true>)
                     : reinterpret_cast<const void*>(&path_kernel<false>);
}

cudaError_t launch(bool instances, unsigned grid_blocks, unsigned block_size, cudaStream_t stream,
                   const SceneView& scene, const FrameSettings& frame, const BandLaunch& band) {
    if (instances) {
        path_kernel<true><<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    } else {
        path_kernel<false><<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    }
    return cudaGetLastError();
}

}  // namespace FARMRT_PATH_KERNEL_VARIANT
}  // namespace farmrt
