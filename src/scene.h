// The renderable scene as flat arrays. `Scene` owns them on the host;
// `SceneView` is the plain-pointer view that every tracer (CPU, SIMD, CUDA)
// reads, so one layout serves every backend.
#pragma once

#include <vector>

#include "background.h"
#include "bvh.h"
#include "materials.h"
#include "primitives.h"

namespace farmrt {

struct SceneView {
    const BvhNode* nodes = nullptr;
    const PrimitiveRef* primitives = nullptr;  // in BVH leaf order
    const Sphere* spheres = nullptr;
    const Quad* quads = nullptr;
    const Triangle* triangles = nullptr;
    const Material* materials = nullptr;
    const Texture* textures = nullptr;
    uint32_t node_count = 0;
    uint32_t primitive_count = 0;
    Background background;
};

class Scene {
public:
    std::vector<Sphere> spheres;
    std::vector<Quad> quads;
    std::vector<Triangle> triangles;
    std::vector<Material> materials;
    std::vector<Texture> textures;
    Background background;

    // Builds the BVH over every primitive; call after the arrays are filled.
    void build_acceleration(const BvhBuildOptions& options = {});
    // Without a BVH: one leaf holding every primitive, for the linear-list baseline.
    void build_linear_list();

    size_t primitive_count() const { return spheres.size() + quads.size() + triangles.size(); }
    const std::vector<BvhNode>& nodes() const { return nodes_; }
    const std::vector<PrimitiveRef>& primitive_refs() const { return primitive_refs_; }
    SceneView view() const;

private:
    std::vector<PrimitiveRef> all_primitive_refs() const;
    std::vector<BvhNode> nodes_;
    std::vector<PrimitiveRef> primitive_refs_;
};

// ---- closest-hit queries shared by every tracer -------------------------------

// The closest hit is the smallest (t, PrimitiveRef) pair: on exactly equal t
// the smaller reference wins. The rule does not depend on the order in which
// primitives are tested, so every traversal (binary or wide BVH, scalar or
// SIMD, CPU or GPU) returns the same hit.
FARMRT_CPU_GPU FARMRT_INLINE float closest_hit_bound(const Hit& hit, PrimitiveRef ref) {
    return ref.bits < hit.primitive.bits ? next_float_up(hit.t) : hit.t;
}

FARMRT_CPU_GPU FARMRT_INLINE bool intersect_primitive(const SceneView& scene, PrimitiveRef ref, const Ray& ray,
                                                      float t_min, Hit& hit) {
    float t, u = 0, v = 0;
    bool found = false;
    const float t_max = closest_hit_bound(hit, ref);
    switch (ref.type()) {
    case PrimitiveType::Sphere: found = intersect_sphere(scene.spheres[ref.index()], ray, t_min, t_max, t); break;
    case PrimitiveType::Quad: found = intersect_quad(scene.quads[ref.index()], ray, t_min, t_max, t, u, v); break;
    case PrimitiveType::Triangle:
        found = intersect_triangle(scene.triangles[ref.index()], ray, t_min, t_max, t, u, v);
        break;
    }
    if (found) {
        hit.t = t;
        hit.primitive = ref;
        hit.u = u;
        hit.v = v;
    }
    return found;
}

// Closest hit in (t_min, hit.t) through the BVH. Children are visited near-first
// by the split axis and the ray's sign, so results are independent of who traces.
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_closest(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) {
    const RayBoxTester tester(ray);
    uint32_t stack[kBvhMaxDepth];
    int stack_size = 0;
    uint32_t node_index = 0;
    bool found = false;
    for (;;) {
        const BvhNode& node = scene.nodes[node_index];
        if (tester.entry(node.bounds, t_min, hit.t) != kInfinity) {
            if (node.is_leaf()) {
                for (uint32_t i = 0; i < node.count; ++i) {
                    found |= intersect_primitive(scene, scene.primitives[node.offset + i], ray, t_min, hit);
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

// Every primitive, no BVH: the reference that tests compare traversal against.
inline bool intersect_closest_brute_force(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) {
    bool found = false;
    for (uint32_t i = 0; i < scene.primitive_count; ++i) {
        found |= intersect_primitive(scene, scene.primitives[i], ray, t_min, hit);
    }
    return found;
}

// Rebuilds the surface (point, facing normal, texture coordinates) from a hit.
FARMRT_CPU_GPU FARMRT_INLINE SurfaceInteraction surface_at(const SceneView& scene, const Ray& ray, const Hit& hit) {
    SurfaceInteraction si;
    si.point = ray.at(hit.t);
    Vec3 outward;
    switch (hit.primitive.type()) {
    case PrimitiveType::Sphere: {
        const Sphere& s = scene.spheres[hit.primitive.index()];
        outward = (si.point - s.center_at(ray.time)) / s.radius;
        // The book's (u, v): longitude and latitude of the unit-sphere point.
        const float theta = acosf(clamp_float(-outward.y, -1.0f, 1.0f));
        const float phi = atan2f(-outward.z, outward.x) + kPi;
        si.u = phi / (2.0f * kPi);
        si.v = theta / kPi;
        si.material = s.material;
        break;
    }
    case PrimitiveType::Quad: {
        const Quad& q = scene.quads[hit.primitive.index()];
        outward = q.normal;
        si.u = hit.u;
        si.v = hit.v;
        si.material = q.material;
        break;
    }
    case PrimitiveType::Triangle: {
        const Triangle& t = scene.triangles[hit.primitive.index()];
        const float b0 = 1.0f - hit.u - hit.v;
        outward = unit_vector(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0));
        if (length_squared(t.normal0) > 0.0f) {
            const Vec3 shading = unit_vector(b0 * t.normal0 + hit.u * t.normal1 + hit.v * t.normal2);
            // Keep the geometric side; use the interpolated normal for shading.
            outward = dot(shading, outward) < 0.0f ? -shading : shading;
        }
        si.u = b0 * t.uv[0] + hit.u * t.uv[2] + hit.v * t.uv[4];
        si.v = b0 * t.uv[1] + hit.u * t.uv[3] + hit.v * t.uv[5];
        si.material = t.material;
        break;
    }
    }
    si.front_face = dot(ray.direction, outward) < 0.0f;
    si.normal = si.front_face ? outward : -outward;
    return si;
}

}  // namespace farmrt
