// The split path tracer's host side: the pool of paths in device memory and
// the loop that runs the kernels (wavefront.h) until a launch's last path
// has handed in its radiance.
#pragma once

#include <cuda_runtime_api.h>

#include "cuda/wavefront.h"

namespace farmrt {

class WavefrontTracer {
public:
    // Allocates a pool of `paths` paths on `device` (current), and a
    // shading queue per type where `surface_types` (surface_types_of: the
    // scene's) has several; throws RenderError (one line) when the device
    // lacks the memory. `fetch_rounds`: WavefrontPool::fetch_rounds.
    WavefrontTracer(int device, const WavefrontEntry& kernels, uint32_t paths, int block_size,
                    MaterialTypes surface_types, uint32_t fetch_rounds);
    ~WavefrontTracer();
    WavefrontTracer(const WavefrontTracer&) = delete;
    WavefrontTracer& operator=(const WavefrontTracer&) = delete;

    // Queues a launch's paths on `stream` (BandLaunch::radiance receives each
    // sample's radiance, chunk_samples must be 1) and returns once they are
    // all traced, or abandoned after a stop; the kernels queued after the
    // last check find nothing to do and are left to run. Launches on other
    // streams wait for this one's kernels: they share the pool.
    // `shaded_types`: the types the shading kernels are compiled for
    // (WavefrontGrids::shaded_types: the scene's surface types, or
    // kAllMaterialTypes); `sorted`: a queue per surface type, where the
    // scene has several.
    void trace(cudaStream_t stream, const SceneView& scene, const FrameSettings& frame, const BandLaunch& band,
               MaterialTypes shaded_types, bool sorted);

    uint32_t capacity() const { return pool_.capacity; }
    const WavefrontEntry& kernels() const { return kernels_; }
    // Iterations (one kernel of each kind) queued by the last trace().
    uint64_t last_iterations() const { return last_iterations_; }

private:
    void allocate_pool(uint32_t paths, int block_size);
    void release();
    void check(cudaError_t error, const char* what) const;
    template <typename T>
    T* allocate(size_t count, const char* what);
    template <typename T>
    void allocate_planes(PlanarArray<T>& array, const char* what);
    unsigned resident_blocks(const void* kernel) const;

    int device_;
    WavefrontEntry kernels_;
    WavefrontPool pool_;
    WavefrontGrids grids_;
    MaterialTypes surface_types_;
    uint32_t* ray_counts_ = nullptr;  // pinned: the ray queue's length at two alternating checks
    cudaEvent_t checked_[2] = {nullptr, nullptr};
    cudaEvent_t pool_free_ = nullptr;  // after the last launch's kernels
    cudaStream_t last_stream_ = nullptr;
    uint64_t last_iterations_ = 0;
    void* allocations_[8] = {};
};

}  // namespace farmrt
