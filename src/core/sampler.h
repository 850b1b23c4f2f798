// Counter-based random numbers: every value is a pure function of
// (seed, frame, pixel, sample, dimension). No state is carried between pixels,
// threads, ranks or GPUs, so any decomposition of the image gives the same bytes
// and a resumed render equals an uninterrupted one.
#pragma once

#include "core/common.h"

namespace farmrt {

struct SamplerKey {
    uint64_t seed = 0;
    uint32_t frame = 0;
};

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
struct PhiloxBlock {
    uint32_t v[4];
};

FARMRT_CPU_GPU FARMRT_INLINE void multiply_high_low(uint32_t a, uint32_t b, uint32_t& high, uint32_t& low) {
#if defined(__CUDA_ARCH__)
    // The same bits as the 64-bit product below; written as two 32-bit
    // multiplies because nvcc otherwise widens the whole Philox state to
    // 64-bit integer operations (twice the instructions).
    high = __umulhi(a, b);
    low = a * b;
#else
    const uint64_t product = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
    high = static_cast<uint32_t>(product >> 32);
    low = static_cast<uint32_t>(product);
#endif
}

FARMRT_CPU_GPU FARMRT_INLINE PhiloxBlock philox4x32_10(PhiloxBlock counter, uint32_t key0, uint32_t key1) {
    for (int round = 0; round < 10; ++round) {
        uint32_t high0, low0, high1, low1;
        multiply_high_low(0xD2511F53u, counter.v[0], high0, low0);
        multiply_high_low(0xCD9E8D57u, counter.v[2], high1, low1);
        counter = PhiloxBlock{{high1 ^ counter.v[1] ^ key0, low1, high0 ^ counter.v[3] ^ key1, low0}};
        key0 += 0x9E3779B9u;
        key1 += 0xBB67AE85u;
    }
    return counter;
}

// 24 random bits to a float in [0, 1): exact, so identical on every backend.
FARMRT_CPU_GPU FARMRT_INLINE float bits_to_unit_float(uint32_t bits) {
    return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

// Dimensions used by one camera sample; then kDimensionsPerBounce per path segment.
enum SampleDimension : uint32_t {
    kDimensionPixelX = 0,
    kDimensionPixelY = 1,
    kDimensionLensU = 2,
    kDimensionLensV = 3,
    kDimensionTime = 4,
    kDimensionFirstBounce = 5,
};
constexpr uint32_t kDimensionsPerBounce = 3;

// The random stream of one (pixel, sample). Dimensions are read in blocks of four
// (one Philox call); the cache is an optimisation, not state: uniform(d) returns the
// same value whatever was asked before.
class PixelSampler {
public:
    FARMRT_CPU_GPU PixelSampler(const SamplerKey& key, uint32_t pixel_index, uint32_t sample_index)
        : key0_(static_cast<uint32_t>(key.seed)),
          key1_(static_cast<uint32_t>(key.seed >> 32)),
          frame_(key.frame),
          pixel_(pixel_index),
          sample_(sample_index) {}

    FARMRT_CPU_GPU float uniform(uint32_t dimension) {
        const uint32_t block = dimension >> 2;
        if (block != cached_block_) {
            cached_ = philox4x32_10(PhiloxBlock{{pixel_, sample_, block, frame_}}, key0_, key1_);
            cached_block_ = block;
        }
        // Selects, not cached_.v[dimension & 3]: a run-time index would put
        // the block in GPU local memory.
        const uint32_t lane = dimension & 3;
        const uint32_t bits = lane == 0 ? cached_.v[0]
                                        : (lane == 1 ? cached_.v[1] : (lane == 2 ? cached_.v[2] : cached_.v[3]));
        return bits_to_unit_float(bits);
    }

private:
    uint32_t key0_, key1_, frame_, pixel_, sample_;
    uint32_t cached_block_ = 0xFFFFFFFFu;
    PhiloxBlock cached_{};
};

}  // namespace farmrt
