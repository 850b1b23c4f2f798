#include "bvh.h"

#include <algorithm>
#include <numeric>

namespace farmrt {
namespace {

struct BuildItem {
    Aabb bounds;
    Vec3 centroid;
    uint32_t index;
};

struct Bin {
    Aabb bounds;
    int count = 0;
};

class Builder {
public:
    Builder(std::vector<BuildItem>& items, const BvhBuildOptions& options, Bvh& out)
        : items_(items), options_(options), out_(out) {}

    void build(uint32_t begin, uint32_t end, int depth) {
        const uint32_t node_index = static_cast<uint32_t>(out_.nodes.size());
        out_.nodes.push_back(BvhNode{});
        Aabb bounds, centroid_bounds;
        for (uint32_t i = begin; i < end; ++i) {
            bounds.expand(items_[i].bounds);
            centroid_bounds.expand(items_[i].centroid);
        }
        out_.nodes[node_index].bounds = bounds;
        const uint32_t count = end - begin;
        int axis = 0;
        const uint32_t middle = count <= static_cast<uint32_t>(options_.max_leaf_size) || depth >= kBvhMaxDepth - 2
                                    ? begin
                                    : choose_split(begin, end, bounds, centroid_bounds, axis);
        if (middle == begin) {
            out_.nodes[node_index].offset = begin;
            out_.nodes[node_index].count = static_cast<uint16_t>(count);
            out_.nodes[node_index].split_axis = 0;
            return;
        }
        build(begin, middle, depth + 1);
        out_.nodes[node_index].offset = static_cast<uint32_t>(out_.nodes.size());
        out_.nodes[node_index].count = 0;
        out_.nodes[node_index].split_axis = static_cast<uint16_t>(axis);
        build(middle, end, depth + 1);
    }

private:
    // Binned surface area heuristic (Wald 2007). Returns where the range splits,
    // or `begin` when a leaf is cheaper.
    uint32_t choose_split(uint32_t begin, uint32_t end, const Aabb& bounds, const Aabb& centroid_bounds,
                          int& best_axis) {
        const int bin_count = options_.bin_count;
        const uint32_t count = end - begin;
        float best_cost = kInfinity;
        int best_bin = -1;
        best_axis = -1;
        bins_.resize(bin_count);
        right_area_.resize(bin_count);
        right_count_.resize(bin_count);
        std::vector<Bin>& bins = bins_;
        std::vector<float>& right_area = right_area_;
        std::vector<int>& right_count = right_count_;
        for (int axis = 0; axis < 3; ++axis) {
            const float lo = centroid_bounds.lower[axis];
            const float extent = centroid_bounds.upper[axis] - lo;
            if (!(extent > 0.0f)) continue;
            const float scale = bin_count / extent;
            std::fill(bins.begin(), bins.end(), Bin{});
            for (uint32_t i = begin; i < end; ++i) {
                const int b = std::min(bin_count - 1, static_cast<int>((items_[i].centroid[axis] - lo) * scale));
                bins[b].bounds.expand(items_[i].bounds);
                bins[b].count++;
            }
            Aabb accumulated;
            int accumulated_count = 0;
            for (int b = bin_count - 1; b > 0; --b) {
                accumulated.expand(bins[b].bounds);
                accumulated_count += bins[b].count;
                right_area[b] = accumulated.surface_area();
                right_count[b] = accumulated_count;
            }
            accumulated = Aabb{};
            accumulated_count = 0;
            for (int b = 0; b < bin_count - 1; ++b) {
                accumulated.expand(bins[b].bounds);
                accumulated_count += bins[b].count;
                if (accumulated_count == 0 || right_count[b + 1] == 0) continue;
                const float cost = accumulated.surface_area() * accumulated_count +
                                   right_area[b + 1] * right_count[b + 1];
                if (cost < best_cost) {
                    best_cost = cost;
                    best_axis = axis;
                    best_bin = b;
                }
            }
        }
        const bool leaf_allowed = count <= 0xFFFF && count <= static_cast<uint32_t>(options_.max_leaf_size) * 4;
        if (best_axis < 0) {
            // All centroids coincide: no plane separates them; halve by index.
            best_axis = 0;
            return leaf_allowed ? begin : begin + count / 2;
        }
        const float parent_area = bounds.surface_area();
        const float split_cost = options_.traversal_cost +
                                 options_.intersection_cost * best_cost / (parent_area > 0 ? parent_area : 1.0f);
        const float leaf_cost = options_.intersection_cost * static_cast<float>(count);
        if (leaf_allowed && leaf_cost <= split_cost) return begin;
        const float lo = centroid_bounds.lower[best_axis];
        const float scale = bin_count / (centroid_bounds.upper[best_axis] - lo);
        auto mid = std::partition(items_.begin() + begin, items_.begin() + end, [&](const BuildItem& item) {
            return std::min(bin_count - 1, static_cast<int>((item.centroid[best_axis] - lo) * scale)) <= best_bin;
        });
        const uint32_t middle = static_cast<uint32_t>(mid - items_.begin());
        return (middle == begin || middle == end) ? begin + count / 2 : middle;
    }

    std::vector<BuildItem>& items_;
    const BvhBuildOptions& options_;
    Bvh& out_;
    std::vector<Bin> bins_;
    std::vector<float> right_area_;
    std::vector<int> right_count_;
};

}  // namespace

Bvh build_bvh(const std::vector<Aabb>& primitive_bounds, const BvhBuildOptions& options) {
    Bvh bvh;
    std::vector<BuildItem> items(primitive_bounds.size());
    for (size_t i = 0; i < items.size(); ++i) {
        items[i] = BuildItem{primitive_bounds[i], primitive_bounds[i].centroid(), static_cast<uint32_t>(i)};
    }
    bvh.nodes.reserve(2 * items.size() + 1);
    Builder builder(items, options, bvh);
    builder.build(0, static_cast<uint32_t>(items.size()), 0);
    bvh.primitive_order.resize(items.size());
    for (size_t i = 0; i < items.size(); ++i) bvh.primitive_order[i] = items[i].index;
    return bvh;
}

}  // namespace farmrt
