// Choosing a light by its importance to the shading point: a binary tree over
// the scene's finite lights (emissive spheres, quads and triangles, point and
// spot lights), each node bounding its lights' positions, emitted directions
// and power (Conty Estevez and Kulla, "Importance Sampling of Many Lights with
// Adaptive Tree Splitting", 2018; the importance of pbrt-v4's
// BVHLightSampler). A light is chosen by descending from the root, taking
// each child in proportion to its importance; the probability of a given
// light is the product along its path, which a trail of child bits per light
// replays (multiple importance sampling needs it for emitters that a BSDF
// sample hits). Infinite lights (directional, the background) are chosen by
// power beside the tree. Only square roots and the four basic operations:
// the same bits on every backend.
#pragma once

#include <vector>

#include "core/light_types.h"

namespace farmrt {

constexpr uint32_t kNoLight = 0xFFFFFFFFu;

struct LightTreeNode {
    Vec3 lower, upper;   // bounds of the lights' positions
    Vec3 axis;           // unit: the cone of emitted normals' axis
    float cos_theta_o;   // the cone of normals: half-angle's cosine (-1: every direction)
    float cos_theta_e;   // how far beyond a normal light leaves (cos pi/2 = 0: a hemisphere)
    float power;         // the lights' total power (luminance)
    uint32_t two_sided;  // 1: emits along -axis as well (farmrt's quads and triangles)
    // Leaf: the light's index, and first_child = 0; interior node: its
    // children are first_child and first_child + 1.
    uint32_t light = kNoLight;
    uint32_t first_child = 0;
};

// A light's path from the root: bit i set where it goes right at depth i.
struct LightTrail {
    uint32_t bits = 0;
    uint32_t depth = kNoLight;  // kNoLight: not in the tree (an infinite light)
};

// Finds the light of an emitter a ray hits: (instance, type, primitive)
// packed as emitter_key() makes it, sorted for a binary search.
struct EmitterKey {
    uint64_t key;
    uint32_t light;
    uint32_t unused;
};
FARMRT_CPU_GPU FARMRT_INLINE uint64_t emitter_key(LightType type, uint32_t primitive, uint32_t instance) {
    return (uint64_t(instance) << 32) | (uint64_t(type) << 29) | uint64_t(primitive & 0x1FFFFFFFu);
}
FARMRT_CPU_GPU FARMRT_INLINE uint32_t find_emitter(const EmitterKey* keys, uint32_t count, uint64_t key) {
    uint32_t low = 0, high = count;
    while (low < high) {
        const uint32_t middle = (low + high) >> 1;
        if (keys[middle].key < key) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low < count && keys[low].key == key ? keys[low].light : kNoLight;
}

// The infinite lights beside the tree, chosen by power: `cumulative` is the
// share of the infinite lights' power up to and including this one.
struct InfiniteLight {
    uint32_t light;
    float cumulative;
};

FARMRT_CPU_GPU FARMRT_INLINE float safe_root(float x) { return sqrtf(x > 0.0f ? x : 0.0f); }

// A node's importance to a point: power over squared distance, times the
// cosine of the smallest angle between the direction to the point and the
// node's cone of emitted directions, widened by the angle the node's bounding
// sphere subtends; 0 where no light of the node can reach the point.
FARMRT_CPU_GPU FARMRT_INLINE float light_node_importance(const LightTreeNode& node, const Vec3& point) {
    const Vec3 center = 0.5f * (node.lower + node.upper);
    const Vec3 to_point = point - center;
    const float distance_squared = length_squared(to_point);
    const float radius_squared = length_squared(node.upper - center);
    // Not closer than half the node's diagonal: inside a node every light may be near.
    const float clamped_squared = max_float(distance_squared, 0.5f * sqrtf(4.0f * radius_squared));
    float cos_w = 1.0f;
    if (distance_squared > 0.0f) cos_w = dot(node.axis, to_point) / sqrtf(distance_squared);
    if (node.two_sided) cos_w = fabsf(cos_w);
    const float sin_w = safe_root(1.0f - cos_w * cos_w);
    // The angle the bounding sphere subtends from the point (everything, inside it).
    float cos_b = -1.0f;
    if (distance_squared > radius_squared) cos_b = safe_root(1.0f - radius_squared / distance_squared);
    const float sin_b = safe_root(1.0f - cos_b * cos_b);
    // cos(max(0, theta_w - theta_o)), then less theta_b.
    const float sin_o = safe_root(1.0f - node.cos_theta_o * node.cos_theta_o);
    const float cos_x = cos_w > node.cos_theta_o ? 1.0f : cos_w * node.cos_theta_o + sin_w * sin_o;
    const float sin_x = cos_w > node.cos_theta_o ? 0.0f : safe_root(1.0f - cos_x * cos_x);
    const float cos_p = cos_x > cos_b ? 1.0f : cos_x * cos_b + sin_x * sin_b;
    if (cos_p <= node.cos_theta_e) return 0.0f;
    return node.power * cos_p / clamped_squared;
}

// Descends from the root with u in [0, 1): the light, and the probability of
// having chosen it (`pmf`); kNoLight where no light can reach the point.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t sample_light_tree(const LightTreeNode* nodes, const Vec3& point, float u,
                                                        float& pmf) {
    pmf = 1.0f;
    uint32_t node = 0;
    while (nodes[node].first_child != 0) {
        const uint32_t child = nodes[node].first_child;
        const float left = light_node_importance(nodes[child], point);
        const float right = light_node_importance(nodes[child + 1], point);
        const float total = left + right;
        if (!(total > 0.0f)) return kNoLight;
        const float p_left = left / total;
        if (u < p_left) {
            u = min_float(u / p_left, 0.99999994f);
            pmf *= p_left;
            node = child;
        } else {
            u = min_float((u - p_left) / (1.0f - p_left), 0.99999994f);
            pmf *= 1.0f - p_left;
            node = child + 1;
        }
    }
    return nodes[node].light;
}

// The probability that sample_light_tree() chooses the light whose path from
// the root is `trail` (bit i: the right child at depth i) of `depth` steps.
FARMRT_CPU_GPU FARMRT_INLINE float light_tree_pmf(const LightTreeNode* nodes, const Vec3& point, uint32_t trail,
                                                  uint32_t depth) {
    float pmf = 1.0f;
    uint32_t node = 0;
    for (uint32_t level = 0; level < depth; ++level) {
        const uint32_t child = nodes[node].first_child;
        const float left = light_node_importance(nodes[child], point);
        const float right = light_node_importance(nodes[child + 1], point);
        const float total = left + right;
        if (!(total > 0.0f)) return 0.0f;
        const bool go_right = (trail >> level) & 1u;
        pmf *= go_right ? 1.0f - left / total : left / total;
        node = child + (go_right ? 1u : 0u);
    }
    return pmf;
}

struct SceneView;

bool is_infinite_light(LightType type);

// The tree over the view's finite lights, and each light's trail (depth
// kNoLight for the infinite ones). Empty without finite lights. A median split
// halves the lights at each level, so trails stay within 32 bits.
std::vector<LightTreeNode> build_light_tree(const SceneView& scene, std::vector<LightTrail>& trails);

}  // namespace farmrt
