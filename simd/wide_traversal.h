// Wide-BVH traversal and packet intersection, written once over xsimd batches
// and compiled once per instruction set (kernels_sse42.cpp, kernels_avx2.cpp,
// kernels_avx512.cpp). Include it from those files only: everything here has
// internal linkage so that each copy keeps its own instruction set.
//
// Bit-identical to the scalar core (src/core/closest_hit.h, src/core/primitives.h): every
// lane performs the scalar code's float operations in the scalar code's order
// (-ffp-contract=off, true divisions and square roots, min/max with the same
// NaN rule), and the closest hit is the smallest (t, PrimitiveRef) pair, which
// does not depend on the order in which boxes and packets are visited.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cmath>

#include "core/occlusion.h"
#include "simd/lane_batches.h"
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
FARMRT_INLINE uint32_t mask_bits(xsimd::batch_bool<float, xsimd::avx512bw> m) { return uint32_t(__mmask16(m)); }
#endif

FARMRT_INLINE int lowest_bit(uint32_t bits) { return __builtin_ctz(bits); }

// ---- the ray, broadcast, and the closest hit so far -----------------------

template <class Arch>
struct RayLanes {
    using Float = typename Lanes<Arch>::Float;
    LaneVec3<Float> origin, direction, inverse_direction;
    Float time, direction_length_squared, t_min;
    int near_plane[3], far_plane[3];           // rows of WideNode::bounds
    TriangleRayFrame triangle_frame;           // the watertight triangle test's permutation and shear
    LaneVec3<Float> origin_in_triangle_frame;  // the origin permuted by triangle_frame
    Float shear_x, shear_y, shear_z;
    Ray scalar;  // the ray itself, for the lanes and instances that the scalar core handles
    // RayBoxTester's values, one row per 128-bit register (x, y, z, 0), for
    // lane_hit_within_bounds.
    __m128 box_origin, box_inverse_direction, box_negative;
    float scalar_t_min;

    // `triangles`: whether the scene has triangle packets (the watertight
    // test's per-ray frame costs three divisions, so sphere scenes skip it).
    FARMRT_INLINE RayLanes(const Ray& ray, float t_min_, bool triangles) {
        const RayBoxTester box_tester(ray);
        // RayBoxTester's reciprocal and sign test, in every lane.
        origin = LaneVec3<Float>{Float(ray.origin.x), Float(ray.origin.y), Float(ray.origin.z)};
        direction = LaneVec3<Float>{Float(ray.direction.x), Float(ray.direction.y), Float(ray.direction.z)};
        const Vec3& inverse = box_tester.inverse_direction;
        inverse_direction = LaneVec3<Float>{Float(inverse.x), Float(inverse.y), Float(inverse.z)};
        for (int axis = 0; axis < 3; ++axis) {
            const int negative = box_tester.direction_negative[axis];
            near_plane[axis] = 2 * axis + negative;
            far_plane[axis] = 2 * axis + 1 - negative;
        }
        box_origin = _mm_setr_ps(ray.origin.x, ray.origin.y, ray.origin.z, 0.0f);
        box_inverse_direction = _mm_setr_ps(inverse.x, inverse.y, inverse.z, 0.0f);
        box_negative = _mm_cmplt_ps(box_inverse_direction, _mm_setzero_ps());  // as direction_negative
        time = Float(ray.time);
        direction_length_squared = Float(length_squared(ray.direction));
        t_min = Float(t_min_);
        scalar = ray;
        scalar_t_min = t_min_;
        if (triangles) {
            triangle_frame = triangle_ray_frame(ray.direction);
            const TriangleRayFrame& f = triangle_frame;
            const float o[3] = {ray.origin.x, ray.origin.y, ray.origin.z};
            origin_in_triangle_frame = LaneVec3<Float>{Float(o[f.kx]), Float(o[f.ky]), Float(o[f.kz])};
            shear_x = Float(triangle_frame.shear_x);
            shear_y = Float(triangle_frame.shear_y);
            shear_z = Float(triangle_frame.shear_z);
        } else {
            triangle_frame = TriangleRayFrame{0, 1, 2, 0.0f, 0.0f, 0.0f, false};
            origin_in_triangle_frame = origin;
            shear_x = shear_y = shear_z = Float(0.0f);
        }
    }
};

struct Closest {
    float t;
    uint32_t ref;  // the hit's key: top_level_key() of src/core/closest_hit.h
    float u, v;
    float t_inclusive;  // next_float_up(t): the bound for smaller references
    bool found;
    uint32_t primitive;  // Hit::primitive (inside an instance: the primitive there)
    uint32_t instance;   // Hit::instance

