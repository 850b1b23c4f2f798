#include "simd/wide_bvh.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/errors.h"
#include "core/wide_collapse.h"

namespace farmrt {
namespace simd {

template <int N>
class WideBvh<N>::Builder {
public:
    Builder(const SceneView& scene, const WideBvhOptions& options, WideBvh<N>& out)
        : scene_(scene),
          out_(out),
          leaf_limit_(options.max_leaf_primitives > 0 ? options.max_leaf_primitives : N),
          collapse_(options.collapse) {
        // Binary subtrees cover contiguous primitive ranges (the builder
        // partitions in place), children follow their parents: one backward pass.
        begin_.resize(scene.node_count);
        end_.resize(scene.node_count);
        instances_.resize(scene.node_count);
        for (uint32_t i = scene.node_count; i-- > 0;) {
            const BvhNode& node = scene.nodes[i];
            if (node.is_leaf() || scene.node_count == 1) {  // the root of an empty scene is an empty leaf
                begin_[i] = node.offset;
                end_[i] = node.offset + node.count;
                instances_[i] = 0;
                for (uint32_t p = begin_[i]; p < end_[i]; ++p) {
                    instances_[i] += scene.primitives[p].type() == PrimitiveType::Instance;
                }
            } else {
                begin_[i] = begin_[i + 1];
                end_[i] = end_[node.offset];
                instances_[i] = instances_[i + 1] + instances_[node.offset];
            }
        }
        if (collapse_ == WideCollapse::SahOptimal) plan_collapse(options);
    }

    void build() {
        if (scene_.node_count == 0) {
            out_.nodes_.push_back(empty_node());
            return;
        }
        build_node(0);
    }

private:
    static WideNode<N> empty_node() {
        WideNode<N> node;
        for (int axis = 0; axis < 3; ++axis) {
            for (int i = 0; i < N; ++i) {
                node.bounds[2 * axis][i] = kInfinity;
                node.bounds[2 * axis + 1][i] = -kInfinity;
            }
        }
        for (int i = 0; i < N; ++i) {
            node.child[i] = 0;
            node.packet_count[i] = 0;
        }
        return node;
    }

    uint32_t count(uint32_t binary) const { return end_[binary] - begin_[binary]; }

    // Instances are traversed one by one by the scalar core: packed into a
    // leaf with other primitives, every ray entering the leaf would pay for
    // each of them (the object-space ray, the bottom-level root), where their
    // own boxes in a wide node cull them all at once (stress.yaml and
    // textured.yaml rendered slower than scalar that way). So a binary subtree
    // holding an instance becomes a leaf only where the binary BVH has one.
    bool may_become_leaf(uint32_t binary) const {
        return scene_.nodes[binary].is_leaf() || scene_.node_count == 1 ||
               (count(binary) <= uint32_t(leaf_limit_) && instances_[binary] == 0);
    }

    // The packets (and instance entries) that emit_leaf would write for the
    // primitives of a binary subtree.
    uint32_t leaf_packets(uint32_t binary) const {
        uint32_t per_type[4] = {0, 0, 0, 0};
        uint32_t packets = 0;
        for (uint32_t p = begin_[binary]; p < end_[binary]; ++p) {
            if (is_cutout(scene_.primitives[p])) {
                ++packets;  // an entry of its own
            } else {
                ++per_type[uint32_t(scene_.primitives[p].type()) & 3u];
            }
        }
        packets += per_type[uint32_t(PrimitiveType::Instance)];
        for (PrimitiveType type : {PrimitiveType::Sphere, PrimitiveType::Quad, PrimitiveType::Triangle}) {
            packets += (per_type[uint32_t(type)] + N - 1) / N;
        }
        return packets;
    }

    // The SAH-optimal collapse of the binary BVH into N-ary nodes (Ylitie,
    // Karras and Laine, "Efficient incoherent ray traversal on GPUs through
    // compressed wide BVHs", HPG 2017): for every binary subtree and every
    // i <= N, the least expected cost of cutting it into at most i subtrees,
    // each a leaf of packets or a wide node of its own; costs by surface area,
    // a wide-node visit and a packet test weighted by the options. Children
    // follow their parents in the binary array: one backward pass.
    struct Plan {
        float cost[N + 1];  // cost[i]: at most i subtrees (i >= 1)
        // split[i] (i >= 2): 0 when i - 1 subtrees cost as little; else how
        // many of the i go to the left child (the rest to the right one).
        uint8_t split[N + 1];
        bool leaf;            // as one subtree: a leaf (else a wide node of its own)
        uint8_t inner_split;  // as a wide node: how many of its N slots the left child gets
    };

