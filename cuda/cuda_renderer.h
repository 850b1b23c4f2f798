// The CUDA backend: the scene and BVH uploaded once as flat device arrays,
// bands rendered into device sums by the megakernel (path_kernel.h) or the
// split kernels (wavefront.h), chosen per frame (traces_split), two bands in
// flight on two streams so that one band's copy back (into pinned memory)
// overlaps the next band's kernels. On the split kernels submit() returns
// once the band's paths are traced (the host reads how many are left).
#pragma once

#include <cuda_runtime_api.h>

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "core/scene.h"
#include "cuda/path_kernel.h"
#include "cuda/wavefront_tracer.h"
#include "render/band_renderer.h"

namespace farmrt {

struct CudaOptions {
    int device = -1;         // -1: the node-local rank's GPU (rank modulo GPU count)
    bool fast_math = false;  // false: sums bit-identical to the CPU tracer
    PathSchedule schedule = PathSchedule::Dynamic;
    int block_size = 128;
    int chunk_pixels = 1;  // per-pixel items: pixels a thread takes at a time
    // Per-sample work items (BandLaunch::radiance): a thread takes
    // chunk_samples samples of one pixel at a time and stores each sample's
    // radiance; a second kernel adds them to the sums in sample order (the
    // same sums). A launch's tail is then a path or two long instead of a
    // whole pixel's samples. Each slot's radiance buffer holds up to
    // sample_buffer_bytes, which bounds the samples per launch.
    // Measured on the H100 (results/cuda.md): one sample per fetch beats
    // 2, 4, 8, 16 (consecutive items are neighbouring pixels at one sample,
    // so lanes that fetch together trace similar paths), and larger buffers
    // (fewer launches, fewer tails) beat smaller ones.
    bool sample_items = true;
    int chunk_samples = 1;
    // With adaptive sampling (launches over the pixels still sampling):
    // 4 beat 1 by 1.2-1.4x and 16 by up to 1.6x on configs/interior.yaml
    // (H200, results/adaptive_sampling.md).
    int adaptive_chunk_samples = 4;
    // With adaptive sampling, a launch traces the pixels still sampling past
    // their next decision, by up to this share (percent) of the samples the
    // band has positioned before it (speculative_run_end). A pixel that
    // stops at a decision inside the launch wastes its samples after it (the
    // sums leave them out: the same bytes); a launch that ended at every
    // decision waited for its longest path every 16 samples, with the GPU
    // idling behind a wave of the few pixels left. On configs/interior.yaml
    // (H200, results/cuda.md), split kernels, 50 against 0: 2.7x less render
    // time at 480x270, 1.16x at 1920x1080; 100 wasted more at 1920x1080.
    int adaptive_lookahead_percent = 50;
    // With adaptive sampling on the split kernels, a launch whose pixels
    // still sampling (as many as the last launch found, at most) times its
    // samples fit in this share (percent) of the pool of paths looks further
    // past decisions, up to that share (run_end_within): its paths all run at
    // once, so more of them cost it little, where each launch saved is a
    // tail of its longest paths. 0: the lookahead alone. Measured on an H200
    // (results/cuda.md), interior.yaml's render phase against 0: 400 1.28x
    // at 480x270, 0.01, 1.19x at 0.02; 100 1.17x and 1.32x; at 1920x1080,
    // 0.02, 1.01x and 1.03x.
    int adaptive_fill_percent = 400;
    // Per slot; 0: 4 GiB, or an eighth of the free device memory if less.
    // Each launch ends in a tail of 3-4 ms (its last, longest paths hold
    // every block resident, so the other slot's launch cannot start), so a
    // band should be one launch: a dealt band of 4096 samples of 25 rows of
    // 1200 needs 1.9 GiB. 4 GiB against 1 GiB: 4-5% less render time on an
    // H200 (results/multi_gpu.md).
    size_t sample_buffer_bytes = 0;
    // Dynamic schedule: lanes of a warp that need work in the same step
    // fetch consecutive chunks with one atomic (BandLaunch::warp_fetch).
    bool warp_fetch = false;
    int blocks_per_sm = 0;    // resident blocks per multiprocessor; 0 = as many as fit
    int max_grid_blocks = 0;  // tests: cap the grid (0 = none) so that threads take many pixels
    // Upper bound on pixels x samples per kernel launch: a band is split into
    // sample passes so that progress advances during long renders.
    uint64_t samples_per_launch = uint64_t(1) << 31;
    // Kernel specialisation (PathKernelVariant). The defaults are the
    // measured best; other values need kernels that only a build with
    // -DFARMRT_CUDA_EXPERIMENTS=ON compiles (benchmarks).
    bool specialize_geometry = true;  // kernels without instances / spheres only where the scene allows
    int leaf_quorum = kLeafQuorum;
    bool fused_slabs = true;  // fast math only
    // Register cap (PathKernelVariant::min_blocks): -1 = the measured best
    // (64 registers for the fast kernels with the wide BVH and the exact
    // spheres kernel with per-sample items, none otherwise).
    int min_blocks = -1;
    // The GPU traverses its own BVH with leaves of at most this many
    // primitives (fewer primitive tests per ray, less divergence in the leaf
    // loop) with fast math, wherever exact math traverses the 4-wide BVH,
    // and with exact_gpu_leaves; 0 = the scene's BVH (the CPU's). Not for
    // instances. Exact math keeps the CPU's bytes on any tree: the closest
    // hit is the smallest (t, key) among hits inside their primitive's own
    // box (core/closest_hit.h), whatever the visiting order.
    int gpu_leaf_size = 1;
    // How that BVH is made: the scene's with its leaves split
    // (split_bvh_leaves: one pass over the tree), or built again (build_bvh:
    // a second SAH build, 0.1-0.2 s more set-up for a million triangles on
    // the H200 host, no faster to traverse).
    bool split_leaves = true;
    // A 4-wide BVH collapsed from the binary one (not for instances; scenes
    // whose BVH does not fit its encoding keep the binary one).
    bool wide_bvh = true;
    // Exact math too: the 4-wide BVH (and gpu_leaf_size). Unset: for scenes
    // with quads or triangles (on one H200: models.yaml 1.19x, the
    // million-triangle scene 1.12x, cornell.yaml 1.05x), not for spheres
    // alone (the book's scene 0.4-1% slower). Shadow rays and the AOVs' first
    // hits keep the binary traversal (over the same leaves).
    std::optional<bool> exact_wide_bvh;
    // Exact math on the binary BVH over the GPU's leaves (gpu_leaf_size)
    // instead of the scene's: the same hits, fewer sphere tests and more
    // interior steps a ray. Off until measured faster on the GPU.
    bool exact_gpu_leaves = false;
    // A copy of the triangles' corners in 16-byte rows (SceneView::
    // triangle_corners) that traversal reads with three vector loads, not
    // nine scalar loads from the 104-byte triangles; 48 bytes a triangle
    // of device memory.
    bool triangle_corners = true;
    bool last_rows_first = false;  // BandLaunch::last_rows_first (measured slower on spheres.yaml)
    // The path tracer: the megakernel (path_kernel.cuh) or the split kernels
    // (wavefront.h), or per frame the one measured faster for its kind
    // (CudaRenderer::traces_split). The split kernels need per-sample items.
    GpuTuning::Integrator integrator = GpuTuning::Integrator::Auto;
    // The split kernels' paths; 0: chosen per scene (CudaRenderer::
    // make_split_tracer): more where the tree that rays traverse is larger
    // than the device's L2 cache.
    uint32_t split_paths = 0;
    // A tree (with its primitives) larger than this many bytes counts as
    // outgrowing L2 (split_paths); 0: the device's L2 cache's size.
    size_t deep_tree_bytes = 0;
    // The shortest band the farm deals a GPU whose frames run the split
    // kernels, in pools of paths (min_band_items): each band is a trace that
    // ends in a drain, its last paths finishing while the pool empties, and
    // a round trip to the host. 0: the resident threads, as for the
    // megakernel (scripts/bench/cuda_split_bands.sh measures others).
    int split_band_pools = 0;
    // How the split kernels' intersect and shadow warps share their queues
    // (WavefrontPool::fetch_rounds): N * 32 entries by each warp's place in
    // the grid, then N * 32 at a time from a counter; 0 a fixed share each.
    // 32 at a time: 4-17% faster than fixed shares on the Cornell box,
    // models.yaml, the million triangles and lights.yaml, and as fast on
    // adaptive sampling's short queues; 128 at a time slower (results/cuda.md).
    uint32_t queue_fetch = 1;
    // The split kernels' paths (split_paths) in this many pools, each traced
    // on a stream of its own: one pool's kernels take the multiprocessors
    // that another's leave as its last warps finish (WavefrontTracer). Two
    // against one on an H100 (results/cuda.md): models.yaml 1.44x, the
    // million triangles 1.09x, the Cornell box 1.05x, lights.yaml 1.04x;
    // three or four lost to two on models.yaml (0.93x, 0.89x). 0: chosen
    // with the paths (split_paths).
    int split_streams = 0;
    // How the split kernels shade (wavefront.h, GpuTuning::Shading); Auto:
    // the one measured faster for the scene's types (CudaRenderer::shading).
    GpuTuning::Shading shading = GpuTuning::Shading::Auto;
    // Bands submitted at once, each on a stream of its own with its own
    // buffers (a slot); 0: three where the megakernel traces, so that one
    // queued band takes the blocks of one ending (grid_divisor), and two
    // where the split kernels trace the scene's frames (the host waits for
    // each band's paths: a third band only holds work another GPU could take;
    // measured in results/multi_gpu.md).
    int bands_in_flight = 0;
    // A megakernel launch's grid while another band is on the device: the
    // blocks that fit divided by this. A launch's last paths hold its blocks
    // while most of their lanes idle; launches that share the device let a
    // queued band start on the blocks of one ending (on an H200, the book's
    // scene: 4.6 ms a launch with full grids, 1.6 ms with halves;
    // results/multi_gpu.md).
    int grid_divisor = 2;
};

// What the kernel costs in resources, for reports and benchmarks.
struct CudaKernelReport {
    int registers_per_thread = 0;
    int local_bytes_per_thread = 0;  // stack frame (the BVH traversal stack)
    int blocks_per_sm = 0;
    int block_size = 0;
    double occupancy = 0;  // resident warps / maximum warps per multiprocessor
    int multiprocessors = 0;
    int gpu_bvh_leaf_size = 0;  // the GPU's own BVH's leaf size (CudaOptions::gpu_leaf_size); 0 = the scene's BVH
};

class CudaRenderer : public BandRenderer {
public:
    // Uploads the scene; throws RenderError (one line) on any CUDA failure.
    CudaRenderer(const SceneView& scene, const CudaOptions& options);
    ~CudaRenderer() override;
    CudaRenderer(const CudaRenderer&) = delete;
    CudaRenderer& operator=(const CudaRenderer&) = delete;

