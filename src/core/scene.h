// The renderable scene as flat arrays. `Scene` owns them on the host;
// `SceneView` is the plain-pointer view that every tracer (CPU, SIMD, CUDA)
// reads, so one layout serves every backend.
#pragma once

#include <vector>

#include "core/background.h"
#include "core/bvh.h"
#include "core/light_tree.h"
#include "core/light_types.h"
#include "core/materials.h"
#include "core/primitives.h"
#include "core/trigonometry.h"

namespace farmrt {

struct SceneView {
    const BvhNode* nodes = nullptr;            // top-level BVH, root at 0
    const PrimitiveRef* primitives = nullptr;  // top-level refs in BVH leaf order
    const Sphere* spheres = nullptr;
    const Quad* quads = nullptr;
    const Triangle* triangles = nullptr;
    const TriangleAttributes* triangle_attributes = nullptr;  // Triangle::attributes indexes it
    const Material* materials = nullptr;
    const Texture* textures = nullptr;
    const float* texture_pixels = nullptr;  // linear RGB texels of every image texture
    const Instance* instances = nullptr;
    // Bottom-level BVHs of instanced geometry, one after another; node offsets
    // and leaf offsets are absolute indices into these two arrays.
    const BvhNode* instance_nodes = nullptr;
    const PrimitiveRef* instance_primitives = nullptr;
    uint32_t node_count = 0;
    uint32_t primitive_count = 0;
    uint32_t instance_count = 0;
    uint32_t instance_node_count = 0;
    uint32_t instance_primitive_count = 0;
    uint64_t texture_pixel_count = 0;                               // floats in texture_pixels
    uint32_t sphere_count = 0, quad_count = 0, triangle_count = 0;  // array sizes, for copies (GPU upload)
    uint32_t material_count = 0, texture_count = 0, triangle_attributes_count = 0;
    // Some material cuts its triangles out (AlphaMode): hits on triangles then
    // ask surface_kept. False for most scenes, whose traversal skips it.
    bool has_cutouts = false;
    Background background;
    // What next-event estimation samples (lights.h): every light, the alias
    // table that picks one by power, and the environment's distribution.
    const Light* lights = nullptr;
    const AliasEntry* light_alias = nullptr;
    const float* environment_distribution = nullptr;
    uint32_t light_count = 0;
    uint32_t environment_distribution_size = 0;  // floats
    float inverse_light_power = 0.0f;            // 1 / the lights' total power; 0: no lights
    float environment_power = 0.0f;              // the background's share of it
    float scene_radius = 0.0f;                   // of the scene's bounding sphere (distant lights' power)
    // sampling.clamp (integrator.h add_light); infinite when off.
    float direct_clamp = kInfinity;
    float indirect_clamp = kInfinity;
    // Choosing lights by importance (light_tree.h), where use_light_tree:
    // the tree over the finite lights, chosen with tree_probability (their
    // share of the power), and the infinite lights beside it.
    bool use_light_tree = false;
    const LightTreeNode* light_tree = nullptr;
    const LightTrail* light_trails = nullptr;  // light_count of them
    const EmitterKey* emitter_keys = nullptr;
    const InfiniteLight* infinite_lights = nullptr;
    uint32_t light_tree_size = 0;
    uint32_t emitter_key_count = 0;
    uint32_t infinite_light_count = 0;
    float tree_probability = 0.0f;
};

class Scene {
public:
    std::vector<Sphere> spheres;
    std::vector<Quad> quads;
    std::vector<Triangle> triangles;
    std::vector<TriangleAttributes> triangle_attributes;
    std::vector<Material> materials;
    std::vector<Texture> textures;
    std::vector<float> texture_pixels;
    Background background;
    // Point, spot and directional lights as the scene file gives them;
    // build_lights() adds every emissive surface and the background.
    std::vector<Light> punctual_lights;

    // Instancing, as flat arrays (MPI sends them as they are). Geometry g that
    // instances share is instance_geometry_refs[instance_geometry_begin[g] ..
    // instance_geometry_begin[g + 1]): primitives of the arrays above, which
    // then belong to the geometry and not to the top level.
    struct InstancePlacement {
        uint32_t geometry;
        Transform world_from_object;
        uint32_t material;  // every hit on the instance uses this material
    };
    std::vector<PrimitiveRef> instance_geometry_refs;
    std::vector<uint32_t> instance_geometry_begin;
    std::vector<InstancePlacement> instance_placements;

