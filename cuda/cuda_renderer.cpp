#include "cuda/cuda_renderer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <future>

#include "core/errors.h"
#include "cuda/cuda_device.h"
#include "render/interrupt.h"

namespace farmrt {

const PathKernelEntry* find_path_kernel(const PathKernelVariant& variant) {
    for (auto table : {&path_kernel_exact_entries, &path_kernel_fast_entries, &path_kernel_experiment_entries}) {
        size_t count = 0;
        const PathKernelEntry* entries = table(count);
        for (size_t i = 0; i < count; ++i) {
            if (entries[i].variant == variant) return &entries[i];
        }
    }
    return nullptr;
}

// Whether this scene's closest hits are found on the 4-wide BVH (where its
// tree fits the encoding). Never for instances (their refs carry no bounds here).
bool CudaRenderer::traverses_wide_bvh(const SceneView& scene) const {
    const bool meshes = scene.quad_count > 0 || scene.triangle_count > 0;
    const bool wanted = options_.fast_math || options_.exact_wide_bvh.value_or(meshes);
    return wanted && options_.wide_bvh && options_.specialize_geometry && scene.instance_count == 0;
}

bool CudaRenderer::make_gpu_bvh(const SceneView& scene, std::vector<BvhNode>& nodes,
                                std::vector<PrimitiveRef>& refs) const {
    // For fast math, where exact math traverses the 4-wide BVH, and where
    // it is asked for the GPU's leaves (exact_gpu_leaves). Not for
    // a linear list (one leaf: a baseline that must stay one) nor for
    // instances (their refs carry no bounds here).
    if (options_.gpu_leaf_size <= 0 || scene.node_count <= 1 || scene.instance_count > 0) return false;
    if (!options_.fast_math && !traverses_wide_bvh(scene) && !options_.exact_gpu_leaves) return false;
    std::vector<Aabb> bounds;
    if (!geometry_bounds(scene, scene.primitives, scene.primitive_count, bounds)) return false;
    if (options_.split_leaves) {
        return split_bvh_leaves(scene.nodes, scene.node_count, scene.primitives, bounds, options_.gpu_leaf_size, nodes,
                                refs);
    }
    BvhBuildOptions build;
    build.max_leaf_size = options_.gpu_leaf_size;
    Bvh bvh = build_bvh(bounds, build);
    nodes = std::move(bvh.nodes);
    refs.resize(scene.primitive_count);
    for (size_t i = 0; i < refs.size(); ++i) refs[i] = scene.primitives[bvh.primitive_order[i]];
    return true;
}

void apply_gpu_tuning(const GpuTuning& tuning, CudaOptions& options) {
    if (tuning.sample_items) options.sample_items = *tuning.sample_items;
    if (tuning.chunk_samples) options.chunk_samples = options.adaptive_chunk_samples = *tuning.chunk_samples;
    if (tuning.adaptive_lookahead) options.adaptive_lookahead_percent = *tuning.adaptive_lookahead;
    if (tuning.adaptive_fill) options.adaptive_fill_percent = *tuning.adaptive_fill;
    if (tuning.exact_wide_bvh) options.exact_wide_bvh = *tuning.exact_wide_bvh;
    if (tuning.exact_gpu_leaves) options.exact_gpu_leaves = *tuning.exact_gpu_leaves;
    if (tuning.triangle_corners) options.triangle_corners = *tuning.triangle_corners;
    if (tuning.gpu_leaf_size) options.gpu_leaf_size = *tuning.gpu_leaf_size;
    if (tuning.split_leaves) options.split_leaves = *tuning.split_leaves;
    if (tuning.warp_fetch) options.warp_fetch = *tuning.warp_fetch;
    if (tuning.sample_buffer_bytes) options.sample_buffer_bytes = *tuning.sample_buffer_bytes;
    if (tuning.integrator) options.integrator = *tuning.integrator;
    if (tuning.split_paths) options.split_paths = uint32_t(*tuning.split_paths);
    if (tuning.split_band_pools) options.split_band_pools = *tuning.split_band_pools;
    if (tuning.queue_fetch) options.queue_fetch = uint32_t(*tuning.queue_fetch);
    if (tuning.split_streams) options.split_streams = *tuning.split_streams;
    if (tuning.shading) options.shading = *tuning.shading;
    if (tuning.bands_in_flight) options.bands_in_flight = *tuning.bands_in_flight;
    if (tuning.block_size) options.block_size = *tuning.block_size;
    if (tuning.grid_divisor) options.grid_divisor = *tuning.grid_divisor;
}

int choose_cuda_device(const std::string& backend) {
    if (backend == "cpu") return -1;
    std::string problem;
    const int count = visible_gpu_count(&problem);
    const int local_rank = node_local_rank();
    if (backend == "auto") return local_rank < count ? local_rank : -1;
    if (count == 0) throw RenderError("--backend cuda: no usable GPU: " + problem);
    return local_rank % count;
}

void CUDART_CB CudaRenderer::advance_progress(void* data) {
    const auto* step = static_cast<const ProgressStep*>(data);
    step->counter->fetch_add(step->samples, std::memory_order_relaxed);
}

void CudaRenderer::check(cudaError_t error, const char* what) const { check_cuda(error, what, device_); }

CudaRenderer::CudaRenderer(const SceneView& scene, const CudaOptions& options) : options_(options) {
    device_ = options.device >= 0 ? options.device : choose_cuda_device("cuda");
    if (options_.block_size < 32 || options_.block_size > 1024 || options_.block_size % 32 != 0) {
        throw InputError("CUDA block size must be a multiple of 32 in [32, 1024], got " +
                         std::to_string(options_.block_size));
    }
    options_.chunk_pixels = std::max(1, options_.chunk_pixels);
    // Fast math (approximate division and square root, denormals flushed)
    // loses the triangle test's watertightness: on the H200, mesh.yaml and
    // stress.yaml rendered with an RMSE to the CPU image 2.1-2.3 times the
    // noise between two CPU renders (spheres, quads: within the noise). A
    // scene with triangles keeps the exact kernel, and its description says so.
    const bool has_triangles = scene.triangle_count > 0 || scene.instance_count > 0;
    const bool fast_math_declined = options_.fast_math && has_triangles;
    if (fast_math_declined) options_.fast_math = false;
    // The GPU's own acceleration structures: a BVH with smaller leaves, and
    // the 4-wide BVH collapsed from it (exact math too, by default). Made on
    // the host while the device's context is created: on a million
    // triangles each takes a tenth of a second or more.
    std::vector<BvhNode> own_nodes;
    std::vector<PrimitiveRef> own_refs;
    std::vector<WideBvhNode> wide;
    bool own_bvh = false, use_wide = false;
    std::future<void> structures = std::async(std::launch::async, [&] {
        own_bvh = make_gpu_bvh(scene, own_nodes, own_refs);
        use_wide = traverses_wide_bvh(scene) &&
                   (own_bvh ? build_wide_bvh(own_nodes.data(), uint32_t(own_nodes.size()), own_refs.data(), wide)
                            : build_wide_bvh(scene.nodes, scene.node_count, scene.primitives, wide));
    });
    check(cudaSetDevice(device_), "selecting the device");
    // Wait for the GPU by sleeping, not spinning: a GPU rank must not take a
    // core from the CPU ranks of a hybrid job. Fails harmlessly when the
    // device was already initialised by this process.
    unsigned current_flags = 0;
    check(cudaGetDeviceFlags(&current_flags), "reading device flags");
    if ((current_flags & cudaDeviceScheduleMask) != cudaDeviceScheduleBlockingSync) {
        const cudaError_t flags = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
        if (flags != cudaSuccess && flags != cudaErrorSetOnActiveProcess) check(flags, "setting device flags");
        (void)cudaGetLastError();
    }
    check(cudaFree(nullptr), "creating the context");
    structures.get();
    // What a ray's traversal reads: the tree and its primitives (instances'
    // trees included). Where it outgrows L2, traversals wait on device
    // memory, and more paths in flight hide it (make_split_tracer).
    size_t tree_bytes = use_wide ? wide.size() * sizeof(WideBvhNode)
                                 : (own_bvh ? own_nodes.size() : size_t(scene.node_count)) * sizeof(BvhNode);
    tree_bytes +=
        size_t(scene.triangle_count) * (options_.triangle_corners ? sizeof(TriangleCorners) : sizeof(Triangle)) +
        size_t(scene.sphere_count) * sizeof(Sphere) + size_t(scene.quad_count) * sizeof(Quad) +
        size_t(scene.instance_node_count) * sizeof(BvhNode);
    size_t deep_bytes = options_.deep_tree_bytes;
    if (deep_bytes == 0) {
        int l2_bytes = 0;
        check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device_), "reading the L2 cache's size");
        deep_bytes = size_t(std::max(l2_bytes, 0));
    }
    deep_tree_ = tree_bytes > deep_bytes;
    // The kernel specialised to this scene and these options.
    const PathKernelVariant wanted = variant(scene, use_wide);
    kernel_ = find_path_kernel(wanted);
    surface_types_ = surface_types_of(scene.materials, scene.material_count);
    samples_lights_ = scene.light_count > 0;
    // Frames of the book's estimator run its own kernel where one is compiled
    // for these options (fewer registers), else the general one.
    PathKernelVariant naive = wanted;
    naive.naive_only = true;
    naive_kernel_ = find_path_kernel(naive);
    // Scenes of the book's material types run kernels without the principled
    // material, and without the light sample where they have no lights,
    // where such kernels are compiled for these options.
    if (options_.specialize_geometry && (surface_types_ & ~kBookMaterialTypes) == 0) {
        PathKernelVariant book = wanted;
        book.material_types = kBookMaterialTypes;
        book.samples_lights = samples_lights_;
        if (const PathKernelEntry* k = find_path_kernel(book)) {
            kernel_ = k;
            book_kernel_ = true;
        }
        naive.material_types = kBookMaterialTypes;
        if (const PathKernelEntry* k = find_path_kernel(naive)) naive_kernel_ = k;
    }
    if (options_.sample_items) split_kernels_ = find_wavefront(wanted);
    if (options_.integrator == GpuTuning::Integrator::Split && split_kernels_ == nullptr) {
        throw RenderError(std::string("FARMRT_CUDA_INTEGRATOR=split: no split kernels for ") +
                          (options_.sample_items ? "these kernel options" : "per-pixel items"));
    }
    if (!kernel_) {
        throw RenderError("no CUDA path kernel compiled for leaf quorum " + std::to_string(wanted.leaf_quorum) +
                          ", fused slabs " + std::to_string(int(wanted.fused_slabs)) + ", min blocks " +
                          std::to_string(wanted.min_blocks) + ", " +
                          (wanted.sample_items ? "per-sample" : "per-pixel") + " items" +
                          (wanted.fast_math ? " (fast math)" : " (exact math)") +
                          ": experimental variants need -DFARMRT_CUDA_EXPERIMENTS=ON");
    }
    const bool split_by_default = traces_split(FrameSettings{});
    description_ = gpu_description(device_) + (options_.fast_math ? ", fast math" : ", exact math") +
                   (fast_math_declined ? " (fast math declined: the scene has triangles)" : "") +
                   (split_by_default ? ", split kernels" : ", megakernel") +
                   (book_kernel_ && !split_by_default
                        ? " for the book's materials" + std::string(samples_lights_ ? "" : " without lights")
                        : "");
    if (options_.integrator == GpuTuning::Integrator::Auto && split_by_default) {
        description_ += " (megakernel for the book's estimator)";
    }
    if (split_by_default) {
        const GpuTuning::Shading how = shading();
        description_ += how == GpuTuning::Shading::Sorted       ? ", a shading queue per material type"
                        : how == GpuTuning::Shading::SceneTypes ? ", shading for the scene's material types"
                                                                : ", one shading kernel for every material";
    }

    // The scene as flat device arrays: the same layout the CPU reads.
    device_scene_ = scene;
    if (own_bvh) {
        device_scene_.nodes = upload(own_nodes.data(), own_nodes.size(), "BVH nodes");
        device_scene_.node_count = uint32_t(own_nodes.size());
        device_scene_.primitives = upload(own_refs.data(), own_refs.size(), "primitive references");
    } else {
        device_scene_.nodes = upload(scene.nodes, scene.node_count, "BVH nodes");
        device_scene_.primitives = upload(scene.primitives, scene.primitive_count, "primitive references");
    }
    if (use_wide) wide_nodes_ = upload(wide.data(), wide.size(), "wide BVH nodes");
    device_scene_.spheres = upload(scene.spheres, scene.sphere_count, "spheres");
    device_scene_.quads = upload(scene.quads, scene.quad_count, "quads");
    device_scene_.triangles = upload(scene.triangles, scene.triangle_count, "triangles");
    if (options_.triangle_corners && scene.triangle_count > 0) {
        std::vector<TriangleCorners> corners(scene.triangle_count);
        for (size_t i = 0; i < corners.size(); ++i) corners[i] = corners_of(scene.triangles[i]);
        device_scene_.triangle_corners = upload(corners.data(), corners.size(), "triangle corners");
    }
    device_scene_.triangle_attributes =
        upload(scene.triangle_attributes, scene.triangle_attributes_count, "triangle attributes");
    device_scene_.materials = upload(scene.materials, scene.material_count, "materials");
    device_scene_.textures = upload(scene.textures, scene.texture_count, "textures");
    device_scene_.texture_pixels = upload(scene.texture_pixels, size_t(scene.texture_pixel_count), "texture texels");
    device_scene_.instances = upload(scene.instances, scene.instance_count, "instances");
    device_scene_.instance_nodes = upload(scene.instance_nodes, scene.instance_node_count, "instance BVH nodes");
    device_scene_.instance_primitives =
        upload(scene.instance_primitives, scene.instance_primitive_count, "instance primitive references");
    device_scene_.lights = upload(scene.lights, scene.light_count, "lights");
    device_scene_.light_alias = upload(scene.light_alias, scene.light_count, "the light alias table");
    device_scene_.environment_distribution =
        upload(scene.environment_distribution, scene.environment_distribution_size, "the background's distribution");
    device_scene_.light_tree = upload(scene.light_tree, scene.light_tree_size, "the light tree");
    device_scene_.light_trails = upload(scene.light_trails, scene.light_count, "the light tree's trails");
    device_scene_.emitter_keys = upload(scene.emitter_keys, scene.emitter_key_count, "the emitter keys");
    device_scene_.infinite_lights = upload(scene.infinite_lights, scene.infinite_light_count, "the infinite lights");

    const unsigned long long no_rays[kRayTotals] = {};
    ray_totals_ = upload(no_rays, kRayTotals, "the ray counters");
    frames_trace_split_ =
        split_kernels_ != nullptr && samples_lights_ && options_.integrator != GpuTuning::Integrator::Megakernel;
    const int bands_in_flight = options_.bands_in_flight > 0 ? options_.bands_in_flight : frames_trace_split_ ? 2 : 3;
    slots_.resize(size_t(bands_in_flight));
    for (Slot& slot : slots_) {
        check(cudaStreamCreateWithFlags(&slot.stream, cudaStreamNonBlocking), "creating a stream");
        check(cudaEventCreate(&slot.kernel_start), "creating an event");
        check(cudaEventCreate(&slot.kernel_end), "creating an event");
        check(cudaEventCreateWithFlags(&slot.copied, cudaEventBlockingSync | cudaEventDisableTiming),
              "creating an event");
        check(cudaMalloc(reinterpret_cast<void**>(&slot.next_chunk), sizeof(uint32_t)), "allocating a work counter");
        check(cudaMalloc(reinterpret_cast<void**>(&slot.active_count), sizeof(uint32_t)), "allocating a counter");
        check(cudaMalloc(reinterpret_cast<void**>(&slot.passes), 2 * sizeof(uint32_t)), "allocating a counter");
        check(cudaMallocHost(reinterpret_cast<void**>(&slot.samples_added), sizeof(uint32_t)), "allocating a counter");
        check(cudaMallocHost(reinterpret_cast<void**>(&slot.active_seen), sizeof(uint32_t)), "allocating a counter");
    }

    check(cudaEventCreate(&clock_origin_), "creating an event");
    check(cudaEventRecord(clock_origin_, slots_[0].stream), "recording an event");
    check(cudaEventSynchronize(clock_origin_), "starting the device clock");

    // Persistent threads: as many blocks as fit on the device at once.
    int multiprocessors = 0, max_threads_per_sm = 0;
    check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device_), "reading SM count");
    check(cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device_),
          "reading threads per SM");
    cudaFuncAttributes attributes{};
    const int blocks_per_sm = persistent_blocks(kernel_->function, attributes);
    grid_blocks_ = blocks_per_sm * multiprocessors;
    if (naive_kernel_) {
        cudaFuncAttributes naive_attributes{};
        naive_grid_blocks_ = persistent_blocks(naive_kernel_->function, naive_attributes) * multiprocessors;
    }
    sample_buffer_bytes_ = options_.sample_buffer_bytes;
    if (sample_buffer_bytes_ == 0) {
        size_t free_bytes = 0, total_bytes = 0;
        check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
        sample_buffer_bytes_ = std::max<size_t>(std::min<size_t>(size_t(4) << 30, free_bytes / 8), size_t(1) << 20);
    }
    // Every slot's buffers now, while no band runs: allocating device or
    // page-locked memory waits for every stream of the device, so a slot's
    // first band allocating them idled the device behind the bands in
    // flight (two GPUs of one process lost 20-40 ms each at the job's
    // start); frames that trace split kernels take their path pool here too.
    for (Slot& slot : slots_) {
        reserve(slot, kBandSumFloats);
        if (options_.sample_items) reserve_radiance(slot, sample_buffer_bytes_ / sizeof(float));
    }
    if (frames_trace_split_) {
        try {
            make_split_tracer();
        } catch (const RenderError&) {
            // Not fatal yet: the first frame that traces them makes the pool
            // again, and reports it there if the memory is still lacking.
        }
    }
    map_stop_flag();
    report_.registers_per_thread = attributes.numRegs;
    report_.local_bytes_per_thread = int(attributes.localSizeBytes);
    report_.blocks_per_sm = blocks_per_sm;
    report_.block_size = options_.block_size;
    report_.occupancy = double(blocks_per_sm * options_.block_size) / max_threads_per_sm;
    report_.multiprocessors = multiprocessors;
    report_.gpu_bvh_leaf_size = own_bvh ? options_.gpu_leaf_size : 0;
}

