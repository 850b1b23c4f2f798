// A 4-wide BVH for the GPU: the core's binary BVH (src/core/bvh.h)
// collapsed so that a ray takes about half as many traversal steps, each
// testing four child boxes with the same code in every lane of a warp, and
// testing the primitives of leaf children in the same step (no separate leaf
// steps, so no interior/leaf divergence). Boxes, primitive tests and the
// closest-hit rule are the shared core's (RayBoxTester,
// TraversalTraits::intersect, the smallest (t, key) hit among hits inside
// their primitive's own box); only the order in which boxes are visited
// differs from intersect_closest, and the rule does not depend on it: exact
// math finds the CPU's hits bit for bit.
#pragma once

#include <vector>

#include "core/occlusion.h"
#include "core/scene.h"

namespace farmrt {

// One child slot: its box, and what it is. 32 bytes (two 16-byte loads).
struct alignas(16) WideBvhChild {
    Aabb bounds;       // empty slots: lower = +inf, upper = -inf (no ray enters)
    uint32_t payload;  // interior: wide node index; leaf: below (WideLeaf)
    uint32_t unused;
};
static_assert(sizeof(WideBvhChild) == 32, "WideBvhChild must stay 32 bytes");

struct alignas(16) WideBvhNode {
    WideBvhChild child[4];
};

// A leaf child's payload: kWideLeaf, and either kWideLeafOfOne with the
// primitive's own PrimitiveRef in the low 30 bits (the types take two of
// its top four, so it fits), or count << kWideLeafCountShift | first slot of
// the tree's primitive order. A leaf of one (every leaf of the GPU's split
// trees) thus needs no load of its ref: the triangle or sphere load waits on
// the node's load alone.
constexpr uint32_t kWideLeaf = 0x80000000u;
constexpr uint32_t kWideLeafOfOne = 0x40000000u;
static_assert(static_cast<uint32_t>(PrimitiveType::Instance) < 4,
              "a leaf of one keeps its ref's type in the payload's bits 28-29");
constexpr uint32_t kWideLeafCountShift = 24;
constexpr uint32_t kWideMaxLeafCount = 63;
constexpr uint32_t kWideMaxFirstPrimitive = (1u << kWideLeafCountShift) - 1;

struct WideLeaf {
    uint32_t payload;
    FARMRT_CPU_GPU FARMRT_INLINE uint32_t count() const {
        return (payload & kWideLeafOfOne) != 0 ? 1u : (payload & ~kWideLeaf) >> kWideLeafCountShift;
    }
    // The leaf's j-th primitive.
    FARMRT_CPU_GPU FARMRT_INLINE PrimitiveRef primitive(const SceneView& scene, uint32_t j) const {
        return (payload & kWideLeafOfOne) != 0 ? PrimitiveRef{payload & ~(kWideLeaf | kWideLeafOfOne)}
                                               : scene.primitives[(payload & kWideMaxFirstPrimitive) + j];
    }
};
// Postponed children: at most three per level of the tree.
constexpr int kWideBvhStackSize = 96;

// Collapses a binary BVH (root at 0, left child after its parent, `offset`
// the right child) into 4-wide nodes: each wide node takes a binary node's
// children and opens the largest interior one (by surface area) until it has
// four. `refs` is the tree's primitive order (the refs its leaves' offsets
// index). Returns false (and nothing) when the tree does not fit the encoding
// or the stack (kWideBvhStackSize, kWideMaxLeafCount, kWideMaxFirstPrimitive).
bool build_wide_bvh(const BvhNode* nodes, uint32_t node_count, const PrimitiveRef* refs,
                    std::vector<WideBvhNode>& wide);

// Each ref's primitive's box, in the refs' order (the input of the GPU's own
// trees). Returns false when a ref is an instance (its box needs its tree).
bool geometry_bounds(const SceneView& scene, const PrimitiveRef* refs, size_t count, std::vector<Aabb>& bounds);

// The GPU's own binary BVH, made from the scene's in one pass instead of a
// second build: the same tree, with every leaf of more than `max_leaf_size`
// primitives split into a subtree (its primitives ordered along their
// centroids' longest axis and halved until each leaf fits), so that each
// primitive is culled by a box of its own. `refs` and `primitive_bounds` are
// per slot of the scene's primitive order; a split leaf's primitives are
// reordered within its own slots. Returns false (and nothing) when the
// deeper tree would not fit the traversal stack (kBvhMaxDepth).
bool split_bvh_leaves(const BvhNode* nodes, uint32_t node_count, const PrimitiveRef* refs,
                      const std::vector<Aabb>& primitive_bounds, int max_leaf_size, std::vector<BvhNode>& split_nodes,
                      std::vector<PrimitiveRef>& split_refs);

// Closest hit in (t_min, hit.t) through the wide BVH. Per step: the four
// children's entries (the core's slab test), sorted; interior children pushed
// farthest first; leaf children's primitives tested nearest first, each hit
// culling the farther children; then the nearest postponed node still in
// reach. Traits: TraversalTraits (core/closest_hit.h), without instances.
template <class Traits>
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_closest_wide(const SceneView& scene, const WideBvhNode* nodes,
                                                         const Ray& ray, float t_min, Hit& hit) {
    static_assert(!Traits::kInstances, "the wide BVH has no instance path");
    const RayBoxTester tester(ray);
    uint32_t stack_node[kWideBvhStackSize];
    float stack_entry[kWideBvhStackSize];
    int stack_size = 0;
    bool found = false;
    uint32_t node_index = 0;
    for (;;) {
        float entry[4];
        uint32_t payload[4];
        for (int i = 0; i < 4; ++i) {
            const WideBvhChild child = nodes[node_index].child[i];  // a copy: two 16-byte loads on the GPU
            entry[i] = Traits::entry(tester, child.bounds, t_min, hit.t);
            payload[i] = child.payload;
        }
        // Nearest first (misses, at kInfinity, last): a sorting network.
        const auto order = [&](int a, int b) {
            const bool swap = entry[b] < entry[a];
            const float e = swap ? entry[b] : entry[a];
            entry[b] = swap ? entry[a] : entry[b];
            entry[a] = e;
            const uint32_t p = swap ? payload[b] : payload[a];
            payload[b] = swap ? payload[a] : payload[b];
            payload[a] = p;
        };
        order(0, 1);
        order(2, 3);
        order(0, 2);
        order(1, 3);
        order(1, 2);
        // Interior children hit: postponed, farthest first, so that the
        // nearest is popped next (unless a leaf hit below culls it). Leaf
        // children hit, where leaves hold triangles or quads: gathered in
        // front, nearest first, so that the lanes of a warp test their first
        // leaves together, then their second (the million triangles 1.09x on
        // an H100). One-sphere leaves are tested at their place among the
        // four sorted children: gathering them cost the book's scene 7%.
        constexpr bool kGatherLeaves = !Traits::kSpheresOnly;
        float leaf_entry[4] = {kInfinity, kInfinity, kInfinity, kInfinity};
        uint32_t leaf_payload[4] = {0, 0, 0, 0};
        int leaf_count = 0;
        for (int i = 3; i >= 0; --i) {
            if (entry[i] == kInfinity) continue;
            if ((payload[i] & kWideLeaf) == 0) {
                stack_node[stack_size] = payload[i];
                stack_entry[stack_size] = entry[i];
                ++stack_size;
                continue;
            }
            if (!kGatherLeaves) continue;
            // Shifted in at the front, so that they stay in registers.
            leaf_entry[3] = leaf_entry[2];
            leaf_entry[2] = leaf_entry[1];
            leaf_entry[1] = leaf_entry[0];
            leaf_entry[0] = entry[i];
            leaf_payload[3] = leaf_payload[2];
            leaf_payload[2] = leaf_payload[1];
            leaf_payload[1] = leaf_payload[0];
            leaf_payload[0] = payload[i];
            ++leaf_count;
        }
        if (!kGatherLeaves) {
            // The sorted children in place of the gathered leaves: interior
            // ones are skipped below, and the first miss ends the loop.
            for (int i = 0; i < 4; ++i) {
                leaf_entry[i] = entry[i];
                leaf_payload[i] = payload[i];
            }
            leaf_count = 4;
        }
        // Their primitives, nearest leaf first, in one loop (one copy of the
        // primitive test that the lanes of a warp run together): shifted
        // down instead of indexed, so that they stay in registers.
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
        for (int k = 0; k < leaf_count; ++k) {
            const float e = leaf_entry[0];
            const uint32_t p = leaf_payload[0];
            leaf_entry[0] = leaf_entry[1];
            leaf_entry[1] = leaf_entry[2];
            leaf_entry[2] = leaf_entry[3];
            leaf_payload[0] = leaf_payload[1];
            leaf_payload[1] = leaf_payload[2];
            leaf_payload[2] = leaf_payload[3];
            // This one and every later one out of reach (gathered leaves are all hit).
            if ((!kGatherLeaves && e == kInfinity) || e > hit.t * kSlabExitWidening) break;
            if (!kGatherLeaves && (p & kWideLeaf) == 0) continue;
            const WideLeaf leaf{p};
            const uint32_t count = leaf.count();
            for (uint32_t j = 0; j < count; ++j) {
                found |= Traits::intersect(scene, leaf.primitive(scene, j), ray, tester, t_min, hit);
            }
        }
        // The next postponed node still in reach (entry() widens exits by
        // the same factor, as in intersect_closest).
        for (;;) {
            if (stack_size == 0) return found;
            --stack_size;
            if (stack_entry[stack_size] <= hit.t * kSlabExitWidening) {
                node_index = stack_node[stack_size];
                break;
            }
        }
    }
}

// Whether any primitive meets the ray in (t_min, t_max), through the wide
// BVH: occlusion.h's any-hit query (the same answer on any tree) in half the
// steps of the binary BVH's. Every child box hit is taken, in any order:
// interior children postponed, leaf children's primitives tested at once.
template <class Traits>
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_any_wide(const SceneView& scene, const WideBvhNode* nodes, const Ray& ray,
                                                     float t_min, float t_max) {
    static_assert(!Traits::kInstances, "the wide BVH has no instance path");
    const RayBoxTester tester(ray);
    uint32_t stack[kWideBvhStackSize];
    int stack_size = 0;
    uint32_t node_index = 0;
    for (;;) {
        // Interior children hit: postponed. Leaf children hit: gathered, so
        // that the lanes of a warp test their first leaves together, then
        // their second, rather than each lane at its leaf's place among the four.
        uint32_t leaves[4] = {0, 0, 0, 0};
        int leaf_count = 0;
        for (int i = 0; i < 4; ++i) {
            const WideBvhChild child = nodes[node_index].child[i];  // a copy: two 16-byte loads on the GPU
            if (Traits::entry(tester, child.bounds, t_min, t_max) == kInfinity) continue;
            if ((child.payload & kWideLeaf) == 0) {
                stack[stack_size++] = child.payload;
                continue;
            }
            leaves[3] = leaves[2];
            leaves[2] = leaves[1];
            leaves[1] = leaves[0];
            leaves[0] = child.payload;
            ++leaf_count;
        }
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
        for (int k = 0; k < leaf_count; ++k) {
            const WideLeaf leaf{leaves[0]};
            leaves[0] = leaves[1];
            leaves[1] = leaves[2];
            leaves[2] = leaves[3];
            const uint32_t count = leaf.count();
            for (uint32_t j = 0; j < count; ++j) {
                Hit hit;
                if (intersect_geometry(scene, leaf.primitive(scene, j), ray, tester, t_min, t_max, hit)) return true;
            }
        }
        if (stack_size == 0) return false;
        node_index = stack[--stack_size];
    }
}

// The closest-hit query over the wide BVH (integrator.h's Query).
template <class Traits>
struct WideTraversalQuery {
    static constexpr bool kSpheresOnly = Traits::kSpheresOnly;  // as TraversalQuery's
    const WideBvhNode* nodes;
    FARMRT_CPU_GPU FARMRT_INLINE bool operator()(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) const {
        return intersect_closest_wide<Traits>(scene, nodes, ray, t_min, hit);
    }
    // Shadow rays: the any-hit query over the same tree.
    FARMRT_CPU_GPU FARMRT_INLINE bool occluded(const SceneView& scene, const Ray& ray, float t_max) const {
        return intersect_any_wide<Traits>(scene, nodes, ray, kMinHitDistance, t_max);
    }
};

}  // namespace farmrt
