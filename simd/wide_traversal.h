// Wide-BVH traversal and packet intersection, written once over xsimd batches
// and compiled once per instruction set (kernels_sse42.cpp, kernels_avx2.cpp,
// kernels_avx512.cpp). Include it from those files only: everything here has
// internal linkage so that each copy keeps its own instruction set.
//
// Bit-identical to the scalar core (src/core/scene.h, src/core/primitives.h): every
// lane performs the scalar code's float operations in the scalar code's order
// (-ffp-contract=off, true divisions and square roots, min/max with the same
// NaN rule), and the closest hit is the smallest (t, PrimitiveRef) pair, which
// does not depend on the order in which boxes and packets are visited.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cmath>

#include "core/occlusion.h"
#include "simd/simd_kernels.h"
#include "simd/wide_bvh.h"

namespace farmrt {
namespace simd {
namespace {

// ---- vector types (Embree style: the width is a property of the types) ----

template <class Arch>
struct Lanes {
    using Float = xsimd::batch<float, Arch>;
    using Int = xsimd::batch<int32_t, Arch>;
    using Mask = xsimd::batch_bool<float, Arch>;
    static constexpr int kWidth = int(Float::size);

    static FARMRT_INLINE Float load(const float* p) { return Float::load_aligned(p); }
    // Unsigned order of PrimitiveRef bits through a signed compare: flip the top bit.
    static FARMRT_INLINE Mask refs_below(const uint32_t* refs, uint32_t bound) {
        const Int flip(int32_t(0x80000000u));
        const Int lanes = Int::load_aligned(reinterpret_cast<const int32_t*>(refs)) ^ flip;
        return xsimd::bool_cast(lanes < (Int(int32_t(bound)) ^ flip));
    }
};

// One bit per lane, lane 0 in bit 0. (One overload per instruction set this
// translation unit is compiled for; with -march=native there may be several.)
FARMRT_INLINE uint32_t mask_bits(xsimd::batch_bool<float, xsimd::sse4_2> m) {
    return uint32_t(_mm_movemask_ps(__m128(m)));
}
#if defined(__AVX2__)
FARMRT_INLINE uint32_t mask_bits(xsimd::batch_bool<float, xsimd::avx2> m) {
    return uint32_t(_mm256_movemask_ps(__m256(m)));
}
#endif
#if defined(__AVX512BW__)
FARMRT_INLINE uint32_t mask_bits(xsimd::batch_bool<float, xsimd::avx512bw> m) {
    return uint32_t(__mmask16(m));
}
#endif

FARMRT_INLINE int lowest_bit(uint32_t bits) { return __builtin_ctz(bits); }

// ---- the ray, broadcast, and the closest hit so far -----------------------

template <class Arch>
struct RayLanes {
    using Float = typename Lanes<Arch>::Float;
    Float origin[3], direction[3], inverse_direction[3];
    Float time, direction_length_squared, t_min;
    int near_plane[3], far_plane[3];  // rows of WideNode::bounds
    TriangleRayFrame triangle_frame;  // the watertight triangle test's permutation and shear
    Float shear_x, shear_y, shear_z;
    Ray scalar;  // the ray itself, for the lanes and instances that the scalar core handles
    // RayBoxTester's values, one row per 128-bit register (x, y, z, 0), for
    // lane_hit_within_bounds.
    __m128 box_origin, box_inverse_direction, box_negative;
    float scalar_t_min;
    float scalar_direction_length_squared;

