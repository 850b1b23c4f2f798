// The closest-hit and hit-ordering queries shared by every tracer: the
// (t, key) rule, one primitive's or instance's test (cut-outs included), and
// the BVH traversal that the CPU and the GPU run alike.
#pragma once

#include "core/scene_view.h"

namespace farmrt {

// The closest hit is the smallest (t, key) pair: on exactly equal t the
// smaller key wins. The key of a hit is its top-level entry's PrimitiveRef
// (for a hit inside an instance, the Instance ref), then, within one
// instance, the primitive's ref. The rule does not depend on the order in
// which primitives are tested, so every traversal (binary or wide BVH, scalar
// or SIMD, CPU or GPU) returns the same hit.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t top_level_key(const Hit& hit) {
    return hit.instance == kNoInstance ? hit.primitive.bits
                                       : PrimitiveRef::make(PrimitiveType::Instance, hit.instance).bits;
}

// The rule as an order: whether a hit (t, key) comes before (other_t,
// other_key). For tracers that choose among several accepted hits at once.
FARMRT_CPU_GPU FARMRT_INLINE bool hit_precedes(float t, uint32_t key, float other_t, uint32_t other_key) {
    return t < other_t || (t == other_t && key < other_key);
}

// The rule as a bound, over lanes (lanes.h): the t_max that a primitive is
// tested against, given the closest hit's t and the float above it. One whose
// key is below the closest hit's (`key_below`) may take a hit at that very t.
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE Real hit_bound(const LaneMask<Real>& key_below, const Real& closest_t,
                                            const Real& closest_t_up) {
    return LaneOps<Real>::select(key_below, closest_t_up, closest_t);
}

// The t_max for testing top-level primitive `ref` against the closest hit so far.
FARMRT_CPU_GPU FARMRT_INLINE float closest_hit_bound(const Hit& hit, PrimitiveRef ref) {
    return hit_bound(ref.bits < top_level_key(hit), hit.t, next_float_up_nonnegative(hit.t));
}

// The t_max for testing primitive `ref` inside instance `instance`.
FARMRT_CPU_GPU FARMRT_INLINE float instance_hit_bound(const Hit& hit, uint32_t instance, PrimitiveRef ref) {
    const bool key_below = hit.instance == instance
                               ? ref.bits < hit.primitive.bits
                               : PrimitiveRef::make(PrimitiveType::Instance, instance).bits < top_level_key(hit);
    return hit_bound(key_below, hit.t, next_float_up_nonnegative(hit.t));
}

// A number in [0, 1) that is a pure function of a ray and the primitive it
// meets: the same on every backend and decomposition, so that a Blend
// cut-out keeps or drops the same hits everywhere.
FARMRT_CPU_GPU FARMRT_INLINE float cutout_random(const Ray& ray, uint32_t primitive_bits) {
    uint32_t h = primitive_bits * 0x9E3779B9u + 0x7F4A7C15u;
    const float words[6] = {ray.origin.x,    ray.origin.y,    ray.origin.z,
                            ray.direction.x, ray.direction.y, ray.direction.z};
    for (float word : words) {
        h ^= float_bits(word);
        h *= 0x85EBCA6Bu;
        h ^= h >> 13;
    }
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return float(h >> 8) * (1.0f / 16777216.0f);
}

// The alpha of triangle `triangle`'s own material at barycentrics (b1, b2),
// at `point` (for solid textures): the cut-out's coverage there. An
// instance's material changes how a triangle shades, not its shape.
FARMRT_CPU_GPU FARMRT_INLINE float cutout_alpha(const SceneView& scene, const Triangle& triangle, const Vec3& point,
                                                float b1, float b2) {
    const Material& material = scene.materials[triangle.material];
    SurfaceInteraction at;
    const float b0 = 1.0f - b1 - b2;
    at.u = b0 * triangle.uv[0] + b1 * triangle.uv[2] + b2 * triangle.uv[4];
    at.v = b0 * triangle.uv[1] + b1 * triangle.uv[3] + b2 * triangle.uv[5];
    at.point = point;
    return evaluate_texture(scene.textures, scene.texture_pixels, material.alpha_texture, at).x;
}

