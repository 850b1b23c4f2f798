#include "cuda/wavefront_tracer.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "cuda/cuda_device.h"

namespace farmrt {

const WavefrontEntry* find_wavefront(const PathKernelVariant& variant) {
    for (auto table : {&wavefront_exact_entries, &wavefront_fast_entries}) {
        size_t count = 0;
        const WavefrontEntry* entries = table(count);
        for (size_t i = 0; i < count; ++i) {
            const PathKernelVariant& v = entries[i].variant;
            if (v.fast_math == variant.fast_math && v.geometry == variant.geometry && v.wide_bvh == variant.wide_bvh &&
                v.fused_slabs == variant.fused_slabs) {
                return &entries[i];
            }
        }
    }
    return nullptr;
}

void WavefrontTracer::check(cudaError_t error, const char* what) const { check_cuda(error, what, device_); }

template <typename T>
T* WavefrontTracer::allocate(size_t count, const char* what) {
    void* pointer =
        allocate_device_memory(count * sizeof(T), device_, std::string("the split kernels' ") + what + " need",
                               " (FARMRT_CUDA_PATHS sets fewer paths)");
    for (void*& slot : allocations_) {
        if (slot == nullptr) {
            slot = pointer;
            break;
        }
    }
    return static_cast<T*>(pointer);
}

template <typename T>
void WavefrontTracer::allocate_planes(PlanarArray<T>& array, const char* what) {
    // cudaMalloc's 256-byte alignment keeps the 16-byte planes aligned.
    array.capacity = pool_.capacity;
    array.words = allocate<uint32_t>(PlanarArray<T>::bytes(pool_.capacity) / sizeof(uint32_t), what);
}

unsigned WavefrontTracer::resident_blocks(const void* kernel) const {
    int multiprocessors = 0, blocks = 0;
    check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device_), "reading SM count");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, int(grids_.block_size), 0),
          "computing occupancy");
    if (blocks < 1) throw RenderError("a split kernel does not fit on " + gpu_description(device_));
    return unsigned(blocks * multiprocessors);
}

MaterialTypes surface_types_of(const Material* materials, uint32_t count) {
    MaterialTypes types = 0;
    for (uint32_t m = 0; m < count; ++m) types |= material_type_bit(materials[m].type);
    const MaterialTypes surfaces = types & ~material_type_bit(MaterialType::Emissive);
    return surfaces != 0 ? surfaces : material_type_bit(MaterialType::Emissive);
}

WavefrontTracer::WavefrontTracer(int device, const WavefrontEntry& kernels, uint32_t paths, int block_size,
                                 MaterialTypes surface_types, uint32_t fetch_rounds)
    : device_(device), kernels_(kernels), surface_types_(surface_types) {
    pool_.fetch_rounds = fetch_rounds;
    try {
        allocate_pool(paths, block_size);
    } catch (...) {
        release();  // the destructor does not run for a constructor that throws
        throw;
    }
}

void WavefrontTracer::allocate_pool(uint32_t paths, int block_size) {
    pool_.capacity = std::max<uint32_t>(paths, 32);
    const size_t n = pool_.capacity;
    allocate_planes(pool_.paths, "path states");
    allocate_planes(pool_.slots, "work items");
    allocate_planes(pool_.hits, "hits");
    allocate_planes(pool_.shadows, "shadow rays");
    pool_.ray_queue = allocate<uint32_t>(n, "ray queue");
    pool_.shadow_queue = allocate<uint32_t>(n, "shadow queue");
    if (several_material_types(surface_types_)) {
        pool_.shade_queues = allocate<uint32_t>(n * kMaterialTypeCount, "shading queues");
        pool_.emitter_queue = uint32_t(lowest_material_type(surface_types_));
    }
    pool_.counters = allocate<uint32_t>(kWavefrontCounters, "counters");
    check(cudaMemset(pool_.slots.words, 0, pool_.slots.bytes(pool_.capacity)), "clearing the split kernels' slots");
    check(cudaMallocHost(reinterpret_cast<void**>(&ray_counts_), 2 * sizeof(uint32_t)), "allocating a counter");
    for (cudaEvent_t& event : checked_) {
        check(cudaEventCreateWithFlags(&event, cudaEventBlockingSync | cudaEventDisableTiming), "creating an event");
    }
    check(cudaEventCreateWithFlags(&pool_free_, cudaEventDisableTiming), "creating an event");
    grids_.block_size = unsigned(block_size);
    grids_.generate = unsigned((n + grids_.block_size - 1) / grids_.block_size);
    const bool fetching = pool_.fetch_rounds != 0;
    grids_.intersect = resident_blocks(fetching ? kernels_.intersect_fetching : kernels_.intersect);
    grids_.shade = resident_blocks(kernels_.shade);
    grids_.shade_book = resident_blocks(kernels_.shade_book);
    for (uint32_t t = 0; t < kMaterialTypeCount; ++t)
        grids_.shade_by_type[t] = resident_blocks(kernels_.shade_by_type[t]);
    grids_.shadow = resident_blocks(fetching ? kernels_.shadow_fetching : kernels_.shadow);
}

