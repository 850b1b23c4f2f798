// Where a scattered ray starts: off the surface it leaves, by more than the
// rounding of the hit point and of the next intersection test, on the side it
// leaves to (Wächter and Binder, "A Fast and Robust Method for Avoiding
// Self-Intersection", Ray Tracing Gems, 2019, with pbrt-v4's idea of scaling
// the offset by the magnitudes that the computations round at).
//
// The book instead ignores hits closer than t = 0.001. In double precision
// that works at the book's scale; in float, a hit point at coordinates of
// ~500 (the Cornell box) or on the r = 1000 ground sphere is off its surface
// by more than that along a grazing ray, so bounces re-hit the surface they
// leave, and the constant is wrong for scenes in millimetres or kilometres.
// The offset here is relative to the numbers involved, so a scene renders the
// same at any scale, and every tracer then takes hits at any t > 0.
#pragma once

#include "core/vector_math.h"

namespace farmrt {

// The unit roundoff of float (2^-24).
constexpr float kFloatRoundoff = 5.9604645e-8f;

// How many units of roundoff of the surface's magnitude (error_magnitude
// below) a new ray starts off its surface: the hit points computed below
// are within a few units of their surface, and the next ray's tests round
// within a few more (the plane distance of a quad, the sheared vertices of
// a triangle; the sphere's double test far less).
constexpr float kSpawnOffsetScale = 32.0f;

FARMRT_CPU_GPU FARMRT_INLINE float max_abs_component(const Vec3& v) {
    return max_float(max_float(fabsf(v.x), fabsf(v.y)), fabsf(v.z));
}

// The offset vector along a unit geometric normal for a surface point whose
// computation rounds at numbers up to `error_magnitude`.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 spawn_offset(const Vec3& unit_geometric_normal, float error_magnitude) {
    return (kSpawnOffsetScale * kFloatRoundoff * error_magnitude) * unit_geometric_normal;
}

// The origin of a ray leaving `point` along `direction`: the offset moves it
// to the side of the surface the ray goes to (out of a reflector, into a
// refractor).
FARMRT_CPU_GPU FARMRT_INLINE Vec3 spawn_origin(const Vec3& point, const Vec3& offset, const Vec3& direction) {
    return dot(direction, offset) >= 0.0f ? point + offset : point - offset;
}

}  // namespace farmrt