    // `triangles`: whether the scene has triangle packets (the watertight
    // test's per-ray frame costs three divisions, so sphere scenes skip it).
    FARMRT_INLINE RayLanes(const Ray& ray, float t_min_, bool triangles) {
        const RayBoxTester box_tester(ray);
        // RayBoxTester's reciprocal and sign test, in every lane.
        for (int axis = 0; axis < 3; ++axis) {
            origin[axis] = Float(ray.origin[axis]);
            direction[axis] = Float(ray.direction[axis]);
            inverse_direction[axis] = Float(box_tester.inverse_direction[axis]);
            const int negative = box_tester.direction_negative[axis];
            near_plane[axis] = 2 * axis + negative;
            far_plane[axis] = 2 * axis + 1 - negative;
        }
        const Vec3& inverse = box_tester.inverse_direction;
        box_origin = _mm_setr_ps(ray.origin.x, ray.origin.y, ray.origin.z, 0.0f);
        box_inverse_direction = _mm_setr_ps(inverse.x, inverse.y, inverse.z, 0.0f);
        box_negative = _mm_cmplt_ps(box_inverse_direction, _mm_setzero_ps());  // as direction_negative
        time = Float(ray.time);
        scalar_direction_length_squared = length_squared(ray.direction);
        direction_length_squared = Float(scalar_direction_length_squared);
        t_min = Float(t_min_);
        scalar = ray;
        scalar_t_min = t_min_;
        if (triangles) {
            triangle_frame = triangle_ray_frame(ray.direction);
            shear_x = Float(triangle_frame.shear_x);
            shear_y = Float(triangle_frame.shear_y);
            shear_z = Float(triangle_frame.shear_z);
        } else {
            triangle_frame = TriangleRayFrame{0, 1, 2, 0.0f, 0.0f, 0.0f, false};
        }
    }
};

struct Closest {
    float t;
    uint32_t ref;  // the hit's key: top_level_key() of src/core/scene.h
    float u, v;
    float t_inclusive;  // next_float_up(t): the bound for smaller references
    bool found;
    uint32_t primitive;  // Hit::primitive (inside an instance: the primitive there)
    uint32_t instance;   // Hit::instance

