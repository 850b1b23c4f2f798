// The path-tracing kernel's host-side interface. The kernel itself
// (path_kernel.cuh) is compiled twice: path_kernel_exact.cu without fused
// multiply-add, so that its sums are bit-identical to the CPU tracer's (built
// with -ffp-contract=off), and path_kernel_fast.cu with it.
#pragma once

#include <cuda_runtime_api.h>

#include "integrator.h"

namespace farmrt {

// How the band's pixels reach the threads. Static: grid-stride (thread t
// takes chunks t, t + T, ...). Dynamic: persistent threads take their next
// chunk from an atomic counter when they finish one. Either way each pixel's
// samples are summed by one thread in sample order, so sums never depend on
// the schedule, grid, block or chunk size.
enum class PathSchedule : uint32_t { Static = 0, Dynamic = 1 };

// One launch: a band's pixels (row-major from row_begin, `pixel_count` of
// them) and the samples to add to each.
struct BandLaunch {
    uint32_t row_begin = 0;
    uint32_t pixel_count = 0;
    uint32_t sample_begin = 0, sample_end = 0;
    uint32_t chunk_pixels = 1;      // consecutive pixels a thread takes at a time
    PathSchedule schedule = PathSchedule::Dynamic;
    float* sums = nullptr;          // device: pixel_count RGB sums, added to in place
    uint32_t* next_chunk = nullptr; // device: zero before a dynamic launch
};

// A compiled kernel: exact or fast math, with or without the instance path
// (intersect_primitive's kInstances; scenes without instances take the
// kernel without it, which needs fewer registers).
struct PathKernelVariant {
    bool fast_math = false;
    bool instances = true;
};

// The kernel function (for occupancy and attribute queries), and its launch.
const void* path_kernel_function(const PathKernelVariant& variant);
cudaError_t launch_path_kernel(const PathKernelVariant& variant, unsigned grid_blocks, unsigned block_size,
                               cudaStream_t stream, const SceneView& scene, const FrameSettings& frame,
                               const BandLaunch& band);

// One math variant's entry points (path_kernel_exact.cu, path_kernel_fast.cu).
#define FARMRT_DECLARE_PATH_KERNEL(name)                                                                    \
    namespace name {                                                                                        \
    const void* function(bool instances);                                                                   \
    cudaError_t launch(bool instances, unsigned grid_blocks, unsigned block_size, cudaStream_t stream,      \
                       const SceneView& scene, const FrameSettings& frame, const BandLaunch& band);          \
    }
FARMRT_DECLARE_PATH_KERNEL(path_kernel_exact)
FARMRT_DECLARE_PATH_KERNEL(path_kernel_fast)
#undef FARMRT_DECLARE_PATH_KERNEL

inline const void* path_kernel_function(const PathKernelVariant& variant) {
    return variant.fast_math ? path_kernel_fast::function(variant.instances)
                             : path_kernel_exact::function(variant.instances);
}

inline cudaError_t launch_path_kernel(const PathKernelVariant& variant, unsigned grid_blocks, unsigned block_size,
                                      cudaStream_t stream, const SceneView& scene, const FrameSettings& frame,
                                      const BandLaunch& band) {
    return variant.fast_math
               ? path_kernel_fast::launch(variant.instances, grid_blocks, block_size, stream, scene, frame, band)
               : path_kernel_exact::launch(variant.instances, grid_blocks, block_size, stream, scene, frame, band);
}

}  // namespace farmrt
