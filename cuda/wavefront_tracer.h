// The split path tracer's host side: the pool of paths in device memory and
// the loop that runs the kernels (wavefront.h) until a launch's last path
// has handed in its radiance.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "cuda/wavefront.h"

namespace farmrt {

class WavefrontTracer {
public:
    // Allocates `paths` paths on `device` (current) in `streams` pools of
    // equal size, and a shading queue per type where `surface_types`
    // (surface_types_of: the scene's) has several; throws RenderError (one
    // line) when the device lacks the memory. `fetch_rounds`:
    // WavefrontPool::fetch_rounds.
    WavefrontTracer(int device, const WavefrontEntry& kernels, uint32_t paths, int block_size,
                    MaterialTypes surface_types, uint32_t fetch_rounds, int streams);
    ~WavefrontTracer();
    WavefrontTracer(const WavefrontTracer&) = delete;
    WavefrontTracer& operator=(const WavefrontTracer&) = delete;

    // Queues a launch's paths on `stream` (BandLaunch::radiance receives each
    // sample's radiance, chunk_samples must be 1) and returns once they are
    // all traced, or abandoned after a stop; the kernels queued after the
    // last check find nothing to do and are left to run. Launches on other
    // streams wait for this one's kernels: they share the pools.
    // With several pools, each iterates on a stream of its own (the first
    // on `stream`, the others forked from it and joined back), taking the
    // launch's work items from one counter: a pool's kernels fill the
    // multiprocessors that another's leave while its last warps finish.
    // Which pool traces an item changes nothing in its path.
    // `shaded_types`: the types the shading kernels are compiled for
    // (WavefrontGrids::shaded_types: the scene's surface types, or
    // kAllMaterialTypes); `sorted`: a queue per surface type, where the
    // scene has several.
    void trace(cudaStream_t stream, const SceneView& scene, const FrameSettings& frame, const BandLaunch& band,
               MaterialTypes shaded_types, bool sorted);

    // The device memory a path takes in a tracer for a scene of `surface_types`.
    static size_t bytes_per_path(MaterialTypes surface_types);
    // The pools' paths together.
    uint32_t capacity() const { return uint32_t(lanes_.size()) * lanes_.front().pool.capacity; }
    int pools() const { return int(lanes_.size()); }
    const WavefrontEntry& kernels() const { return kernels_; }
    // Iterations (one kernel of each kind) queued by the last trace(), the pools' together.
    uint64_t last_iterations() const { return last_iterations_; }

private:
    // One pool and the stream it iterates on (null: trace()'s own).
    struct Lane {
        WavefrontPool pool;
        cudaStream_t stream = nullptr;
        cudaEvent_t checked[2] = {nullptr, nullptr};
        cudaEvent_t joined = nullptr;    // after its last kernel of a trace()
        uint32_t* ray_counts = nullptr;  // pinned: the ray queue's length at two alternating checks
        bool done = false;
    };
    void allocate_pools(uint32_t paths, int block_size, int streams, uint32_t fetch_rounds);
    void release();
    void check(cudaError_t error, const char* what) const;
    template <typename T>
    T* allocate(size_t count, const char* what);
    template <typename T>
    void allocate_planes(PlanarArray<T>& array, uint32_t capacity, const char* what);
    unsigned resident_blocks(const void* kernel) const;

    int device_;
    WavefrontEntry kernels_;
    std::vector<Lane> lanes_;
    uint32_t* item_counters_ = nullptr;  // kItemCounters words (WavefrontPool::items)
    WavefrontGrids grids_;
    MaterialTypes surface_types_;
    cudaEvent_t forked_ = nullptr;     // trace()'s stream, before the pools' kernels
    cudaEvent_t pool_free_ = nullptr;  // after the last launch's kernels
    cudaStream_t last_stream_ = nullptr;
    uint64_t last_iterations_ = 0;
    std::vector<void*> allocations_;
};

}  // namespace farmrt