// Persistent threads: as many blocks of `kernel` as fit on a multiprocessor at once.
int CudaRenderer::persistent_blocks(const void* kernel, cudaFuncAttributes& attributes) const {
    check(cudaFuncGetAttributes(&attributes, kernel), "reading kernel attributes");
    if (options_.block_size > attributes.maxThreadsPerBlock) {
        throw RenderError("CUDA block size " + std::to_string(options_.block_size) + " exceeds the kernel's limit of " +
                          std::to_string(attributes.maxThreadsPerBlock) + " threads");
    }
    int fitting_blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fitting_blocks, kernel, options_.block_size, 0),
          "computing occupancy");
    const int blocks_per_sm =
        options_.blocks_per_sm > 0 ? std::min(options_.blocks_per_sm, fitting_blocks) : fitting_blocks;
    if (blocks_per_sm < 1) throw RenderError("the path kernel does not fit on " + gpu_description(device_));
    return blocks_per_sm;
}

void CudaRenderer::map_stop_flag() {
    // Once per process (every renderer shares the page; registering it again
    // is an API error that compute-sanitizer reports); portable: any device may read it.
    static const cudaError_t registered = [] {
        const cudaError_t result =
            cudaHostRegister(stop_flag_page(), kStopFlagPageBytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
        if (result != cudaSuccess) (void)cudaGetLastError();  // the runtime keeps the last error for the next check
        return result == cudaErrorHostMemoryAlreadyRegistered ? cudaSuccess : result;
    }();
    cudaError_t error = registered;
    void* device_flag = nullptr;
    if (error == cudaSuccess) {
        error = cudaHostGetDevicePointer(&device_flag, const_cast<int*>(stop_flag()), 0);
    }
    if (error != cudaSuccess) {
        // Not fatal: a stop then waits for the band's launches already queued.
        (void)cudaGetLastError();
        device_flag = nullptr;
    }
    device_stop_ = static_cast<const volatile int*>(device_flag);
}

CudaRenderer::~CudaRenderer() {
    // No throwing here: after a device error the frees may fail too.
    (void)cudaSetDevice(device_);
    split_.reset();
    for (Slot& slot : slots_) {
        if (slot.stream) (void)cudaStreamSynchronize(slot.stream);
        if (slot.stream) (void)cudaStreamDestroy(slot.stream);
        if (slot.kernel_start) (void)cudaEventDestroy(slot.kernel_start);
        if (slot.kernel_end) (void)cudaEventDestroy(slot.kernel_end);
        if (slot.copied) (void)cudaEventDestroy(slot.copied);
        (void)cudaFree(slot.device_sums);
        (void)cudaFree(slot.radiance);
        (void)cudaFree(slot.next_chunk);
        (void)cudaFree(slot.active_count);
        (void)cudaFree(slot.passes);
        (void)cudaFreeHost(slot.samples_added);
        (void)cudaFreeHost(slot.active_seen);
        (void)cudaFree(slot.active_pixels);
        (void)cudaFreeHost(slot.pinned_sums);
    }
    for (void* pointer : allocations_) (void)cudaFree(pointer);
    if (clock_origin_) (void)cudaEventDestroy(clock_origin_);
    (void)cudaGetLastError();
}

template <typename T>
T* CudaRenderer::upload(const T* data, size_t count, const char* what) {
    if (count == 0) return nullptr;
    const size_t bytes = count * sizeof(T);
    void* pointer = allocate_device_memory(bytes, device_, std::string(what) + " need");
    allocations_.push_back(pointer);
    check(cudaMemcpy(pointer, data, bytes, cudaMemcpyHostToDevice), "uploading the scene");
    return static_cast<T*>(pointer);
}

void CudaRenderer::reserve(Slot& slot, size_t floats) {
    if (floats <= slot.capacity) return;
    check(cudaFree(slot.device_sums), "freeing a band buffer");
    check(cudaFreeHost(slot.pinned_sums), "freeing a pinned buffer");
    check(cudaFree(slot.active_pixels), "freeing a pixel list");
    slot.device_sums = nullptr;
    slot.pinned_sums = nullptr;
    slot.active_pixels = nullptr;
    slot.capacity = 0;
    const size_t bytes = floats * sizeof(float);
    slot.device_sums = static_cast<float*>(allocate_device_memory(bytes, device_, "a band's sums need"));
    check(cudaMallocHost(reinterpret_cast<void**>(&slot.pinned_sums), bytes), "allocating pinned host memory");
    // A pixel list as long as the band (a record is at least 3 floats).
    check(cudaMalloc(reinterpret_cast<void**>(&slot.active_pixels), (floats / kColorFloats + 1) * sizeof(uint32_t)),
          "allocating a pixel list");
    slot.capacity = floats;
}

// The split kernels' paths in flight where CudaOptions::split_paths is 0.
// Measured on one H100 (results/cuda.md), render phase: the million
// triangles (48 MB of triangle corners alone, beside their 4-wide tree,
// against a 50 MB L2) ran 1.12x faster with 8,388,608 paths in four pools than with
// 2,097,152 in two, where the traversals wait on device memory; models.yaml
// (a tree of kilobytes) ran 1.31x slower with them, and as fast with
// 1,048,576 as with 2,097,152.
constexpr uint32_t kPaths = uint32_t(1) << 21;
constexpr int kPools = 2;
constexpr uint32_t kDeepTreePaths = uint32_t(1) << 23;
constexpr int kDeepTreePools = 4;

void CudaRenderer::make_split_tracer() {
    uint32_t paths = options_.split_paths;
    int pools = options_.split_streams;
    if (paths == 0) {
        paths = kPaths;
        if (deep_tree_) {
            // Only where they leave most of the free memory to the scene's
            // frames: a pool that does not fit is an error, a smaller one is not.
            size_t free_bytes = 0, total_bytes = 0;
            check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
            if (WavefrontTracer::bytes_per_path(surface_types_) * kDeepTreePaths <= free_bytes / 4) {
                paths = kDeepTreePaths;
                if (pools == 0) pools = kDeepTreePools;
            }
        }
    }
    if (pools == 0) pools = kPools;
    split_ = std::make_unique<WavefrontTracer>(device_, *split_kernels_, paths, options_.block_size, surface_types_,
                                               options_.queue_fetch, pools);
}

void CudaRenderer::reserve_radiance(Slot& slot, size_t floats) {
    if (floats <= slot.radiance_capacity) return;
    check(cudaFree(slot.radiance), "freeing a radiance buffer");
    slot.radiance = nullptr;
    slot.radiance_capacity = 0;
    slot.radiance =
        static_cast<float*>(allocate_device_memory(floats * sizeof(float), device_, "a band's sample radiance needs"));
    slot.radiance_capacity = floats;
}

void CudaRenderer::submit(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                          std::atomic<uint64_t>* samples_done) {
    check(cudaSetDevice(device_), "selecting the device");
    // The split kernels' pool: made at set-up where frames trace them by
    // default, else by the first frame that runs on them (before any slot
    // is taken: a failure leaves the renderer as it was).
    const bool split = traces_split(frame);
    if (split && !split_) make_split_tracer();
    Slot& slot = slots_[next_slot_];
    if (slot.busy) {
        // Every slot in flight: this one holds the oldest band; finish it to reuse the slot.
        in_flight_.pop_front();
        finish(slot);
        completed_.push_back(slot.user_sums);
    }
    const uint64_t band_pixels = uint64_t(rows.count()) * frame.width;
    if (band_pixels > (uint64_t(1) << 31)) {
        throw RenderError("a band of " + std::to_string(band_pixels) + " pixels is too large for the CUDA backend");
    }
    const uint32_t pixel_count = uint32_t(band_pixels);
    const size_t floats = size_t(pixel_count) * frame.sampling.record_floats;
    // Made at set-up for a farm band (kBandSumFloats); a larger band grows
    // the slot (cudaFree, cudaFreeHost: they wait for every stream).
    if (pixel_count > 0 && samples.count() > 0) reserve(slot, floats);
    // Another band still on the device: this band's launches take their
    // share of it (CudaOptions::grid_divisor); alone, all of it.
    const bool sharing = std::any_of(in_flight_.begin(), in_flight_.end(), [&](size_t index) {
        return cudaEventQuery(slots_[index].kernel_end) == cudaErrorNotReady;
    });
    const unsigned grid_divisor = sharing ? unsigned(std::max(1, options_.grid_divisor)) : 1u;
    next_slot_ = (next_slot_ + 1) % slots_.size();
    slot.user_sums = sums;
    slot.floats = floats;
    slot.rows = rows;
    slot.progress.clear();
    slot.busy = true;
    in_flight_.push_back(size_t(&slot - slots_.data()));
    *slot.samples_added = 0;
    if (pixel_count == 0 || samples.count() == 0) {
        check(cudaEventRecord(slot.kernel_start, slot.stream), "recording an event");
        check(cudaEventRecord(slot.kernel_end, slot.stream), "recording an event");
        check(cudaEventRecord(slot.copied, slot.stream), "recording an event");
        slot.floats = 0;
        return;
    }

    // Sums are added to, not overwritten: the device continues each pixel's
    // running sum exactly where the host left it.
    std::memcpy(slot.pinned_sums, sums, floats * sizeof(float));
    check(cudaMemcpyAsync(slot.device_sums, slot.pinned_sums, floats * sizeof(float), cudaMemcpyHostToDevice,
                          slot.stream),
          "copying band sums to the device");

    BandLaunch band;
    band.row_begin = rows.begin;
    band.pixel_count = pixel_count;
    band.chunk_pixels = uint32_t(options_.chunk_pixels);
    band.schedule = options_.schedule;
    band.last_rows_first = options_.last_rows_first;
    band.wide_nodes = wide_nodes_;
    band.sums = slot.device_sums;
    band.next_chunk = slot.next_chunk;
    uint64_t pass_samples = std::max<uint64_t>(1, options_.samples_per_launch / pixel_count);
    if (options_.sample_items) {
        // As many samples per launch as the radiance buffer holds.
        // (and at most 2^31 items: the kernel counts them in 32 bits).
        const uint32_t value_floats = sample_value_floats(frame.sampling);
        const uint64_t fitting =
            std::min<uint64_t>(sample_buffer_bytes_ / (uint64_t(pixel_count) * value_floats * sizeof(float)),
                               (uint64_t(1) << 31) / pixel_count);
        pass_samples = std::min<uint64_t>({pass_samples, std::max<uint64_t>(1, fitting), samples.count()});
        // Made whole at set-up; growing it (cudaFree) would wait for every
        // stream, the other slots' bands too.
        reserve_radiance(slot, size_t(pass_samples) * pixel_count * value_floats);
        band.radiance = slot.radiance;
        band.chunk_samples = uint32_t(std::max(1, options_.chunk_samples));
        // Adaptive sampling: each launch's items are those of the pixels
        // still sampling, listed before it; the rest cost no thread a visit.
        if (frame.sampling.adaptive()) {
            band.active_pixels = slot.active_pixels;
            band.active_count = slot.active_count;
            band.chunk_samples = uint32_t(std::max(1, options_.adaptive_chunk_samples));
        }
    }
    if (split) band.chunk_samples = 1;
    band.warp_fetch = options_.warp_fetch;
    band.stop = device_stop_;
    band.rays = ray_totals_;
    if (band.radiance) check(cudaMemsetAsync(slot.passes, 0, 2 * sizeof(uint32_t), slot.stream), "resetting a counter");
    check(cudaEventRecord(slot.kernel_start, slot.stream), "recording an event");
    // The pixels still sampling as the last launch listed them: no more at the next.
    uint32_t active_at_most = pixel_count;
    for (uint64_t begin = samples.begin; begin < samples.end; begin = band.sample_end) {
        band.sample_begin = uint32_t(begin);
        band.sample_end = uint32_t(std::min<uint64_t>(samples.end, begin + pass_samples));
        if (band.radiance && frame.sampling.adaptive()) {
            // Past the next decision by up to the lookahead (CudaOptions::adaptive_lookahead_percent);
            // the sums add each pixel's samples only up to the decision where it stops.
            const uint32_t end = band.sample_end;
            band.sample_end = speculative_run_end(frame.sampling, band.sample_begin, end,
                                                  uint32_t(std::max(0, options_.adaptive_lookahead_percent)));
            if (split && options_.adaptive_fill_percent > 0) {
                const uint64_t paths = uint64_t(split_->capacity()) * uint64_t(options_.adaptive_fill_percent) / 100;
                band.sample_end = run_end_within(frame.sampling, band.sample_begin, end, band.sample_end,
                                                 paths / std::max<uint32_t>(1, active_at_most));
            }
        }
        const uint32_t launch_samples = band.sample_end - band.sample_begin;
        const uint64_t chunk_count =
            band.radiance ? (uint64_t(launch_samples) + band.chunk_samples - 1) / band.chunk_samples * pixel_count
                          : (uint64_t(pixel_count) + band.chunk_pixels - 1) / band.chunk_pixels;
        const uint64_t needed_blocks =
            (chunk_count + unsigned(options_.block_size) - 1) / unsigned(options_.block_size);
        const bool naive = frame.integrator == Integrator::Naive && naive_kernel_ != nullptr;
        const PathKernelEntry* kernel = naive ? naive_kernel_ : kernel_;
        const unsigned resident_blocks = unsigned(naive ? naive_grid_blocks_ : grid_blocks_);
        unsigned grid_blocks = unsigned(
            std::min<uint64_t>(std::max(1u, (resident_blocks + grid_divisor - 1) / grid_divisor), needed_blocks));
        if (options_.max_grid_blocks > 0) grid_blocks = std::min(grid_blocks, unsigned(options_.max_grid_blocks));
        if (options_.schedule == PathSchedule::Dynamic) {
            check(cudaMemsetAsync(slot.next_chunk, 0, sizeof(uint32_t), slot.stream), "resetting the work counter");
        }
        if (band.active_pixels) {
            check(cudaMemsetAsync(slot.active_count, 0, sizeof(uint32_t), slot.stream), "resetting the pixel count");
            check(launch_collect_active_pixels(slot.stream, band.sums, pixel_count, frame.sampling, band.sample_begin,
                                               band.sample_end, band.last_rows_first, slot.active_pixels,
                                               slot.active_count),
                  "launching the pixel list");
            if (split) {
                check(cudaMemcpyAsync(slot.active_seen, slot.active_count, sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                      slot.stream),
                      "copying the pixel count back");
            }
        }
        if (split) {
            // After a stop the launch's sums are thrown away (the gate): no paths to trace.
            if (band.stop == nullptr || !stop_requested()) {
                const GpuTuning::Shading how = shading();
                split_->trace(slot.stream, device_scene_, frame, band,
                              how == GpuTuning::Shading::AllTypes ? kAllMaterialTypes : surface_types_,
                              how == GpuTuning::Shading::Sorted);
                // trace() waited for work queued after the copy.
                if (band.active_pixels) active_at_most = std::min(active_at_most, *slot.active_seen);
            }
        } else {
            check(kernel->launch(grid_blocks, unsigned(options_.block_size), slot.stream, device_scene_, frame, band),
                  "launching the path kernel");
            ++launches_;
        }
        if (band.radiance) {
            check(launch_sum_sample_radiance(slot.stream, frame, band.row_begin, band.sums, band.radiance, pixel_count,
                                             band.sample_begin, launch_samples, device_stop_, slot.passes),
                  "launching the sample sums");
        }
        if (samples_done && split) {
            // The host waited for the split kernels' paths (trace()), so it
            // counts them itself, sooner than a host function queued behind the sums.
            samples_done->fetch_add(uint64_t(pixel_count) * (band.sample_end - band.sample_begin),
                                    std::memory_order_relaxed);
        } else if (samples_done) {
            slot.progress.push_back(
                ProgressStep{samples_done, uint64_t(pixel_count) * (band.sample_end - band.sample_begin)});
            check(cudaLaunchHostFunc(slot.stream, advance_progress, &slot.progress.back()), "queueing progress");
        }
    }
    check(cudaEventRecord(slot.kernel_end, slot.stream), "recording an event");
    check(cudaMemcpyAsync(slot.pinned_sums, slot.device_sums, floats * sizeof(float), cudaMemcpyDeviceToHost,
                          slot.stream),
          "copying band sums back");
    if (band.radiance) {
        check(
            cudaMemcpyAsync(slot.samples_added, slot.passes + 1, sizeof(uint32_t), cudaMemcpyDeviceToHost, slot.stream),
            "copying the samples added back");
    }
    check(cudaEventRecord(slot.copied, slot.stream), "recording an event");
}

bool CudaRenderer::oldest_ready() {
    if (!completed_.empty() || in_flight_.empty()) return true;
    return cudaEventQuery(slots_[in_flight_.front()].copied) != cudaErrorNotReady;
}

float* CudaRenderer::complete_oldest() {
    if (!completed_.empty()) {
        float* sums = completed_.front();
        completed_.pop_front();
        return sums;
    }
    if (in_flight_.empty()) return nullptr;
    Slot& slot = slots_[in_flight_.front()];
    in_flight_.pop_front();
    finish(slot);
    return slot.user_sums;
}

void CudaRenderer::finish(Slot& slot) {
    slot.busy = false;
    const std::string what = "rendering rows " + std::to_string(slot.rows.begin) + "-" + std::to_string(slot.rows.end) +
                             " (a kernel fault shows here)";
    check(cudaEventSynchronize(slot.copied), what.c_str());
    float milliseconds = 0;
    check(cudaEventElapsedTime(&milliseconds, slot.kernel_start, slot.kernel_end), "timing a kernel");
    last_kernel_seconds_ = milliseconds * 1e-3;
    // Bands complete in submission order and start in it, so the union of
    // their spans grows by what each adds past the latest end counted.
    float start_ms = 0, end_ms = 0;
    check(cudaEventElapsedTime(&start_ms, clock_origin_, slot.kernel_start), "timing a band");
    check(cudaEventElapsedTime(&end_ms, clock_origin_, slot.kernel_end), "timing a band");
    const double from = std::max<double>(start_ms, device_clock_end_ms_);
    if (end_ms > from) device_busy_seconds_ += (end_ms - from) * 1e-3;
    device_clock_end_ms_ = std::max<double>(device_clock_end_ms_, end_ms);
    samples_finished_at_stop_ = *slot.samples_added;
    if (slot.floats > 0) std::memcpy(slot.user_sums, slot.pinned_sums, slot.floats * sizeof(float));
}

void CudaRenderer::render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                          std::atomic<uint64_t>* samples_done) {
    submit(frame, rows, samples, sums, samples_done);
    while (complete_oldest() != nullptr) {}
}