    uint32_t add_instance_geometry(const std::vector<PrimitiveRef>& primitives);
    // One placement of a geometry; every hit on it uses `material`.
    void add_instance(uint32_t geometry, const Transform& world_from_object, uint32_t material);

    // Builds the BVH over every primitive; call after the arrays are filled.
    void build_acceleration(const BvhBuildOptions& options = {});
    // Without a BVH: one leaf holding every primitive, for the linear-list baseline.
    void build_linear_list();
    // The light list, its alias table and the background's distribution
    // (lights.cpp); the two builds above call it.
    void build_lights();
    const std::vector<Light>& lights() const { return lights_; }

    // Top-level entries: primitives outside instanced geometry, plus one per instance.
    size_t primitive_count() const;
    // Every primitive the renderer sees, each instance counted with all of its primitives.
    uint64_t rendered_primitive_count() const;
    size_t instance_count() const { return instance_placements.size(); }
    size_t instance_geometry_count() const {
        return instance_geometry_begin.empty() ? 0 : instance_geometry_begin.size() - 1;
    }
    const std::vector<BvhNode>& nodes() const { return nodes_; }
    const std::vector<PrimitiveRef>& primitive_refs() const { return primitive_refs_; }
    const std::vector<Instance>& instances() const { return instances_; }
    const std::vector<BvhNode>& instance_nodes() const { return instance_nodes_; }
    const std::vector<PrimitiveRef>& instance_primitive_refs() const { return instance_primitives_; }
    SceneView view() const;
    // sampling.clamp, which every view carries to the integrator; 0: off.
    void set_sample_clamp(float direct, float indirect);
    // sampling.light_sampler: tree (where the scene has one) or power (the default).
    void set_light_tree(bool use) { use_light_tree_ = use; }

private:
    std::vector<PrimitiveRef> all_primitive_refs() const;
    std::vector<Aabb> bounds_of_refs(const std::vector<PrimitiveRef>& refs) const;
    void build_instances(const BvhBuildOptions& options, bool use_bvh);
    std::vector<PrimitiveRef> geometry_refs(uint32_t geometry) const;
    std::vector<BvhNode> nodes_;
    std::vector<PrimitiveRef> primitive_refs_;
    std::vector<Instance> instances_;
    std::vector<BvhNode> instance_nodes_;
    std::vector<PrimitiveRef> instance_primitives_;
    std::vector<Light> lights_;
    std::vector<AliasEntry> light_alias_;
    std::vector<float> environment_distribution_;
    float inverse_light_power_ = 0.0f, environment_power_ = 0.0f, scene_radius_ = 0.0f;
    float direct_clamp_ = kInfinity, indirect_clamp_ = kInfinity;
    std::vector<LightTreeNode> light_tree_;
    std::vector<LightTrail> light_trails_;
    std::vector<EmitterKey> emitter_keys_;
    std::vector<InfiniteLight> infinite_lights_;
    float tree_probability_ = 0.0f;
    bool use_light_tree_ = false;
};

// ---- closest-hit queries shared by every tracer -------------------------------

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

// Whether the surface of a triangle whose material may cut it out is there
// at barycentrics (b1, b2) of `ray`'s hit: the alpha of the triangle's own
// material (an instance's material changes how it shades, not its shape)
// against the cutoff (Mask) or cutout_random (Blend).
FARMRT_CPU_GPU FARMRT_INLINE bool surface_kept(const SceneView& scene, const Triangle& triangle, PrimitiveRef ref,
                                               const Ray& ray, float t, float b1, float b2) {
    const Material& material = scene.materials[triangle.material];
    if (material.alpha_mode == AlphaMode::Opaque) return true;
    SurfaceInteraction at;
    const float b0 = 1.0f - b1 - b2;
    at.u = b0 * triangle.uv[0] + b1 * triangle.uv[2] + b2 * triangle.uv[4];
    at.v = b0 * triangle.uv[1] + b1 * triangle.uv[3] + b2 * triangle.uv[5];
    at.point = ray.at(t);  // for solid (checker) textures
    const float alpha = evaluate_texture(scene.textures, scene.texture_pixels, material.alpha_texture, at).x;
    if (material.alpha_mode == AlphaMode::Mask) return alpha >= material.alpha_cutoff;
    return cutout_random(ray, ref.bits) < alpha;
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
        const Triangle& triangle = scene.triangles[ref.index()];
        found = intersect_triangle(triangle, ray, t_min, t_max, t, u, v) &&
                hit_within_bounds(tester, bounds_of(triangle), t_min, t) &&
                (!scene.has_cutouts || surface_kept(scene, triangle, ref, ray, t, u, v));
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

// The surface point of a sphere hit, recomputed in double and projected onto
// the sphere, so that it lies within float rounding of the surface whatever
// the sphere's size and distance (origin + t d in float would be off it by
// the rounding of t times the ray's length). `outward`: the unit normal
// pointing away from the centre for r > 0 and towards it for r < 0 (the
// book's hollow glass sphere), as (p - centre) / r.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 sphere_surface_point(const Vec3& center, float radius, const Ray& ray, float t,
                                                       Vec3& outward) {
    const double vx = (double(ray.origin.x) + double(t) * double(ray.direction.x)) - double(center.x);
    const double vy = (double(ray.origin.y) + double(t) * double(ray.direction.y)) - double(center.y);
    const double vz = (double(ray.origin.z) + double(t) * double(ray.direction.z)) - double(center.z);
    const double inverse_length = 1.0 / sqrt((vx * vx + vy * vy) + vz * vz);
    const double normal_scale = radius < 0.0f ? -inverse_length : inverse_length;
    outward = Vec3(float(vx * normal_scale), float(vy * normal_scale), float(vz * normal_scale));
    const double to_surface = fabs(double(radius)) * inverse_length;
    return Vec3(float(double(center.x) + vx * to_surface), float(double(center.y) + vy * to_surface),
                float(double(center.z) + vz * to_surface));
}

// The surface of a sphere, quad or triangle in the space of `ray` (world space,
// or an instance's object space): point, unit outward normal, (u, v), material.
// `geometric`: the unit geometric normal, and `error_magnitude`: the size of
// the numbers the point and the next ray's test of this surface round at
// (ray_spawn.h). Each point is rebuilt from the surface itself, not as
// origin + t d, so that its error does not grow with the ray's length.
// `sphere_uv` false: a sphere's (u, v) stay 0 (its two arc tangents are a
// tenth of a CPU frame's time, wasted unless an image texture reads them).
// `tangent`, `handedness`: a triangle's interpolated TriangleAttributes
// tangent (left as it is where there is none).
FARMRT_CPU_GPU FARMRT_INLINE SurfaceInteraction geometry_surface(const SceneView& scene, const Ray& ray, const Hit& hit,
                                                                 Vec3& outward, Vec3& geometric, float& error_magnitude,
                                                                 Vec3& tangent, float& handedness,
                                                                 bool sphere_uv = true) {
    SurfaceInteraction si;
    switch (hit.primitive.type()) {
    case PrimitiveType::Sphere: {
        const Sphere& s = scene.spheres[hit.primitive.index()];
        const Vec3 center = s.center_at(ray.time);
        si.point = sphere_surface_point(center, s.radius, ray, hit.t, outward);
        geometric = outward;
        // The double projection is exact to ~2^-50 of the sphere's own size;
        // rounding the point to float adds half a unit of the point's size.
        error_magnitude =
            max_float(max_abs_component(si.point), kFloatRoundoff * (max_abs_component(center) + fabsf(s.radius)));
        if (sphere_uv) {
            // The book's (u, v): longitude and latitude of the unit-sphere point.
            // trigonometry.h's functions, not acosf/atan2f: the same bits on CPU and GPU.
            const float theta = arc_cosine(clamp_float(-outward.y, -1.0f, 1.0f));
            const float phi = arc_tangent2(-outward.z, outward.x) + kPi;
            si.u = phi / (2.0f * kPi);
            si.v = theta / kPi;
        }
        si.material = s.material;
        break;
    }
    case PrimitiveType::Quad: {
        const Quad& q = scene.quads[hit.primitive.index()];
        si.point = q.corner + hit.u * q.edge_u + hit.v * q.edge_v;
        error_magnitude = max_abs_component(q.corner) + max_abs_component(q.edge_u) + max_abs_component(q.edge_v);
        outward = q.normal;
        geometric = q.normal;
        si.u = hit.u;
        si.v = hit.v;
        si.material = q.material;
        break;
    }
    case PrimitiveType::Triangle: {
        const Triangle& t = scene.triangles[hit.primitive.index()];
        const float b0 = 1.0f - hit.u - hit.v;
        si.point = b0 * t.vertex0 + hit.u * t.vertex1 + hit.v * t.vertex2;
        error_magnitude = max_float(max_float(max_abs_component(t.vertex0), max_abs_component(t.vertex1)),
                                    max_abs_component(t.vertex2));
        geometric = unit_vector(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0));
        outward = geometric;
        if (length_squared(t.normal0) > 0.0f) {
            const Vec3 shading = unit_vector(b0 * t.normal0 + hit.u * t.normal1 + hit.v * t.normal2);
            // Keep the geometric side; use the interpolated normal for shading.
            outward = dot(shading, outward) < 0.0f ? -shading : shading;
        }
        si.u = b0 * t.uv[0] + hit.u * t.uv[2] + hit.v * t.uv[4];
        si.v = b0 * t.uv[1] + hit.u * t.uv[3] + hit.v * t.uv[5];
        si.material = t.material;
        if (t.attributes != kNoAttributes) {
            const TriangleAttributes& a = scene.triangle_attributes[t.attributes];
            si.vertex_color = b0 * a.color[0] + hit.u * a.color[1] + hit.v * a.color[2];
            tangent = b0 * a.tangent[0] + hit.u * a.tangent[1] + hit.v * a.tangent[2];
            handedness = a.handedness;
        }
        break;
    }
    case PrimitiveType::Instance: break;  // never stored in a Hit
    }
    return si;
}

