#include "cuda/wide_bvh_gpu.h"

#include <algorithm>
#include <vector>

#include "core/wide_collapse.h"

namespace farmrt {
namespace {

// A leaf's payload (wide_bvh_gpu.h: WideLeaf), or 0 when it does not fit.
uint32_t leaf_payload(const BvhNode& leaf, const PrimitiveRef* refs) {
    if (leaf.count == 1) return kWideLeaf | kWideLeafOfOne | refs[leaf.offset].bits;
    if (leaf.count > kWideMaxLeafCount || leaf.offset > kWideMaxFirstPrimitive) return 0;
    return kWideLeaf | (uint32_t(leaf.count) << kWideLeafCountShift) | leaf.offset;
}

class WideBuilder {
public:
    WideBuilder(const BvhNode* nodes, const PrimitiveRef* refs, std::vector<WideBvhNode>& wide)
        : nodes_(nodes), refs_(refs), wide_(wide), children_(kWideBvhStackSize / 3 + 1) {}

    // Builds the wide node over binary node `binary` (interior); returns
    // its index, or false through ok_ when the encoding does not fit.
    uint32_t build(uint32_t binary, int depth) {
        const uint32_t index = uint32_t(wide_.size());
        wide_.emplace_back();
        if (3 * depth + 1 > kWideBvhStackSize) ok_ = false;  // at most 3 net pushes per level, 4 at the last
        if (!ok_) return index;
        // The largest-area collapse shared with the CPU's wide BVH; binary
        // leaves stay leaves. One list per depth, kept: no allocation per
        // node (the stack bound above keeps depth within children_).
        std::vector<uint32_t>& children = children_[size_t(depth)];
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
                    child.payload = leaf_payload(node, refs_);
                    if (child.payload == 0) ok_ = false;
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
    const PrimitiveRef* refs_;
    std::vector<WideBvhNode>& wide_;
    std::vector<std::vector<uint32_t>> children_;  // per depth
    bool ok_ = true;
};

}  // namespace

bool build_wide_bvh(const BvhNode* nodes, uint32_t node_count, const PrimitiveRef* refs,
                    std::vector<WideBvhNode>& wide) {
    wide.clear();
    if (node_count == 0) return false;
    if (nodes[0].is_leaf()) {
        // A single leaf: one wide node with one leaf child and three empty slots.
        WideBvhNode root{};
        for (int i = 0; i < 4; ++i) {
            root.child[i].bounds.lower = Vec3(kInfinity);
            root.child[i].bounds.upper = Vec3(-kInfinity);
        }
        root.child[0].bounds = nodes[0].bounds;
        root.child[0].payload = leaf_payload(nodes[0], refs);
        if (root.child[0].payload == 0) return false;
        wide.push_back(root);
        return true;
    }
    wide.reserve(node_count / 2 + 1);
    WideBuilder builder(nodes, refs, wide);
    builder.build(0, 1);
    if (!builder.ok()) {
        wide.clear();
        return false;
    }
    return true;
}

bool geometry_bounds(const SceneView& scene, const PrimitiveRef* refs, size_t count, std::vector<Aabb>& bounds) {
    bounds.resize(count);
    for (size_t i = 0; i < count; ++i) {
        const PrimitiveRef ref = refs[i];
        switch (ref.type()) {
        case PrimitiveType::Sphere: bounds[i] = bounds_of(scene.spheres[ref.index()]); break;
        case PrimitiveType::Quad: bounds[i] = bounds_of(scene.quads[ref.index()]); break;
        case PrimitiveType::Triangle: bounds[i] = bounds_of(scene.triangles[ref.index()]); break;
        case PrimitiveType::Instance: return false;
        }
    }
    return true;
}

namespace {

class LeafSplitter {
public:
    LeafSplitter(const BvhNode* nodes, const PrimitiveRef* refs, const std::vector<Aabb>& bounds, int max_leaf_size,
                 std::vector<BvhNode>& out, std::vector<PrimitiveRef>& out_refs)
        : nodes_(nodes),
          refs_(refs),
          bounds_(bounds),
          max_leaf_(uint32_t(max_leaf_size)),
          out_(out),
          out_refs_(out_refs) {}