WavefrontTracer::~WavefrontTracer() { release(); }

void WavefrontTracer::release() {
    (void)cudaSetDevice(device_);
    (void)cudaDeviceSynchronize();
    for (cudaEvent_t event : checked_) {
        if (event) (void)cudaEventDestroy(event);
    }
    if (pool_free_) (void)cudaEventDestroy(pool_free_);
    (void)cudaFreeHost(ray_counts_);
    for (void*& pointer : allocations_) {
        (void)cudaFree(pointer);
        pointer = nullptr;
    }
    (void)cudaGetLastError();
}

void WavefrontTracer::trace(cudaStream_t stream, const SceneView& scene, const FrameSettings& frame,
                            const BandLaunch& band, MaterialTypes shaded_types, bool sorted) {
    grids_.shaded_types = shaded_types;
    // Generate visits only the slots that the launch can fill: no more than
    // its items (the band's pixels times its samples). The others stay free
    // (a launch ends with every slot it visited free), and the iterations of
    // a small launch (a band of an adaptive pass) do not scan the whole pool.
    WavefrontGrids grids = grids_;
    const uint64_t items = uint64_t(band.pixel_count) * (band.sample_end - band.sample_begin);
    const uint64_t slots = std::min<uint64_t>(pool_.capacity, std::max<uint64_t>(items, 1));
    grids.generate = unsigned((slots + grids.block_size - 1) / grids.block_size);
    WavefrontPool pool = pool_;
    if (!sorted || shaded_types != surface_types_) pool.shade_queues = nullptr;  // intersect sorts nothing
    if (last_stream_ != nullptr && last_stream_ != stream) {
        check(cudaStreamWaitEvent(stream, pool_free_, 0), "ordering the split kernels' streams");
    }
    check(cudaMemsetAsync(pool_.counters, 0, kWavefrontCounters * sizeof(uint32_t), stream),
          "resetting the split kernels' counters");
    // The host learns that the paths are done by reading the ray queue's
    // length after generate, once a batch of iterations. It waits for the
    // batch before the one just queued, so the device always has work queued
    // while the host waits; the batch queued after the last check runs empty.
    constexpr int kIterationsPerCheck = 4;
    last_iterations_ = 0;
    for (uint64_t batch = 0;; ++batch) {
        uint32_t* copy = ray_counts_ + (batch & 1);
        for (int k = 0; k < kIterationsPerCheck; ++k) {
            check(kernels_.iterate(grids, stream, scene, frame, band, pool,
                                   k == kIterationsPerCheck - 1 ? copy : nullptr),
                  "launching the split kernels");
        }
        last_iterations_ += kIterationsPerCheck;
        check(cudaEventRecord(checked_[batch & 1], stream), "recording an event");
        if (batch == 0) continue;
        check(cudaEventSynchronize(checked_[(batch - 1) & 1]), "tracing paths (a kernel fault shows here)");
        if (ray_counts_[(batch - 1) & 1] == 0) break;
    }
    check(cudaEventRecord(pool_free_, stream), "recording an event");
    last_stream_ = stream;
}

}  // namespace farmrt