    static Closest from(const Hit& hit) {
        return Closest{hit.t, top_level_key(hit), hit.u, hit.v, next_float_up(hit.t), false, hit.primitive.bits,
                       hit.instance};
    }
    Hit to_hit() const {
        Hit hit;
        hit.t = t;
        hit.primitive.bits = primitive;
        hit.u = u;
        hit.v = v;
        hit.instance = instance;
        return hit;
    }
    // A sphere hit that passed this closest hit's bound.
    void take_sphere(float t_, uint32_t ref_) {
        t = t_;
        ref = ref_;
        u = 0.0f;
        v = 0.0f;
        t_inclusive = next_float_up(t_);
        found = true;
        primitive = ref_;
        instance = kNoInstance;
    }
    void take(const Hit& hit) {
        t = hit.t;
        ref = top_level_key(hit);
        u = hit.u;
        v = hit.v;
        t_inclusive = next_float_up(hit.t);
        found = true;
        primitive = hit.primitive.bits;
        instance = hit.instance;
    }
};

// The scalar test's t_max per lane (closest_hit_bound in src/core/scene.h).
template <class Arch>
FARMRT_INLINE typename Lanes<Arch>::Float lane_bounds(const uint32_t* refs, const Closest& closest) {
    using Float = typename Lanes<Arch>::Float;
    return xsimd::select(Lanes<Arch>::refs_below(refs, closest.ref), Float(closest.t_inclusive), Float(closest.t));
}

// Every lane in `bits` hit closer than the closest hit (by the scalar rule);
// keep the smallest (t, ref) among them.
template <class Arch>
FARMRT_INLINE void take_closest(uint32_t bits, const typename Lanes<Arch>::Float& t, const uint32_t* refs,
                                const typename Lanes<Arch>::Float* u, const typename Lanes<Arch>::Float* v,
                                Closest& closest) {
    constexpr int W = Lanes<Arch>::kWidth;
    alignas(64) float ts[W], us[W], vs[W];
    t.store_aligned(ts);
    if (u) {
        u->store_aligned(us);
        v->store_aligned(vs);
    }
    int best = -1;
    float best_t = closest.t;
    uint32_t best_ref = closest.ref;
    if ((bits & (bits - 1)) == 0) {  // one lane (the usual case): it passed the bound, so it is closer
        best = lowest_bit(bits);
        best_t = ts[best];
        best_ref = refs[best];
        bits = 0;
    }
    for (; bits; bits &= bits - 1) {
        const int lane = lowest_bit(bits);
        if (ts[lane] < best_t || (ts[lane] == best_t && refs[lane] < best_ref)) {
            best = lane;
            best_t = ts[lane];
            best_ref = refs[lane];
        }
    }
    if (best < 0) return;
    closest.t = best_t;
    closest.ref = best_ref;
    closest.u = u ? us[best] : 0.0f;
    closest.v = u ? vs[best] : 0.0f;
    closest.t_inclusive = next_float_up(best_t);
    closest.found = true;
    closest.primitive = best_ref;
    closest.instance = kNoInstance;
}

// ---- primitive packets: the scalar tests of src/core/primitives.h, lane-wise ----

// The triangle in one lane of a packet (the scalar test of on-edge lanes).
template <int W>
FARMRT_INLINE Triangle packet_lane_triangle(const TrianglePacket<W>& p, int lane) {
    Triangle triangle{};
    for (int axis = 0; axis < 3; ++axis) {
        triangle.vertex0[axis] = p.vertex0[axis][lane];
        triangle.vertex1[axis] = p.vertex1[axis][lane];
        triangle.vertex2[axis] = p.vertex2[axis][lane];
    }
    return triangle;
}

// hit_within_bounds (src/core/primitives.h) for a packet lane's box (built by
// bounds_of, so the scalar core's box), one axis per lane of a 128-bit
// register: RayBoxTester::entry's operations on the same values in the same
// order (max(max(x, y), max(z, t_min)), the exits likewise), so the same
// answer from a third of the instructions.
template <class Arch>
FARMRT_INLINE bool lane_hit_within_bounds(const RayLanes<Arch>& ray, const LaneBox& box, float t) {
    const __m128 lower = _mm_load_ps(box.lower), upper = _mm_load_ps(box.upper);
    const __m128 near = _mm_blendv_ps(lower, upper, ray.box_negative);
    const __m128 far = _mm_blendv_ps(upper, lower, ray.box_negative);
    // (t_x, t_y, t_z, bound): the planes' distances, t_min or t in the last lane.
    const __m128 entries = _mm_blend_ps(_mm_mul_ps(_mm_sub_ps(near, ray.box_origin), ray.box_inverse_direction),
                                        _mm_set1_ps(ray.scalar_t_min), 8);
    const __m128 exits =
        _mm_blend_ps(_mm_mul_ps(_mm_sub_ps(far, ray.box_origin), ray.box_inverse_direction), _mm_set1_ps(t), 8);
    // (x, z) against (y, bound), then the two results.
    const __m128 entry_pairs = _mm_max_ps(_mm_shuffle_ps(entries, entries, _MM_SHUFFLE(2, 0, 2, 0)),
                                          _mm_shuffle_ps(entries, entries, _MM_SHUFFLE(3, 1, 3, 1)));
    const __m128 exit_pairs = _mm_min_ps(_mm_shuffle_ps(exits, exits, _MM_SHUFFLE(2, 0, 2, 0)),
                                         _mm_shuffle_ps(exits, exits, _MM_SHUFFLE(3, 1, 3, 1)));
    const float entry = _mm_cvtss_f32(_mm_max_ss(entry_pairs, _mm_movehdup_ps(entry_pairs)));
    const float exit = _mm_cvtss_f32(_mm_min_ss(exit_pairs, _mm_movehdup_ps(exit_pairs))) * kSlabExitWidening;
    return entry <= exit;
}

// The lanes of `bits` whose hit at `t` passes hit_within_bounds, as the
// scalar core accepts hits (rare misses: rounding outside the lane's box).
template <class Arch>
FARMRT_INLINE uint32_t hits_within_bounds(uint32_t bits, const LaneBox* boxes, const typename Lanes<Arch>::Float& t,
                                          const RayLanes<Arch>& ray) {
    alignas(64) float ts[Lanes<Arch>::kWidth];
    t.store_aligned(ts);
    for (uint32_t rest = bits; rest; rest &= rest - 1) {
        const int lane = lowest_bit(rest);
        if (!lane_hit_within_bounds(ray, boxes[lane], ts[lane])) bits &= ~(1u << lane);
    }
    return bits;
}

// Each packet test takes the packet's lane boxes (`boxes`: WideBvhView's
// sphere_boxes, quad_boxes or triangle_boxes from this packet's first lane).
// `moving`: WideBvhView::spheres_move.
template <class Arch, int W>
FARMRT_INLINE void intersect_packet(const SpherePacket<W>& p, const LaneBox* boxes, bool moving, uint32_t lanes,
                                    const RayLanes<Arch>& ray, Closest& closest) {
    using L = Lanes<Arch>;
    using Float = typename L::Float;
    // center_at(time) = center + time * velocity (the centre itself unless
    // `moving`); oc = center - origin.
    Float cx = L::load(p.center[0]), cy = L::load(p.center[1]), cz = L::load(p.center[2]);
    if (moving) {
        cx = cx + L::load(p.velocity[0]) * ray.time;
        cy = cy + L::load(p.velocity[1]) * ray.time;
        cz = cz + L::load(p.velocity[2]) * ray.time;
    }
    const Float ocx = cx - ray.origin[0], ocy = cy - ray.origin[1], ocz = cz - ray.origin[2];
    const Float& a = ray.direction_length_squared;
    const Float h = (ray.direction[0] * ocx + ray.direction[1] * ocy) + ray.direction[2] * ocz;
    const Float oc_squared = (ocx * ocx + ocy * ocy) + ocz * ocz;
    const uint32_t candidates = mask_bits(sphere_filter_passes(a, h, oc_squared, L::load(p.radius))) & lanes;
    if (candidates == 0) return;
    // The lanes that pass the filter (one or two of a leaf, usually: the
    // spheres the ray meets) get intersect_sphere's double test, in scalar
    // code, on the same centre values.
    alignas(64) float centers[3][Lanes<Arch>::kWidth];
    cx.store_aligned(centers[0]);
    cy.store_aligned(centers[1]);
    cz.store_aligned(centers[2]);
    for (uint32_t bits = candidates; bits; bits &= bits - 1) {
        const int lane = lowest_bit(bits);
        const uint32_t ref = p.ref[lane];
        const float t_max = ref < closest.ref ? closest.t_inclusive : closest.t;
        float root;
        const Vec3 center(centers[0][lane], centers[1][lane], centers[2][lane]);
        if (!intersect_sphere_exact(center, p.radius[lane], ray.scalar, ray.scalar_t_min, t_max, root)) continue;
        if (!lane_hit_within_bounds(ray, boxes[lane], root)) continue;
        closest.take_sphere(root, ref);
    }
}

template <class Arch, int W>
FARMRT_INLINE void intersect_packet(const QuadPacket<W>& p, const LaneBox* boxes, uint32_t lanes,
                                    const RayLanes<Arch>& ray, Closest& closest) {
    using L = Lanes<Arch>;
    using Float = typename L::Float;
    using Mask = typename L::Mask;
    const Float nx = L::load(p.normal[0]), ny = L::load(p.normal[1]), nz = L::load(p.normal[2]);
    const Float denominator = (nx * ray.direction[0] + ny * ray.direction[1]) + nz * ray.direction[2];
    Mask accept = ~(xsimd::abs(denominator) < Float(1e-8f));
    const Float t =
        (L::load(p.plane_offset) - ((nx * ray.origin[0] + ny * ray.origin[1]) + nz * ray.origin[2])) / denominator;
    const Float t_max = lane_bounds<Arch>(p.ref, closest);
    accept = accept & ~((t <= ray.t_min) | (t_max <= t));
    if (xsimd::none(accept)) return;
    // planar = ray.at(t) - corner
    const Float px = (ray.origin[0] + ray.direction[0] * t) - L::load(p.corner[0]);
    const Float py = (ray.origin[1] + ray.direction[1] * t) - L::load(p.corner[1]);
    const Float pz = (ray.origin[2] + ray.direction[2] * t) - L::load(p.corner[2]);
    const Float ux = L::load(p.edge_u[0]), uy = L::load(p.edge_u[1]), uz = L::load(p.edge_u[2]);
    const Float vx = L::load(p.edge_v[0]), vy = L::load(p.edge_v[1]), vz = L::load(p.edge_v[2]);
    const Float wx = L::load(p.w[0]), wy = L::load(p.w[1]), wz = L::load(p.w[2]);
    // alpha = dot(w, cross(planar, edge_v)); beta = dot(w, cross(edge_u, planar))
    const Float alpha = (wx * (py * vz - pz * vy) + wy * (pz * vx - px * vz)) + wz * (px * vy - py * vx);
    const Float beta = (wx * (uy * pz - uz * py) + wy * (uz * px - ux * pz)) + wz * (ux * py - uy * px);
    const Float lo(-kQuadEdgeTolerance), hi(1.0f + kQuadEdgeTolerance);
    accept = accept & (alpha >= lo) & (alpha <= hi) & (beta >= lo) & (beta <= hi);
    if (uint32_t bits = mask_bits(accept) & lanes) {
        if ((bits = hits_within_bounds<Arch>(bits, boxes, t, ray))) {
            take_closest<Arch>(bits, t, p.ref, &alpha, &beta, closest);
        }
    }
}

// The watertight test of intersect_triangle (src/core/primitives.h), lane-wise.
// Lanes with an edge function exactly 0 in float (the scalar test redecides
// those in double) run the scalar function itself.
template <class Arch, int W>
FARMRT_INLINE void intersect_packet(const TrianglePacket<W>& p, const LaneBox* boxes, uint32_t lanes,
                                    const RayLanes<Arch>& ray, Closest& closest) {
    using L = Lanes<Arch>;
    using Float = typename L::Float;
    using Mask = typename L::Mask;
    const TriangleRayFrame& frame = ray.triangle_frame;
    if (!frame.valid) return;
    const int kx = frame.kx, ky = frame.ky, kz = frame.kz;
    // Vertices relative to the origin, permuted, then sheared.
    const Float p0z = L::load(p.vertex0[kz]) - ray.origin[kz];
    const Float p1z = L::load(p.vertex1[kz]) - ray.origin[kz];
    const Float p2z = L::load(p.vertex2[kz]) - ray.origin[kz];
    const Float p0x = (L::load(p.vertex0[kx]) - ray.origin[kx]) + ray.shear_x * p0z;
    const Float p0y = (L::load(p.vertex0[ky]) - ray.origin[ky]) + ray.shear_y * p0z;
    const Float p1x = (L::load(p.vertex1[kx]) - ray.origin[kx]) + ray.shear_x * p1z;
    const Float p1y = (L::load(p.vertex1[ky]) - ray.origin[ky]) + ray.shear_y * p1z;
    const Float p2x = (L::load(p.vertex2[kx]) - ray.origin[kx]) + ray.shear_x * p2z;
    const Float p2y = (L::load(p.vertex2[ky]) - ray.origin[ky]) + ray.shear_y * p2z;
    const Float e0 = p1x * p2y - p1y * p2x;
    const Float e1 = p2x * p0y - p2y * p0x;
    const Float e2 = p0x * p1y - p0y * p1x;
    const Float zero(0.0f);
    const Mask on_edge = (e0 == zero) | (e1 == zero) | (e2 == zero);
    const Mask mixed_signs = ((e0 < zero) | (e1 < zero) | (e2 < zero)) & ((e0 > zero) | (e1 > zero) | (e2 > zero));
    const Float determinant = (e0 + e1) + e2;
    Mask accept = ~on_edge & ~mixed_signs & (determinant != zero);
    const uint32_t scalar_lanes = mask_bits(on_edge) & lanes;
    if (xsimd::any(accept)) {
        const Float scaled_t = (e0 * (ray.shear_z * p0z) + e1 * (ray.shear_z * p1z)) + e2 * (ray.shear_z * p2z);
        const Float inverse_determinant = Float(1.0f) / determinant;
        const Float t = scaled_t * inverse_determinant;
        const Float t_max = lane_bounds<Arch>(p.ref, closest);
        accept = accept & (t > ray.t_min) & (t < t_max);
        if (uint32_t bits = mask_bits(accept) & lanes) {
            if ((bits = hits_within_bounds<Arch>(bits, boxes, t, ray))) {
                const Float b1 = e1 * inverse_determinant, b2 = e2 * inverse_determinant;
                take_closest<Arch>(bits, t, p.ref, &b1, &b2, closest);
            }
        }
    }
    for (uint32_t bits = scalar_lanes; bits; bits &= bits - 1) {
        const int lane = lowest_bit(bits);
        const Triangle triangle = packet_lane_triangle(p, lane);
        const uint32_t ref = p.ref[lane];
        const float t_max = ref < closest.ref ? closest.t_inclusive : closest.t;
        float t, b1, b2;
        if (intersect_triangle(triangle, ray.scalar, ray.scalar_t_min, t_max, t, b1, b2) &&
            lane_hit_within_bounds(ray, boxes[lane], t)) {
            Hit hit;
            hit.t = t;
            hit.primitive.bits = ref;
            hit.u = b1;
            hit.v = b2;
            closest.take(hit);
        }
    }
}

// ---- traversal ---------------------------------------------------------------

template <class Arch>
struct WideTraversal {
    using L = Lanes<Arch>;
    using Float = typename L::Float;
    static constexpr int N = L::kWidth;
    // Widening of a box's exit distance, as RayBoxTester::entry.
    static constexpr float kExitWidening = kSlabExitWidening;

