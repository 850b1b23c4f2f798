// The samplers: every value is a pure function of (seed, frame, pixel,
// sample, dimension). No state is carried between pixels, threads, ranks or
// GPUs, so any decomposition of the image gives the same bytes and a resumed
// render equals an uninterrupted one.
//   Sobol (the default): stratified quasi-Monte Carlo points, Owen-scrambled
//     and padded (pbrt-v4's PaddedSobolSampler with Burley's hash-based
//     scrambling, "Practical Hash-based Owen Scrambling", JCGT 2020). Each
//     pair of dimensions is the first two dimensions of the Sobol sequence,
//     its index shuffled and its values scrambled by hashes of (seed, frame,
//     pixel, pair): every 2^k consecutive samples of a pixel from the first
//     form a (0, k, 2)-net in each pair, whatever the sample count.
//   Independent: counter-based uniform numbers (Philox).
#pragma once

#include "core/common.h"
#include "core/lanes.h"

namespace farmrt {

enum class SamplerType : uint32_t { Sobol = 0, Independent = 1 };

struct SamplerKey {
    uint64_t seed = 0;
    uint32_t frame = 0;
    SamplerType type = SamplerType::Sobol;
};

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
struct PhiloxBlock {
    uint32_t v[4];
};

// 32-bit words as a lane type (lanes.h): the 32 x 32 -> 64-bit product's
// halves. simd/philox_lanes.h adds the batches of 64-bit lanes that each
// carry one word in their low half.
template <>
struct LaneOps<uint32_t> {
    FARMRT_CPU_GPU static FARMRT_INLINE void multiply_high_low(uint32_t a, uint32_t b, uint32_t& high, uint32_t& low) {
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
};

// Philox4x32-10's ten rounds over a lane type of words, written once: one
// block (Word = uint32_t: the scalar tracers and the GPU) or several blocks
// at once (the SIMD sampler's batches, one block per lane).
template <class Word>
FARMRT_CPU_GPU FARMRT_INLINE void philox4x32_10_rounds(Word& v0, Word& v1, Word& v2, Word& v3, uint32_t key0,
                                                       uint32_t key1) {
    for (int round = 0; round < 10; ++round) {
        Word high0, low0, high1, low1;
        LaneOps<Word>::multiply_high_low(Word(0xD2511F53u), v0, high0, low0);
        LaneOps<Word>::multiply_high_low(Word(0xCD9E8D57u), v2, high1, low1);
        v0 = high1 ^ v1 ^ Word(key0);
        v1 = low1;
        v2 = high0 ^ v3 ^ Word(key1);
        v3 = low0;
        key0 += 0x9E3779B9u;
        key1 += 0xBB67AE85u;
    }
}

FARMRT_CPU_GPU FARMRT_INLINE PhiloxBlock philox4x32_10(PhiloxBlock counter, uint32_t key0, uint32_t key1) {
    philox4x32_10_rounds(counter.v[0], counter.v[1], counter.v[2], counter.v[3], key0, key1);
    return counter;
}

// 24 random bits to a float in [0, 1): exact, so identical on every backend.
FARMRT_CPU_GPU FARMRT_INLINE float bits_to_unit_float(uint32_t bits) {
    return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

// Dimensions are used in pairs (2k, 2k + 1): a use of two numbers (a point
// on the pixel, the lens, a light, a BSDF direction) takes a whole pair, so
// that the Sobol sampler stratifies it in two dimensions.
// The camera's: the pixel offset, the lens, the time; then
// kDimensionsPerBounce per path segment from kDimensionFirstBounce.
enum SampleDimension : uint32_t {
    kDimensionPixelX = 0,
    kDimensionPixelY = 1,
    kDimensionLensU = 2,
    kDimensionLensV = 3,
    kDimensionTime = 4,
    kDimensionFirstBounce = 8,
};
// A path segment's dimensions, fixed in advance so that a sample's value
// never depends on what an earlier segment drew.
constexpr uint32_t kDimensionsPerBounce = 8;
enum BounceDimension : uint32_t {
    kLightSample = 0,  // and 1: the point on the light
    kBsdfSample = 2,   // 2, 3: the direction; 4: the lobe (scatter())
    kLightPick = 5,
    kRoulette = 6,
};

// The Sobol sampler stratifies the camera's dimensions and the first
// segments'; deeper segments, whose light is a small share of a pixel's
// variance, draw independent numbers (as in Cycles' "scrambling distance"
// spirit: stratification pays where it matters and costs little elsewhere).
constexpr uint32_t kSobolDimensions = kDimensionFirstBounce + 3 * kDimensionsPerBounce;

// ---- Owen-scrambled Sobol points ---------------------------------------------------

FARMRT_CPU_GPU FARMRT_INLINE uint32_t reverse_bits(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __brev(x);
#else
    x = __builtin_bswap32(x);
    x = ((x & 0x0F0F0F0Fu) << 4) | ((x >> 4) & 0x0F0F0F0Fu);
    x = ((x & 0x33333333u) << 2) | ((x >> 2) & 0x33333333u);
    return ((x & 0x55555555u) << 1) | ((x >> 1) & 0x55555555u);
#endif
}

// A 32-bit integer hash (Wellons' lowbias32).
FARMRT_CPU_GPU FARMRT_INLINE uint32_t hash32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x21F0AAADu;
    x ^= x >> 15;
    x *= 0x735A2D97u;
    x ^= x >> 15;
    return x;
}

// Bit b of the result depends on bits 0..b of x only (Laine and Karras'
// permutation with Vegdahl's constants, as Burley's paper gives it).
FARMRT_CPU_GPU FARMRT_INLINE uint32_t laine_karras_permutation(uint32_t x, uint32_t seed) {
    x += seed;
    x ^= x * 0x6C50B47Cu;
    x ^= x * 0xB82F1E52u;
    x ^= x * 0xC7AFE638u;
    x ^= x * 0x8D22F6E6u;
    return x;
}

// Owen scrambling of a binary fraction (its first digit in bit 31): each
// digit flipped by a hash of the digits before it.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t nested_uniform_scramble(uint32_t x, uint32_t seed) {
    return reverse_bits(laine_karras_permutation(reverse_bits(x), seed));
}

// The second dimension of the Sobol sequence, digits in reverse order (the
// first digit in bit 0): digit d is the parity of the index bits j with
// d a bitwise subset of j (Pascal's matrix mod 2), a superset sum in five
// steps.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t sobol_second_reversed(uint32_t index) {
    uint32_t r = index;
    r ^= (r >> 1) & 0x55555555u;
    r ^= (r >> 2) & 0x33333333u;
    r ^= (r >> 4) & 0x0F0F0F0Fu;
    r ^= (r >> 8) & 0x00FF00FFu;
    r ^= (r >> 16) & 0x0000FFFFu;
    return r;
}

