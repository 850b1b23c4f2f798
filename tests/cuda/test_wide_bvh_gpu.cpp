// The GPU's own acceleration structures (cuda/wide_bvh_gpu.h, host/device
// code run here on the CPU, so built without CUDA too): the scene's BVH with
// its leaves split, and the 4-wide collapse that the GPU traverses. The GPU's
// exact kernels promise the CPU's bytes, so the traversal must find the
// CPU's closest hits bit for bit, on every tree the GPU may build: BVHs
// built with leaves of 1, 4 (the CPU's) and 16, and the CPU's with its
// leaves split to 1 and 2. Scenes: mixed primitives with exact duplicates
// (ties on t, decided by key) under queries that start from a hit, and rays
// grazing distant spheres whose raw hits round outside their boxes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda/wide_bvh_gpu.h"
#include "simd/simd_test_scenes.h"

namespace farmrt {
namespace {

// Each ref's primitive's box (the scenes here have no instances).
std::vector<Aabb> bounds_of_refs(const Scene& scene, const std::vector<PrimitiveRef>& refs) {
    std::vector<Aabb> bounds;
    EXPECT_TRUE(geometry_bounds(scene.view(), refs.data(), refs.size(), bounds));
    return bounds;
}

// One tree the GPU may traverse, over the primitives of `scene`, with the
// copy of the triangles' corners that the GPU reads.
struct GpuTree {
    std::string name;
    std::vector<BvhNode> nodes;
    std::vector<PrimitiveRef> refs;
    std::vector<WideBvhNode> wide;
    std::vector<TriangleCorners> corners;

