// Philox4x32-10 for several blocks of one sample at once: the core's rounds
// (philox4x32_10_rounds, src/core/sampler.h) over batches of 64-bit lanes, one
// block per lane. Each lane keeps a 32-bit word in its low half, and the
// 32 x 32 -> 64-bit multiply of the low halves (pmuludq) gives a word's high
// and low product halves in one lane. Only the low 32 bits of a lane are ever
// read, so the high halves may hold anything. Included by the kernel
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

}  // namespace
}  // namespace simd

// Batches of 64-bit lanes as the core's lane type of 32-bit words.
template <class Arch>
struct LaneOps<xsimd::batch<uint64_t, Arch>> {
    using Words = xsimd::batch<uint64_t, Arch>;
    static FARMRT_INLINE void multiply_high_low(const Words& a, const Words& b, Words& high, Words& low) {
        low = simd::multiply_low_halves(a, b);
        high = simd::high_halves(low);
    }
};

namespace simd {
namespace {

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
        philox4x32_10_rounds(v0, v1, v2, v3, static_cast<uint32_t>(key.seed), static_cast<uint32_t>(key.seed >> 32));
        v0.store_aligned(words);
        v1.store_aligned(words + kMaxLaneBlocks);
        v2.store_aligned(words + 2 * kMaxLaneBlocks);
        v3.store_aligned(words + 3 * kMaxLaneBlocks);
    }
};

}  // namespace
}  // namespace simd
}  // namespace farmrt
