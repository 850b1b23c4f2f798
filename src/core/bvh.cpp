#include "core/bvh.h"

#include <omp.h>

#include <algorithm>
#include <memory>

namespace farmrt {
namespace {

// Binned SAH (Wald 2007) built in parallel: OpenMP tasks take the two halves of
// every large node, and the largest nodes bin their items in parallel chunks.
// Every decision depends only on the items of a node, in their order, and the
// parallel reductions are exact (box unions and integer counts), so the tree is
// the same for any thread count; the flattening at the end is one serial
// depth-first pass.

struct BuildItem {
    Aabb bounds;
    Vec3 centroid;
    uint32_t index;
};

struct Bin {
    Aabb bounds;
    uint32_t count = 0;

    void add(const BuildItem& item) {
        bounds.expand(item.bounds);
        ++count;
    }
    void add(const Bin& other) {
        bounds.expand(other.bounds);
        count += other.count;
    }
};

// Bounds of items and of their centroids.
struct RangeBounds {
    Aabb bounds, centroid_bounds;

    void add(const BuildItem& item) {
        bounds.expand(item.bounds);
        centroid_bounds.expand(item.centroid);
    }
    void add(const RangeBounds& other) {
        bounds.expand(other.bounds);
        centroid_bounds.expand(other.centroid_bounds);
    }
};

constexpr int kMaxBins = 64;

// A node of the build tree. Large subtrees hang off nodes built by tasks;
// small ones are built by one task straight into a flat `chunk`.
struct BuildNode {
    Aabb bounds;
    uint32_t begin = 0, count = 0;
    int axis = 0;
    std::unique_ptr<BuildNode> children[2];
    std::vector<BvhNode> chunk;  // when non-empty: this subtree, flattened with local offsets
};

// Items and their bounds for one range.
struct Range {
    uint32_t begin, end;
    Aabb bounds, centroid_bounds;
    uint32_t count() const { return end - begin; }
};

class Builder {
public:
    Builder(std::vector<BuildItem>& items, const BvhBuildOptions& options)
        : items_(items), options_(options), bin_count_(std::max(2, std::min(kMaxBins, options.bin_count))) {}

    static constexpr uint32_t kTaskThreshold = 4096;                 // smaller subtrees: one task, flat output
    static constexpr uint32_t kParallelBinningThreshold = 1u << 17;  // larger nodes: chunked binning
    static constexpr uint32_t kBinningChunk = 1u << 15;

    // Builds the subtree of `range` into `node`.
    void build_tree(BuildNode& node, const Range& range, int depth) {
        node.bounds = range.bounds;
        node.begin = range.begin;
        node.count = range.count();
        if (range.count() <= kTaskThreshold) {
            build_flat(range, depth, node.chunk);
            return;
        }
        Range left, right;
        int axis = 0;
        if (!split(range, depth, axis, left, right)) {
            // Only reached with coincident centroids beyond the leaf size limit,
            // which split() halves; kept as a guard.
            build_flat(range, depth, node.chunk);
            return;
        }
        node.axis = axis;
        node.children[0] = std::make_unique<BuildNode>();
        node.children[1] = std::make_unique<BuildNode>();
        BuildNode* left_node = node.children[0].get();
        BuildNode* right_node = node.children[1].get();
#pragma omp task default(shared) firstprivate(left_node, left, depth)
        build_tree(*left_node, left, depth + 1);
#pragma omp task default(shared) firstprivate(right_node, right, depth)
        build_tree(*right_node, right, depth + 1);
#pragma omp taskwait
    }

    // Depth-first flattening: left child right after its parent, `offset` = right child.
    void flatten(const BuildNode& node, std::vector<BvhNode>& out) const {
        if (!node.chunk.empty()) {
            const uint32_t base = uint32_t(out.size());
            for (BvhNode n : node.chunk) {
                if (!n.is_leaf()) n.offset += base;
                out.push_back(n);
            }
            return;
        }
        const size_t index = out.size();
        out.push_back(BvhNode{});
        out[index].bounds = node.bounds;
        out[index].count = 0;
        out[index].split_axis = uint16_t(node.axis);
        flatten(*node.children[0], out);
        out[index].offset = uint32_t(out.size());
        flatten(*node.children[1], out);
    }

    Range whole_range() {
        Range range{0, uint32_t(items_.size()), {}, {}};
        RangeBounds total = bounds_of_range(range);
        range.bounds = total.bounds;
        range.centroid_bounds = total.centroid_bounds;
        return range;
    }

private:
    // One task builds this subtree serially into `out`, with offsets local to `out`.
    void build_flat(const Range& range, int depth, std::vector<BvhNode>& out) {
        const size_t index = out.size();
        out.push_back(BvhNode{});
        out[index].bounds = range.bounds;
        Range left, right;
        int axis = 0;
        if (!split(range, depth, axis, left, right)) {
            out[index].offset = range.begin;
            out[index].count = uint16_t(range.count());
            out[index].split_axis = 0;
            return;
        }
        build_flat(left, depth + 1, out);
        out[index].offset = uint32_t(out.size());
        out[index].count = 0;
        out[index].split_axis = uint16_t(axis);
        build_flat(right, depth + 1, out);
    }