    // Nodes of the split tree: the scene's, plus a subtree per split leaf.
    uint32_t count(uint32_t primitives) const {
        return primitives <= max_leaf_ ? 1 : 1 + count(primitives / 2) + count(primitives - primitives / 2);
    }

    // Copies node `index` of the scene's tree (and its subtree); returns its new index.
    uint32_t copy(uint32_t index, int depth) {
        const BvhNode& node = nodes_[index];
        if (node.is_leaf()) {
            if (node.count <= max_leaf_) return push(node, depth);
            // The leaf's slots, ordered by the splits below, then its refs in that order.
            order_.resize(node.count);
            for (uint32_t i = 0; i < node.count; ++i) order_[i] = node.offset + i;
            const uint32_t at = split(order_.data(), order_.data() + node.count, node.offset, depth);
            for (uint32_t i = 0; i < node.count; ++i) out_refs_[node.offset + i] = refs_[order_[i]];
            return at;
        }
        const uint32_t at = push(node, depth);
        copy(index + 1, depth + 1);
        const uint32_t right = copy(node.offset, depth + 1);
        out_[at].offset = right;  // by index: push() may have reallocated out_
        return at;
    }

    bool ok() const { return ok_; }

private:
    uint32_t push(const BvhNode& node, int depth) {
        if (depth > kBvhMaxDepth - 3) ok_ = false;  // as deep as build_bvh's trees may go
        out_.push_back(node);
        return uint32_t(out_.size() - 1);
    }

    // The primitives of slots [first, last) (the scene's slots), which will
    // lie at `slot` onwards: one leaf, or halved along their centroids' longest axis.
    uint32_t split(uint32_t* first, uint32_t* last, uint32_t slot, int depth) {
        BvhNode node{};
        Aabb centroids;
        node.bounds = bounds_[*first];
        centroids.lower = centroids.upper = bounds_[*first].centroid();
        for (const uint32_t* p = first + 1; p != last; ++p) {
            node.bounds.expand(bounds_[*p]);
            centroids.expand(bounds_[*p].centroid());
        }
        const uint32_t count = uint32_t(last - first);
        if (count <= max_leaf_) {
            node.offset = slot;
            node.count = uint16_t(count);
            return push(node, depth);
        }
        const Vec3 extent = centroids.upper - centroids.lower;
        const int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
        // Stable: equal centroids keep the scene's order.
        std::stable_sort(first, last, [&](uint32_t a, uint32_t b) {
            return bounds_[a].centroid()[axis] < bounds_[b].centroid()[axis];
        });
        node.split_axis = uint16_t(axis);
        const uint32_t at = push(node, depth);
        const uint32_t half = count / 2;
        split(first, first + half, slot, depth + 1);
        const uint32_t right = split(first + half, last, slot + half, depth + 1);
        out_[at].offset = right;
        return at;
    }

    const BvhNode* nodes_;
    const PrimitiveRef* refs_;
    const std::vector<Aabb>& bounds_;
    uint32_t max_leaf_;
    std::vector<BvhNode>& out_;
    std::vector<PrimitiveRef>& out_refs_;
    std::vector<uint32_t> order_;  // one split leaf's slots at a time
    bool ok_ = true;
};

}  // namespace

bool split_bvh_leaves(const BvhNode* nodes, uint32_t node_count, const PrimitiveRef* refs,
                      const std::vector<Aabb>& primitive_bounds, int max_leaf_size, std::vector<BvhNode>& split_nodes,
                      std::vector<PrimitiveRef>& split_refs) {
    split_nodes.clear();
    split_refs.assign(refs, refs + primitive_bounds.size());
    if (node_count == 0 || primitive_bounds.empty() || max_leaf_size < 1)
        return false;  // (an empty scene's one empty leaf)
    LeafSplitter splitter(nodes, refs, primitive_bounds, max_leaf_size, split_nodes, split_refs);
    size_t total = 0;  // reserved exactly: no reallocation of a large tree
    for (uint32_t i = 0; i < node_count; ++i) total += nodes[i].is_leaf() ? splitter.count(nodes[i].count) : 1;
    split_nodes.reserve(total);
    splitter.copy(0, 0);
    if (!splitter.ok()) {
        split_nodes.clear();
        split_refs.clear();
        return false;
    }
    return true;
}

}  // namespace farmrt