// The largest row sum of |entries| of an affine map's linear part: how much
// it can enlarge a vector's largest component.
FARMRT_CPU_GPU FARMRT_INLINE float linear_row_norm(const Affine& affine) {
    float norm = 0.0f;
    for (int row = 0; row < 3; ++row) {
        const float* m = affine.m + 4 * row;
        norm = max_float(norm, (fabsf(m[0]) + fabsf(m[1])) + fabsf(m[2]));
    }
    return norm;
}

// The error magnitude of an object-space surface mapped to world space: the
// mapped point's own rounding, and, since the next ray is tested in object
// space again, the round trip's enlargement of errors (the two linear parts'
// norms, 1 for rotations and uniform scales).
FARMRT_CPU_GPU FARMRT_INLINE float instance_error_magnitude(const Instance& instance, float object_magnitude,
                                                            const Vec3& world_point) {
    const float to_world = linear_row_norm(instance.world_from_object);
    const float round_trip = max_float(1.0f, to_world * linear_row_norm(instance.object_from_world));
    const Vec3 translation(instance.world_from_object.m[3], instance.world_from_object.m[7],
                           instance.world_from_object.m[11]);
    return round_trip * (to_world * object_magnitude + max_abs_component(translation) + max_abs_component(world_point));
}

// The shading normal `normal` (unit, on the geometric normal's side) bent by
// the material's normal map, in the frame of the tangent (made orthogonal to
// the normal), the bitangent handedness * cross(normal, tangent) and the
// normal. Unchanged where the material has no map, the tangent is parallel
// to the normal, or the bent normal would leave the geometric side.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 normal_mapped(const SceneView& scene, const SurfaceInteraction& si,
                                                const Vec3& normal, const Vec3& geometric, const Vec3& tangent,
                                                float handedness) {
    const uint32_t map = scene.materials[si.material].normal_texture;
    if (map == kNoTexture) return normal;
    const Vec3 along = tangent - dot(tangent, normal) * normal;
    if (!(length_squared(along) > 0.0f)) return normal;
    const Vec3 unit_tangent = unit_vector(along);
    const Vec3 bitangent = handedness * cross(normal, unit_tangent);
    const Color m = evaluate_texture(scene.textures, scene.texture_pixels, map, si);
    const Vec3 bent = m.x * unit_tangent + m.y * bitangent + m.z * normal;
    if (!(length_squared(bent) > 0.0f)) return normal;
    const Vec3 unit_bent = unit_vector(bent);
    return dot(unit_bent, geometric) > 0.0f ? unit_bent : normal;
}