    RangeBounds bounds_of_range(const Range& range) const {
        RangeBounds total;
        const uint32_t count = range.count();
        if (count >= kParallelBinningThreshold) {
            const uint32_t chunks = (count + kBinningChunk - 1) / kBinningChunk;
            std::vector<RangeBounds> partial(chunks);
#pragma omp parallel for schedule(static) if (!omp_in_parallel())
            for (int64_t c = 0; c < int64_t(chunks); ++c) {
                const uint32_t b = range.begin + uint32_t(c) * kBinningChunk;
                const uint32_t e = std::min(range.end, b + kBinningChunk);
                for (uint32_t i = b; i < e; ++i) partial[size_t(c)].add(items_[i]);
            }
            for (const RangeBounds& p : partial) total.add(p);
        } else {
            for (uint32_t i = range.begin; i < range.end; ++i) total.add(items_[i]);
        }
        return total;
    }

    int bin_of(const BuildItem& item, int axis, float lo, float scale) const {
        return std::min(bin_count_ - 1, std::max(0, static_cast<int>((item.centroid[axis] - lo) * scale)));
    }

    // Bins items [b, e) on all three axes at once.
    void bin_items(uint32_t b, uint32_t e, const float lo[3], const float scale[3], Bin bins[3][kMaxBins]) const {
        for (uint32_t i = b; i < e; ++i) {
            const BuildItem& item = items_[i];
            for (int axis = 0; axis < 3; ++axis) {
                if (scale[axis] > 0.0f) bins[axis][bin_of(item, axis, lo[axis], scale[axis])].add(item);
            }
        }
    }

    void bin_all(const Range& range, const float lo[3], const float scale[3], Bin bins[3][kMaxBins]) const {
        const uint32_t count = range.count();
        if (count < kParallelBinningThreshold) {
            bin_items(range.begin, range.end, lo, scale, bins);
            return;
        }
        // Chunks bin in parallel (tasks, since this may run inside a task); the
        // chunk results are merged in chunk order.
        const uint32_t chunks = (count + kBinningChunk - 1) / kBinningChunk;
        std::vector<Bin> partial(size_t(chunks) * 3 * kMaxBins);
        for (uint32_t c = 0; c < chunks; ++c) {
#pragma omp task default(shared) firstprivate(c)
            {
                Bin(*local)[kMaxBins] = reinterpret_cast<Bin(*)[kMaxBins]>(&partial[size_t(c) * 3 * kMaxBins]);
                const uint32_t b = range.begin + c * kBinningChunk;
                bin_items(b, std::min(range.end, b + kBinningChunk), lo, scale, local);
            }
        }
#pragma omp taskwait
        for (uint32_t c = 0; c < chunks; ++c) {
            for (int axis = 0; axis < 3; ++axis) {
                for (int k = 0; k < bin_count_; ++k) bins[axis][k].add(partial[(size_t(c) * 3 + axis) * kMaxBins + k]);
            }
        }
    }