    void plan_collapse(const WideBvhOptions& options) {
        plans_.resize(scene_.node_count);
        for (uint32_t i = scene_.node_count; i-- > 0;) {
            Plan& plan = plans_[i];
            const BvhNode& node = scene_.nodes[i];
            const float area = node.bounds.surface_area();
            const float leaf_cost =
                may_become_leaf(i) ? area * options.packet_cost * float(leaf_packets(i)) : kInfinity;
            plan.cost[0] = kInfinity;
            for (int slots = 0; slots <= N; ++slots) plan.split[slots] = 0;
            plan.inner_split = 0;
            if (node.is_leaf() || scene_.node_count == 1) {
                plan.leaf = true;
                for (int slots = 1; slots <= N; ++slots) plan.cost[slots] = leaf_cost;
                continue;
            }
            const Plan& left = plans_[i + 1];
            const Plan& right = plans_[node.offset];
            float distribute[N + 1];
            uint8_t distribute_split[N + 1];
            for (int slots = 2; slots <= N; ++slots) {
                distribute[slots] = kInfinity;
                distribute_split[slots] = 1;
                for (int k = 1; k < slots; ++k) {
                    const float cost = left.cost[k] + right.cost[slots - k];
                    if (cost < distribute[slots]) {
                        distribute[slots] = cost;
                        distribute_split[slots] = uint8_t(k);
                    }
                }
            }
            const float inner_cost = area * options.node_cost + distribute[N];
            plan.leaf = leaf_cost <= inner_cost;
            plan.inner_split = distribute_split[N];
            plan.cost[1] = plan.leaf ? leaf_cost : inner_cost;
            for (int slots = 2; slots <= N; ++slots) {
                if (distribute[slots] < plan.cost[slots - 1]) {
                    plan.cost[slots] = distribute[slots];
                    plan.split[slots] = distribute_split[slots];
                } else {
                    plan.cost[slots] = plan.cost[slots - 1];
                }
            }
        }
    }

    // The subtrees that hold `binary` in at most `slots` children of a wide node.
    void cut(uint32_t binary, int slots, std::vector<uint32_t>& out) const {
        const Plan& plan = plans_[binary];
        while (slots > 1 && plan.split[slots] == 0) --slots;
        if (slots == 1) {
            out.push_back(binary);
            return;
        }
        cut(binary + 1, plan.split[slots], out);
        cut(scene_.nodes[binary].offset, slots - plan.split[slots], out);
    }

    // The largest-area collapse (core/wide_collapse.h), kept as the baseline
    // of the SAH-optimal one: leaves are the largest subtrees that may become one.
    void open_largest(uint32_t binary, std::vector<uint32_t>& children) const {
        open_largest_area_children(
            scene_.nodes, binary, size_t(N), [this](uint32_t node) { return becomes_leaf(node); }, children);
    }

    bool becomes_leaf(uint32_t binary) const {
        return collapse_ == WideCollapse::LargestArea ? may_become_leaf(binary) : plans_[binary].leaf;
    }

    // A wide node for a binary subtree and, recursively, its children.
    uint32_t build_node(uint32_t binary_root) {
        const uint32_t index = uint32_t(out_.nodes_.size());
        out_.nodes_.push_back(empty_node());
        std::vector<uint32_t> children;
        if (becomes_leaf(binary_root)) {
            children.push_back(binary_root);  // the root of a small scene
        } else if (collapse_ == WideCollapse::LargestArea) {
            open_largest(binary_root, children);
        } else {
            const int left_slots = plans_[binary_root].inner_split;
            cut(binary_root + 1, left_slots, children);
            cut(scene_.nodes[binary_root].offset, N - left_slots, children);
        }
        int slot = 0;
        for (uint32_t child : children) {
            if (count(child) == 0) continue;  // an empty scene's root leaf
            uint32_t target, packets = 0;
            if (becomes_leaf(child)) {
                target = uint32_t(out_.packet_refs_.size());
                packets = emit_leaf(begin_[child], end_[child]);
            } else {
                target = build_node(child);
            }
            WideNode<N>& node = out_.nodes_[index];  // build_node may have grown the array
            const Aabb& box = scene_.nodes[child].bounds;
            for (int axis = 0; axis < 3; ++axis) {
                node.bounds[2 * axis][slot] = box.lower[axis];
                node.bounds[2 * axis + 1][slot] = box.upper[axis];
            }
            node.child[slot] = target;
            node.packet_count[slot] = packets;
            ++slot;
        }
        return index;
    }

