// Philox4x32-10 (src/core/sampler.h) for several blocks of one sample at once, one
// block per 64-bit lane: each lane keeps a 32-bit word in its low half, and
// the 32 x 32 -> 64-bit multiply of the low halves (pmuludq) gives a word's
// high and low product halves in one lane. Only the low 32 bits of a lane are
// ever read, so the high halves may hold anything. Included by the kernel
// translation units only (internal linkage, like wide_traversal.h).
#pragma once

#include <xsimd/xsimd.hpp>

#include "simd/block_sampler.h"
#include "simd/simd_kernels.h"

namespace farmrt {
namespace simd {
namespace {

// The 64-bit product of each lane's low halves, and each lane's high half.
// (AVX-512: the zero-masking forms with every lane selected, because GCC 12's
// plain forms read an "undefined" register and warn under -Wall.)
FARMRT_INLINE xsimd::batch<uint64_t, xsimd::sse4_2> multiply_low_halves(xsimd::batch<uint64_t, xsimd::sse4_2> a,
                                                                        xsimd::batch<uint64_t, xsimd::sse4_2> b) {
    return _mm_mul_epu32(__m128i(a), __m128i(b));
}
FARMRT_INLINE xsimd::batch<uint64_t, xsimd::sse4_2> high_halves(xsimd::batch<uint64_t, xsimd::sse4_2> a) {
    return _mm_srli_epi64(__m128i(a), 32);
}
#if defined(__AVX2__)
FARMRT_INLINE xsimd::batch<uint64_t, xsimd::avx2> multiply_low_halves(xsimd::batch<uint64_t, xsimd::avx2> a,
                                                                      xsimd::batch<uint64_t, xsimd::avx2> b) {
    return _mm256_mul_epu32(__m256i(a), __m256i(b));
}
FARMRT_INLINE xsimd::batch<uint64_t, xsimd::avx2> high_halves(xsimd::batch<uint64_t, xsimd::avx2> a) {
    return _mm256_srli_epi64(__m256i(a), 32);
}
#endif
#if defined(__AVX512BW__)
FARMRT_INLINE xsimd::batch<uint64_t, xsimd::avx512bw> multiply_low_halves(xsimd::batch<uint64_t, xsimd::avx512bw> a,
                                                                          xsimd::batch<uint64_t, xsimd::avx512bw> b) {
    return _mm512_maskz_mul_epu32(__mmask8(0xFF), __m512i(a), __m512i(b));
}
FARMRT_INLINE xsimd::batch<uint64_t, xsimd::avx512bw> high_halves(xsimd::batch<uint64_t, xsimd::avx512bw> a) {
    return _mm512_maskz_srli_epi64(__mmask8(0xFF), __m512i(a), 32);
}
#endif

template <class Arch>
struct PhiloxLanes {
    using Words = xsimd::batch<uint64_t, Arch>;
    static constexpr int kBlocks = int(Words::size);

    // Blocks 0 .. kBlocks - 1 of (key, pixel, sample): word w of block b of
    // what philox4x32_10 returns for counter {pixel, sample, b, frame} is
    // the low half of words[w * kMaxLaneBlocks + b] (BlockSampler's layout:
    // no unpacking).
    static void blocks(const SamplerKey& key, uint32_t pixel, uint32_t sample, uint64_t* words) {
        alignas(64) uint64_t block_index[kBlocks];
        for (int i = 0; i < kBlocks; ++i) block_index[i] = uint64_t(i);
        Words v0(pixel), v1(sample), v2 = Words::load_aligned(block_index), v3(key.frame);
        uint32_t key0 = static_cast<uint32_t>(key.seed), key1 = static_cast<uint32_t>(key.seed >> 32);
        const Words m0(0xD2511F53u), m1(0xCD9E8D57u);
        for (int round = 0; round < 10; ++round) {
            const Words p0 = multiply_low_halves(v0, m0);  // high0:low0
            const Words p1 = multiply_low_halves(v2, m1);  // high1:low1
            v0 = high_halves(p1) ^ v1 ^ Words(uint64_t(key0));
            v1 = p1;
            v2 = high_halves(p0) ^ v3 ^ Words(uint64_t(key1));
            v3 = p0;
            key0 += 0x9E3779B9u;
            key1 += 0xBB67AE85u;
        }
        v0.store_aligned(words);
        v1.store_aligned(words + kMaxLaneBlocks);
        v2.store_aligned(words + 2 * kMaxLaneBlocks);
        v3.store_aligned(words + 3 * kMaxLaneBlocks);
    }
};

}  // namespace
}  // namespace simd
}  // namespace farmrt
