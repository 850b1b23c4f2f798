// Definitions shared by every backend: the marker for code that runs on both
// the CPU and the GPU, and a few small numeric helpers.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FARMRT_CPU_GPU __host__ __device__
#define FARMRT_INLINE __forceinline__
#else
#define FARMRT_CPU_GPU
#define FARMRT_INLINE inline __attribute__((always_inline))
#endif

namespace farmrt {

constexpr float kPi = 3.14159265358979323846f;
// Hits closer than this are ignored, as in "Ray Tracing in One Weekend":
// it keeps a scattered ray from re-hitting the surface it starts on.
constexpr float kMinHitDistance = 0.001f;
constexpr float kInfinity = 3.402823466e+38f;

FARMRT_CPU_GPU FARMRT_INLINE float min_float(float a, float b) { return a < b ? a : b; }
FARMRT_CPU_GPU FARMRT_INLINE float max_float(float a, float b) { return a > b ? a : b; }
FARMRT_CPU_GPU FARMRT_INLINE float clamp_float(float x, float lo, float hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

}  // namespace farmrt