    struct StackEntry {
        uint32_t child;
        uint32_t packet_count;
        float entry;
    };

    // The slab test of RayBoxTester::entry for all N children at once; bit i
    // set when child i is entered within [t_min, t_max], entries in `entry`.
    static FARMRT_INLINE uint32_t test_children(const WideNode<N>& node, const RayLanes<Arch>& ray, float t_max,
                                                float* entry) {
        const Float tx0 = (L::load(node.bounds[ray.near_plane[0]]) - ray.origin[0]) * ray.inverse_direction[0];
        const Float tx1 = (L::load(node.bounds[ray.far_plane[0]]) - ray.origin[0]) * ray.inverse_direction[0];
        const Float ty0 = (L::load(node.bounds[ray.near_plane[1]]) - ray.origin[1]) * ray.inverse_direction[1];
        const Float ty1 = (L::load(node.bounds[ray.far_plane[1]]) - ray.origin[1]) * ray.inverse_direction[1];
        const Float tz0 = (L::load(node.bounds[ray.near_plane[2]]) - ray.origin[2]) * ray.inverse_direction[2];
        const Float tz1 = (L::load(node.bounds[ray.far_plane[2]]) - ray.origin[2]) * ray.inverse_direction[2];
        // xsimd max/min are maxps/minps: max(a, b) = a > b ? a : b, as max_float.
        const Float t0 = xsimd::max(xsimd::max(tx0, ty0), xsimd::max(tz0, ray.t_min));
        const Float t1 = xsimd::min(xsimd::min(tx1, ty1), xsimd::min(tz1, Float(t_max))) * Float(kExitWidening);
        t0.store_aligned(entry);
        return mask_bits(t0 <= t1);
    }