// Rebuilds the surface (point, facing normal, texture coordinates) from a hit.
// Through an instance: the surface in object space, its point mapped to world
// space and its normals back by the inverse transpose (right under
// non-uniform scale), the instance's material.
// `sphere_uv`: as geometry_surface (false only where nothing reads them:
// material_reads_uv below).
FARMRT_CPU_GPU FARMRT_INLINE SurfaceInteraction surface_at(const SceneView& scene, const Ray& ray, const Hit& hit,
                                                           bool sphere_uv = true) {
    SurfaceInteraction si;
    Vec3 outward, geometric, tangent(0.0f);
    float error_magnitude = 0.0f, handedness = 1.0f;
    if (hit.instance == kNoInstance) {
        si = geometry_surface(scene, ray, hit, outward, geometric, error_magnitude, tangent, handedness, sphere_uv);
    } else {
        const Instance& instance = scene.instances[hit.instance];
        si = geometry_surface(scene, object_ray(instance, ray), hit, outward, geometric, error_magnitude, tangent,
                              handedness, sphere_uv);
        si.point = instance.world_from_object.point(si.point);
        error_magnitude = instance_error_magnitude(instance, error_magnitude, si.point);
        outward = unit_vector(instance.object_from_world.transposed_vector(outward));
        geometric = unit_vector(instance.object_from_world.transposed_vector(geometric));
        tangent = instance.world_from_object.vector(tangent);  // along the surface: maps as a vector
        if (instance.material != kGeometryMaterial) si.material = instance.material;
    }
    if (length_squared(tangent) > 0.0f) outward = normal_mapped(scene, si, outward, geometric, tangent, handedness);
    si.spawn_offset = spawn_offset(geometric, error_magnitude);
    si.front_face = dot(ray.direction, outward) < 0.0f;
    si.normal = si.front_face ? outward : -outward;
    return si;
}

