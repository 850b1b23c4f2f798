// The path kernel without fused multiply-add (compiled with -fmad=false):
// every operation rounds as on the CPU, so GPU sums equal CPU sums bit for bit.
#define FARMRT_PATH_KERNEL_VARIANT path_kernel_exact
#include "cuda/path_kernel.cuh"
#include "cuda/wavefront.cuh"

#include "core/aov.h"

#include <algorithm>

namespace farmrt {
namespace {

// How many samples' values a thread of sum_sample_radiance loads before it
// adds them. The adds run in sample order (the CPU's order), one after the
// other; the loads need not: a batch in flight at once hides the memory's
// latency, where one load at a time left a thin band's few threads waiting
// on each (results/multi_gpu.md).
constexpr uint32_t kSumBatch = 16;

// One thread per pixel (grid-stride): neighbouring threads read neighbouring
// radiance values of each sample. Compiled here, without fused multiply-add
// or flushed denormals, as the CPU adds and decides. With adaptive sampling
// the launch may have traced past decisions (speculative_run_end): the
// samples are added run by run, each decision made on the record as the CPU
// makes it, and those after the decision where the pixel stops are left out.
// A pixel that had stopped before the launch has no radiance in it. A
// sample's alpha is its camera sample's filter weight where its path met the
// scene (store_sample_value), the weight recomputed here as the CPU computes it.
template <uint32_t kValueFloats>
__global__ void sum_sample_radiance(const FrameSettings frame, uint32_t row_begin, float* sums, const float* radiance,
                                    uint32_t pixel_count, uint32_t sample_begin, uint32_t samples,
                                    const uint32_t* gate) {
    if (gate != nullptr && *gate == 0) return;
    const PixelSampling& sampling = frame.sampling;
    const uint32_t floats = sampling.record_floats;
    const uint32_t sample_end = sample_begin + samples;
    for (uint32_t pixel = blockIdx.x * blockDim.x + threadIdx.x; pixel < pixel_count; pixel += gridDim.x * blockDim.x) {
        float* record = sums + size_t(pixel) * floats;
        float total[kMaxRecordFloats];
        path_kernel_exact::copy_record(total, record, floats);
        const uint32_t pixel_index = frame.pixel_index(pixel % frame.width, row_begin + pixel / frame.width);
        const float* values = radiance + size_t(pixel) * kValueFloats;
        const size_t sample_stride = size_t(pixel_count) * kValueFloats;
        uint32_t run_begin = sample_begin;
        for (;;) {
            const uint32_t run_end = adaptive_run_end(total, sampling, run_begin, sample_end);
            if (run_end == run_begin) break;
            for (uint32_t first = run_begin; first < run_end; first += kSumBatch) {
                const uint32_t batch = min(kSumBatch, run_end - first);
                float value[kSumBatch][4];
#pragma unroll
                for (uint32_t k = 0; k < kSumBatch; ++k) {
                    if (k >= batch) break;
                    const float* r = values + size_t(first - sample_begin + k) * sample_stride;
                    if constexpr (kValueFloats == 4) {
                        // Read once: streamed past the caches (16-byte aligned: 4 floats a value).
                        const float4 v = __ldcs(reinterpret_cast<const float4*>(r));
                        value[k][0] = v.x, value[k][1] = v.y, value[k][2] = v.z, value[k][3] = v.w;
                    } else {
                        value[k][0] = __ldcs(r), value[k][1] = __ldcs(r + 1), value[k][2] = __ldcs(r + 2);
                        value[k][3] = 1.0f;
                    }
                }
#pragma unroll
                for (uint32_t k = 0; k < kSumBatch; ++k) {
                    if (k >= batch) break;
                    float alpha = 1.0f;
                    if constexpr (kValueFloats == 4) {
                        PixelSampler sampler(frame.key, pixel_index, first + k);
                        alpha = value[k][3] * frame.filter_weight(sampler);
                    }
                    add_sample_to_record(total, PixelSample{Color(value[k][0], value[k][1], value[k][2]), alpha},
                                         floats);
                }
            }
            run_begin = run_end;
        }
        if (run_begin != sample_begin) path_kernel_exact::copy_record(record, total, floats);
    }
}

// One thread: whether the launch before it ran whole (no stop yet), and if
// so counts its samples as added (see launch_sum_sample_radiance).
__global__ void open_sum_gate(const volatile int* stop, uint32_t* passes, uint32_t samples) {
    const bool open = *stop == 0;
    passes[0] = open ? 1u : 0u;
    if (open) passes[1] += samples;
}

// One thread per pixel; a warp takes its place in the list with one atomic
// and keeps its pixels' order. The loop is the same for every lane of a
// block (it steps by whole blocks), so the warp votes are safe.
__global__ void collect_active_pixels(const float* sums, uint32_t pixel_count, PixelSampling sampling,
                                      uint32_t sample_begin, uint32_t sample_end, bool last_rows_first,
                                      uint32_t* active_pixels, uint32_t* active_count) {
    const unsigned lane = threadIdx.x & 31u;
    for (uint32_t base = blockIdx.x * blockDim.x; base < pixel_count; base += gridDim.x * blockDim.x) {
        const uint32_t item = base + threadIdx.x;
        uint32_t pixel = 0;
        bool active = false;
        if (item < pixel_count) {
            pixel = last_rows_first ? pixel_count - 1 - item : item;
            const float* record = sums + size_t(pixel) * sampling.record_floats;
            active = adaptive_run_end(record, sampling, sample_begin, sample_end) > sample_begin;
        }
        const unsigned voters = __ballot_sync(0xffffffffu, active);
        uint32_t first = 0;
        if (lane == 0 && voters != 0) first = atomicAdd(active_count, uint32_t(__popc(voters)));
        first = __shfl_sync(0xffffffffu, first, 0);
        if (active) active_pixels[first + uint32_t(__popc(voters & ((1u << lane) - 1u)))] = pixel;
    }
}

// One thread per pixel (grid-stride), exact math: the CPU's floats.
__global__ void first_hit_features_kernel(const SceneView scene, const FrameSettings frame, uint32_t samples,
                                          float* albedo, float* normal, float* depth) {
    const uint32_t pixel_count = frame.width * frame.height;
    for (uint32_t pixel = blockIdx.x * blockDim.x + threadIdx.x; pixel < pixel_count; pixel += gridDim.x * blockDim.x) {
        pixel_first_hit_features(scene, frame, pixel % frame.width, pixel / frame.width, samples, BvhQuery(),
                                 albedo + size_t(pixel) * 3, normal + size_t(pixel) * 3, depth + pixel);
    }
}

}  // namespace

cudaError_t launch_first_hit_features(cudaStream_t stream, const SceneView& scene, const FrameSettings& frame,
                                      uint32_t samples, float* albedo, float* normal, float* depth) {
    const uint32_t pixel_count = frame.width * frame.height;
    if (pixel_count == 0) return cudaSuccess;
    constexpr unsigned kBlock = 128;
    const unsigned blocks = std::min<unsigned>((pixel_count + kBlock - 1) / kBlock, 65535u);
    first_hit_features_kernel<<<blocks, kBlock, 0, stream>>>(scene, frame, samples, albedo, normal, depth);
    return cudaGetLastError();
}

cudaError_t launch_collect_active_pixels(cudaStream_t stream, const float* sums, uint32_t pixel_count,
                                         const PixelSampling& sampling, uint32_t sample_begin, uint32_t sample_end,
                                         bool last_rows_first, uint32_t* active_pixels, uint32_t* active_count) {
    if (pixel_count == 0) return cudaSuccess;
    constexpr unsigned kBlock = 256;
    const unsigned blocks = std::min<unsigned>((pixel_count + kBlock - 1) / kBlock, 65535u);
    collect_active_pixels<<<blocks, kBlock, 0, stream>>>(sums, pixel_count, sampling, sample_begin, sample_end,
                                                         last_rows_first, active_pixels, active_count);
    return cudaGetLastError();
}

cudaError_t launch_sum_sample_radiance(cudaStream_t stream, const FrameSettings& frame, uint32_t row_begin, float* sums,
                                       const float* radiance, uint32_t pixel_count, uint32_t sample_begin,
                                       uint32_t samples, const volatile int* stop, uint32_t* passes) {
    if (pixel_count == 0 || samples == 0) return cudaSuccess;
    const uint32_t* gate = nullptr;
    if (stop != nullptr && passes != nullptr) {
        open_sum_gate<<<1, 1, 0, stream>>>(stop, passes, samples);
        gate = passes;
    }
    // Small blocks: a thin band's few pixels spread over every multiprocessor.
    constexpr unsigned kBlock = 64;
    const unsigned blocks = std::min<unsigned>((pixel_count + kBlock - 1) / kBlock, 65535u);
    if (sample_value_floats(frame.sampling) == 4) {
        sum_sample_radiance<4>
            <<<blocks, kBlock, 0, stream>>>(frame, row_begin, sums, radiance, pixel_count, sample_begin, samples, gate);
    } else {
        sum_sample_radiance<3>
            <<<blocks, kBlock, 0, stream>>>(frame, row_begin, sums, radiance, pixel_count, sample_begin, samples, gate);
    }
    return cudaGetLastError();
}

const PathKernelEntry* path_kernel_exact_entries(size_t& count) {
    using namespace path_kernel_exact;
    constexpr MaterialTypes kBook = kBookMaterialTypes;
    static const PathKernelEntry entries[] = {
        entry<KernelGeometry::General, kLeafQuorum, false>(false),
        entry<KernelGeometry::NoInstances, kLeafQuorum, false>(false),
        entry<KernelGeometry::Spheres, kLeafQuorum, false>(false),
        // Per-pixel work items (CudaOptions::sample_items = false), for comparison.
        entry<KernelGeometry::NoInstances, kLeafQuorum, false, 0, false, false>(false),
        entry<KernelGeometry::Spheres, kLeafQuorum, false, 0, false, false>(false),
        // The spheres kernel capped at 64 registers (CudaOptions::min_blocks = kRegisterCap64).
        entry<KernelGeometry::Spheres, kLeafQuorum, false, kRegisterCap64>(false),
        // The book's estimator alone (PathKernelVariant::naive_only), for the default options.
        entry<KernelGeometry::General, kLeafQuorum, false, 0, false, true, true>(false),
        entry<KernelGeometry::NoInstances, kLeafQuorum, false, 0, false, true, true>(false),
        entry<KernelGeometry::Spheres, kLeafQuorum, false, kRegisterCap64, false, true, true>(false),
        // Scenes of spheres of the book's material types: without the
        // principled material, and for scenes without lights without the
        // light sample (CudaRenderer's choice; the book's own scenes).
        entry<KernelGeometry::Spheres, kLeafQuorum, false, kRegisterCap64, false, true, false, kBook, false>(false),
        entry<KernelGeometry::Spheres, kLeafQuorum, false, kRegisterCap64, false, true, true, kBook>(false),
        // The 4-wide BVH (CudaOptions::exact_wide_bvh: the default for scenes
        // with quads or triangles), capped at 64 registers as the fast
        // kernels are; the book's estimator alone too.
        entry<KernelGeometry::NoInstances, kLeafQuorum, false, kRegisterCap64, true>(false),
        entry<KernelGeometry::Spheres, kLeafQuorum, false, kRegisterCap64, true>(false),
        entry<KernelGeometry::NoInstances, kLeafQuorum, false, kRegisterCap64, true, true, true>(false),
        entry<KernelGeometry::Spheres, kLeafQuorum, false, kRegisterCap64, true, true, true>(false),
        // Meshes of the book's material types: without lights, and the book's estimator's (as above).
        entry<KernelGeometry::NoInstances, kLeafQuorum, false, kRegisterCap64, true, true, false, kBook, false>(false),
        entry<KernelGeometry::NoInstances, kLeafQuorum, false, kRegisterCap64, true, true, true, kBook>(false),
        // Per-pixel work items on the 4-wide BVH.
        entry<KernelGeometry::NoInstances, kLeafQuorum, false, kRegisterCap64, true, false>(false),
        entry<KernelGeometry::Spheres, kLeafQuorum, false, kRegisterCap64, true, false>(false),
#if defined(FARMRT_CUDA_EXPERIMENTS)
        // The 4-wide BVH uncapped, for comparison.
        entry<KernelGeometry::Spheres, kLeafQuorum, false, 0, true>(false),
#endif
    };
    count = sizeof(entries) / sizeof(entries[0]);
    return entries;
}

const WavefrontEntry* wavefront_exact_entries(size_t& count) {
    using namespace path_kernel_exact;
    static const WavefrontEntry entries[] = {
        wavefront_entry<KernelGeometry::General, false, false>(false),
        wavefront_entry<KernelGeometry::NoInstances, false, false>(false),
        wavefront_entry<KernelGeometry::Spheres, false, false>(false),
        wavefront_entry<KernelGeometry::NoInstances, true, false>(false),
        wavefront_entry<KernelGeometry::Spheres, true, false>(false),
    };
    count = sizeof(entries) / sizeof(entries[0]);
    return entries;
}

}  // namespace farmrt
