// Several rays traced together, one per lane: the camera rays of a pixel's
// samples. They start within the lens disk and pass through one pixel, so
// they visit almost the same nodes: one visit serves every ray of the packet,
// and a child box or a sphere costs one instruction for all of them instead
// of one traversal step per ray, without the single ray's branch per node.
// Later segments scatter in every direction and keep the single-ray
// traversal (wide_traversal.h). Include it from the kernel translation units
// only (internal linkage, like wide_traversal.h).
//
// Bit-identical hits: each lane performs the single-ray test's float
// operations (test_children, intersect_packet's full-width sphere test) on its
// own ray, and keeps the smallest (t, ref) pair by the same bound rule, which
// does not depend on the order in which spheres are tested.
#pragma once

#include "simd/wide_traversal.h"

namespace farmrt {
namespace simd {
namespace {

template <class Arch>
struct PacketTraversal {
    using L = Lanes<Arch>;
    using Float = typename L::Float;
    using Int = typename L::Int;
    using Mask = typename L::Mask;
    static constexpr int N = L::kWidth;
    static constexpr float kExitWidening = WideTraversal<Arch>::kExitWidening;
    // Unsigned order of PrimitiveRef bits through signed lanes (Lanes::refs_below).
    static constexpr uint32_t kSignFlip = 0x80000000u;

    // Packets test sphere packets only; scenes with other primitives or
    // instances trace every ray on its own.
    static bool usable(const WideBvhView<N>& bvh) { return bvh.spheres_only; }

    struct Rays {
        LaneVec3<Float> origin, direction, inverse_direction;
        Float time, length_squared, t_min;
        int near_plane[3], far_plane[3];  // shared: every ray has the same direction signs
        uint32_t lanes;                   // rays in use, as bits
        const Ray* scalar;                // the rays themselves, for the spheres' double test
        float scalar_t_min;
    };

    // The closest hit of each lane so far (Closest of wide_traversal.h, per lane).
    struct ClosestLanes {
        Float t, t_inclusive;
        Int flipped_ref;  // ref ^ kSignFlip
        uint32_t found;   // lanes with a hit, as bits
    };

    struct StackEntry {
        Float entry;  // each ray's entry distance into the child
        uint32_t child, packet_count, lanes;
    };

    // Loads rays [0, count) into lanes; false if their direction signs differ
    // (the shared near and far planes would not fit every ray).
    static bool load_rays(const Ray* rays, int count, float t_min, Rays& out) {
        alignas(64) float values[12][N];
        for (int lane = 0; lane < N; ++lane) {
            const Ray& ray = rays[lane < count ? lane : 0];  // unused lanes repeat ray 0
            for (int axis = 0; axis < 3; ++axis) {
                values[axis][lane] = ray.origin[axis];
                values[3 + axis][lane] = ray.direction[axis];
                // As RayLanes: the same reciprocal, the same sign test.
                values[6 + axis][lane] = 1.0f / ray.direction[axis];
            }
            values[9][lane] = ray.time;
            values[10][lane] = length_squared(ray.direction);
        }
        for (int axis = 0; axis < 3; ++axis) {
            const bool negative = values[6 + axis][0] < 0;
            for (int lane = 1; lane < count; ++lane) {
                if ((values[6 + axis][lane] < 0) != negative) return false;
            }
            out.near_plane[axis] = 2 * axis + negative;
            out.far_plane[axis] = 2 * axis + 1 - negative;
        }
        out.origin = LaneVec3<Float>{L::load(values[0]), L::load(values[1]), L::load(values[2])};
        out.direction = LaneVec3<Float>{L::load(values[3]), L::load(values[4]), L::load(values[5])};
        out.inverse_direction = LaneVec3<Float>{L::load(values[6]), L::load(values[7]), L::load(values[8])};
        out.time = L::load(values[9]);
        out.length_squared = L::load(values[10]);
        out.t_min = Float(t_min);
        out.scalar = rays;
        out.scalar_t_min = t_min;
        out.lanes = count >= 32 ? ~0u : (1u << count) - 1u;
        return true;
    }

