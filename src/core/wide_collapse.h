// Collapsing a binary BVH into a wide one: which binary subtrees become the
// children of a wide node. Shared by the CPU's wide BVH (simd/wide_bvh.h, also
// the baseline of its SAH-optimal collapse) and the GPU's 4-wide layout
// (cuda/wide_bvh_gpu.h), which differ only in how they store the result.
#pragma once

#include <cstdint>
#include <vector>

#include "core/bvh.h"

namespace farmrt {

// The collapse of Wald et al. 2008 and Embree's BVH-N builders: starting from
// the two children of interior node `binary`, open the interior child of
// largest surface area (replacing it by its two children, in place, so the
// children stay in the binary tree's left-to-right order) until there are
// `width` children or none can be opened. `stays_closed(node)` names the
// subtrees that must not be opened (leaves, or a builder's own leaf rule).
// `children` receives binary node indices.
template <class StaysClosed>
void open_largest_area_children(const BvhNode* nodes, uint32_t binary, size_t width, const StaysClosed& stays_closed,
                                std::vector<uint32_t>& children) {
    children.clear();
    children.push_back(binary + 1);
    children.push_back(nodes[binary].offset);
    while (children.size() < width) {
        int best = -1;
        float best_area = -1.0f;
        for (size_t i = 0; i < children.size(); ++i) {
            if (nodes[children[i]].is_leaf() || stays_closed(children[i])) continue;
            const float area = nodes[children[i]].bounds.surface_area();
            if (area > best_area) {
                best_area = area;
                best = int(i);
            }
        }
        if (best < 0) break;
        const uint32_t opened = children[size_t(best)];
        children[size_t(best)] = opened + 1;
        children.insert(children.begin() + best + 1, nodes[opened].offset);
    }
}

}  // namespace farmrt