    void render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                std::atomic<uint64_t>* samples_done) override;
    void submit(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                std::atomic<uint64_t>* samples_done) override;
    float* complete_oldest() override;
    bool oldest_ready() override;
    int bands_in_flight() const override { return int(slots_.size()); }
    std::string description() const override;
    int threads() const override { return 1; }
    RayCounts rays_traced() const override;
    uint64_t launches() const override { return launches_; }
    double device_busy_seconds() const override { return device_busy_seconds_; }
    // An SM of the exact kernel traces about as fast as 8 AVX-512 cores
    // (results/cuda.md: 1.58 G samples/s on 132 SMs; results/simd.md: about
    // 1.5 M samples/s per core): the farm's first guess, replaced once measured.
    double thread_equivalents() const override { return 8.0 * report_.multiprocessors; }
    uint64_t min_band_items() const override;
    bool item_is_sample() const override { return options_.sample_items; }
    // Per-sample items: the launches whose sums were added before the stop
    // (launch_sum_sample_radiance adds a launch whole or not at all).
    uint32_t samples_finished_at_stop() const override { return samples_finished_at_stop_; }
    bool has_gpu() const override { return true; }
    bool first_hit_features(const FrameSettings& frame, uint32_t samples, float* albedo, float* normal,
                            float* depth) override;
    // The device's memory in use (all processes), as nvidia-smi shows it.
    uint64_t gpu_memory_used_bytes() const override;