    // Every sphere of the packet against every ray in `lanes`.
    // `boxes`, `moving`: as for intersect_packet (wide_traversal.h).
    static FARMRT_INLINE void intersect_spheres(const SpherePacket<N>& p, const LaneBox* boxes, bool moving,
                                                int sphere_count, uint32_t lanes, const Rays& rays,
                                                ClosestLanes& closest) {
        for (int j = 0; j < sphere_count; ++j) {
            // center_at(time) (the centre itself unless `moving`), then the filter.
            LaneVec3<Float> center{Float(p.center[0][j]), Float(p.center[1][j]), Float(p.center[2][j])};
            if (moving) {
                center = sphere_center_at(
                    center, {Float(p.velocity[0][j]), Float(p.velocity[1][j]), Float(p.velocity[2][j])}, rays.time);
            }
            const uint32_t candidates =
                mask_bits(sphere_filter(center, Float(p.radius[j]), rays.origin, rays.direction, rays.length_squared)) &
                lanes;
            if (candidates == 0) continue;
            const Int flipped_ref(int32_t(p.ref[j] ^ kSignFlip));
            const Mask below = xsimd::bool_cast(flipped_ref < closest.flipped_ref);
            const Float t_max = hit_bound(below, closest.t, closest.t_inclusive);
            // The lanes that pass the filter get intersect_sphere's double
            // test, in scalar code, on the same centre values.
            alignas(64) float centers[3][N], t_maxes[N], roots[N] = {};
            center.x.store_aligned(centers[0]);
            center.y.store_aligned(centers[1]);
            center.z.store_aligned(centers[2]);
            t_max.store_aligned(t_maxes);
            uint32_t accepted = 0;
            for (uint32_t bits = candidates; bits; bits &= bits - 1) {
                const int lane = lowest_bit(bits);
                const Vec3 center(centers[0][lane], centers[1][lane], centers[2][lane]);
                if (intersect_sphere_exact(center, p.radius[j], rays.scalar[lane], rays.scalar_t_min, t_maxes[lane],
                                           roots[lane])) {
                    accepted |= 1u << lane;
                }
            }
            if (accepted == 0) continue;
            const Float root = L::load(roots);
            // hit_within_bounds (src/core/primitives.h) in every lane: the slab
            // test of the sphere's own box within [t_min, root].
            const LaneBox& box = boxes[j];
            const float planes[6] = {box.rows[0][0], box.rows[1][0], box.rows[0][1],
                                     box.rows[1][1], box.rows[0][2], box.rows[1][2]};
            Float entry;
            accepted &= mask_bits(overlaps(planes, rays, root, entry));
            if (accepted == 0) continue;
            const Mask accept = lane_mask(accepted);
            closest.t = xsimd::select(accept, root, closest.t);
            // next_float_up(root): root > t_min >= 0 and finite, so the next bit pattern.
            const Float up = xsimd::bitwise_cast<Float>(xsimd::bitwise_cast<Int>(root) + Int(1));
            closest.t_inclusive = xsimd::select(accept, up, closest.t_inclusive);
            closest.flipped_ref = xsimd::select(xsimd::bool_cast(accept), flipped_ref, closest.flipped_ref);
            closest.found |= accepted;
        }
    }

    // The mask of the lanes whose bits are set.
    static FARMRT_INLINE Mask lane_mask(uint32_t bits) {
        alignas(64) static constexpr int32_t kLaneBit[16] = {1 << 0,  1 << 1,  1 << 2,  1 << 3, 1 << 4,  1 << 5,
                                                             1 << 6,  1 << 7,  1 << 8,  1 << 9, 1 << 10, 1 << 11,
                                                             1 << 12, 1 << 13, 1 << 14, 1 << 15};
        const Int bit = Int::load_aligned(kLaneBit);
        return xsimd::bool_cast((bit & Int(int32_t(bits))) != Int(0));
    }

    // Closest hits of rays [0, count) (count <= N) in (t_min, infinity), as
    // WideTraversal's Query gives them one by one. False when the rays cannot
    // share a packet (load_rays); `hits` and `found` are then untouched.
    // Out of line: called once per packet, and inlined it would double the
    // tracer's hot code next to the single-ray traversal.
    __attribute__((noinline)) static bool trace(const WideBvhView<N>& bvh, const Ray* rays, int count, float t_min,
                                                Hit* hits, bool* found) {
        Rays packet;
        if (!load_rays(rays, count, t_min, packet)) return false;
        const Hit none;
        ClosestLanes closest{Float(none.t), Float(next_float_up(none.t)), Int(int32_t(top_level_key(none) ^ kSignFlip)),
                             0u};
        StackEntry stack[kBvhMaxDepth * (N - 1) + 1];
        int stack_size = 0;
        uint32_t child = 0, packet_count = 0, lanes = packet.lanes;  // the root, an inner node
        for (;;) {
            if (packet_count > 0) {
                for (uint32_t i = 0; i < packet_count; ++i) {
                    const uint32_t ref = bvh.packet_refs[child + i];
                    const int sphere_count = int((ref >> kPacketLanesShift) & 31u) + 1;
                    const uint32_t index = ref & kPacketIndexMask;
                    intersect_spheres(bvh.spheres[index], bvh.packet_boxes(bvh.sphere_boxes, index), bvh.spheres_move,
                                      sphere_count, lanes, packet, closest);
                }
            } else if (visit_node(bvh.nodes[child], packet, closest, lanes, stack, stack_size, child, packet_count,
                                  lanes)) {
                continue;
            }
            if (!pop(stack, stack_size, closest, child, packet_count, lanes)) break;
        }
        alignas(64) float t[N];
        alignas(64) int32_t flipped_ref[N];
        closest.t.store_aligned(t);
        closest.flipped_ref.store_aligned(flipped_ref);
        const uint32_t found_bits = closest.found;
        for (int lane = 0; lane < count; ++lane) {
            found[lane] = (found_bits >> lane) & 1u;
            if (!found[lane]) continue;
            hits[lane] = none;
            hits[lane].t = t[lane];
            hits[lane].primitive.bits = uint32_t(flipped_ref[lane]) ^ kSignFlip;
        }
        return true;
    }