    // kSpheresOnly: for wide BVHs whose leaves hold sphere packets only
    // (WideBvhView::spheres_only), without the other primitives' code.
    template <bool kSpheresOnly>
    static FARMRT_INLINE void intersect_leaf(const WideBvhView<N>& bvh, uint32_t first, uint32_t count,
                                             const RayLanes<Arch>& ray, Closest& closest) {
        for (uint32_t i = 0; i < count; ++i) {
            const uint32_t ref = bvh.packet_refs[first + i];
            const uint32_t index = ref & kPacketIndexMask;
            const uint32_t lanes = (2u << ((ref >> kPacketLanesShift) & 31u)) - 1u;  // lanes in use, as bits
            if constexpr (kSpheresOnly) {
                intersect_packet<Arch>(bvh.spheres[index], bvh.packet_boxes(bvh.sphere_boxes, index), bvh.spheres_move,
                                       lanes, ray, closest);
                continue;
            }
            switch (static_cast<PrimitiveType>(ref >> kPacketTypeShift)) {
            case PrimitiveType::Sphere:
                intersect_packet<Arch>(bvh.spheres[index], bvh.packet_boxes(bvh.sphere_boxes, index), bvh.spheres_move,
                                       lanes, ray, closest);
                break;
            case PrimitiveType::Quad:
                intersect_packet<Arch>(bvh.quads[index], bvh.packet_boxes(bvh.quad_boxes, index), lanes, ray, closest);
                break;
            case PrimitiveType::Triangle:
                intersect_packet<Arch>(bvh.triangles[index], bvh.packet_boxes(bvh.triangle_boxes, index), lanes, ray,
                                       closest);
                break;
            case PrimitiveType::Instance: {
                // The instance's bottom-level BVH, by the scalar core (one
                // code for every tracer; its hits follow the same (t, key) rule).
                Hit hit = closest.to_hit();
                if (intersect_instance(*bvh.scene, index, ray.scalar, ray.scalar_t_min, hit)) closest.take(hit);
                break;
            }
            }
        }
    }