// Whether the surface of a triangle whose material may cut it out is there
// at barycentrics (b1, b2) of `ray`'s hit: its alpha against the cutoff
// (Mask) or against cutout_random (Blend).
FARMRT_CPU_GPU FARMRT_INLINE bool surface_kept(const SceneView& scene, const Triangle& triangle, PrimitiveRef ref,
                                               const Ray& ray, float t, float b1, float b2) {
    const Material& material = scene.materials[triangle.material];
    if (material.alpha_mode == AlphaMode::Opaque) return true;
    const float alpha = cutout_alpha(scene, triangle, ray.at(t), b1, b2);
    if (material.alpha_mode == AlphaMode::Mask) return alpha >= material.alpha_cutoff;
    return cutout_random(ray, ref.bits) < alpha;
}

// The fraction of rays that meet a triangle at barycentrics (b1, b2), at
// `point`: what a light sample there is worth against the rays that find
// the light by hitting it. 0 or 1 for Mask, alpha for Blend (its expected
// value over cutout_random: no second random number, no extra noise).
FARMRT_CPU_GPU FARMRT_INLINE float surface_coverage(const SceneView& scene, const Triangle& triangle, const Vec3& point,
                                                    float b1, float b2) {
    const Material& material = scene.materials[triangle.material];
    if (material.alpha_mode == AlphaMode::Opaque) return 1.0f;
    const float alpha = cutout_alpha(scene, triangle, point, b1, b2);
    if (material.alpha_mode == AlphaMode::Mask) return alpha >= material.alpha_cutoff ? 1.0f : 0.0f;
    return clamp_float(alpha, 0.0f, 1.0f);
}

// One sphere, quad or triangle (never an instance) against (t_min, t_max): the
// per-primitive functions of primitives.h behind one tag switch. Fills t,
// primitive, u, v of `hit` when found; the caller sets hit.instance.
// `tester`: the ray's, for hit_within_bounds.
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_geometry(const SceneView& scene, PrimitiveRef ref, const Ray& ray,
                                                     const RayBoxTester& tester, float t_min, float t_max, Hit& hit) {
    float t, u = 0, v = 0;
    bool found = false;
    switch (ref.type()) {
    case PrimitiveType::Sphere: {
        const Sphere sphere = scene.spheres[ref.index()];  // a copy: whole-sphere (vector) loads on the GPU
        found =
            intersect_sphere(sphere, ray, t_min, t_max, t) && hit_within_bounds(tester, bounds_of(sphere), t_min, t);
        break;
    }
    case PrimitiveType::Quad: {
        const Quad& quad = scene.quads[ref.index()];
        found =
            intersect_quad(quad, ray, t_min, t_max, t, u, v) && hit_within_bounds(tester, bounds_of(quad), t_min, t);
        break;
    }
    case PrimitiveType::Triangle: {
        // The GPU reads its copy of the corners (three vector loads); the
        // frame's 1 / dz is the tester's.
        const TriangleCorners corners = scene.triangle_corners != nullptr ? scene.triangle_corners[ref.index()]
                                                                          : corners_of(scene.triangles[ref.index()]);
        found = intersect_triangle(corners, ray, triangle_ray_frame(ray.direction, tester.inverse_direction), t_min,
                                   t_max, t, u, v) &&
                hit_within_bounds(tester, bounds_of(corners), t_min, t) &&
                (!scene.has_cutouts || surface_kept(scene, scene.triangles[ref.index()], ref, ray, t, u, v));
        break;
    }
    case PrimitiveType::Instance: break;
    }
    if (found) {
        hit.t = t;
        hit.primitive = ref;
        hit.u = u;
        hit.v = v;
    }
    return found;
}

// The ray in an instance's object space. The direction is not renormalised,
// so distances t are the same in both spaces.
FARMRT_CPU_GPU FARMRT_INLINE Ray object_ray(const Instance& instance, const Ray& ray) {
    return Ray{instance.object_from_world.point(ray.origin), instance.object_from_world.vector(ray.direction),
               ray.time};
}

// Closest hit inside one instance: its bottom-level BVH, traversed by the same
// near-first loop as the top level (a second loop, not recursion, so that it
// runs unchanged on the GPU).
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_instance(const SceneView& scene, uint32_t instance_index,
                                                     const Ray& world_ray, float t_min, Hit& hit) {
    const Instance& instance = scene.instances[instance_index];
    const Ray ray = object_ray(instance, world_ray);
    const RayBoxTester tester(ray);
    uint32_t stack[kBvhMaxDepth];
    int stack_size = 0;
    uint32_t node_index = instance.root_node;
    bool found = false;
    for (;;) {
        const BvhNode& node = scene.instance_nodes[node_index];
        if (tester.entry(node.bounds, t_min, hit.t) != kInfinity) {
            if (node.is_leaf()) {
                for (uint32_t i = 0; i < node.count; ++i) {
                    const PrimitiveRef ref = scene.instance_primitives[node.offset + i];
                    if (intersect_geometry(scene, ref, ray, tester, t_min, instance_hit_bound(hit, instance_index, ref),
                                           hit)) {
                        hit.instance = instance_index;
                        found = true;
                    }
                }
            } else if (tester.direction_negative[node.split_axis]) {
                stack[stack_size++] = node_index + 1;
                node_index = node.offset;
                continue;
            } else {
                stack[stack_size++] = node.offset;
                node_index = node_index + 1;
                continue;
            }
        }
        if (stack_size == 0) break;
        node_index = stack[--stack_size];
    }
    return found;
}

