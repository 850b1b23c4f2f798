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
    allocations_.reserve(allocations_.size() + 1);  // a failed push_back would leak the memory
    void* pointer =
        allocate_device_memory(count * sizeof(T), device_, std::string("the split kernels' ") + what + " need",
                               " (FARMRT_CUDA_PATHS sets fewer paths)");
    allocations_.push_back(pointer);
    return static_cast<T*>(pointer);
}

template <typename T>
void WavefrontTracer::allocate_planes(PlanarArray<T>& array, uint32_t capacity, const char* what) {
    // cudaMalloc's 256-byte alignment keeps the 16-byte planes aligned.
    array.capacity = capacity;
    array.words = allocate<uint32_t>(PlanarArray<T>::bytes(capacity) / sizeof(uint32_t), what);
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
                                 MaterialTypes surface_types, uint32_t fetch_rounds, int streams)
    : device_(device), kernels_(kernels), surface_types_(surface_types) {
    try {
        allocate_pools(paths, block_size, std::max(1, streams), fetch_rounds);
    } catch (...) {
        release();  // the destructor does not run for a constructor that throws
        throw;
    }
}

size_t WavefrontTracer::bytes_per_path(MaterialTypes surface_types) {
    // What allocate_pools takes for each path.
    const size_t queues = several_material_types(surface_types) ? 2 + kMaterialTypeCount : 2;
    return PlanarArray<PathState>::bytes(1) + PlanarArray<WavefrontSlot>::bytes(1) +
           PlanarArray<WavefrontHit>::bytes(1) + PlanarArray<DeferredShadow>::bytes(1) + queues * sizeof(uint32_t);
}

void WavefrontTracer::allocate_pools(uint32_t paths, int block_size, int streams, uint32_t fetch_rounds) {
    const uint32_t each =
        std::max<uint32_t>((std::max<uint32_t>(paths, 32) + uint32_t(streams) - 1) / uint32_t(streams), 32);
    item_counters_ = allocate<uint32_t>(kItemCounters, "work item counters");
    lanes_.resize(size_t(streams));
    for (size_t p = 0; p < lanes_.size(); ++p) {
        Lane& lane = lanes_[p];
        WavefrontPool& pool = lane.pool;
        pool.capacity = each;
        pool.fetch_rounds = fetch_rounds;
        pool.items = item_counters_;
        allocate_planes(pool.paths, each, "path states");
        allocate_planes(pool.slots, each, "work items");
        allocate_planes(pool.hits, each, "hits");
        allocate_planes(pool.shadows, each, "shadow rays");
        pool.ray_queue = allocate<uint32_t>(each, "ray queue");
        pool.shadow_queue = allocate<uint32_t>(each, "shadow queue");
        if (several_material_types(surface_types_)) {
            pool.shade_queues = allocate<uint32_t>(size_t(each) * kMaterialTypeCount, "shading queues");
            pool.emitter_queue = uint32_t(lowest_material_type(surface_types_));
        }
        pool.counters = allocate<uint32_t>(kWavefrontCounters, "counters");
        check(cudaMemset(pool.slots.words, 0, pool.slots.bytes(each)), "clearing the split kernels' slots");
        check(cudaMallocHost(reinterpret_cast<void**>(&lane.ray_counts), 2 * sizeof(uint32_t)), "allocating a counter");
        for (cudaEvent_t& event : lane.checked) {
            check(cudaEventCreateWithFlags(&event, cudaEventBlockingSync | cudaEventDisableTiming),
                  "creating an event");
        }
        check(cudaEventCreateWithFlags(&lane.joined, cudaEventDisableTiming), "creating an event");
        if (p > 0) check(cudaStreamCreateWithFlags(&lane.stream, cudaStreamNonBlocking), "creating a stream");
    }
    check(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming), "creating an event");
    check(cudaEventCreateWithFlags(&pool_free_, cudaEventDisableTiming), "creating an event");
    grids_.block_size = unsigned(block_size);
    grids_.generate = unsigned((each + grids_.block_size - 1) / grids_.block_size);
    const bool fetching = fetch_rounds != 0;
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
    for (Lane& lane : lanes_) {
        for (cudaEvent_t event : lane.checked) {
            if (event) (void)cudaEventDestroy(event);
        }
        if (lane.joined) (void)cudaEventDestroy(lane.joined);
        if (lane.stream) (void)cudaStreamDestroy(lane.stream);
        (void)cudaFreeHost(lane.ray_counts);
    }
    lanes_.clear();
    if (forked_) (void)cudaEventDestroy(forked_);
    if (pool_free_) (void)cudaEventDestroy(pool_free_);
    for (void* pointer : allocations_) (void)cudaFree(pointer);
    allocations_.clear();
    (void)cudaGetLastError();
}

