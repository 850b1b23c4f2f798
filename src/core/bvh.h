// Bounding volume hierarchy: the flat node layout that every tracer traverses,
// and its binned-SAH builder (host only; see bvh.cpp).
#pragma once

#include <vector>

#include "core/aabb.h"

namespace farmrt {

// 32 bytes, 16-byte aligned so that a GPU thread reads a node with two
// 16-byte loads. Interior nodes: the left child follows the node, `offset` is the
// right child. Leaves: `count` > 0 primitives starting at `offset` in the
// primitive order.
struct alignas(16) BvhNode {
    Aabb bounds;
    uint32_t offset;
    uint16_t count;
    uint16_t split_axis;

    FARMRT_CPU_GPU bool is_leaf() const { return count > 0; }
};
static_assert(sizeof(BvhNode) == 32, "BvhNode must stay 32 bytes");

constexpr int kBvhMaxDepth = 64;

struct BvhBuildOptions {
    int max_leaf_size = 4;
    int bin_count = 16;
    float traversal_cost = 1.0f;  // relative to one primitive test
    float intersection_cost = 1.0f;
};

struct Bvh {
    std::vector<BvhNode> nodes;
    std::vector<uint32_t> primitive_order;  // leaf slot -> input primitive index
};

// Builds over the given primitive bounds. An empty input gives one empty leaf.
Bvh build_bvh(const std::vector<Aabb>& primitive_bounds, const BvhBuildOptions& options = {});

}  // namespace farmrt