    // A triangle whose material cuts it out: traversed by the scalar core.
    bool is_cutout(PrimitiveRef ref) const {
        return ref.type() == PrimitiveType::Triangle &&
               scene_.materials[scene_.triangles[ref.index()].material].alpha_mode != AlphaMode::Opaque;
    }

    // Packs the primitives [begin, end) by type into packets; returns their count.
    uint32_t emit_leaf(uint32_t begin, uint32_t end) {
        std::vector<PrimitiveRef> refs;
        uint32_t packets = 0;
        for (uint32_t p = begin; p < end; ++p) {
            const PrimitiveRef ref = scene_.primitives[p];
            if (!is_cutout(ref)) {
                refs.push_back(ref);
                continue;
            }
            if (ref.index() > kPacketIndexMask) throw_too_large("cut-out triangles");
            out_.packet_refs_.push_back((kCutoutTriangleEntry << kPacketTypeShift) | ref.index());
            ++packets;
        }
        std::stable_sort(refs.begin(), refs.end(), [](PrimitiveRef a, PrimitiveRef b) { return a.type() < b.type(); });
        for (size_t first = 0; first < refs.size();) {
            if (refs[first].type() == PrimitiveType::Instance) {
                // One entry per instance: traversed by the scalar core.
                if (refs[first].index() > kPacketIndexMask) throw_too_large("instances");
                out_.packet_refs_.push_back((uint32_t(PrimitiveType::Instance) << kPacketTypeShift) |
                                            refs[first].index());
                ++packets;
                ++first;
                continue;
            }
            size_t last = first + 1;
            while (last < refs.size() && last - first < size_t(N) && refs[last].type() == refs[first].type()) ++last;
            out_.packet_refs_.push_back(emit_packet(&refs[first], int(last - first)));
            out_.used_lanes_ += last - first;
            ++packets;
            first = last;
        }
        return packets;
    }

    uint32_t emit_packet(const PrimitiveRef* refs, int count) {
        const PrimitiveType type = refs[0].type();
        uint32_t index = 0;
        switch (type) {
        case PrimitiveType::Sphere: {
            index = uint32_t(out_.spheres_.size());
            SpherePacket<N>& p = out_.spheres_.emplace_back();
            for (int lane = 0; lane < N; ++lane) {
                const PrimitiveRef ref = refs[lane < count ? lane : 0];
                const Sphere& s = scene_.spheres[ref.index()];
                for (int axis = 0; axis < 3; ++axis) {
                    p.center[axis][lane] = s.center[axis];
                    p.velocity[axis][lane] = s.velocity[axis];
                }
                p.radius[lane] = s.radius;
                p.ref[lane] = ref.bits;
                out_.sphere_boxes_.push_back(lane_box(bounds_of(s)));
                out_.spheres_move_ |= moves(s);
            }
            break;
        }
        case PrimitiveType::Quad: {
            index = uint32_t(out_.quads_.size());
            QuadPacket<N>& p = out_.quads_.emplace_back();
            for (int lane = 0; lane < N; ++lane) {
                const PrimitiveRef ref = refs[lane < count ? lane : 0];
                const Quad& q = scene_.quads[ref.index()];
                for (int axis = 0; axis < 3; ++axis) {
                    p.corner[axis][lane] = q.corner[axis];
                    p.edge_u[axis][lane] = q.edge_u[axis];
                    p.edge_v[axis][lane] = q.edge_v[axis];
                    p.normal[axis][lane] = q.normal[axis];
                    p.w[axis][lane] = q.w[axis];
                }
                p.plane_offset[lane] = q.plane_offset;
                p.ref[lane] = ref.bits;
                out_.quad_boxes_.push_back(lane_box(bounds_of(q)));
            }
            break;
        }
        case PrimitiveType::Triangle: {
            index = uint32_t(out_.triangles_.size());
            TrianglePacket<N>& p = out_.triangles_.emplace_back();
            for (int lane = 0; lane < N; ++lane) {
                const PrimitiveRef ref = refs[lane < count ? lane : 0];
                const Triangle& t = scene_.triangles[ref.index()];
                for (int axis = 0; axis < 3; ++axis) {
                    p.vertex0[axis][lane] = t.vertex0[axis];
                    p.vertex1[axis][lane] = t.vertex1[axis];
                    p.vertex2[axis][lane] = t.vertex2[axis];
                }
                p.ref[lane] = ref.bits;
                out_.triangle_boxes_.push_back(lane_box(bounds_of(t)));
            }
            break;
        }
        case PrimitiveType::Instance: break;  // never packed (emit_leaf)
        }
        if (index > kPacketIndexMask) throw_too_large("packets of one primitive type");
        return (uint32_t(type) << kPacketTypeShift) | (uint32_t(count - 1) << kPacketLanesShift) | index;
    }

