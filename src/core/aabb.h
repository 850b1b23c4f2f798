// Axis-aligned bounding boxes and the ray/box slab test used by BVH traversal.
#pragma once

#include "core/lanes.h"
#include "core/ray.h"

namespace farmrt {

struct Aabb {
    Vec3 lower{kInfinity, kInfinity, kInfinity};
    Vec3 upper{-kInfinity, -kInfinity, -kInfinity};

    FARMRT_CPU_GPU FARMRT_INLINE void expand(const Vec3& p) {
        lower = min_vec(lower, p);
        upper = max_vec(upper, p);
    }
    FARMRT_CPU_GPU FARMRT_INLINE void expand(const Aabb& b) {
        lower = min_vec(lower, b.lower);
        upper = max_vec(upper, b.upper);
    }
    FARMRT_CPU_GPU Vec3 centroid() const { return 0.5f * (lower + upper); }
    FARMRT_CPU_GPU bool empty() const { return lower.x > upper.x || lower.y > upper.y || lower.z > upper.z; }
    FARMRT_CPU_GPU float surface_area() const {
        if (empty()) return 0.0f;
        const Vec3 d = upper - lower;
        return 2.0f * (d.x * d.y + d.y * d.z + d.z * d.x);
    }
    FARMRT_CPU_GPU int largest_axis() const {
        const Vec3 d = upper - lower;
        return (d.x >= d.y && d.x >= d.z) ? 0 : (d.y >= d.z ? 1 : 2);
    }
};

// The slab test widens each exit by float rounding error (pbrt's
// 1 + 2 gamma(3)) so that rounding never makes a ray slip between the boxes
// of adjacent primitives. Every traversal drops postponed nodes by the same
// factor.
constexpr float kSlabExitWidening = 1.00000036f;

// The larger and smaller of two plane distances, the second never NaN. A
// plane distance is NaN where a ray parallel to a slab starts on its plane
// (0 x infinity), and then stands for no bound on that axis: the ray counts
// as inside the slab, a conservative answer. On the CPU max_float's and
// min_float's rule (x86's maxps, minps: lanes.h) gives the second operand
// when the first is NaN; on the GPU fmaxf and fminf, one instruction each
// instead of a compare and a select, give the other operand when either is.
// With the second never NaN they pick the same distance (up to the sign of a
// zero, which decides nothing: a kept entry is at least t_min > 0).
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE Real slab_max(const Real& a, const Real& b) {
    return LaneOps<Real>::max(a, b);
}
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE Real slab_min(const Real& a, const Real& b) {
    return LaneOps<Real>::min(a, b);
}
FARMRT_CPU_GPU FARMRT_INLINE float slab_max(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fmaxf(a, b);
#else
    return max_float(a, b);
#endif
}
FARMRT_CPU_GPU FARMRT_INLINE float slab_min(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fminf(a, b);
#else
    return min_float(a, b);
#endif
}

// The slab test, written once for every tracer over a lane type (lanes.h):
// from the six plane distances, whether the slabs overlap within
// [t_min, t_max], and where that overlap begins (`entry`).
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneMask<Real> slab_overlap(const Real& tx0, const Real& tx1, const Real& ty0,
                                                         const Real& ty1, const Real& tz0, const Real& tz1,
                                                         const Real& t_min, const Real& t_max, Real& entry) {
    // A chain, each distance against the bound so far, which is never NaN
    // (t_min and t_max never are): the order every tracer shares.
    entry = slab_max(tx0, slab_max(ty0, slab_max(tz0, t_min)));
    const Real exit = slab_min(tx1, slab_min(ty1, slab_min(tz1, t_max))) * Real(kSlabExitWidening);
    return entry <= exit;
}

// The same from a box's near and far planes (per axis, the plane the ray
// enters by and the one it leaves by) and the ray's origin and reciprocal
// direction: the scalar tester below, the wide BVH's children (one child per
// lane) and the camera packets (one ray per lane).
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneMask<Real> slab_test(const LaneVec3<Real>& near, const LaneVec3<Real>& far,
                                                      const LaneVec3<Real>& origin,
                                                      const LaneVec3<Real>& inverse_direction, const Real& t_min,
                                                      const Real& t_max, Real& entry) {
    return slab_overlap((near.x - origin.x) * inverse_direction.x, (far.x - origin.x) * inverse_direction.x,
                        (near.y - origin.y) * inverse_direction.y, (far.y - origin.y) * inverse_direction.y,
                        (near.z - origin.z) * inverse_direction.z, (far.z - origin.z) * inverse_direction.z, t_min,
                        t_max, entry);
}

// Precomputed per-ray values for the slab test.
struct RayBoxTester {
    Vec3 origin;
    Vec3 inverse_direction;
    int direction_negative[3];

