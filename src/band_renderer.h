// The interface between the job (single process or MPI rank) and a backend
// tracer. One virtual call per band of rows, never per ray: the hot loops
// inside each backend are plain functions over the shared core.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "integrator.h"

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
};

struct RendererOptions {
    std::string backend = "cpu";  // cpu | cuda | auto (the CUDA issue adds the latter two)
    int threads = 0;              // CPU threads; 0 = all
    int tile_size = 16;           // CPU tile edge in pixels
    std::string simd = "auto";    // CPU SIMD level: off | auto | sse4.2 | avx2 | avx512
};

class Scene;
// The scene must outlive the renderer.
std::unique_ptr<BandRenderer> make_band_renderer(const Scene& scene, const RendererOptions& options);

}  // namespace farmrt
