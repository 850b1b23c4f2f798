#include "cuda/wide_bvh_gpu.h"

#include <algorithm>
#include <vector>

#include "core/wide_collapse.h"

namespace farmrt {
namespace {

class WideBuilder {
public:
    WideBuilder(const BvhNode* nodes, std::vector<WideBvhNode>& wide) : nodes_(nodes), wide_(wide) {}

    // Builds the wide node over binary node `binary` (interior); returns
    // its index, or false through ok_ when the encoding does not fit.
    uint32_t build(uint32_t binary, int depth) {
        const uint32_t index = uint32_t(wide_.size());
        wide_.emplace_back();
        if (3 * depth + 1 > kWideBvhStackSize) ok_ = false;  // at most 3 net pushes per level, 4 at the last
        // The largest-area collapse shared with the CPU's wide BVH; binary leaves stay leaves.
        std::vector<uint32_t> children;
        open_largest_area_children(
            nodes_, binary, 4, [](uint32_t) { return false; }, children);
        for (size_t i = 0; i < 4; ++i) {
            WideBvhChild child{};
            if (i >= children.size()) {
                child.bounds.lower = Vec3(kInfinity);
                child.bounds.upper = Vec3(-kInfinity);
                child.payload = 0;
            } else {
                const BvhNode& node = nodes_[children[i]];
                child.bounds = node.bounds;
                if (node.is_leaf()) {
                    if (node.count > kWideMaxLeafCount || node.offset > kWideMaxFirstPrimitive) ok_ = false;
                    child.payload = kWideLeaf | (uint32_t(node.count) << kWideLeafCountShift) |
                                    (node.offset & kWideMaxFirstPrimitive);
                } else {
                    child.payload = build(children[i], depth + 1);
                    if (child.payload >= kWideLeaf) ok_ = false;
                }
            }
            wide_[index].child[i] = child;  // by index: build() may have reallocated wide_
        }
        return index;
    }

    bool ok() const { return ok_; }

private:
    const BvhNode* nodes_;
    std::vector<WideBvhNode>& wide_;
    bool ok_ = true;
};

}  // namespace

bool build_wide_bvh(const BvhNode* nodes, uint32_t node_count, std::vector<WideBvhNode>& wide) {
    wide.clear();
    if (node_count == 0) return false;
    if (nodes[0].is_leaf()) {
        // A single leaf: one wide node with one leaf child and three empty slots.
        WideBvhNode root{};
        for (int i = 0; i < 4; ++i) {
            root.child[i].bounds.lower = Vec3(kInfinity);
            root.child[i].bounds.upper = Vec3(-kInfinity);
        }
        if (nodes[0].count > kWideMaxLeafCount || nodes[0].offset > kWideMaxFirstPrimitive) return false;
        root.child[0].bounds = nodes[0].bounds;
        root.child[0].payload = kWideLeaf | (uint32_t(nodes[0].count) << kWideLeafCountShift) | nodes[0].offset;
        wide.push_back(root);
        return true;
    }
    wide.reserve(node_count / 2 + 1);
    WideBuilder builder(nodes, wide);
    builder.build(0, 1);
    if (!builder.ok()) {
        wide.clear();
        return false;
    }
    return true;
}

}  // namespace farmrt