    // One ray's traversal as a resumable state: step() visits one inner node
    // or one leaf and moves to the next child. (Traversing several rays in
    // turns with it was measured and did not pay: results/simd.md.)
    template <bool kSpheresOnly>
    struct RayTraversal {
        RayLanes<Arch> ray;
        Closest closest;
        uint32_t child = 0, packet_count = 0;  // the root, an inner node
        int stack_size = 0;
        StackEntry stack[kBvhMaxDepth * (N - 1) + 1];

        FARMRT_INLINE RayTraversal(const WideBvhView<N>& bvh, const Ray& ray_in, float t_min, const Hit& hit)
            : ray(ray_in, t_min, !kSpheresOnly && bvh.triangle_packet_count > 0), closest(Closest::from(hit)) {}

        // Returns false when the traversal has finished.
        FARMRT_INLINE bool step(const WideBvhView<N>& bvh) {
            if (packet_count > 0) {
                intersect_leaf<kSpheresOnly>(bvh, child, packet_count, ray, closest);
            } else {
                alignas(64) float entry[N];
                const WideNode<N>& node = bvh.nodes[child];
                uint32_t bits = test_children(node, ray, closest.t, entry);
                if (bits) {
                    if ((bits & (bits - 1)) == 0) {  // one child: descend
                        const int i = lowest_bit(bits);
                        child = node.child[i];
                        packet_count = node.packet_count[i];
                        return true;
                    }
                    const int first = lowest_bit(bits);
                    const uint32_t rest = bits & (bits - 1);
                    if ((rest & (rest - 1)) == 0) {  // two children (the usual case): one compare
                        const int second = lowest_bit(rest);
                        const bool swap = entry[second] < entry[first];
                        const int near = swap ? second : first, far = swap ? first : second;
                        stack[stack_size++] = StackEntry{node.child[far], node.packet_count[far], entry[far]};
                        child = node.child[near];
                        packet_count = node.packet_count[near];
                        return true;
                    }
                    // More: visit near to far. Sort by entry (insertion sort
                    // of at most N), push the far ones, descend into the nearest.
                    StackEntry hits[N];
                    int hit_count = 0;
                    for (; bits; bits &= bits - 1) {
                        const int i = lowest_bit(bits);
                        const StackEntry e{node.child[i], node.packet_count[i], entry[i]};
                        int j = hit_count++;
                        for (; j > 0 && hits[j - 1].entry > e.entry; --j) hits[j] = hits[j - 1];
                        hits[j] = e;
                    }
                    for (int j = hit_count - 1; j > 0; --j) stack[stack_size++] = hits[j];
                    child = hits[0].child;
                    packet_count = hits[0].packet_count;
                    return true;
                }
            }
            // Pop the next child that a closer hit has not ruled out since it
            // was pushed (entry <= min(exit, t) * widening, as the slab test).
            while (stack_size > 0) {
                const StackEntry& e = stack[--stack_size];
                if (e.entry <= closest.t * kExitWidening) {
                    child = e.child;
                    packet_count = e.packet_count;
                    return true;
                }
            }
            return false;
        }

