// The wide BVH of the SIMD tracer: the binary SAH BVH of the core (src/core/bvh.cpp)
// collapsed into N-ary nodes whose child boxes are stored as structure of
// arrays, so that one SIMD instruction tests a ray against N boxes, and leaves
// made of primitive packets (W primitives of one type, structure of arrays), so
// that one instruction tests W primitives. Building (here, host code of the
// portable baseline) is separate from traversal (wide_traversal.h, compiled
// once per instruction set).
#pragma once

#include <cstdint>
#include <vector>

#include "core/scene.h"

namespace farmrt {
namespace simd {

// Packet references: the primitive type in the top 4 bits, then the number of
// lanes in use minus one (5 bits), then the packet index (23 bits).
constexpr uint32_t kPacketTypeShift = 28;
constexpr uint32_t kPacketLanesShift = 23;
constexpr uint32_t kPacketIndexMask = (1u << kPacketLanesShift) - 1;
// A leaf entry of this type (beyond PrimitiveType's) is one triangle whose
// material cuts it out (AlphaMode), index = the triangle: traversed by the
// scalar core, which asks surface_kept, like instances.
constexpr uint32_t kCutoutTriangleEntry = 4;

// One node: N child boxes. bounds[2 * axis] holds the lower and
// bounds[2 * axis + 1] the upper planes of that axis, so that a ray picks its
// near and far planes by offset once and loads them without shuffles.
template <int N>
struct alignas(64) WideNode {
    float bounds[6][N];
    // packet_count[i] == 0: child[i] is an inner node (or, with empty bounds
    // that no ray enters, an unused slot). > 0: a leaf of packet_count[i]
    // packets, listed from packet_refs[child[i]].
    uint32_t child[N];
    uint32_t packet_count[N];
};

// Unused lanes of a packet repeat lane 0 (finite data that gives the same
// (t, ref), so they could never change the closest hit); traversal masks them
// out by the lane count in the packet reference.
template <int W>
struct alignas(64) SpherePacket {
    float center[3][W];
    float velocity[3][W];
    float radius[W];
    uint32_t ref[W];  // PrimitiveRef bits
};

template <int W>
struct alignas(64) QuadPacket {
    float corner[3][W];
    float edge_u[3][W];
    float edge_v[3][W];
    float normal[3][W];
    float w[3][W];
    float plane_offset[W];
    uint32_t ref[W];
};

// The three vertices, as the scalar watertight test reads them.
template <int W>
struct alignas(64) TrianglePacket {
    float vertex0[3][W];
    float vertex1[3][W];
    float vertex2[3][W];
    uint32_t ref[W];
};

// One packet lane's box (bounds_of in src/core/primitives.h), as two rows of
// four floats (x, y, z, 0), for the hit_within_bounds check of an accepted
// hit (wide_traversal.h), which picks each axis' near and far plane by row:
// building the box from the packet's lanes at each accepted hit cost 5% of a
// frame (results/simd.md). Kept apart from the packets, which every leaf
// visit reads, since only accepted hits read these.
struct alignas(32) LaneBox {
    float rows[2][4];  // rows[0]: the lower corner, rows[1]: the upper
};

// What the kernels read: plain pointers, like SceneView.
template <int N>
struct WideBvhView {
    const WideNode<N>* nodes = nullptr;
    const uint32_t* packet_refs = nullptr;
    const SpherePacket<N>* spheres = nullptr;
    const QuadPacket<N>* quads = nullptr;
    const TrianglePacket<N>* triangles = nullptr;
    // N lane boxes per packet, in packet order: box (p, lane) at p * N + lane.
    const LaneBox* sphere_boxes = nullptr;
    const LaneBox* quad_boxes = nullptr;
    const LaneBox* triangle_boxes = nullptr;
    // The lane boxes of packet `index` of one type (`boxes`: one of the above).
    FARMRT_INLINE static const LaneBox* packet_boxes(const LaneBox* boxes, uint32_t index) {
        return boxes + size_t(index) * N;
    }
    // Instances in leaves (packet refs of type Instance, index = instance) go
    // to the scalar intersect_instance of src/core/closest_hit.h on this scene.
    const SceneView* scene = nullptr;
    uint32_t node_count = 0;
    uint32_t triangle_packet_count = 0;
    bool spheres_only = false;  // every leaf entry is a sphere packet (no quads, triangles or instances)
    // Some sphere packet lane has a velocity other than +0 or a centre
    // coordinate of -0. Where none has, center + time * velocity is the
    // centre itself, bit for bit, at every finite time (time * +0 is +-0,
    // and c + +-0 is c for every c but -0): sphere tests skip that sum.
    bool spheres_move = true;
};

// How the binary BVH is cut into wide nodes and leaves (wide_bvh.cpp).
enum class WideCollapse {
    SahOptimal,   // least expected cost under the options' cost model
    LargestArea,  // open the largest child until N children (the earlier builder)
};

struct WideBvhOptions {
    // A binary subtree with at most this many primitives may become one leaf
    // (0: the packet width).
    int max_leaf_primitives = 0;
    WideCollapse collapse = WideCollapse::SahOptimal;
    // The cost model (relative): one wide-node visit, one packet test.
    float node_cost = 1.0f;
    float packet_cost = 1.0f;
};

struct WideBvhStats {
    size_t nodes = 0, leaves = 0, packets = 0;
    size_t used_child_slots = 0, used_packet_lanes = 0;
    // The tree's expected cost under the options' cost model, without the
    // root's own visit: the sum over child slots of the slot box's area times
    // a node visit (inner) or its packet tests (leaf).
    double sah_cost = 0;
};

// Node width N = packet width W = the SIMD width in floats (4, 8 or 16).
template <int N>
class WideBvh {
public:
    WideBvh(const SceneView& scene, const WideBvhOptions& options = {});

    WideBvhView<N> view() const;
    WideBvhStats stats() const;

private:
    class Builder;
    SceneView scene_;
    WideBvhOptions options_;
    std::vector<WideNode<N>> nodes_;
    std::vector<uint32_t> packet_refs_;
    std::vector<SpherePacket<N>> spheres_;
    std::vector<QuadPacket<N>> quads_;
    std::vector<TrianglePacket<N>> triangles_;
    std::vector<LaneBox> sphere_boxes_, quad_boxes_, triangle_boxes_;
    bool spheres_move_ = false;  // WideBvhView::spheres_move
    size_t used_lanes_ = 0;
};

extern template class WideBvh<4>;
extern template class WideBvh<8>;
extern template class WideBvh<16>;

}  // namespace simd
}  // namespace farmrt