// The sample's index in the Sobol sequence for one pair of dimensions: the
// shuffle keeps each run of 2^k samples from the first an aligned block of
// the sequence (the high bits of a shuffled index depend on the high bits of
// the sample only), so the runs stay (0, k, 2)-nets. `sample_reversed`: the
// sample's bits reversed.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t shuffled_sobol_index(uint32_t sample_reversed, uint32_t pair_seed) {
    return reverse_bits(laine_karras_permutation(sample_reversed, pair_seed));
}

// Coordinate 0 or 1 of the Sobol point `index`, Owen-scrambled with `seed`,
// as a binary fraction. The first Sobol dimension is the index's bits
// reversed (van der Corput), so its digits need no reversal before the
// permutation.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t scrambled_sobol(uint32_t index, uint32_t coordinate, uint32_t seed) {
    const uint32_t digits_reversed = coordinate == 0 ? index : sobol_second_reversed(index);
    return reverse_bits(laine_karras_permutation(digits_reversed, seed));
}

// The random stream of one (pixel, sample). Independent: dimensions are read
// in blocks of four (one Philox call); Sobol: in pairs. The cache is an
// optimisation, not state: uniform(d) returns the same value whatever was
// asked before.
class PixelSampler {
public:
    FARMRT_CPU_GPU FARMRT_INLINE PixelSampler(const SamplerKey& key, uint32_t pixel_index, uint32_t sample_index)
        : key0_(static_cast<uint32_t>(key.seed)),
          key1_(static_cast<uint32_t>(key.seed >> 32)),
          frame_(key.frame),
          pixel_(pixel_index),
          sample_(sample_index),
          sobol_(key.type == SamplerType::Sobol) {
        if (sobol_) {
            // The pixel's own scrambling, the same for all of its samples.
            pixel_seed_ = hash32(hash32(hash32(key0_ ^ (frame_ * 0x9E3779B9u)) ^ key1_) ^ pixel_);
            sample_reversed_ = reverse_bits(sample_);
        }
    }

