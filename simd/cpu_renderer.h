// The CPU tracer: OpenMP threads take square tiles of a band of rows
// dynamically; each pixel's samples are traced in order by one thread, so the
// sums do not depend on threads, tiles or bands.
#pragma once

#include "band_renderer.h"
#include "scene.h"

namespace farmrt {

class CpuRenderer : public BandRenderer {
public:
    // threads <= 0: every hardware thread (or OMP_NUM_THREADS).
    CpuRenderer(const SceneView& scene, int threads, int tile_size);

    void render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                std::atomic<uint64_t>* samples_done) override;
    std::string description() const override { return "cpu"; }
    int threads() const override { return threads_; }
    int tile_size() const { return tile_size_; }

private:
    SceneView scene_;
    int threads_;
    int tile_size_;
};

}  // namespace farmrt