    // Whether the sphere rules out WideBvhView::spheres_move = false.
    static bool moves(const Sphere& s) {
        bool moves = false;
        for (int axis = 0; axis < 3; ++axis) {
            const float velocity = s.velocity[axis], center = s.center[axis];
            moves |= velocity != 0.0f || std::signbit(velocity) || (center == 0.0f && std::signbit(center));
        }
        return moves;
    }

    static LaneBox lane_box(const Aabb& box) {
        return LaneBox{{{box.lower.x, box.lower.y, box.lower.z, 0.0f}, {box.upper.x, box.upper.y, box.upper.z, 0.0f}}};
    }

    static void throw_too_large(const char* what) {
        throw RenderError(std::string("scene too large for the SIMD tracer's wide BVH (over ") +
                          std::to_string(kPacketIndexMask + 1) + " " + what + "); use --simd off");
    }

    const SceneView& scene_;
    WideBvh<N>& out_;
    int leaf_limit_;
    WideCollapse collapse_;
    std::vector<uint32_t> begin_, end_;
    std::vector<uint32_t> instances_;  // instances in each binary subtree
    std::vector<Plan> plans_;          // the collapse, per binary node
};

template <int N>
WideBvh<N>::WideBvh(const SceneView& scene, const WideBvhOptions& options) : scene_(scene), options_(options) {
    Builder(scene, options, *this).build();
}

template <int N>
WideBvhView<N> WideBvh<N>::view() const {
    WideBvhView<N> v;
    v.nodes = nodes_.data();
    v.packet_refs = packet_refs_.data();
    v.spheres = spheres_.data();
    v.sphere_boxes = sphere_boxes_.data();
    v.quad_boxes = quad_boxes_.data();
    v.triangle_boxes = triangle_boxes_.data();
    v.quads = quads_.data();
    v.triangles = triangles_.data();
    v.scene = &scene_;
    v.node_count = uint32_t(nodes_.size());
    v.triangle_packet_count = uint32_t(triangles_.size());
    v.spheres_only = spheres_.size() == packet_refs_.size();
    v.spheres_move = spheres_move_;
    return v;
}

template <int N>
WideBvhStats WideBvh<N>::stats() const {
    WideBvhStats s;
    s.nodes = nodes_.size();
    s.packets = packet_refs_.size();
    s.used_packet_lanes = used_lanes_;
    for (const WideNode<N>& node : nodes_) {
        for (int i = 0; i < N; ++i) {
            if (node.bounds[0][i] <= node.bounds[1][i]) {
                ++s.used_child_slots;
                if (node.packet_count[i] > 0) ++s.leaves;
                Aabb box;
                for (int axis = 0; axis < 3; ++axis) {
                    box.lower[axis] = node.bounds[2 * axis][i];
                    box.upper[axis] = node.bounds[2 * axis + 1][i];
                }
                s.sah_cost += double(box.surface_area()) * (node.packet_count[i] > 0
                                                                ? double(options_.packet_cost) * node.packet_count[i]
                                                                : double(options_.node_cost));
            }
        }
    }
    return s;
}

template class WideBvh<4>;
template class WideBvh<8>;
template class WideBvh<16>;

}  // namespace simd
}  // namespace farmrt
