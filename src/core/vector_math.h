// Three-component float vectors: points, directions and RGB colors.
#pragma once

#include <cmath>

#include "core/common.h"

namespace farmrt {

struct Vec3 {
    float x = 0, y = 0, z = 0;

    Vec3() = default;  // defaulted: host and device alike
    FARMRT_CPU_GPU constexpr Vec3(float x_, float y_, float z_) : x(x_), y(y_), z(z_) {}
    FARMRT_CPU_GPU explicit constexpr Vec3(float v) : x(v), y(v), z(v) {}

    FARMRT_CPU_GPU float operator[](int axis) const { return axis == 0 ? x : (axis == 1 ? y : z); }
    FARMRT_CPU_GPU float& operator[](int axis) { return axis == 0 ? x : (axis == 1 ? y : z); }
    FARMRT_CPU_GPU FARMRT_INLINE Vec3 operator-() const { return {-x, -y, -z}; }
    FARMRT_CPU_GPU Vec3& operator+=(const Vec3& o) {
        x += o.x;
        y += o.y;
        z += o.z;
        return *this;
    }
    FARMRT_CPU_GPU Vec3& operator*=(const Vec3& o) {
        x *= o.x;
        y *= o.y;
        z *= o.z;
        return *this;
    }
    FARMRT_CPU_GPU Vec3& operator*=(float s) {
        x *= s;
        y *= s;
        z *= s;
        return *this;
    }
};

FARMRT_CPU_GPU FARMRT_INLINE Vec3 operator+(const Vec3& a, const Vec3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
FARMRT_CPU_GPU FARMRT_INLINE Vec3 operator-(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
FARMRT_CPU_GPU FARMRT_INLINE Vec3 operator*(const Vec3& a, const Vec3& b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
FARMRT_CPU_GPU FARMRT_INLINE Vec3 operator*(const Vec3& a, float s) { return {a.x * s, a.y * s, a.z * s}; }
FARMRT_CPU_GPU FARMRT_INLINE Vec3 operator*(float s, const Vec3& a) { return {a.x * s, a.y * s, a.z * s}; }
FARMRT_CPU_GPU FARMRT_INLINE Vec3 operator/(const Vec3& a, float s) { return {a.x / s, a.y / s, a.z / s}; }

FARMRT_CPU_GPU FARMRT_INLINE float dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
FARMRT_CPU_GPU FARMRT_INLINE Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
FARMRT_CPU_GPU FARMRT_INLINE float length_squared(const Vec3& a) { return dot(a, a); }
FARMRT_CPU_GPU FARMRT_INLINE float length(const Vec3& a) { return sqrtf(dot(a, a)); }
FARMRT_CPU_GPU FARMRT_INLINE Vec3 unit_vector(const Vec3& a) { return a / length(a); }
FARMRT_CPU_GPU FARMRT_INLINE Vec3 min_vec(const Vec3& a, const Vec3& b) {
    return {min_float(a.x, b.x), min_float(a.y, b.y), min_float(a.z, b.z)};
}
FARMRT_CPU_GPU FARMRT_INLINE Vec3 max_vec(const Vec3& a, const Vec3& b) {
    return {max_float(a.x, b.x), max_float(a.y, b.y), max_float(a.z, b.z)};
}
FARMRT_CPU_GPU FARMRT_INLINE bool near_zero(const Vec3& a) {
    const float s = 1e-8f;
    return fabsf(a.x) < s && fabsf(a.y) < s && fabsf(a.z) < s;
}
// Mirror reflection of v about the unit normal n.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 reflect(const Vec3& v, const Vec3& n) { return v - 2.0f * dot(v, n) * n; }
// Snell's law for a unit incident direction; eta_ratio = eta_incident / eta_transmitted.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 refract(const Vec3& unit_direction, const Vec3& n, float eta_ratio) {
    const float cos_theta = min_float(dot(-unit_direction, n), 1.0f);
    const Vec3 perpendicular = eta_ratio * (unit_direction + cos_theta * n);
    const Vec3 parallel = -sqrtf(fabsf(1.0f - length_squared(perpendicular))) * n;
    return perpendicular + parallel;
}

using Color = Vec3;

}  // namespace farmrt
