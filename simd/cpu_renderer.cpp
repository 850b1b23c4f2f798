#include "cpu_renderer.h"

#include <omp.h>

#include <algorithm>

#include "block_sampler.h"
#include "wide_accelerator.h"

namespace farmrt {

CpuRenderer::CpuRenderer(const SceneView& scene, int threads, int tile_size, SimdLevel simd)
    : scene_(scene),
      threads_(threads > 0 ? threads : omp_get_max_threads()),
      tile_size_(std::max(1, tile_size)),
      simd_(simd) {
    if (simd_ != SimdLevel::Off) accelerator_ = std::make_unique<simd::WideAccelerator>(scene_, simd_);
}

CpuRenderer::~CpuRenderer() = default;

std::string CpuRenderer::description() const {
    return std::string("cpu-") + (simd_ == SimdLevel::Off ? "scalar" : simd_level_name(simd_));
}

void CpuRenderer::render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                         std::atomic<uint64_t>* samples_done) {
    if (accelerator_) {
        render_tiles(frame, rows, samples, sums, samples_done, accelerator_->closest_hit(), &accelerator_->kernels());
    } else {
        render_tiles(frame, rows, samples, sums, samples_done, BvhClosestHit(), nullptr);
    }
}

template <class ClosestHit>
void CpuRenderer::render_tiles(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                               std::atomic<uint64_t>* samples_done, const ClosestHit& closest_hit,
                               const simd::Kernels* kernels) {
    const SceneView& scene = scene_;
    const uint32_t tile = uint32_t(tile_size_);
    const uint32_t tiles_x = (frame.width + tile - 1) / tile;
    const uint32_t tiles_y = (rows.count() + tile - 1) / tile;
    const int64_t tile_count = int64_t(tiles_x) * tiles_y;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (int64_t t = 0; t < tile_count; ++t) {
        const uint32_t x0 = uint32_t(t % tiles_x) * tile;
        const uint32_t y0 = rows.begin + uint32_t(t / tiles_x) * tile;
        const uint32_t x1 = std::min(frame.width, x0 + tile);
        const uint32_t y1 = std::min(rows.end, y0 + tile);
        for (uint32_t y = y0; y < y1; ++y) {
            float* row = sums + size_t(y - rows.begin) * frame.width * 3;
            for (uint32_t x = x0; x < x1; ++x) {
                float* sum = row + size_t(x) * 3;
                if (!kernels) {
                    accumulate_pixel(scene, frame, x, y, samples.begin, samples.end, sum, closest_hit);
                    continue;
                }
                // accumulate_pixel with the first Philox blocks of each sample
                // computed at once by the level's kernel (same values).
                const uint32_t pixel_index = y * frame.width + x;
                for (uint32_t s = samples.begin; s < samples.end; ++s) {
                    alignas(64) uint64_t words[4 * simd::kMaxLaneBlocks];
                    kernels->philox_blocks(frame.key, pixel_index, s, words);
                    simd::BlockSampler sampler(frame.key, pixel_index, s, words, uint32_t(kernels->philox_block_count));
                    add_sample(sum, trace_sample(scene, frame, x, y, sampler, closest_hit));
                }
            }
        }
        if (samples_done) samples_done->fetch_add(uint64_t(x1 - x0) * (y1 - y0) * samples.count(), std::memory_order_relaxed);
    }
}

}  // namespace farmrt