void WavefrontTracer::trace(cudaStream_t stream, const SceneView& scene, const FrameSettings& frame,
                            const BandLaunch& band, MaterialTypes shaded_types, bool sorted) {
    grids_.shaded_types = shaded_types;
    // Generate visits only the slots that the launch can fill: no more than
    // its items (the band's pixels times its samples). The others stay free
    // (a launch ends with every slot it visited free), and the iterations of
    // a small launch (a band of an adaptive pass) do not scan a whole pool.
    // A launch with fewer items than one pool holds runs on one pool.
    WavefrontGrids grids = grids_;
    const uint64_t items = uint64_t(band.pixel_count) * (band.sample_end - band.sample_begin);
    const uint32_t each = lanes_.front().pool.capacity;
    const uint64_t slots = std::min<uint64_t>(each, std::max<uint64_t>(items, 1));
    grids.generate = unsigned((slots + grids.block_size - 1) / grids.block_size);
    const size_t used = size_t(std::clamp<uint64_t>((items + each - 1) / each, 1, lanes_.size()));
    const bool unsorted = !sorted || shaded_types != surface_types_;  // intersect sorts nothing
    if (last_stream_ != nullptr && last_stream_ != stream) {
        check(cudaStreamWaitEvent(stream, pool_free_, 0), "ordering the split kernels' streams");
    }
    check(cudaMemsetAsync(item_counters_, 0, kItemCounters * sizeof(uint32_t), stream),
          "resetting the split kernels' counters");
    for (size_t p = 0; p < used; ++p) {
        Lane& lane = lanes_[p];
        lane.done = false;
        check(cudaMemsetAsync(lane.pool.counters, 0, kWavefrontCounters * sizeof(uint32_t), stream),
              "resetting the split kernels' counters");
    }
    check(cudaEventRecord(forked_, stream), "recording an event");
    for (size_t p = 1; p < used; ++p) {
        check(cudaStreamWaitEvent(lanes_[p].stream, forked_, 0), "ordering the split kernels' streams");
    }
    // The host learns that a pool's paths are done by reading its ray
    // queue's length after generate, once a batch of iterations. It waits
    // for the batch before the one just queued, so the device always has
    // work queued while the host waits; the batch queued after the last
    // check runs empty. A pool found empty stays empty: every item is taken.
    constexpr int kIterationsPerCheck = 4;
    last_iterations_ = 0;
    for (uint64_t batch = 0;; ++batch) {
        bool any = false;
        for (size_t p = 0; p < used; ++p) {
            Lane& lane = lanes_[p];
            if (lane.done) continue;
            any = true;
            cudaStream_t on = p == 0 ? stream : lane.stream;
            WavefrontPool pool = lane.pool;
            if (unsorted) pool.shade_queues = nullptr;
            uint32_t* copy = lane.ray_counts + (batch & 1);
            for (int k = 0; k < kIterationsPerCheck; ++k) {
                check(kernels_.iterate(grids, on, scene, frame, band, pool,
                                       k == kIterationsPerCheck - 1 ? copy : nullptr),
                      "launching the split kernels");
            }
            last_iterations_ += kIterationsPerCheck;
            check(cudaEventRecord(lane.checked[batch & 1], on), "recording an event");
        }
        if (!any) break;
        if (batch == 0) continue;
        for (size_t p = 0; p < used; ++p) {
            Lane& lane = lanes_[p];
            if (lane.done) continue;
            check(cudaEventSynchronize(lane.checked[(batch - 1) & 1]), "tracing paths (a kernel fault shows here)");
            if (lane.ray_counts[(batch - 1) & 1] == 0) lane.done = true;
        }
    }
    for (size_t p = 1; p < used; ++p) {
        check(cudaEventRecord(lanes_[p].joined, lanes_[p].stream), "recording an event");
        check(cudaStreamWaitEvent(stream, lanes_[p].joined, 0), "ordering the split kernels' streams");
    }
    check(cudaEventRecord(pool_free_, stream), "recording an event");
    last_stream_ = stream;
}

}  // namespace farmrt