uint64_t CudaRenderer::min_band_items() const {
    const uint64_t resident = uint64_t(grid_blocks_) * uint64_t(options_.block_size);
    if (!frames_trace_split_) return resident;
    return std::max(resident, uint64_t(options_.split_band_pools) * (split_ ? split_->capacity() : kPaths));
}

bool CudaRenderer::traces_split(const FrameSettings& frame) const {
    if (split_kernels_ == nullptr) return false;
    switch (options_.integrator) {
    case GpuTuning::Integrator::Split: return true;
    case GpuTuning::Integrator::Megakernel: return false;
    case GpuTuning::Integrator::Auto: break;
    }
    // Measured on the H100 over every config (results/cuda.md): where paths
    // sample lights, the split kernels are as fast or faster (Cornell box
    // 1.6x, models.yaml 3.4x: shadow rays traced in a kernel of their own);
    // where nothing is sampled the megakernel leads by 12-66% (the book's
    // final scene 1.7x, meshes 1.6x). With adaptive sampling too, once
    // launches look past decisions (CudaOptions::adaptive_lookahead_percent):
    // interior.yaml 1.3-2.0x the megakernel's speed at the same lookahead.
    return frame.integrator == Integrator::NextEvent && samples_lights_;
}

GpuTuning::Shading CudaRenderer::shading() const {
    if (options_.shading != GpuTuning::Shading::Auto) return options_.shading;
    // Measured on one H200 against one kernel for every type (results/cuda.md):
    // a scene of one surface type gains its own kernel's fewer registers and
    // needs no sorting (cornell.yaml 1.08x); where the principled material
    // is one of several, sorting spares the others its registers (the
    // million triangles 1.28x). Several of the book's types are faster in
    // one kernel for them than sorted (lights.yaml 1.02x, emissive.yaml
    // 1.07x, interior.yaml 1.11x): each type's kernel is one more launch an
    // iteration.
    return several_material_types(surface_types_) && (surface_types_ & material_type_bit(MaterialType::Principled)) != 0
               ? GpuTuning::Shading::Sorted
               : GpuTuning::Shading::SceneTypes;
}