        FARMRT_INLINE bool finish(Hit& hit) const {
            if (closest.found) hit = closest.to_hit();
            return closest.found;
        }
    };

    // The closest-hit query of trace_path() (src/core/integrator.h) on this level's
    // wide BVH (kSpheresOnly: one whose view has spheres_only).
    template <bool kSpheresOnly = false>
    struct Query {
        const WideBvhView<N>* bvh;
        FARMRT_INLINE bool operator()(const SceneView&, const Ray& ray, float t_min, Hit& hit) const {
            RayTraversal<kSpheresOnly> traversal(*bvh, ray, t_min, hit);
            while (traversal.step(*bvh)) {
            }
            return traversal.finish(hit);
        }
        // Shadow rays: whether anything meets the ray at t < t_max, on the
        // wide BVH. The closest-hit traversal, started with a bound that
        // takes every primitive's hit at t <= the float below t_max (a key
        // above every primitive's: hits at exactly that t count), stops at
        // its first hit. It finds one exactly when one exists, so the answer
        // is occlusion.h's intersect_any, bit for bit.
        FARMRT_INLINE bool occluded(const SceneView&, const Ray& ray, float t_max) const {
            Hit bound;
            bound.t = next_float_down(t_max);
            bound.primitive = PrimitiveRef{0xFFFFFFFFu};
            RayTraversal<kSpheresOnly> traversal(*bvh, ray, kMinHitDistance, bound);
            while (!traversal.closest.found && traversal.step(*bvh)) {
            }
            return traversal.closest.found;
        }
    };

    __attribute__((noinline)) static bool closest_hit(const void* view, const Ray& ray, float t_min, Hit& hit) {
        const Query<> query{static_cast<const WideBvhView<N>*>(view)};
        return query(*static_cast<const WideBvhView<N>*>(view)->scene, ray, t_min, hit);
    }
};

}  // namespace
}  // namespace simd
}  // namespace farmrt