// The material a hit shades with (an instance's own material overrides its geometry's).
FARMRT_CPU_GPU FARMRT_INLINE uint32_t hit_material(const SceneView& scene, const Hit& hit) {
    if (hit.instance != kNoInstance && scene.instances[hit.instance].material != kGeometryMaterial) {
        return scene.instances[hit.instance].material;
    }
    switch (hit.primitive.type()) {
    case PrimitiveType::Sphere: return scene.spheres[hit.primitive.index()].material;
    case PrimitiveType::Quad: return scene.quads[hit.primitive.index()].material;
    case PrimitiveType::Triangle: return scene.triangles[hit.primitive.index()].material;
    case PrimitiveType::Instance: break;  // never stored in a Hit
    }
    return 0;
}

// Whether shading with `material` reads the surface's (u, v): only image
// textures do (evaluate_texture).
FARMRT_CPU_GPU FARMRT_INLINE bool material_reads_uv(const SceneView& scene, uint32_t material) {
    const Material& m = scene.materials[material];
    switch (m.type) {
    case MaterialType::Lambertian:
    case MaterialType::Metal: return scene.textures[m.albedo_texture].type == TextureType::Image;
    case MaterialType::Emissive: return scene.textures[m.emission_texture].type == TextureType::Image;
    case MaterialType::Dielectric: return false;
    case MaterialType::Principled:
        return scene.textures[m.albedo_texture].type == TextureType::Image ||
               scene.textures[m.metallic_roughness_texture].type == TextureType::Image ||
               (m.emission_texture != kNoTexture && scene.textures[m.emission_texture].type == TextureType::Image);
    }
    return true;
}

}  // namespace farmrt