    int device() const { return device_; }
    CudaKernelReport kernel_report() const;
    PathKernelVariant kernel_variant() const { return kernel_->variant; }
    // Kernel time of the last completed band, from device events (benchmarks).
    double last_kernel_seconds() const { return last_kernel_seconds_; }
    // Each slot's radiance buffer for per-sample items (CudaOptions::sample_buffer_bytes resolved).
    size_t sample_buffer_bytes() const { return sample_buffer_bytes_; }
    // Whether `frame` runs on the split kernels (CudaOptions::integrator).
    bool traces_split(const FrameSettings& frame) const;
    GpuTuning::Shading shading() const;

private:
    struct ProgressStep {
        std::atomic<uint64_t>* counter;
        uint64_t samples;
    };
    // One band in flight: its stream, device sums, pinned staging buffer.
    struct Slot {
        cudaStream_t stream = nullptr;
        cudaEvent_t kernel_start = nullptr, kernel_end = nullptr, copied = nullptr;
        float* device_sums = nullptr;
        float* pinned_sums = nullptr;
        size_t capacity = 0;           // floats in each buffer
        float* radiance = nullptr;     // per-sample items' radiance (device)
        size_t radiance_capacity = 0;  // floats
        uint32_t* next_chunk = nullptr;
        uint32_t* active_pixels =
            nullptr;  // adaptive sampling's list (BandLaunch::active_pixels), capacity / 3 entries
        uint32_t* active_count = nullptr;
        uint32_t* passes = nullptr;         // device: launch_sum_sample_radiance's gate and samples added
        uint32_t* samples_added = nullptr;  // pinned: the samples added, copied back with the sums
        uint32_t* active_seen = nullptr;    // pinned: active_count, copied back after each pixel list
        std::deque<ProgressStep> progress;  // stable addresses for host callbacks
        float* user_sums = nullptr;
        size_t floats = 0;
        RowRange rows;
        bool busy = false;
    };

