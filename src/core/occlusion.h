// The any-hit query of shadow rays: is anything between a point and a light?
// Cheaper than the closest hit: it stops at the first primitive found and
// needs no order among children. Its answer is the OR of every primitive's
// own test over (t_min, t_max), and box tests never reject a box that a
// primitive's accepted hit lies in (hit_within_bounds), so every traversal of
// any BVH (binary or wide, CPU or GPU) gives the same answer.
#pragma once

#include "core/scene.h"

namespace farmrt {

// Whether anything inside instance `instance_index` meets the ray in (t_min, t_max).
FARMRT_CPU_GPU FARMRT_INLINE bool instance_occludes(const SceneView& scene, uint32_t instance_index,
                                                    const Ray& world_ray, float t_min, float t_max) {
    const Instance& instance = scene.instances[instance_index];
    const Ray ray = object_ray(instance, world_ray);
    const RayBoxTester tester(ray);
    uint32_t stack[kBvhMaxDepth];
    int stack_size = 0;
    uint32_t node_index = instance.root_node;
    for (;;) {
        const BvhNode& node = scene.instance_nodes[node_index];
        if (tester.entry(node.bounds, t_min, t_max) != kInfinity) {
            if (!node.is_leaf()) {
                stack[stack_size++] = node.offset;
                node_index = node_index + 1;
                continue;
            }
            for (uint32_t i = 0; i < node.count; ++i) {
                Hit hit;
                if (intersect_geometry(scene, scene.instance_primitives[node.offset + i], ray, tester, t_min, t_max,
                                       hit)) {
                    return true;
                }
            }
        }
        if (stack_size == 0) return false;
        node_index = stack[--stack_size];
    }
}

// Whether any primitive meets the ray at t in (t_min, t_max), through the binary BVH.
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_any(const SceneView& scene, const Ray& ray, float t_min, float t_max) {
    const RayBoxTester tester(ray);
    uint32_t stack[kBvhMaxDepth];
    int stack_size = 0;
    uint32_t node_index = 0;
    for (;;) {
        const BvhNode node = scene.nodes[node_index];
        if (tester.entry(node.bounds, t_min, t_max) != kInfinity) {
            if (!node.is_leaf()) {
                stack[stack_size++] = node.offset;
                node_index = node_index + 1;
                continue;
            }
            for (uint32_t i = 0; i < node.count; ++i) {
                const PrimitiveRef ref = scene.primitives[node.offset + i];
                if (ref.type() == PrimitiveType::Instance) {
                    if (instance_occludes(scene, ref.index(), ray, t_min, t_max)) return true;
                    continue;
                }
                Hit hit;
                if (intersect_geometry(scene, ref, ray, tester, t_min, t_max, hit)) return true;
            }
        }
        if (stack_size == 0) return false;
        node_index = stack[--stack_size];
    }
}

}  // namespace farmrt
