// The lane type the tracers' math is written over. A function of the core
// written once as a template over `Real` (a float lane) runs as
//   - scalar code, Real = float, Mask = bool: the scalar tracer and the GPU;
//   - SIMD code, Real = an xsimd batch of floats (simd/lane_batches.h adds
//     that LaneOps): one ray or one primitive per lane.
// Each lane performs the same float operations in the same order as the
// scalar code, so every backend gets the same bits (the build turns off
// floating-point contraction everywhere). Masks combine with && and ||,
// which batches evaluate lane-wise and bools as usual, and are inverted by
// LaneOps::negate (a batch's operator! is a comparison, its ~ one bitwise not).
#pragma once

#include <cmath>

#include "core/vector_math.h"

namespace farmrt {

// What a lane type must offer beyond arithmetic and comparisons.
template <class Real>
struct LaneOps;

template <>
struct LaneOps<float> {
    using Mask = bool;
    FARMRT_CPU_GPU static FARMRT_INLINE float select(bool mask, float a, float b) { return mask ? a : b; }
    FARMRT_CPU_GPU static FARMRT_INLINE float abs(float x) { return fabsf(x); }
    // max_float's and min_float's rule (x86's maxps and minps): the second
    // operand when the first is not larger (smaller), NaN included.
    FARMRT_CPU_GPU static FARMRT_INLINE float max(float a, float b) { return max_float(a, b); }
    FARMRT_CPU_GPU static FARMRT_INLINE float min(float a, float b) { return min_float(a, b); }
    FARMRT_CPU_GPU static FARMRT_INLINE bool none(bool mask) { return !mask; }
    FARMRT_CPU_GPU static FARMRT_INLINE bool negate(bool mask) { return !mask; }
    // a * b - c * d with each product rounded on its own: no fused
    // multiply-add, on any backend, so that the same edge evaluated from
    // either of the two triangles sharing it gives exactly opposite values
    // (the watertight triangle test, primitives.h).
    FARMRT_CPU_GPU static FARMRT_INLINE float difference_of_products(float a, float b, float c, float d) {
#if defined(__CUDA_ARCH__)
        return __fsub_rn(__fmul_rn(a, b), __fmul_rn(c, d));
#else
        return a * b - c * d;
#endif
    }
};

template <class Real>
using LaneMask = typename LaneOps<Real>::Mask;

// A 3-vector of lanes: x, y and z each a Real. dot and cross add and multiply
// in Vec3's order, so LaneVec3<float> gives Vec3's bits.
template <class Real>
struct LaneVec3 {
    Real x, y, z;
};

FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<float> lanes_of(const Vec3& v) { return {v.x, v.y, v.z}; }

template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<Real> operator+(const LaneVec3<Real>& a, const LaneVec3<Real>& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<Real> operator-(const LaneVec3<Real>& a, const LaneVec3<Real>& b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<Real> operator*(const LaneVec3<Real>& a, const Real& s) {
    return {a.x * s, a.y * s, a.z * s};
}
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE Real dot(const LaneVec3<Real>& a, const LaneVec3<Real>& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<Real> cross(const LaneVec3<Real>& a, const LaneVec3<Real>& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

}  // namespace farmrt