    static Closest from(const Hit& hit) {
        return Closest{hit.t, top_level_key(hit), hit.u,       hit.v, next_float_up(hit.t),
                       false, hit.primitive.bits, hit.instance};
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

// The scalar test's t_max per lane (closest_hit_bound in src/core/closest_hit.h).
template <class Arch>
FARMRT_INLINE typename Lanes<Arch>::Float lane_bounds(const uint32_t* refs, const Closest& closest) {
    using Float = typename Lanes<Arch>::Float;
    return hit_bound(Lanes<Arch>::refs_below(refs, closest.ref), Float(closest.t), Float(closest.t_inclusive));
}

// lane_bounds as the core's deferred bound (triangle_hit asks for it only when
// some lane passes the edge test).
template <class Arch>
struct PacketBound {
    const uint32_t* refs;
    const Closest& closest;
    FARMRT_INLINE typename Lanes<Arch>::Float operator()() const { return lane_bounds<Arch>(refs, closest); }
};

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
        if (hit_precedes(ts[lane], refs[lane], best_t, best_ref)) {
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
// bounds_of, so the scalar core's box): the six plane distances, three axes
// per 128-bit operation, then the core's slab_overlap on them. (Picking the
// planes in scalar code cost sphere scenes 3-4% of a frame.)
template <class Arch>
FARMRT_INLINE bool lane_hit_within_bounds(const RayLanes<Arch>& ray, const LaneBox& box, float t) {
    const __m128 lower = _mm_load_ps(box.rows[0]), upper = _mm_load_ps(box.rows[1]);
    const __m128 near = _mm_blendv_ps(lower, upper, ray.box_negative);
    const __m128 far = _mm_blendv_ps(upper, lower, ray.box_negative);
    alignas(16) float entries[4], exits[4];
    _mm_store_ps(entries, _mm_mul_ps(_mm_sub_ps(near, ray.box_origin), ray.box_inverse_direction));
    _mm_store_ps(exits, _mm_mul_ps(_mm_sub_ps(far, ray.box_origin), ray.box_inverse_direction));
    float entry;
    return slab_overlap(entries[0], exits[0], entries[1], exits[1], entries[2], exits[2], ray.scalar_t_min, t, entry);
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
    // center_at(time) (the centre itself unless `moving`), then the filter.
    LaneVec3<Float> center{L::load(p.center[0]), L::load(p.center[1]), L::load(p.center[2])};
    if (moving) {
        center = sphere_center_at(center, {L::load(p.velocity[0]), L::load(p.velocity[1]), L::load(p.velocity[2])},
                                  ray.time);
    }
    const uint32_t candidates =
        mask_bits(sphere_filter(center, L::load(p.radius), ray.origin, ray.direction, ray.direction_length_squared)) &
        lanes;
    if (candidates == 0) return;
    // The lanes that pass the filter (one or two of a leaf, usually: the
    // spheres the ray meets) get intersect_sphere's double test, in scalar
    // code, on the same centre values.
    alignas(64) float centers[3][Lanes<Arch>::kWidth];
    center.x.store_aligned(centers[0]);
    center.y.store_aligned(centers[1]);
    center.z.store_aligned(centers[2]);
    for (uint32_t bits = candidates; bits; bits &= bits - 1) {
        const int lane = lowest_bit(bits);
        const uint32_t ref = p.ref[lane];
        const float t_max = hit_bound(ref < closest.ref, closest.t, closest.t_inclusive);
        float root;
        const Vec3 center(centers[0][lane], centers[1][lane], centers[2][lane]);
        if (!intersect_sphere_exact(center, p.radius[lane], ray.scalar, ray.scalar_t_min, t_max, root)) continue;
        if (!lane_hit_within_bounds(ray, boxes[lane], root)) continue;
        closest.take_sphere(root, ref);
    }
}

// A quad packet as the core's QuadSource (one quad per lane).
template <class Arch, int W>
struct QuadPacketLanes {
    using L = Lanes<Arch>;
    using Float = typename L::Float;
    const QuadPacket<W>& p;
    static FARMRT_INLINE LaneVec3<Float> load(const float (&v)[3][W]) {
        return {L::load(v[0]), L::load(v[1]), L::load(v[2])};
    }
    FARMRT_INLINE LaneVec3<Float> normal() const { return load(p.normal); }
    FARMRT_INLINE Float plane_offset() const { return L::load(p.plane_offset); }
    FARMRT_INLINE LaneVec3<Float> corner() const { return load(p.corner); }
    FARMRT_INLINE LaneVec3<Float> edge_u() const { return load(p.edge_u); }
    FARMRT_INLINE LaneVec3<Float> edge_v() const { return load(p.edge_v); }
    FARMRT_INLINE LaneVec3<Float> w() const { return load(p.w); }
};

template <class Arch, int W>
FARMRT_INLINE void intersect_packet(const QuadPacket<W>& p, const LaneBox* boxes, uint32_t lanes,
                                    const RayLanes<Arch>& ray, Closest& closest) {
    using Float = typename Lanes<Arch>::Float;
    Float t(0.0f), alpha(0.0f), beta(0.0f);  // set by quad_hit where it accepts
    const auto accept = quad_hit(QuadPacketLanes<Arch, W>{p}, ray.origin, ray.direction, ray.t_min,
                                 lane_bounds<Arch>(p.ref, closest), t, alpha, beta);
    if (uint32_t bits = mask_bits(accept) & lanes) {
        if ((bits = hits_within_bounds<Arch>(bits, boxes, t, ray))) {
            take_closest<Arch>(bits, t, p.ref, &alpha, &beta, closest);
        }
    }
}

// A triangle packet as the core's TriangleSource (one triangle per lane), its
// vertices permuted by the ray's frame.
template <class Arch, int W>
struct TrianglePacketLanes {
    using L = Lanes<Arch>;
    using Float = typename L::Float;
    const TrianglePacket<W>& p;
    int kx, ky, kz;  // the ray frame's permutation
    FARMRT_INLINE LaneVec3<Float> vertex(int i) const {
        const float(&v)[3][W] = i == 0 ? p.vertex0 : (i == 1 ? p.vertex1 : p.vertex2);
        return {L::load(v[kx]), L::load(v[ky]), L::load(v[kz])};
    }
};

// The watertight test of intersect_triangle (src/core/primitives.h) with one
// triangle per lane. Lanes with an edge function exactly 0 in float (the
// scalar test redecides those in double) run the scalar function itself.
template <class Arch, int W>
FARMRT_INLINE void intersect_packet(const TrianglePacket<W>& p, const LaneBox* boxes, uint32_t lanes,
                                    const RayLanes<Arch>& ray, Closest& closest) {
    using Float = typename Lanes<Arch>::Float;
    const TriangleRayFrame& frame = ray.triangle_frame;
    if (!frame.valid) return;
    const TriangleInRayFrame<Float> f =
        triangle_in_ray_frame(TrianglePacketLanes<Arch, W>{p, frame.kx, frame.ky, frame.kz},
                              ray.origin_in_triangle_frame, ray.shear_x, ray.shear_y);
    const auto on_edge = on_triangle_edge(f);
    const uint32_t scalar_lanes = mask_bits(on_edge) & lanes;
    Float t(0.0f), inverse_determinant(0.0f);  // set by triangle_hit where it accepts
    const auto accept = triangle_hit(f, LaneOps<Float>::negate(on_edge), ray.shear_z, ray.t_min,
                                     PacketBound<Arch>{p.ref, closest}, t, inverse_determinant);
    if (uint32_t bits = mask_bits(accept) & lanes) {
        if ((bits = hits_within_bounds<Arch>(bits, boxes, t, ray))) {
            const Float b1 = f.e1 * inverse_determinant, b2 = f.e2 * inverse_determinant;
            take_closest<Arch>(bits, t, p.ref, &b1, &b2, closest);
        }
    }
    for (uint32_t bits = scalar_lanes; bits; bits &= bits - 1) {
        const int lane = lowest_bit(bits);
        const Triangle triangle = packet_lane_triangle(p, lane);
        const uint32_t ref = p.ref[lane];
        const float t_max = hit_bound(ref < closest.ref, closest.t, closest.t_inclusive);
        float t_lane, b1, b2;
        if (intersect_triangle(triangle, ray.scalar, ray.scalar_t_min, t_max, t_lane, b1, b2) &&
            lane_hit_within_bounds(ray, boxes[lane], t_lane)) {
            Hit hit;
            hit.t = t_lane;
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
        const LaneVec3<Float> near{L::load(node.bounds[ray.near_plane[0]]), L::load(node.bounds[ray.near_plane[1]]),
                                   L::load(node.bounds[ray.near_plane[2]])};
        const LaneVec3<Float> far{L::load(node.bounds[ray.far_plane[0]]), L::load(node.bounds[ray.far_plane[1]]),
                                  L::load(node.bounds[ray.far_plane[2]])};
        Float t0;
        const auto entered = slab_test(near, far, ray.origin, ray.inverse_direction, ray.t_min, Float(t_max), t0);
        t0.store_aligned(entry);
        return mask_bits(entered);
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
            if ((ref >> kPacketTypeShift) == kCutoutTriangleEntry) {
                // The scalar core's test, which asks whether the cut-out keeps the hit.
                Hit hit = closest.to_hit();
                if (intersect_primitive<false>(*bvh.scene, PrimitiveRef::make(PrimitiveType::Triangle, index),
                                               ray.scalar, ray.scalar_t_min, hit)) {
                    closest.take(hit);
                }
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
    // wide BVH (kSpheresBvh: one whose view has spheres_only, whose scene's
    // shading then leaves out what only triangles carry: SpheresOnlyQuery).
    template <bool kSpheresBvh = false>
    struct Query {
        static constexpr bool kSpheresOnly = kSpheresBvh;
        const WideBvhView<N>* bvh;
        FARMRT_INLINE bool operator()(const SceneView&, const Ray& ray, float t_min, Hit& hit) const {
            RayTraversal<kSpheresBvh> traversal(*bvh, ray, t_min, hit);
            while (traversal.step(*bvh)) {}
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
            RayTraversal<kSpheresBvh> traversal(*bvh, ray, kMinHitDistance, bound);
            while (!traversal.closest.found && traversal.step(*bvh)) {}
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