    // Chooses the split of `range` by the binned SAH and partitions its items.
    // Returns false when a leaf is better (or forced).
    bool split(const Range& range, int depth, int& best_axis, Range& left, Range& right) {
        const uint32_t count = range.count();
        const uint32_t leaf_size = uint32_t(std::max(1, options_.max_leaf_size));
        const bool leaf_allowed = count <= 0xFFFF && count <= leaf_size * 4;
        if (count <= leaf_size) return false;
        if (depth + halving_levels(count, leaf_size) >= kBvhMaxDepth - 3) {
            // A skewed SAH tree (each split peeling a few items off, e.g. boxes
            // spaced by a constant factor) would outgrow the traversal stack, or
            // end in a forced leaf too big for its 16-bit count: from here on,
            // halve at the centroid median, which reaches leaves of leaf_size by
            // depth kBvhMaxDepth - 3 at the latest.
            return median_split(range, best_axis, left, right);
        }

        float lo[3], scale[3];
        for (int axis = 0; axis < 3; ++axis) {
            lo[axis] = range.centroid_bounds.lower[axis];
            const float extent = range.centroid_bounds.upper[axis] - lo[axis];
            scale[axis] = extent > 0.0f ? float(bin_count_) / extent : 0.0f;
            // A tiny extent can overflow the scale; treat such axes as flat.
            if (!(scale[axis] < kInfinity)) scale[axis] = 0.0f;
        }
        Bin bins[3][kMaxBins];
        bin_all(range, lo, scale, bins);

        float best_cost = kInfinity;
        int best_bin = -1;
        best_axis = -1;
        for (int axis = 0; axis < 3; ++axis) {
            if (!(scale[axis] > 0.0f)) continue;
            float right_area[kMaxBins];
            uint32_t right_count[kMaxBins];
            Aabb accumulated;
            uint32_t accumulated_count = 0;
            for (int b = bin_count_ - 1; b > 0; --b) {
                accumulated.expand(bins[axis][b].bounds);
                accumulated_count += bins[axis][b].count;
                right_area[b] = accumulated.surface_area();
                right_count[b] = accumulated_count;
            }
            accumulated = Aabb{};
            accumulated_count = 0;
            for (int b = 0; b < bin_count_ - 1; ++b) {
                accumulated.expand(bins[axis][b].bounds);
                accumulated_count += bins[axis][b].count;
                if (accumulated_count == 0 || right_count[b + 1] == 0) continue;
                const float cost = accumulated.surface_area() * float(accumulated_count) +
                                   right_area[b + 1] * float(right_count[b + 1]);
                if (cost < best_cost) {
                    best_cost = cost;
                    best_axis = axis;
                    best_bin = b;
                }
            }
        }
        if (best_axis < 0) {
            // All centroids coincide: no plane separates them; halve by index.
            if (leaf_allowed) return false;
            best_axis = 0;
            return halve(range, left, right);
        }
        const float parent_area = range.bounds.surface_area();
        const float split_cost =
            options_.traversal_cost + options_.intersection_cost * best_cost / (parent_area > 0 ? parent_area : 1.0f);
        const float leaf_cost = options_.intersection_cost * float(count);
        if (leaf_allowed && leaf_cost <= split_cost) return false;

        // Partition in place (two cursors: deterministic), collecting the
        // children's centroid bounds on the way; their boxes come from the bins.
        const int axis = best_axis;
        const float axis_lo = lo[axis], axis_scale = scale[axis];
        RangeBounds left_bounds, right_bounds;
        uint32_t i = range.begin, j = range.end;
        while (i < j) {
            if (bin_of(items_[i], axis, axis_lo, axis_scale) <= best_bin) {
                left_bounds.centroid_bounds.expand(items_[i].centroid);
                ++i;
            } else {
                --j;
                std::swap(items_[i], items_[j]);
                right_bounds.centroid_bounds.expand(items_[j].centroid);
            }
        }
        const uint32_t mid = i;
        if (mid == range.begin || mid == range.end) return halve(range, left, right);
        for (int b = 0; b < bin_count_; ++b) {
            (b <= best_bin ? left_bounds.bounds : right_bounds.bounds).expand(bins[axis][b].bounds);
        }
        left = Range{range.begin, mid, left_bounds.bounds, left_bounds.centroid_bounds};
        right = Range{mid, range.end, right_bounds.bounds, right_bounds.centroid_bounds};
        return true;
    }

    // How many halvings bring `count` items down to leaves of `leaf_size`.
    static int halving_levels(uint32_t count, uint32_t leaf_size) {
        int levels = 0;
        for (; count > leaf_size; ++levels) count -= count / 2;
        return levels;
    }

    // Halves the range at the median centroid along its widest axis.
    bool median_split(const Range& range, int& axis, Range& left, Range& right) {
        axis = range.centroid_bounds.largest_axis();
        const uint32_t middle = range.begin + range.count() / 2;
        std::nth_element(
            items_.begin() + range.begin, items_.begin() + middle, items_.begin() + range.end,
            [axis](const BuildItem& a, const BuildItem& b) { return a.centroid[axis] < b.centroid[axis]; });
        return halve(range, left, right);
    }

    bool halve(const Range& range, Range& left, Range& right) const {
        const uint32_t mid = range.begin + range.count() / 2;
        left = Range{range.begin, mid, {}, {}};
        right = Range{mid, range.end, {}, {}};
        for (Range* r : {&left, &right}) {
            const RangeBounds total = bounds_of_range(*r);
            r->bounds = total.bounds;
            r->centroid_bounds = total.centroid_bounds;
        }
        return true;
    }

    std::vector<BuildItem>& items_;
    const BvhBuildOptions& options_;
    const int bin_count_;
};

}  // namespace

Bvh build_bvh(const std::vector<Aabb>& primitive_bounds, const BvhBuildOptions& options) {
    Bvh bvh;
    std::vector<BuildItem> items(primitive_bounds.size());
#pragma omp parallel for schedule(static) if (items.size() > 65536)
    for (size_t i = 0; i < items.size(); ++i) {
        items[i] = BuildItem{primitive_bounds[i], primitive_bounds[i].centroid(), static_cast<uint32_t>(i)};
    }
    Builder builder(items, options);
    const Range whole = builder.whole_range();
    BuildNode root;
    if (whole.count() > Builder::kTaskThreshold && !omp_in_parallel()) {
#pragma omp parallel
#pragma omp single
        builder.build_tree(root, whole, 0);
    } else {
        builder.build_tree(root, whole, 0);
    }
    bvh.nodes.reserve(2 * items.size() / std::max(1, options.max_leaf_size) + 1);
    builder.flatten(root, bvh.nodes);
    bvh.primitive_order.resize(items.size());
    for (size_t i = 0; i < items.size(); ++i) bvh.primitive_order[i] = items[i].index;
    return bvh;
}

}  // namespace farmrt