// Any top-level entry: a primitive, or an instance of shared geometry.
// kInstances = false compiles the instance path out, for scenes without
// instances: on the GPU the nested instance traversal costs a third more
// registers per thread (fewer resident warps) even where it never runs.
// `tester`: the ray's (traversals pass the one they test boxes with).
template <bool kInstances = true>
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_primitive(const SceneView& scene, PrimitiveRef ref, const Ray& ray,
                                                      const RayBoxTester& tester, float t_min, Hit& hit) {
    if (kInstances && ref.type() == PrimitiveType::Instance) {
        return intersect_instance(scene, ref.index(), ray, t_min, hit);
    }
    if (!intersect_geometry(scene, ref, ray, tester, t_min, closest_hit_bound(hit, ref), hit)) return false;
    hit.instance = kNoInstance;
    return true;
}
template <bool kInstances = true>
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_primitive(const SceneView& scene, PrimitiveRef ref, const Ray& ray,
                                                      float t_min, Hit& hit) {
    return intersect_primitive<kInstances>(scene, ref, ray, RayBoxTester(ray), t_min, hit);
}

// On the GPU, a leaf waits until at least this many lanes of its warp are
// at leaves (or no lane has an interior node left to visit); see below.
constexpr int kLeafQuorum = 8;

// The compile-time shape of a closest-hit traversal. The CPU uses the
// defaults; the GPU compiles one kernel per kind of scene (fewer registers
// and instructions where a scene needs less) and per math variant.
//   kInstances:   the scene may have instances (intersect_primitive).
//   kSpheresOnly: every top-level primitive is a sphere: leaves test spheres
//                 without the type switch (same arithmetic, same hit).
//   kQuorum:      the GPU's leaf quorum (intersect_closest); the order of
//                 each ray's steps, hence the hit, does not depend on it.
//   kFusedSlabs:  RayBoxTester::entry_fused instead of entry (GPU fast math
//                 only: not bit-identical to the CPU).
template <bool kInstances_ = true, bool kSpheresOnly_ = false, int kQuorum_ = kLeafQuorum, bool kFusedSlabs_ = false>
struct TraversalTraits {
    static constexpr bool kInstances = kInstances_ && !kSpheresOnly_;
    static constexpr bool kSpheresOnly = kSpheresOnly_;
    static constexpr int kQuorum = kQuorum_;
    static constexpr bool kFusedSlabs = kFusedSlabs_;

    FARMRT_CPU_GPU FARMRT_INLINE static float entry(const RayBoxTester& tester, const Aabb& box, float t_min,
                                                    float t_max) {
        return kFusedSlabs ? tester.entry_fused(box, t_min, t_max) : tester.entry(box, t_min, t_max);
    }

    // One leaf's primitive, as intersect_primitive.
    FARMRT_CPU_GPU FARMRT_INLINE static bool intersect(const SceneView& scene, PrimitiveRef ref, const Ray& ray,
                                                       const RayBoxTester& tester, float t_min, Hit& hit) {
        if (!kSpheresOnly) return intersect_primitive<kInstances>(scene, ref, ray, tester, t_min, hit);
        float t;
        const Sphere sphere = scene.spheres[ref.index()];
        if (!intersect_sphere(sphere, ray, t_min, closest_hit_bound(hit, ref), t)) return false;
        if (!hit_within_bounds(tester, bounds_of(sphere), t_min, t)) return false;
        hit.t = t;
        hit.primitive = ref;
        hit.u = 0;
        hit.v = 0;
        hit.instance = kNoInstance;
        return true;
    }
};