    FARMRT_CPU_GPU FARMRT_INLINE explicit RayBoxTester(const Ray& ray) : origin(ray.origin) {
        inverse_direction = Vec3(1.0f / ray.direction.x, 1.0f / ray.direction.y, 1.0f / ray.direction.z);
        direction_negative[0] = inverse_direction.x < 0;
        direction_negative[1] = inverse_direction.y < 0;
        direction_negative[2] = inverse_direction.z < 0;
    }

    // The slabs' overlap within [t_min, t_max]: its entry, or kInfinity when empty.
    FARMRT_CPU_GPU FARMRT_INLINE static float overlap_entry(float t0, float t1, float ty0, float ty1, float tz0,
                                                            float tz1, float t_min, float t_max) {
        float entry;
        return slab_overlap(t0, t1, ty0, ty1, tz0, tz1, t_min, t_max, entry) ? entry : kInfinity;
    }

    // Entry distance into the box within [t_min, t_max], or kInfinity on a miss.
    // (slab_test's distances, each plane picked where it is used: materialising
    // the near and far corners first cost the scalar tracer 6% of a frame.)
    FARMRT_CPU_GPU FARMRT_INLINE float entry(const Aabb& box, float t_min, float t_max) const {
        const Vec3& lo = box.lower;
        const Vec3& hi = box.upper;
        const float tx0 = ((direction_negative[0] ? hi.x : lo.x) - origin.x) * inverse_direction.x;
        const float tx1 = ((direction_negative[0] ? lo.x : hi.x) - origin.x) * inverse_direction.x;
        const float ty0 = ((direction_negative[1] ? hi.y : lo.y) - origin.y) * inverse_direction.y;
        const float ty1 = ((direction_negative[1] ? lo.y : hi.y) - origin.y) * inverse_direction.y;
        const float tz0 = ((direction_negative[2] ? hi.z : lo.z) - origin.z) * inverse_direction.z;
        const float tz1 = ((direction_negative[2] ? lo.z : hi.z) - origin.z) * inverse_direction.z;
        return overlap_entry(tx0, tx1, ty0, ty1, tz0, tz1, t_min, t_max);
    }

    // entry() with each plane distance as one fused multiply-add, plane *
    // (1 / d) - origin / d: half the arithmetic, for the GPU's fast-math
    // kernel only. It rounds differently from entry() (the product origin / d
    // is rounded once more), so traversal with it is not bit-identical to the
    // CPU's: boxes far thinner than 1e-7 of the origin's distance from zero
    // could be missed at their edges.
    FARMRT_CPU_GPU float entry_fused(const Aabb& box, float t_min, float t_max) const {
        const Vec3& lo = box.lower;
        const Vec3& hi = box.upper;
        const Vec3 scaled_origin = origin * inverse_direction;  // recomputed; the compiler hoists it out of loops
        float t0 = fused_multiply_add(direction_negative[0] ? hi.x : lo.x, inverse_direction.x, -scaled_origin.x);
        float t1 = fused_multiply_add(direction_negative[0] ? lo.x : hi.x, inverse_direction.x, -scaled_origin.x);
        const float ty0 =
            fused_multiply_add(direction_negative[1] ? hi.y : lo.y, inverse_direction.y, -scaled_origin.y);
        const float ty1 =
            fused_multiply_add(direction_negative[1] ? lo.y : hi.y, inverse_direction.y, -scaled_origin.y);
        const float tz0 =
            fused_multiply_add(direction_negative[2] ? hi.z : lo.z, inverse_direction.z, -scaled_origin.z);
        const float tz1 =
            fused_multiply_add(direction_negative[2] ? lo.z : hi.z, inverse_direction.z, -scaled_origin.z);
        return overlap_entry(t0, t1, ty0, ty1, tz0, tz1, t_min, t_max);
    }
};

}  // namespace farmrt
