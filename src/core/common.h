// Definitions shared by every backend: the marker for code that runs on both
// the CPU and the GPU, and a few small numeric helpers.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FARMRT_CPU_GPU __host__ __device__
#define FARMRT_INLINE __forceinline__
#else
#define FARMRT_CPU_GPU
#define FARMRT_INLINE inline __attribute__((always_inline))
#endif

namespace farmrt {

constexpr float kPi = 3.14159265358979323846f;
// Rays take hits at t > kMinHitDistance. The book's 0.001 kept scattered rays
// from re-hitting the surface they start on, at one scene scale only; rays
// now start off their surface by its own rounding (ray_spawn.h), so every
// hit in front of the origin counts, at any scale.
constexpr float kMinHitDistance = 0.0f;
constexpr float kInfinity = 3.402823466e+38f;

FARMRT_CPU_GPU FARMRT_INLINE float min_float(float a, float b) { return a < b ? a : b; }
FARMRT_CPU_GPU FARMRT_INLINE float max_float(float a, float b) { return a > b ? a : b; }
// The bit pattern of a float, alike on host and device.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
#endif
}

// The smallest float above x (nextafterf(x, +inf) without the library call):
// closest-hit queries use it to turn "t < t_max" into "t <= t_max".
FARMRT_CPU_GPU FARMRT_INLINE float next_float_up(float x) {
    if (x != x || x > 3.40282347e+38f) return x;  // NaN and +inf stay
    if (x == 0.0f) x = 0.0f;                      // -0 -> +0, whose successor is the smallest denormal
    uint32_t bits;
#if defined(__CUDA_ARCH__)
    bits = __float_as_uint(x);
#else
    std::memcpy(&bits, &x, sizeof bits);
#endif
    bits = x >= 0.0f ? bits + 1 : bits - 1;
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    std::memcpy(&x, &bits, sizeof bits);
    return x;
#endif
}
// next_float_up for x >= +0, not NaN (a hit's distance: t > t_min >= 0, or
// kInfinity): the next bit pattern, the same float in two instructions
// (the closest-hit bound takes it for every primitive tested).
FARMRT_CPU_GPU FARMRT_INLINE float next_float_up_nonnegative(float x) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(__float_as_uint(x) + 1u);
#else
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits += 1u;
    std::memcpy(&x, &bits, sizeof bits);
    return x;
#endif
}
// The largest float below a positive finite x (x > 0).
FARMRT_CPU_GPU FARMRT_INLINE float next_float_down(float x) {
    uint32_t bits;
#if defined(__CUDA_ARCH__)
    bits = __float_as_uint(x) - 1;
    return __uint_as_float(bits);
#else
    std::memcpy(&bits, &x, sizeof bits);
    --bits;
    std::memcpy(&x, &bits, sizeof bits);
    return x;
#endif
}
// a * b + c rounded once (only the GPU fast-math kernel uses it: the CPU
// build and the exact kernel never fuse).
FARMRT_CPU_GPU FARMRT_INLINE float fused_multiply_add(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return __builtin_fmaf(a, b, c);
#endif
}
FARMRT_CPU_GPU FARMRT_INLINE float clamp_float(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

}  // namespace farmrt
