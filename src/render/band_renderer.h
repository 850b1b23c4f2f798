// The interface between the job (single process or MPI rank) and a backend
// tracer. One virtual call per band of rows, never per ray: the hot loops
// inside each backend are plain functions over the shared core.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/integrator.h"
#include "core/ray_counts.h"
#include "render/tuning.h"

namespace farmrt {

struct RowRange {
    uint32_t begin = 0, end = 0;  // image rows [begin, end)
    uint32_t count() const { return end - begin; }
};

struct SampleRange {
    uint32_t begin = 0, end = 0;  // sample indices [begin, end)
    uint32_t count() const { return end - begin; }
};

class BandRenderer {
public:
    virtual ~BandRenderer() = default;
    // Adds samples [samples.begin, samples.end) of every pixel in `rows` to
    // `sums` (rows.count() * frame.width RGB float triples, first row first), in
    // sample order per pixel, so that the sums never depend on the backend's
    // decomposition. `samples_done`, when given, advances as work finishes.
    virtual void render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                        std::atomic<uint64_t>* samples_done) = 0;
    // "cpu", later "cpu-avx2", "cuda:0 NVIDIA H100 ..." — for logs and run reports.
    virtual std::string description() const = 0;
    virtual int threads() const = 0;
    // The rays traced by kind (core/ray_counts.h) since the renderer was
    // made, bands cut short by a stop included: the work done, for --stats
    // and the summary. Call it with no band outstanding.
    virtual RayCounts rays_traced() const = 0;

    // Asynchronous use, for backends that work on one band while the job
    // handles another (the GPU copies a finished band back while the next
    // band's kernel runs, and the next kernel fills the GPU while the last one
    // drains). submit() may return before the band is done: `sums` must stay
    // valid and untouched until complete_oldest() has returned it. Up to
    // bands_in_flight() bands are worth keeping submitted; more are accepted
    // (submit then waits). The default renders at once.
    virtual void submit(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                        std::atomic<uint64_t>* samples_done) {
        render(frame, rows, samples, sums, samples_done);
        completed_.push_back(sums);
    }
    // Waits for the oldest submitted band still outstanding and returns its
    // `sums` pointer, or nullptr when nothing is outstanding.
    virtual float* complete_oldest() {
        if (completed_.empty()) return nullptr;
        float* sums = completed_.front();
        completed_.pop_front();
        return sums;
    }
    // Whether complete_oldest() would return without waiting: a caller with
    // a band to submit submits it first (the GPU keeps its next band queued).
    virtual bool oldest_ready() { return true; }
    // Kernel launches so far (GPUs): beside the items dealt, they show what
    // the launches' tails cost (a band too large for one launch takes several).
    virtual uint64_t launches() const { return 0; }
    // Seconds on the device's own clock with a band's kernels on it (the
    // union over the bands in flight): beside the host's busy time, it tells
    // a device whose kernels ran slower from one that waited on its host
    // thread. 0 where not measured (the CPU).
    virtual double device_busy_seconds() const { return 0; }
    virtual int bands_in_flight() const { return 1; }
    // After a stop cut a band short: how many of its leading rows have every
    // sample in the `sums` complete_oldest() last returned. A stop keeps
    // those (checkpointed) and renders the rest again on resume. Backends
    // that abandon bands whole answer 0.
    virtual uint32_t rows_finished_at_stop() const { return 0; }
    // After a stop cut a band short: how many of its first samples every
    // pixel of its other rows has complete in those `sums`. A backend that
    // renders a band in passes over all its rows (the GPU) keeps the passes
    // finished before the stop; 0 = none.
    virtual uint32_t samples_finished_at_stop() const { return 0; }

    // For the farm's dealer (render/band_schedule.h). What this backend is worth
    // in CPU threads of the same node, as a first guess before it has
    // measured its speed (a GPU is worth hundreds; guessing it too slow would
    // hand CPU ranks bands that outlast the job).
    virtual double thread_equivalents() const { return threads(); }
    // Work items below which a band leaves the backend partly idle without
    // finishing sooner (a GPU's resident threads, one item each); 0 = none.
    virtual uint64_t min_band_items() const { return 0; }
    // Whether a work item is one sample of one pixel (a band of P pixels at S
    // samples holds P x S items) or a whole pixel (P items).
    virtual bool item_is_sample() const { return false; }
    // The AOVs' first-hit features of every pixel of the frame over its
    // samples [0, samples) (core/aov.h: pixel_first_hit_features), row-major:
    // 3 floats of albedo and of normal and 1 of depth per pixel. False when
    // the backend leaves them to the CPU (render/aov_pass.h). Called from
    // another thread while bands render.
    virtual bool first_hit_features(const FrameSettings& frame, uint32_t samples, float* albedo, float* normal,
                                    float* depth) {
        (void)frame, (void)samples, (void)albedo, (void)normal, (void)depth;
        return false;
    }
    // The devices this renderer drives, for a farm that deals work to each
    // itself (render/device_group.h's members); a single device is its own.
    virtual std::vector<BandRenderer*> devices() { return {this}; }
    // For --frame-log: whether this backend is a GPU, and its memory in use.
    virtual bool has_gpu() const { return false; }
    virtual uint64_t gpu_memory_used_bytes() const { return 0; }

private:
    std::deque<float*> completed_;  // the default submit()'s finished bands
};

struct RendererOptions {
    std::string backend = "auto";    // cpu | cuda | auto (CUDA where this rank has a GPU)
    int threads = 0;                 // CPU threads; 0 = all
    int tile_size = 16;              // CPU tile edge in pixels
    std::string simd = "auto";       // CPU SIMD level: off | auto | sse4.2 | avx2 | avx512
    std::string gpu_math = "exact";  // exact: GPU sums bit-identical to the CPU's | fast: fused multiply-add
    std::vector<int> gpus;           // the GPUs to render on; empty = all this process sees
    bool gpus_given = false;         // --gpus given: every rank uses those, however many share the node
    int ranks_on_node = 1;           // this process's node's ranks: one alone uses every device
    Tuning tuning;                   // measurement switches (render/tuning.h)
};

class Scene;

// The backends this build has, as the command layer wires them
// (cmd/backends.h): the farm makes each rank's renderer through these, and
// never names a backend itself.
struct Backends {
    // The scene must outlive the renderer.
    std::function<std::unique_ptr<BandRenderer>(const Scene& scene, const RendererOptions& options)> make_renderer;
    // How many of the `ranks_on_node` ranks of a node take a GPU under
    // `backend` (auto: one per visible GPU, by node-local rank; cuda: all of
    // them), so that the CPU ranks of a hybrid job can share the cores that
    // the GPU ranks leave. 0 without CUDA or without a GPU.
    std::function<int(const std::string& backend, int ranks_on_node)> gpu_ranks_on_node;
    // Starts the GPU driver where `backend` may render on a GPU (finding the
    // devices, about 0.3 s; no context, no device memory), so that it runs
    // while the scene is read. Does nothing without CUDA.
    std::function<void(const std::string& backend)> start_gpu_driver;
};

}  // namespace farmrt