PathKernelVariant CudaRenderer::variant(const SceneView& scene, bool wide_bvh) const {
    PathKernelVariant v;
    v.fast_math = options_.fast_math;
    if (scene.instance_count > 0 || !options_.specialize_geometry) {
        v.geometry = KernelGeometry::General;
    } else if (scene.quad_count == 0 && scene.triangle_count == 0) {
        v.geometry = KernelGeometry::Spheres;
    } else {
        v.geometry = KernelGeometry::NoInstances;
    }
    v.leaf_quorum = options_.leaf_quorum;
    v.fused_slabs = options_.fast_math && options_.fused_slabs;
    v.wide_bvh = wide_bvh;
    v.sample_items = options_.sample_items;
    // The 64-register cap where it was measured to pay (the wide fast
    // kernels) or costs no spills (the exact spheres kernel with per-sample
    // items: 67 registers uncapped, 7 blocks of 128 per multiprocessor instead of 8).
    const bool capped = wide_bvh || (!v.fast_math && v.sample_items && v.geometry == KernelGeometry::Spheres);
    v.min_blocks = options_.min_blocks >= 0 ? options_.min_blocks : (capped ? kRegisterCap64 : 0);
    return v;
}

bool CudaRenderer::first_hit_features(const FrameSettings& frame, uint32_t samples, float* albedo, float* normal,
                                      float* depth) {
    // A stream and stream-ordered memory of its own: the bands rendering
    // meanwhile on the slots' streams are neither waited for nor disturbed.
    check(cudaSetDevice(device_), "selecting the device");
    const size_t pixels = size_t(frame.width) * frame.height;
    const size_t bytes = pixels * 7 * sizeof(float);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a stream");
    float* buffer = nullptr;
    cudaError_t error = cudaMallocAsync(reinterpret_cast<void**>(&buffer), bytes, stream);
    if (error == cudaSuccess) {
        error = launch_first_hit_features(stream, device_scene_, frame, samples, buffer, buffer + pixels * 3,
                                          buffer + pixels * 6);
    }
    if (error == cudaSuccess)
        error = cudaMemcpyAsync(albedo, buffer, pixels * 3 * sizeof(float), cudaMemcpyDeviceToHost, stream);
    if (error == cudaSuccess) {
        error =
            cudaMemcpyAsync(normal, buffer + pixels * 3, pixels * 3 * sizeof(float), cudaMemcpyDeviceToHost, stream);
    }
    if (error == cudaSuccess)
        error = cudaMemcpyAsync(depth, buffer + pixels * 6, pixels * sizeof(float), cudaMemcpyDeviceToHost, stream);
    if (buffer != nullptr) (void)cudaFreeAsync(buffer, stream);
    const cudaError_t synchronized = cudaStreamSynchronize(stream);
    (void)cudaStreamDestroy(stream);
    check(error != cudaSuccess ? error : synchronized, "making the AOVs' first hits");
    return true;
}

std::string CudaRenderer::description() const {
    if (!split_) return description_;
    return description_ + ", " + std::to_string(split_->capacity()) + " paths in " + std::to_string(split_->pools()) +
           (split_->pools() == 1 ? " pool" : " pools") +
           (options_.split_paths == 0 && split_->capacity() >= kDeepTreePaths ? " (the tree outgrows L2)" : "");
}

uint64_t CudaRenderer::gpu_memory_used_bytes() const {
    // Asked from the rank's messaging thread, whose current device is set
    // here (the render thread set its own).
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(device_) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return 0;
    return uint64_t(total_bytes - free_bytes);
}

RayCounts CudaRenderer::rays_traced() const {
    unsigned long long totals[kRayTotals] = {};
    check(cudaSetDevice(device_), "selecting the GPU");
    check(cudaMemcpy(totals, ray_totals_, sizeof(totals), cudaMemcpyDeviceToHost), "reading the ray counters");
    RayCounts rays;
    rays.camera = totals[kCameraRays];
    rays.extension = totals[kClosestHitRays] - totals[kCameraRays];
    rays.shadow = totals[kShadowRays];
    return rays;
}

CudaKernelReport CudaRenderer::kernel_report() const { return report_; }

}  // namespace farmrt
