// The SIMD tracer's sampler: the values of PixelSampler (core/sampler.h), bit
// for bit. The independent sampler's first Philox blocks of a sample are
// computed together by the level's kernel (one block per 64-bit lane: simd/philox_lanes.h) instead of
// one 10-round Philox call after another. Philox was about a quarter of the
// SIMD frame's time outside traversal when this was written (perf, dev VM).
#pragma once

#include "core/sampler.h"

namespace farmrt {
namespace simd {

// The most blocks a kernel computes at once (AVX-512: 8 lanes of 64 bits).
constexpr int kMaxLaneBlocks = 8;

class BlockSampler {
public:
    // `words` holds blocks [0, block_count) of (key, pixel_index,
    // sample_index): word w of block b in the low half of
    // words[w * kMaxLaneBlocks + b], as the kernels store their lanes.
    FARMRT_INLINE BlockSampler(const SamplerKey& key, uint32_t pixel_index, uint32_t sample_index,
                               const uint64_t* words, uint32_t block_count)
        : words_(words),
          block_count_(key.type == SamplerType::Independent ? block_count : 0),
          beyond_(key, pixel_index, sample_index) {}

    FARMRT_INLINE float uniform(uint32_t dimension) {
        const uint32_t block = dimension >> 2;
        if (block < block_count_) {
            return bits_to_unit_float(static_cast<uint32_t>(words_[(dimension & 3) * kMaxLaneBlocks + block]));
        }
        // Deeper paths, and the Sobol sampler: as PixelSampler.
        return beyond_.uniform(dimension);
    }

protected:
    const uint64_t* words_;
    uint32_t block_count_;
    PixelSampler beyond_;
};

}  // namespace simd
}  // namespace farmrt
