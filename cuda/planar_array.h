// An array of structures stored as planes of words, so that a warp's lanes,
// reading or writing the same member of neighbouring elements, touch
// neighbouring addresses. The split kernels keep their paths' state so.
//
// As an array of structures, each lane's 4-byte access of a 76-byte path
// state is a sector of its own: a warp's load of one member moves 32
// sectors for 128 useful bytes, and a store writes 32 partial sectors to L2.
// Nsight Compute measured 4.5 useful bytes a sector of the shading kernel's
// loads (4.1 of its stores) and its L2 crossbar 67% busy (cornell.yaml, one
// H200). In planes, a warp's access of a word is 128 contiguous bytes.
//
// Layout: the element's first 16-byte groups of words, each in a plane of
// uint4 (one 16-byte load or store a lane), then its remaining words, each in
// a plane of uint32. Plane p of n elements starts at element p * n.
#pragma once

#include <vector_functions.h>
#include <vector_types.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

// 16-byte planes load a path state in 7 instructions instead of 19, but
// hold each group's 4 registers at once. -DFARMRT_PLANAR_QUADS=0 measures
// 4-byte planes only (each member loaded where it is used, as an array of
// structures is).
#if !defined(FARMRT_PLANAR_QUADS)
#define FARMRT_PLANAR_QUADS 1
#endif

namespace farmrt {

template <class T>
struct PlanarArray {
    static_assert(std::is_trivially_copyable<T>::value, "elements are copied as words");
    static_assert(sizeof(T) % 4 == 0, "elements are whole words");
    // Counts as ints: loops over them compare signed numbers (nvcc warns of
    // an unsigned comparison with a count of zero).
    static constexpr int kWords = int(sizeof(T) / 4);
    static constexpr int kQuads = FARMRT_PLANAR_QUADS ? kWords / 4 : 0;  // 16-byte planes
    static constexpr int kTail = kWords - 4 * kQuads;                    // 4-byte planes after them

    uint32_t* words = nullptr;  // sizeof(T) * capacity bytes, 16-byte aligned
    uint32_t capacity = 0;

    static size_t bytes(uint32_t count) { return size_t(count) * sizeof(T); }

#if defined(__CUDACC__)  // the accessors run on the device only

    __device__ __forceinline__ T load(uint32_t i) const {
        uint32_t w[kWords];
        load_words<0, kWords>(i, w);
        T value;
        memcpy(&value, w, sizeof(T));
        return value;
    }

    __device__ __forceinline__ void store(uint32_t i, const T& value) const {
        uint32_t w[kWords];
        memcpy(w, &value, sizeof(T));
#pragma unroll
        for (int q = 0; q < kQuads; ++q) quad(q, i) = make_uint4(w[4 * q], w[4 * q + 1], w[4 * q + 2], w[4 * q + 3]);
#pragma unroll
        for (int t = 0; t < kTail; ++t) tail(t, i) = w[4 * kQuads + t];
    }

    // The member of type M at byte kOffset (offsetof) of element i: the
    // 16-byte groups that hold it are read whole.
    template <class M, size_t kOffset>
    __device__ __forceinline__ M load_member(uint32_t i) const {
        static_assert(kOffset % 4 == 0 && sizeof(M) % 4 == 0 && kOffset + sizeof(M) <= sizeof(T), "a member of words");
        constexpr int first = int(kOffset / 4), count = int(sizeof(M) / 4);
        uint32_t w[kWords];
        load_words<first, count>(i, w);
        M value;
        memcpy(&value, w + first, sizeof(M));
        return value;
    }

    // Writes only the member's words.
    template <class M, size_t kOffset>
    __device__ __forceinline__ void store_member(uint32_t i, const M& value) const {
        static_assert(kOffset % 4 == 0 && sizeof(M) % 4 == 0 && kOffset + sizeof(M) <= sizeof(T), "a member of words");
        constexpr int first = int(kOffset / 4), count = int(sizeof(M) / 4);
        uint32_t w[count];
        memcpy(w, &value, sizeof(M));
#pragma unroll
        for (int k = 0; k < count; ++k) word(first + k, i) = w[k];
    }

private:
    // Element i's 16-byte group q, and its word 4 * kQuads + t.
    __device__ __forceinline__ uint4& quad(int q, uint32_t i) const {
        return reinterpret_cast<uint4*>(words)[size_t(q) * capacity + i];
    }
    __device__ __forceinline__ uint32_t& tail(int t, uint32_t i) const {
        return words[size_t(4 * kQuads + t) * capacity + i];
    }
    __device__ __forceinline__ uint32_t& word(int k, uint32_t i) const {
        return k < 4 * kQuads ? reinterpret_cast<uint32_t*>(&quad(k / 4, i))[k % 4] : tail(k - 4 * kQuads, i);
    }

    // Fills w[k] for k in [kFirst, kFirst + kCount) (and the rest of their 16-byte groups).
    template <int kFirst, int kCount>
    __device__ __forceinline__ void load_words(uint32_t i, uint32_t* w) const {
#pragma unroll
        for (int q = 0; q < kQuads; ++q) {
            if (4 * q + 4 <= kFirst || 4 * q >= kFirst + kCount) continue;
            const uint4 v = quad(q, i);
            w[4 * q] = v.x;
            w[4 * q + 1] = v.y;
            w[4 * q + 2] = v.z;
            w[4 * q + 3] = v.w;
        }
#pragma unroll
        for (int t = 0; t < kTail; ++t) {
            const int k = 4 * kQuads + t;
            if (k >= kFirst && k < kFirst + kCount) w[k] = tail(t, i);
        }
    }
#endif
};

}  // namespace farmrt
