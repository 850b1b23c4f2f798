// The CPU tracer: OpenMP threads take square tiles of a band of rows
// dynamically; each pixel's samples are traced in order by one thread, so the
// sums do not depend on threads, tiles or bands.
#pragma once

#include <atomic>
#include <cstdint>

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

class CpuRenderer {
public:
    // threads <= 0: every hardware thread (or OMP_NUM_THREADS).
    CpuRenderer(int threads, int tile_size);

    // Adds the samples of `samples` for every pixel of `rows` to `sums`
    // (rows.count() * width RGB triples, first row first). `samples_done`, when
    // given, is advanced as tiles finish, for progress reports.
    void render(const SceneView& scene, const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                std::atomic<uint64_t>* samples_done = nullptr) const;

    int threads() const { return threads_; }
    int tile_size() const { return tile_size_; }

private:
    int threads_;
    int tile_size_;
};

}  // namespace farmrt