    FARMRT_CPU_GPU FARMRT_INLINE float uniform(uint32_t dimension) { return bits_to_unit_float(bits(dimension)); }

    FARMRT_CPU_GPU FARMRT_INLINE uint32_t bits(uint32_t dimension) {
        if (sobol_ && dimension < kSobolDimensions) {
            const uint32_t pair = dimension >> 1;
            if (pair + kSobolCacheTag != cached_block_) {
                const uint32_t seed = pair_seed(pair);
                cached_.v[0] = shuffled_sobol_index(sample_reversed_, seed);
                cached_.v[1] = coordinate_seed(seed, 0);
                cached_block_ = pair + kSobolCacheTag;
            }
            const uint32_t coordinate = dimension & 1;
            return scrambled_sobol(cached_.v[0], coordinate,
                                   coordinate == 0 ? cached_.v[1] : second_coordinate_seed(cached_.v[1]));
        }
        const uint32_t block = dimension >> 2;
        if (block != cached_block_) {
            cached_ = philox4x32_10(PhiloxBlock{{pixel_, sample_, block, frame_}}, key0_, key1_);
            cached_block_ = block;
        }
        // Selects, not cached_.v[dimension & 3]: a run-time index would put
        // the block in GPU local memory.
        const uint32_t lane = dimension & 3;
        return lane == 0 ? cached_.v[0] : (lane == 1 ? cached_.v[1] : (lane == 2 ? cached_.v[2] : cached_.v[3]));
    }

    // The hash that scrambles a pair of dimensions of this pixel: the same for
    // every sample of the pixel, so that its samples stay one scrambled net.
    FARMRT_CPU_GPU FARMRT_INLINE uint32_t pair_seed(uint32_t pair) const {
        return hash32(pixel_seed_ ^ (pair * 0x9E3779B9u));
    }
    // The hash that scrambles coordinate 0 or 1 of a pair: one more hash,
    // and for the second coordinate an odd multiple of it (a bijection).
    static FARMRT_CPU_GPU FARMRT_INLINE uint32_t second_coordinate_seed(uint32_t first) {
        return first * 0x2C1B3C6Du + 0x297A2D39u;
    }
    static FARMRT_CPU_GPU FARMRT_INLINE uint32_t coordinate_seed(uint32_t pair_seed, uint32_t coordinate) {
        const uint32_t first = hash32(pair_seed ^ 0xA511E9B3u);
        return coordinate == 0 ? first : second_coordinate_seed(first);
    }
    // For tracers that compute several dimensions at once (simd/sobol_lanes.h).
    FARMRT_CPU_GPU FARMRT_INLINE bool sobol() const { return sobol_; }
    FARMRT_CPU_GPU FARMRT_INLINE uint32_t pixel_seed() const { return pixel_seed_; }
    FARMRT_CPU_GPU FARMRT_INLINE uint32_t sample_reversed() const { return sample_reversed_; }

private:
    static constexpr uint32_t kSobolCacheTag = 0x80000000u;
    uint32_t key0_, key1_, frame_, pixel_, sample_;
    bool sobol_;
    uint32_t pixel_seed_ = 0, sample_reversed_ = 0;
    uint32_t cached_block_ = 0xFFFFFFFFu;
    PhiloxBlock cached_{};
};

}  // namespace farmrt