// Closest hit in (t_min, hit.t) through the BVH. At an interior node both
// children's boxes are tested; the nearer hit child is visited next and the
// farther one postponed with its entry distance, dropped on the way back if a
// hit closer than that entry has been found meanwhile. The order depends on
// the ray alone, so every tracer that runs this function (CPU, GPU) tests
// the same primitives in the same order and finds the same hit, even where
// rounding makes two surfaces nearly tie. (Fewer node visits and stack
// operations than testing each node's box when it is reached: on the GPU
// the traversal is 1.5 times as fast.)
//
// On the GPU the lanes of a warp step through their own rays together, and
// in each step the warp runs either the interior-node code or the (longer)
// leaf code: lanes whose next node is of the other kind wait a step. Leaves
// run once kLeafQuorum lanes are at one, so that the leaf code no longer runs
// in nearly every step for a lane or two. Each ray still takes its own steps
// in its own order, so the hit is the CPU's, bit for bit. kInstances: as for
// intersect_primitive (false only for scenes without instances).
template <class Traits = TraversalTraits<>>
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_closest(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) {
    const RayBoxTester tester(ray);
    uint32_t stack_node[kBvhMaxDepth];
    float stack_entry[kBvhMaxDepth];
    int stack_size = 0;
    bool found = false;
    uint32_t node_index = 0;
    BvhNode node = scene.nodes[0];  // copies: whole-node (vector) loads on the GPU
    bool done = Traits::entry(tester, node.bounds, t_min, hit.t) == kInfinity;
#if defined(__CUDA_ARCH__)
    const unsigned warp = __activemask();
#endif
    for (;;) {
        const bool at_leaf = !done && node.is_leaf();
#if defined(__CUDA_ARCH__)
        const unsigned busy_lanes = __ballot_sync(warp, !done);
        if (busy_lanes == 0) break;
        const unsigned leaf_lanes = __ballot_sync(warp, at_leaf);
        const bool leaves_now = __popc(leaf_lanes) >= Traits::kQuorum || leaf_lanes == busy_lanes;
#else
        if (done) break;
        const bool leaves_now = at_leaf;
#endif
        if (done || at_leaf != leaves_now) continue;  // this lane waits a step
        if (at_leaf) {
            for (uint32_t i = 0; i < node.count; ++i) {
                found |= Traits::intersect(scene, scene.primitives[node.offset + i], ray, tester, t_min, hit);
            }
        } else {
            const uint32_t left_index = node_index + 1, right_index = node.offset;
            const BvhNode left = scene.nodes[left_index];
            const BvhNode right = scene.nodes[right_index];
            const float left_entry = Traits::entry(tester, left.bounds, t_min, hit.t);
            const float right_entry = Traits::entry(tester, right.bounds, t_min, hit.t);
            const bool hit_left = left_entry != kInfinity, hit_right = right_entry != kInfinity;
            if (hit_left && hit_right) {
                const bool left_first = left_entry <= right_entry;
                stack_node[stack_size] = left_first ? right_index : left_index;
                stack_entry[stack_size] = left_first ? right_entry : left_entry;
                ++stack_size;
                node_index = left_first ? left_index : right_index;
                node = left_first ? left : right;
                continue;
            }
            if (hit_left || hit_right) {
                node_index = hit_left ? left_index : right_index;
                node = hit_left ? left : right;
                continue;
            }
        }
        // The next postponed node still in reach. entry() widens exits by the
        // same factor, so this drop is exactly as conservative as a re-test.
        for (;;) {
            if (stack_size == 0) {
                done = true;
                break;
            }
            --stack_size;
            if (stack_entry[stack_size] <= hit.t * kSlabExitWidening) {
                node_index = stack_node[stack_size];
                node = scene.nodes[node_index];
                break;
            }
        }
    }
    return found;
}

// Every primitive, no BVH at any level: the reference that tests compare traversal against.
inline bool intersect_closest_brute_force(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) {
    const RayBoxTester tester(ray);
    bool found = false;
    for (uint32_t i = 0; i < scene.primitive_count; ++i) {
        const PrimitiveRef ref = scene.primitives[i];
        if (ref.type() != PrimitiveType::Instance) {
            found |= intersect_primitive(scene, ref, ray, tester, t_min, hit);
            continue;
        }
        const Instance& instance = scene.instances[ref.index()];
        const Ray local = object_ray(instance, ray);
        const RayBoxTester local_tester(local);
        for (uint32_t j = 0; j < instance.primitive_count; ++j) {
            const PrimitiveRef inner = scene.instance_primitives[instance.primitive_offset + j];
            if (intersect_geometry(scene, inner, local, local_tester, t_min,
                                   instance_hit_bound(hit, ref.index(), inner), hit)) {
                hit.instance = ref.index();
                found = true;
            }
        }
    }
    return found;
}

}  // namespace farmrt