    static void CUDART_CB advance_progress(void* data);
    template <typename T>
    T* upload(const T* data, size_t count, const char* what);
    // A farm band's sums at most (16 MiB, render/band_schedule.h's limit).
    static constexpr size_t kBandSumFloats = size_t(4) << 20;
    void reserve(Slot& slot, size_t floats);
    void reserve_radiance(Slot& slot, size_t floats);
    void make_split_tracer();
    void finish(Slot& slot);
    void check(cudaError_t error, const char* what) const;
    PathKernelVariant variant(const SceneView& scene, bool wide_bvh) const;
    bool traverses_wide_bvh(const SceneView& scene) const;
    bool make_gpu_bvh(const SceneView& scene, std::vector<BvhNode>& nodes, std::vector<PrimitiveRef>& refs) const;
    const PathKernelEntry* kernel_ = nullptr;
    const PathKernelEntry* naive_kernel_ = nullptr;  // Integrator::Naive frames; null: kernel_ runs them
    bool book_kernel_ = false;  // kernel_ is compiled for the book's material types (PathKernelVariant)
    int naive_grid_blocks_ = 0;
    const volatile int* device_stop_ = nullptr;  // the stop flag, mapped (null: not available)
    void map_stop_flag();
    int persistent_blocks(const void* kernel, cudaFuncAttributes& attributes) const;
    const WideBvhNode* wide_nodes_ = nullptr;        // device, when the kernel traverses the wide BVH
    const WavefrontEntry* split_kernels_ = nullptr;  // null: none compiled for this scene and these options
    std::unique_ptr<WavefrontTracer> split_;         // made by the first frame that runs on it
    bool samples_lights_ = false;                    // the scene has lights for next-event estimation
    // The tree that rays traverse and its primitives are larger than the
    // device's L2 cache: the split kernels then keep more paths in flight
    // (CudaOptions::split_paths), where the memory allows.
    bool deep_tree_ = false;
    bool frames_trace_split_ = false;           // the scene's frames run the split kernels (at set-up)
    MaterialTypes surface_types_ = 0;           // the split kernels' shading kernels (surface_types_of)
    unsigned long long* ray_totals_ = nullptr;  // device: kRayTotals running totals (BandLaunch::rays)

    CudaOptions options_;
    int device_ = 0;
    std::string description_;
    SceneView device_scene_;
    std::vector<void*> allocations_;
    std::vector<Slot> slots_;
    std::deque<size_t> in_flight_;  // slot indices, oldest first
    std::deque<float*> completed_;  // finished by submit() while waiting for a free slot
    size_t next_slot_ = 0;
    int grid_blocks_ = 0;
    size_t sample_buffer_bytes_ = 0;  // per slot (CudaOptions::sample_buffer_bytes resolved)
    CudaKernelReport report_;
    uint32_t samples_finished_at_stop_ = 0;  // of the last band completed
    uint64_t launches_ = 0;                  // path kernel launches (the split kernels' are not counted)
    double last_kernel_seconds_ = 0;
    // The device's clock: an event recorded once the context exists, and
    // each band's kernels timed against it (float milliseconds: their
    // resolution is still 0.25 ms after an hour), added up as a union.
    cudaEvent_t clock_origin_ = nullptr;
    double device_busy_seconds_ = 0;
    double device_clock_end_ms_ = 0;  // the latest band end counted
};

// The measurement switches that were set (render/tuning.h; scripts/bench/
// compares them end to end); the others keep the defaults. None of them
// changes the image (exact math: the CPU's bytes).
void apply_gpu_tuning(const GpuTuning& tuning, CudaOptions& options);

// The backend a rank gets: "cpu", "cuda" or "auto". Returns the CUDA device
// to use, or -1 for the CPU tracer. Under auto a rank uses the GPU of its
// node-local rank and ranks beyond the GPU count use the CPU; under cuda a
// missing GPU is a RenderError and extra ranks share GPUs round-robin.
int choose_cuda_device(const std::string& backend);

}  // namespace farmrt
