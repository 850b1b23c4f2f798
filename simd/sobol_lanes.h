// The Sobol sampler (core/sampler.h) for every Sobol dimension of one sample
// at once, one dimension per 32-bit lane, from seeds computed once per
// pixel: the same integer operations as PixelSampler's, so the same bits,
// in a few vector instructions instead of a scalar hash chain per dimension. Included by the kernel translation units
// only (internal linkage, like wide_traversal.h).
#pragma once

#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "simd/block_sampler.h"

namespace farmrt {
namespace simd {
namespace {

// Shifts of 32-bit lanes. (AVX-512: the zero-masking forms with every lane
// selected, because GCC 12's plain forms read an "undefined" register and
// warn under -Wall; as in philox_lanes.h.)
template <class Arch>
FARMRT_INLINE xsimd::batch<uint32_t, Arch> shift_left(xsimd::batch<uint32_t, Arch> x, int bits) {
    return x << bits;
}
template <class Arch>
FARMRT_INLINE xsimd::batch<uint32_t, Arch> shift_right(xsimd::batch<uint32_t, Arch> x, int bits) {
    return x >> bits;
}
#if defined(__AVX512BW__)
template <>
FARMRT_INLINE xsimd::batch<uint32_t, xsimd::avx512bw> shift_left(xsimd::batch<uint32_t, xsimd::avx512bw> x, int bits) {
    return _mm512_maskz_slli_epi32(__mmask16(0xFFFF), __m512i(x), unsigned(bits));
}
template <>
FARMRT_INLINE xsimd::batch<uint32_t, xsimd::avx512bw> shift_right(xsimd::batch<uint32_t, xsimd::avx512bw> x, int bits) {
    return _mm512_maskz_srli_epi32(__mmask16(0xFFFF), __m512i(x), unsigned(bits));
}
#endif

template <class Arch>
struct SobolLanes {
    using Words = xsimd::batch<uint32_t, Arch>;
    static constexpr uint32_t kLanes = uint32_t(Words::size);
    static_assert(kSobolDimensions % kLanes == 0, "whole registers");

    static FARMRT_INLINE Words hash(Words x) {
        x ^= shift_right(x, 16);
        x *= Words(0x21F0AAADu);
        x ^= shift_right(x, 15);
        x *= Words(0x735A2D97u);
        x ^= shift_right(x, 15);
        return x;
    }
    static FARMRT_INLINE Words permute(Words x, Words seed) {
        x += seed;
        x ^= x * Words(0x6C50B47Cu);
        x ^= x * Words(0xB82F1E52u);
        x ^= x * Words(0xC7AFE638u);
        x ^= x * Words(0x8D22F6E6u);
        return x;
    }
    static FARMRT_INLINE Words reverse(Words x) {
        x = shift_left(x, 16) | shift_right(x, 16);
        x = shift_left(x & Words(0x00FF00FFu), 8) | (shift_right(x, 8) & Words(0x00FF00FFu));
        x = shift_left(x & Words(0x0F0F0F0Fu), 4) | (shift_right(x, 4) & Words(0x0F0F0F0Fu));
        x = shift_left(x & Words(0x33333333u), 2) | (shift_right(x, 2) & Words(0x33333333u));
        return shift_left(x & Words(0x55555555u), 1) | (shift_right(x, 1) & Words(0x55555555u));
    }
    static FARMRT_INLINE Words second_reversed(Words r) {
        r ^= shift_right(r, 1) & Words(0x55555555u);
        r ^= shift_right(r, 2) & Words(0x33333333u);
        r ^= shift_right(r, 4) & Words(0x0F0F0F0Fu);
        r ^= shift_right(r, 8) & Words(0x00FF00FFu);
        r ^= shift_right(r, 16) & Words(0x0000FFFFu);
        return r;
    }

    // The pixel's scrambling seeds of every Sobol dimension (the same for
    // all of its samples): PixelSampler::pair_seed of the dimension's pair,
    // and the hash that scrambles the dimension's coordinate.
    struct PixelSeeds {
        uint32_t pixel = 0xFFFFFFFFu;
        alignas(64) uint32_t pair[kSobolDimensions];
        alignas(64) uint32_t coordinate[kSobolDimensions];

        void update(const PixelSampler& sampler, uint32_t pixel_index) {
            if (pixel_index == pixel) return;
            pixel = pixel_index;
            for (uint32_t d = 0; d < kSobolDimensions; ++d) {
                pair[d] = sampler.pair_seed(d >> 1);
                coordinate[d] = PixelSampler::coordinate_seed(pair[d], d & 1u);
            }
        }
    };

    // Every Sobol dimension of the sample: out[d] is PixelSampler::bits(d)
    // (d < kSobolDimensions). All at once: the registers' chains of
    // multiplies are independent and overlap.
    static void values(const PixelSampler& sampler, const PixelSeeds& seeds, uint32_t* out) {
#if defined(__AVX512BW__)
        if constexpr (std::is_same_v<Arch, xsimd::avx512bw>) {
            static const bool gfni = __builtin_cpu_supports("gfni");
            if (gfni) return values_with_gfni(sampler, seeds, out);
        }
#endif
        alignas(64) uint32_t lane_index[kLanes];
        for (uint32_t lane = 0; lane < kLanes; ++lane) lane_index[lane] = lane;
        const Words odd = Words::load_aligned(lane_index) & Words(1u);
        const Words second_mask = Words(0u) - odd;  // all ones in odd lanes
        const Words sample_reversed(sampler.sample_reversed());
        for (uint32_t base = 0; base < kSobolDimensions; base += kLanes) {
            const Words index = reverse(permute(sample_reversed, Words::load_aligned(seeds.pair + base)));
            const Words digits = (second_reversed(index) & second_mask) | (index & ~second_mask);
            reverse(permute(digits, Words::load_aligned(seeds.coordinate + base))).store_aligned(out + base);
        }
    }

#if defined(__AVX512BW__)
    // The bits of each 32-bit lane reversed in two instructions: each byte's
    // by a Galois-field affine map (GFNI: Ice Lake and later), then the
    // bytes; reverse() takes fifteen. The book's scene renders 3% faster.
    __attribute__((target("gfni"))) static Words reverse_with_gfni(Words x) {
        const __m512i bits_reversed =
            _mm512_gf2p8affine_epi64_epi8(__m512i(x), _mm512_set1_epi64(0x8040201008040201LL), 0);
        const __m512i byte_order = _mm512_set_epi8(
            12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
            12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
        return Words(_mm512_shuffle_epi8(bits_reversed, byte_order));
    }
    // values() with reverse_with_gfni(): the same bits.
    __attribute__((target("gfni"))) static void values_with_gfni(const PixelSampler& sampler, const PixelSeeds& seeds,
                                                                 uint32_t* out) {
        const Words second_mask(_mm512_set1_epi64(int64_t(0xFFFFFFFF00000000ull)));  // all ones in odd lanes
        const Words sample_reversed(sampler.sample_reversed());
        for (uint32_t base = 0; base < kSobolDimensions; base += kLanes) {
            const Words index = reverse_with_gfni(permute(sample_reversed, Words::load_aligned(seeds.pair + base)));
            const Words digits = (second_reversed(index) & second_mask) | (index & ~second_mask);
            reverse_with_gfni(permute(digits, Words::load_aligned(seeds.coordinate + base))).store_aligned(out + base);
        }
    }
#endif
};

}  // namespace
}  // namespace simd
}  // namespace farmrt