    // PacketClosestHitsFunction (simd_kernels.h).
    static bool closest_hits(const void* view, const Ray* rays, int count, float t_min, Hit* hits, bool* found) {
        const WideBvhView<N>& bvh = *static_cast<const WideBvhView<N>*>(view);
        return count >= 1 && count <= N && usable(bvh) && trace(bvh, rays, count, t_min, hits, found);
    }

    // The slab test of RayBoxTester::entry for one box (`planes`: lower x,
    // upper x, lower y, ... as WideNode::bounds) and every ray: whether each
    // ray is in the box somewhere in [t_min, t_max], its entry in `entry`.
    static FARMRT_INLINE Mask overlaps(const float* planes, const Rays& rays, const Float& t_max, Float& entry) {
        const LaneVec3<Float> near{Float(planes[rays.near_plane[0]]), Float(planes[rays.near_plane[1]]),
                                   Float(planes[rays.near_plane[2]])};
        const LaneVec3<Float> far{Float(planes[rays.far_plane[0]]), Float(planes[rays.far_plane[1]]),
                                  Float(planes[rays.far_plane[2]])};
        return slab_test(near, far, rays.origin, rays.inverse_direction, rays.t_min, t_max, entry);
    }

    // Tests the node's children against the rays in `lanes` (test_children,
    // lane-wise per child); pushes the entered ones far to near and moves to
    // the nearest. False when no ray enters any child.
    static FARMRT_INLINE bool visit_node(const WideNode<N>& node, const Rays& rays, const ClosestLanes& closest,
                                         uint32_t lanes, StackEntry* stack, int& stack_size, uint32_t& child,
                                         uint32_t& packet_count, uint32_t& next_lanes) {
        const Float t_max = closest.t;
        StackEntry entered[N];
        float order[N];  // sort key: the entry of the child's first ray
        int entered_count = 0;
        for (int i = 0; i < N; ++i) {
            const float planes[6] = {node.bounds[0][i], node.bounds[1][i], node.bounds[2][i],
                                     node.bounds[3][i], node.bounds[4][i], node.bounds[5][i]};
            Float t0;
            const uint32_t bits = mask_bits(overlaps(planes, rays, t_max, t0)) & lanes;
            if (bits == 0) continue;
            alignas(64) float entry[N];
            t0.store_aligned(entry);
            // Insertion by the first ray's entry: near to far.
            const float key = entry[lowest_bit(bits)];
            int j = entered_count++;
            for (; j > 0 && order[j - 1] > key; --j) {
                order[j] = order[j - 1];
                entered[j] = entered[j - 1];
            }
            order[j] = key;
            entered[j] = StackEntry{t0, node.child[i], node.packet_count[i], bits};
        }
        if (entered_count == 0) return false;
        for (int j = entered_count - 1; j > 0; --j) stack[stack_size++] = entered[j];
        child = entered[0].child;
        packet_count = entered[0].packet_count;
        next_lanes = entered[0].lanes;
        return true;
    }

    // The next pushed child that some ray may still need: entry <= min(exit,
    // t) * widening for that ray, as the single-ray pop.
    static FARMRT_INLINE bool pop(const StackEntry* stack, int& stack_size, const ClosestLanes& closest,
                                  uint32_t& child, uint32_t& packet_count, uint32_t& lanes) {
        while (stack_size > 0) {
            const StackEntry& e = stack[--stack_size];
            const uint32_t still = e.lanes & mask_bits(e.entry <= closest.t * Float(kExitWidening));
            if (still) {
                child = e.child;
                packet_count = e.packet_count;
                lanes = still;
                return true;
            }
        }
        return false;
    }
};

}  // namespace
}  // namespace simd
}  // namespace farmrt