    SceneView view(SceneView scene) const {
        scene.nodes = nodes.data();
        scene.node_count = uint32_t(nodes.size());
        scene.primitives = refs.data();
        if (!corners.empty()) scene.triangle_corners = corners.data();
        return scene;
    }
};

// The trees, and the scene left with the CPU's BVH (leaves of 4).
std::vector<GpuTree> gpu_trees(Scene& scene) {
    std::vector<GpuTree> trees;
    for (const int leaf_size : {1, 16, 4}) {
        BvhBuildOptions options;
        options.max_leaf_size = leaf_size;
        scene.build_acceleration(options);
        const SceneView view = scene.view();
        trees.push_back({"built, leaves of " + std::to_string(leaf_size),
                         std::vector<BvhNode>(view.nodes, view.nodes + view.node_count),
                         std::vector<PrimitiveRef>(view.primitives, view.primitives + view.primitive_count),
                         {},
                         {}});
    }
    const SceneView view = scene.view();
    const std::vector<PrimitiveRef> refs(view.primitives, view.primitives + view.primitive_count);
    const std::vector<Aabb> bounds = bounds_of_refs(scene, refs);
    for (const int leaf_size : {1, 2}) {
        GpuTree tree{"the CPU's split to leaves of " + std::to_string(leaf_size), {}, {}, {}, {}};
        EXPECT_TRUE(
            split_bvh_leaves(view.nodes, view.node_count, view.primitives, bounds, leaf_size, tree.nodes, tree.refs));
        trees.push_back(std::move(tree));
    }
    for (GpuTree& tree : trees) {
        EXPECT_TRUE(build_wide_bvh(tree.nodes.data(), uint32_t(tree.nodes.size()), tree.refs.data(), tree.wide));
        for (const Triangle& triangle : scene.triangles) tree.corners.push_back(corners_of(triangle));
    }
    return trees;
}

// Each of the tree's traversals (binary and wide) finds the CPU's hit for `ray`.
template <class Traits>
void expect_cpu_hit(const SceneView& cpu, const GpuTree& tree, const Ray& ray, float t_min, const Hit& start,
                    const std::string& where) {
    Hit expected = start, binary = start, wide = start;
    const bool expected_found = intersect_closest<Traits>(cpu, ray, t_min, expected);
    const SceneView view = tree.view(cpu);
    const bool binary_found = intersect_closest<Traits>(view, ray, t_min, binary);
    expect_same_hit(expected_found, expected, binary_found, binary, tree.name + " (binary), " + where);
    const bool wide_found = intersect_closest_wide<Traits>(view, tree.wide.data(), ray, t_min, wide);
    expect_same_hit(expected_found, expected, wide_found, wide, tree.name + " (4-wide), " + where);
}

TEST(GpuBvh, SplitLeavesHoldEveryPrimitiveOnceInsideEveryBox) {
    Scene scene = random_mixed_scene(5, 300);
    scene.build_acceleration();
    const SceneView view = scene.view();
    const std::vector<PrimitiveRef> refs(view.primitives, view.primitives + view.primitive_count);
    const std::vector<Aabb> bounds = bounds_of_refs(scene, refs);
    int split_leaves = 0;
    for (uint32_t i = 0; i < view.node_count; ++i) split_leaves += view.nodes[i].count > 1;
    ASSERT_GT(split_leaves, 10) << "the scene's BVH has too few leaves to split";
    for (const int leaf_size : {1, 2, 3}) {
        std::vector<BvhNode> nodes;
        std::vector<PrimitiveRef> split_refs;
        ASSERT_TRUE(
            split_bvh_leaves(view.nodes, view.node_count, view.primitives, bounds, leaf_size, nodes, split_refs));
        const std::vector<Aabb> split_bounds = bounds_of_refs(scene, split_refs);
        // Walk the tree: every box holds its children's; leaves fit and hold their primitives' boxes.
        std::vector<int> seen(split_refs.size(), 0);
        const auto contains = [](const Aabb& outer, const Aabb& inner) {
            return outer.lower.x <= inner.lower.x && outer.lower.y <= inner.lower.y && outer.lower.z <= inner.lower.z &&
                   outer.upper.x >= inner.upper.x && outer.upper.y >= inner.upper.y && outer.upper.z >= inner.upper.z;
        };
        std::vector<uint32_t> stack = {0};
        int depth_nodes = 0;
        while (!stack.empty()) {
            const uint32_t index = stack.back();
            stack.pop_back();
            ASSERT_LT(index, nodes.size());
            ++depth_nodes;
            const BvhNode& node = nodes[index];
            if (node.is_leaf()) {
                ASSERT_LE(int(node.count), leaf_size);
                for (uint32_t slot = node.offset; slot < node.offset + node.count; ++slot) {
                    ++seen[slot];
                    EXPECT_TRUE(contains(node.bounds, split_bounds[slot])) << "slot " << slot;
                }
            } else {
                EXPECT_TRUE(contains(node.bounds, nodes[index + 1].bounds)) << "node " << index;
                EXPECT_TRUE(contains(node.bounds, nodes[node.offset].bounds)) << "node " << index;
                stack.push_back(index + 1);
                stack.push_back(node.offset);
            }
        }
        EXPECT_EQ(size_t(depth_nodes), nodes.size()) << "every node reached once";
        EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
        // Reordered only within the scene's leaves: the same refs in each leaf's slots.
        for (uint32_t i = 0; i < view.node_count; ++i) {
            const BvhNode& leaf = view.nodes[i];
            if (!leaf.is_leaf()) continue;
            std::vector<uint32_t> before, after;
            for (uint32_t slot = leaf.offset; slot < leaf.offset + leaf.count; ++slot) {
                before.push_back(refs[slot].bits);
                after.push_back(split_refs[slot].bits);
            }
            std::sort(before.begin(), before.end());
            std::sort(after.begin(), after.end());
            EXPECT_EQ(before, after) << "leaf " << i;
        }
    }
}

// Every query's hit through each of the scene's GPU trees (binary and wide)
// is the CPU's, where enough of the queries hit for that to say something.
template <class Traits>
void expect_cpu_hits(Scene& scene, const std::vector<RandomQuery>& queries, const std::string& where) {
    const std::vector<GpuTree> trees = gpu_trees(scene);
    const SceneView cpu = scene.view();
    int hits = 0;
    for (const RandomQuery& q : queries) {
        Hit probe = q.start;
        hits += intersect_closest<Traits>(cpu, q.ray, q.t_min, probe);
    }
    EXPECT_GT(hits, int(queries.size()) / 4) << where << ": too few hits, the test exercises little";
    for (const GpuTree& tree : trees) {
        for (size_t i = 0; i < queries.size(); ++i) {
            const RandomQuery& q = queries[i];
            expect_cpu_hit<Traits>(cpu, tree, q.ray, q.t_min, q.start, where + ", query " + std::to_string(i));
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

TEST(GpuBvh, ExactTraversalFindsTheCpuHitsOnMixedScenes) {
    using Traits = TraversalTraits<false, false, kLeafQuorum, false>;  // exact math, no instances
    const std::vector<RandomQuery> queries = random_queries(91, 3000);
    for (const uint32_t seed : {77u, 78u}) {
        Scene scene = random_mixed_scene(seed, 200);
        expect_cpu_hits<Traits>(scene, queries, "seed " + std::to_string(seed));
        if (HasFatalFailure()) return;
    }
}

// Scenes of spheres alone take a traversal of their own (one-sphere leaves
// tested at their place among the sorted children, not gathered): the CPU's
// hits, exact ties between repeated spheres included.
TEST(GpuBvh, ExactTraversalFindsTheCpuHitsOnSphereScenes) {
    using Traits = TraversalTraits<false, true, kLeafQuorum, false>;  // exact math, spheres alone
    const std::vector<RandomQuery> queries = random_queries(92, 3000);
    for (const uint32_t seed : {79u, 80u}) {
        SceneRandom random(seed);
        Scene scene = random_sphere_scene(random, 300, true);
        expect_cpu_hits<Traits>(scene, queries, "seed " + std::to_string(seed));
        if (HasFatalFailure()) return;
    }
}

// Shadow rays: the wide any-hit query answers as the CPU's binary one, for
// segments that end before, at and past the closest hit.
TEST(GpuBvh, AnyHitOverTheWideTreeAnswersAsTheCpu) {
    using Traits = TraversalTraits<false, false, kLeafQuorum, false>;  // exact math, no instances
    const std::vector<RandomQuery> queries = random_queries(93, 3000);
    for (const uint32_t seed : {79u, 80u}) {
        Scene scene = random_mixed_scene(seed, 200);
        const std::vector<GpuTree> trees = gpu_trees(scene);
        const SceneView cpu = scene.view();
        int blocked = 0, open = 0;
        for (size_t i = 0; i < queries.size(); ++i) {
            const RandomQuery& q = queries[i];
            Hit closest;
            const bool found = intersect_closest<Traits>(cpu, q.ray, q.t_min, closest);
            // Ends short of the closest hit (open), at it, just past it and far away.
            const float ends[] = {found ? closest.t * 0.999f : 10.0f, found ? closest.t : 100.0f,
                                  found ? next_float_up_nonnegative(closest.t) : 1000.0f, kInfinity};
            for (const float t_max : ends) {
                const bool expected = intersect_any(cpu, q.ray, q.t_min, t_max);
                (expected ? blocked : open) += 1;
                for (const GpuTree& tree : trees) {
                    EXPECT_EQ(intersect_any_wide<Traits>(tree.view(cpu), tree.wide.data(), q.ray, q.t_min, t_max),
                              expected)
                        << tree.name << ", seed " << seed << ", query " << i << ", t_max " << t_max;
                    if (HasFailure()) return;
                }
            }
        }
        EXPECT_GT(blocked, int(queries.size()) / 2) << "too few blocked segments: the test exercises little";
        EXPECT_GT(open, int(queries.size()) / 2) << "too few open segments: the test exercises little";
    }
}

// A leaf of one primitive carries its ref in the child's payload: a tree of
// such leaves finds the CPU's hits without the primitive order at all.
TEST(GpuBvh, LeavesOfOneNeedNoPrimitiveOrder) {
    using Traits = TraversalTraits<false, false, kLeafQuorum, false>;  // exact math, no instances
    const std::vector<RandomQuery> queries = random_queries(95, 3000);
    Scene scene = random_mixed_scene(81, 200);
    const std::vector<GpuTree> trees = gpu_trees(scene);
    const SceneView cpu = scene.view();
    int checked = 0;
    for (const GpuTree& tree : trees) {
        // Trees whose leaves all hold one primitive (a build may keep exact duplicates together).
        if (!std::all_of(tree.nodes.begin(), tree.nodes.end(), [](const BvhNode& n) { return n.count <= 1; })) continue;
        ++checked;
        SceneView view = tree.view(cpu);
        view.primitives = nullptr;  // a load of a ref would crash here
        int hits = 0;
        for (size_t i = 0; i < queries.size(); ++i) {
            const RandomQuery& q = queries[i];
            Hit expected = q.start, wide = q.start;
            const bool expected_found = intersect_closest<Traits>(cpu, q.ray, q.t_min, expected);
            const bool wide_found = intersect_closest_wide<Traits>(view, tree.wide.data(), q.ray, q.t_min, wide);
            hits += expected_found;
            expect_same_hit(expected_found, expected, wide_found, wide, tree.name + ", query " + std::to_string(i));
            EXPECT_EQ(intersect_any_wide<Traits>(view, tree.wide.data(), q.ray, q.t_min, kInfinity),
                      intersect_any(cpu, q.ray, q.t_min, kInfinity))
                << tree.name << ", query " << i;
            if (HasFailure()) return;
        }
        EXPECT_GT(hits, int(queries.size()) / 5) << "too few hits: the test exercises little";
    }
    EXPECT_GE(checked, 1) << "no tree of leaves of one: the test exercises nothing";
}

// What a wide leaf can hold: up to kWideMaxLeafCount primitives by slot, one
// of any type and index inline.
TEST(GpuBvh, WideLeavesRefuseWhatTheirPayloadCannotHold) {
    std::vector<PrimitiveRef> refs;
    for (uint32_t i = 0; i < kWideMaxLeafCount + 1; ++i) refs.push_back(PrimitiveRef::make(PrimitiveType::Sphere, i));
    BvhNode leaf{};
    leaf.bounds.lower = Vec3(-1.0f);
    leaf.bounds.upper = Vec3(1.0f);
    std::vector<WideBvhNode> wide;
    for (const uint32_t count : {1u, 2u, kWideMaxLeafCount}) {
        leaf.count = uint16_t(count);
        ASSERT_TRUE(build_wide_bvh(&leaf, 1, refs.data(), wide)) << count;
        const WideLeaf decoded{wide[0].child[0].payload};
        EXPECT_EQ(decoded.count(), count);
        SceneView view{};
        view.primitives = refs.data();
        for (uint32_t j = 0; j < count; ++j) EXPECT_EQ(decoded.primitive(view, j).bits, refs[j].bits);
    }
    leaf.count = uint16_t(kWideMaxLeafCount + 1);
    EXPECT_FALSE(build_wide_bvh(&leaf, 1, refs.data(), wide));
    // A leaf of one keeps a ref whose index needs all 28 bits, far past the slots' 24.
    refs[0] = PrimitiveRef::make(PrimitiveType::Triangle, kMaxPrimitivesPerType - 1);
    leaf.count = 1;
    ASSERT_TRUE(build_wide_bvh(&leaf, 1, refs.data(), wide));
    EXPECT_EQ(WideLeaf{wide[0].child[0].payload}.primitive(SceneView{}, 0).bits, refs[0].bits);
    refs[0] = PrimitiveRef::make(PrimitiveType::Instance, kMaxPrimitivesPerType - 1);
    ASSERT_TRUE(build_wide_bvh(&leaf, 1, refs.data(), wide));
    EXPECT_EQ(WideLeaf{wide[0].child[0].payload}.primitive(SceneView{}, 0).bits, refs[0].bits);
}

TEST(GpuBvh, ExactTraversalFindsTheCpuHitsForGrazingRays) {
    using Traits = TraversalTraits<false, true, kLeafQuorum, false>;  // exact math, spheres only
    SceneRandom random(31);
    Scene scene = grazing_sphere_scene(random);
    scene.spheres.push_back(Sphere{Vec3(0, -1000, 0), 1000.0f, Vec3(0.0f), 0});  // the book's ground
    const std::vector<GpuTree> trees = gpu_trees(scene);
    const SceneView cpu = scene.view();
    for (const GpuTree& tree : trees) {
        SceneRandom rays(32);
        int grazing = 0;
        for (int i = 0; i < 20000; ++i) {
            const Sphere* target = nullptr;
            const Ray ray = grazing_ray(rays, scene, target);
            float t;
            grazing += intersect_sphere(*target, ray, kMinHitDistance, kInfinity, t);
            expect_cpu_hit<Traits>(cpu, tree, ray, kMinHitDistance, Hit{}, "ray " + std::to_string(i));
            if (HasFatalFailure()) return;
        }
        EXPECT_GT(grazing, 1000) << "too few rays graze their target: the test does not exercise silhouettes";
    }
}

}  // namespace
}  // namespace farmrt
