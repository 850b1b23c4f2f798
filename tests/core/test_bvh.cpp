// The BVH: traversal finds exactly the closest hit that testing every primitive
// finds, over many random rays and scenes (mixed spheres, quads, triangles and
// degenerate layouts); and the tree is well formed.
#include <gtest/gtest.h>

#include <random>

#include "core/occlusion.h"
#include "core/scene.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

using testing::random_scene;

// Compares BVH and brute force on one ray: the same hit, bit for bit. On
// exactly equal t the smaller PrimitiveRef wins whatever the visiting order
// (closest_hit_bound), so even ties must agree.
::testing::AssertionResult same_closest_hit(const SceneView& view, const Ray& ray) {
    Hit bvh_hit, brute_hit;
    const bool bvh_found = intersect_closest(view, ray, kMinHitDistance, bvh_hit);
    const bool brute_found = intersect_closest_brute_force(view, ray, kMinHitDistance, brute_hit);
    if (bvh_found != brute_found) {
        return ::testing::AssertionFailure()
               << "BVH found=" << bvh_found << " brute force found=" << brute_found << " (brute t=" << brute_hit.t
               << ", primitive bits " << brute_hit.primitive.bits << ")";
    }
    if (!bvh_found) return ::testing::AssertionSuccess();
    if (bvh_hit.t != brute_hit.t || bvh_hit.primitive.bits != brute_hit.primitive.bits || bvh_hit.u != brute_hit.u ||
        bvh_hit.v != brute_hit.v) {
        return ::testing::AssertionFailure()
               << "BVH hit (t=" << bvh_hit.t << ", primitive " << bvh_hit.primitive.bits
               << ") != brute force hit (t=" << brute_hit.t << ", primitive " << brute_hit.primitive.bits << ")";
    }
    return ::testing::AssertionSuccess();
}

// The same ray through the scene's triangles and through a copy of their
// corners (SceneView::triangle_corners, as the GPU reads them): the same
// closest hit and the same occlusion, bit for bit.
::testing::AssertionResult same_hit_through_corners(const SceneView& view, const SceneView& with_corners,
                                                    const Ray& ray) {
    Hit hit, corner_hit;
    const bool found = intersect_closest(view, ray, kMinHitDistance, hit);
    const bool corner_found = intersect_closest(with_corners, ray, kMinHitDistance, corner_hit);
    if (found != corner_found || hit.t != corner_hit.t || hit.primitive.bits != corner_hit.primitive.bits ||
        hit.u != corner_hit.u || hit.v != corner_hit.v) {
        return ::testing::AssertionFailure() << "through the triangles found=" << found << " t=" << hit.t
                                             << ", through the corners found=" << corner_found << " t=" << corner_hit.t;
    }
    const float t_max = found ? hit.t : kInfinity;
    if (intersect_any(view, ray, kMinHitDistance, t_max) != intersect_any(with_corners, ray, kMinHitDistance, t_max)) {
        return ::testing::AssertionFailure() << "occlusion differs through the corners";
    }
    return ::testing::AssertionSuccess();
}

Vec3 random_direction(std::mt19937& rng) {
    std::normal_distribution<float> normal;
    Vec3 d;
    do {
        d = Vec3(normal(rng), normal(rng), normal(rng));
    } while (length_squared(d) < 1e-6f);
    return d;
}

// Random rays: from outside and inside the scene, some axis-aligned (zero
// direction components), some aimed at primitives' centres, corners and edges.
void check_random_rays(const Scene& scene, std::mt19937& rng, int ray_count, float extent) {
    const SceneView view = scene.view();
    std::vector<TriangleCorners> corners;
    for (const Triangle& triangle : scene.triangles) corners.push_back(corners_of(triangle));
    SceneView with_corners = view;
    with_corners.triangle_corners = corners.data();
    std::uniform_real_distribution<float> position(-extent, extent), fraction(0, 1);
    std::uniform_int_distribution<int> kind(0, 5);
    int failures = 0;
    for (int i = 0; i < ray_count && failures < 10; ++i) {
        const Vec3 origin(position(rng), position(rng), position(rng));
        Vec3 direction = random_direction(rng);
        const int k = kind(rng);
        if (k == 1) {  // along an axis
            direction = Vec3(0.0f);
            direction[i % 3] = (i & 8) ? 1.0f : -1.0f;
        } else if (k >= 2 && scene.primitive_count() > 0) {  // at a primitive's feature
            const uint32_t which = uint32_t(rng() % scene.primitive_count());
            Vec3 target;
            if (which < scene.spheres.size()) {
                const Sphere& s = scene.spheres[which];
                target = s.center + (k == 2 ? Vec3(0.0f) : unit_vector(random_direction(rng)) * s.radius);
            } else if (which < scene.spheres.size() + scene.quads.size()) {
                const Quad& q = scene.quads[which - scene.spheres.size()];
                const float edge = (k == 3) ? 0.0f : (k == 4 ? 1.0f : fraction(rng));
                target = q.corner + edge * q.edge_u + fraction(rng) * q.edge_v;
            } else {
                const Triangle& t = scene.triangles[which - scene.spheres.size() - scene.quads.size()];
                const float f = fraction(rng);
                target = k == 3 ? t.vertex1
                                : (k == 4 ? t.vertex0 + f * (t.vertex2 - t.vertex0)
                                          : t.vertex1 + f * (t.vertex2 - t.vertex1));
            }
            direction = target - origin;
            if (length_squared(direction) == 0.0f) direction = Vec3(0, 1, 0);
        }
        const Ray ray{origin, direction};
        ::testing::AssertionResult result = same_closest_hit(view, ray);
        if (result && !corners.empty()) result = same_hit_through_corners(view, with_corners, ray);
        if (!result) {
            ++failures;
            ADD_FAILURE() << result.message() << "\n  ray origin (" << origin.x << ", " << origin.y << ", " << origin.z
                          << ") direction (" << direction.x << ", " << direction.y << ", " << direction.z << ")";
        }
    }
}

// ---- structure --------------------------------------------------------------------

struct TreeFacts {
    int depth = 0;
    size_t leaves = 0;
    size_t largest_leaf = 0;
};

bool contains(const Aabb& outer, const Aabb& inner) {
    for (int axis = 0; axis < 3; ++axis) {
        if (inner.lower[axis] < outer.lower[axis] || inner.upper[axis] > outer.upper[axis]) return false;
    }
    return true;
}

// Walks the tree checking the layout invariants; returns depth and leaf facts.
void check_node(const Bvh& bvh, const std::vector<Aabb>& bounds, uint32_t index, int depth, std::vector<int>& slot_seen,
                TreeFacts& facts) {
    ASSERT_LT(index, bvh.nodes.size());
    const BvhNode& node = bvh.nodes[index];
    facts.depth = std::max(facts.depth, depth);
    ASSERT_LT(depth, kBvhMaxDepth) << "deeper than the traversal stack";
    if (node.is_leaf()) {
        facts.leaves++;
        facts.largest_leaf = std::max<size_t>(facts.largest_leaf, node.count);
        ASSERT_LE(size_t(node.offset) + node.count, bvh.primitive_order.size());
        for (uint32_t i = node.offset; i < node.offset + node.count; ++i) {
            slot_seen[i]++;
            ASSERT_TRUE(contains(node.bounds, bounds[bvh.primitive_order[i]])) << "primitive outside its leaf";
        }
        return;
    }
    const uint32_t left = index + 1, right = node.offset;
    ASSERT_GT(right, left) << "right child must follow the left subtree";
    ASSERT_LT(right, bvh.nodes.size());
    ASSERT_LE(node.split_axis, 2);
    EXPECT_TRUE(contains(node.bounds, bvh.nodes[left].bounds)) << "left child outside parent at node " << index;
    EXPECT_TRUE(contains(node.bounds, bvh.nodes[right].bounds)) << "right child outside parent at node " << index;
    check_node(bvh, bounds, left, depth + 1, slot_seen, facts);
    check_node(bvh, bounds, right, depth + 1, slot_seen, facts);
}

TreeFacts check_structure(const std::vector<Aabb>& bounds, const BvhBuildOptions& options = {}) {
    const Bvh bvh = build_bvh(bounds, options);
    TreeFacts facts;
    EXPECT_EQ(bvh.primitive_order.size(), bounds.size());
    // Every primitive in exactly one leaf: the order is a permutation and the
    // leaves cover every slot exactly once.
    std::vector<int> index_seen(bounds.size(), 0), slot_seen(bounds.size(), 0);
    for (uint32_t index : bvh.primitive_order) {
        EXPECT_LT(index, bounds.size());
        if (index < bounds.size()) index_seen[index]++;
    }
    for (size_t i = 0; i < bounds.size(); ++i) EXPECT_EQ(index_seen[i], 1) << "primitive " << i;
    EXPECT_FALSE(bvh.nodes.empty());
    if (bounds.empty()) return facts;
    EXPECT_LE(bvh.nodes.size(), 2 * bounds.size() - 1);
    check_node(bvh, bounds, 0, 0, slot_seen, facts);
    size_t uncovered = 0;
    for (size_t i = 0; i < bounds.size(); ++i) uncovered += slot_seen[i] != 1;
    EXPECT_EQ(uncovered, 0u) << "leaf slots not covered exactly once";
    return facts;
}

std::vector<Aabb> bounds_of_scene(const Scene& scene) {
    std::vector<Aabb> bounds;
    for (const Sphere& s : scene.spheres) bounds.push_back(bounds_of(s));
    for (const Quad& q : scene.quads) bounds.push_back(bounds_of(q));
    for (const Triangle& t : scene.triangles) bounds.push_back(bounds_of(t));
    return bounds;
}

// ---- traversal == brute force ----------------------------------------------------

TEST(BvhTraversal, MatchesBruteForceOnManyRandomScenes) {
    std::mt19937 rng(2024);
    for (int scene_index = 0; scene_index < 60; ++scene_index) {
        const size_t count = size_t(1) + rng() % 300;
        const float extent = (scene_index % 3 == 0) ? 1.0f : (scene_index % 3 == 1 ? 20.0f : 1000.0f);
        Scene scene = random_scene(rng, count, extent);
        scene.build_acceleration();
        SCOPED_TRACE("scene " + std::to_string(scene_index) + " with " + std::to_string(count) + " primitives");
        check_random_rays(scene, rng, 1500, extent);
    }
}

TEST(BvhTraversal, MatchesBruteForceWithLargeLeavesAndFewBins) {
    std::mt19937 rng(77);
    BvhBuildOptions options;
    options.max_leaf_size = 1;
    options.bin_count = 2;
    for (int scene_index = 0; scene_index < 10; ++scene_index) {
        Scene scene = random_scene(rng, 200, 10.0f);
        scene.build_acceleration(options);
        check_random_rays(scene, rng, 1000, 10.0f);
    }
    options.max_leaf_size = 64;
    options.bin_count = 64;
    Scene scene = random_scene(rng, 500, 10.0f);
    scene.build_acceleration(options);
    check_random_rays(scene, rng, 2000, 10.0f);
}

TEST(BvhTraversal, NoPrimitivesNeverHits) {
    Scene scene;
    scene.build_acceleration();
    ASSERT_EQ(scene.nodes().size(), 1u);
    const SceneView view = scene.view();
    std::mt19937 rng(1);
    for (int i = 0; i < 100; ++i) {
        Hit hit;
        EXPECT_FALSE(intersect_closest(view, Ray{Vec3(0.0f), random_direction(rng)}, kMinHitDistance, hit));
        EXPECT_EQ(hit.t, kInfinity);
    }
    Hit hit;
    EXPECT_FALSE(intersect_closest(view, Ray{Vec3(0.0f), Vec3(0, 0, 1)}, kMinHitDistance, hit));
}

TEST(BvhTraversal, OnePrimitiveOfEachKind) {
    std::mt19937 rng(9);
    for (int kind = 0; kind < 3; ++kind) {
        Scene scene;
        scene.materials.push_back(Material{});
        if (kind == 0) scene.spheres.push_back(Sphere{Vec3(0.5f, 0, 0), 1.0f, Vec3(0.0f), 0});
        if (kind == 1) scene.quads.push_back(make_quad({-1, -1, 0}, {2, 0, 0}, {0, 2, 0}, 0));
        if (kind == 2) scene.triangles.push_back(Triangle{{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}, {}, {}, {}, {}, 0});
        scene.build_acceleration();
        ASSERT_EQ(scene.nodes().size(), 1u);
        EXPECT_TRUE(scene.nodes()[0].is_leaf());
        check_random_rays(scene, rng, 3000, 3.0f);
    }
}

TEST(BvhTraversal, AllPrimitivesAtOnePoint) {
    // No split plane separates coincident centroids: the builder halves by index.
    std::mt19937 rng(4);
    Scene scene;
    scene.materials.push_back(Material{});
    for (int i = 0; i < 1000; ++i) {
        scene.spheres.push_back(Sphere{Vec3(1, 2, 3), 0.5f + 0.001f * float(i % 7), Vec3(0.0f), 0});
        scene.quads.push_back(make_quad({0.5f, 1.5f, 3}, {1, 0, 0}, {0, 1, 0}, 0));
        scene.triangles.push_back(Triangle{{0.5f, 1.5f, 3}, {1.5f, 1.5f, 3}, {1, 2.5f, 3}, {}, {}, {}, {}, 0});
    }
    scene.build_acceleration();
    const TreeFacts facts = check_structure(bounds_of_scene(scene));
    EXPECT_LE(facts.largest_leaf, 0xFFFFu);
    check_random_rays(scene, rng, 3000, 4.0f);
}

TEST(BvhTraversal, DegenerateZeroSizePrimitivesAtOnePoint) {
    // Zero-radius spheres (never hit) mixed with one real sphere at the same place.
    std::mt19937 rng(6);
    Scene scene;
    scene.materials.push_back(Material{});
    for (int i = 0; i < 100; ++i) scene.spheres.push_back(Sphere{Vec3(0.0f), 0.0f, Vec3(0.0f), 0});
    scene.spheres.push_back(Sphere{Vec3(0.0f), 1.0f, Vec3(0.0f), 0});
    scene.build_acceleration();
    check_structure(bounds_of_scene(scene));
    check_random_rays(scene, rng, 2000, 3.0f);
}

TEST(BvhTraversal, HugePrimitiveCount) {
    std::mt19937 rng(8);
    Scene scene = random_scene(rng, 50000, 100.0f);
    scene.build_acceleration();
    check_random_rays(scene, rng, 300, 100.0f);
}

TEST(BvhTraversal, ManyCoincidentPrimitivesBeyondOneLeafCount) {
    // More coincident primitives than a leaf's 16-bit count can hold.
    std::mt19937 rng(10);
    Scene scene;
    scene.materials.push_back(Material{});
    for (int i = 0; i < 70000; ++i) scene.spheres.push_back(Sphere{Vec3(0.0f), 1.0f, Vec3(0.0f), 0});
    scene.spheres.push_back(Sphere{Vec3(0, 0, 5), 1.0f, Vec3(0.0f), 0});
    scene.build_acceleration();
    const TreeFacts facts = check_structure(bounds_of_scene(scene));
    EXPECT_LE(facts.largest_leaf, 0xFFFFu);
    check_random_rays(scene, rng, 100, 8.0f);
}

TEST(BvhTraversal, LinearListMatchesBruteForce) {
    std::mt19937 rng(12);
    Scene scene = random_scene(rng, 500, 10.0f);
    scene.build_linear_list();
    ASSERT_EQ(scene.nodes().size(), 1u);
    check_random_rays(scene, rng, 2000, 10.0f);
}

TEST(BvhTraversal, TouchingSpheresOnAGroundSphereLikeTheBookScene) {
    // The book's layout: a huge ground sphere and many small spheres resting on it.
    std::mt19937 rng(13);
    Scene scene;
    scene.materials.push_back(Material{});
    scene.spheres.push_back(Sphere{Vec3(0, -1000, 0), 1000.0f, Vec3(0.0f), 0});
    std::uniform_real_distribution<float> offset(-11, 11);
    for (int i = 0; i < 400; ++i)
        scene.spheres.push_back(Sphere{Vec3(offset(rng), 0.2f, offset(rng)), 0.2f, Vec3(0.0f), 0});
    scene.build_acceleration();
    const SceneView view = scene.view();
    int failures = 0;
    for (int i = 0; i < 20000 && failures < 10; ++i) {
        const Vec3 origin(13 + offset(rng) * 0.1f, 2, 3 + offset(rng) * 0.1f);
        const Vec3 target(offset(rng), offset(rng) * 0.05f, offset(rng));
        const ::testing::AssertionResult result = same_closest_hit(view, Ray{origin, target - origin});
        if (!result) {
            ++failures;
            ADD_FAILURE() << result.message();
        }
    }
}

// ---- structure --------------------------------------------------------------------

TEST(BvhStructure, RandomScenesAreWellFormed) {
    std::mt19937 rng(31);
    for (int scene_index = 0; scene_index < 40; ++scene_index) {
        const Scene scene = random_scene(rng, size_t(1) + rng() % 2000, 50.0f);
        const TreeFacts facts = check_structure(bounds_of_scene(scene));
        EXPECT_GT(facts.leaves, 0u);
    }
}

TEST(BvhStructure, EmptyInputGivesOneEmptyLeaf) {
    const Bvh bvh = build_bvh({});
    ASSERT_EQ(bvh.nodes.size(), 1u);
    EXPECT_TRUE(bvh.primitive_order.empty());
    EXPECT_TRUE(bvh.nodes[0].bounds.empty());
}

TEST(BvhStructure, LeavesRespectTheMaximumLeafSizeWhenPrimitivesAreSeparable) {
    // Well-separated equal boxes on a line: SAH splits down to small leaves.
    std::vector<Aabb> bounds;
    for (int i = 0; i < 1024; ++i) {
        Aabb box;
        box.expand(Vec3(float(i) * 3, 0, 0));
        box.expand(Vec3(float(i) * 3 + 1, 1, 1));
        bounds.push_back(box);
    }
    BvhBuildOptions options;
    options.max_leaf_size = 4;
    const TreeFacts facts = check_structure(bounds, options);
    EXPECT_LE(facts.largest_leaf, 4u);
    EXPECT_LE(facts.depth, 20);  // roughly balanced: log2(1024 / 4) = 8, allow slack
}

TEST(BvhStructure, GeometricallySpacedPrimitivesStayWithinTheStackDepth) {
    // Each level of a skewed layout peels only a few primitives off: the tree
    // must still fit the fixed traversal stack and its 16-bit leaf counts.
    std::vector<Aabb> bounds;
    for (int axis = 0; axis < 3; ++axis) {  // one chain per axis: their depths add up
        for (int i = -100; i <= 125; ++i) {
            Vec3 lower(0.0f), upper(0.0f);
            lower[axis] = std::ldexp(1.0f, i);
            upper[axis] = lower[axis] * 1.01f;
            Aabb box;
            box.expand(lower);
            box.expand(upper);
            bounds.push_back(box);
        }
    }
    for (int i = 0; i < 80000; ++i) {  // plus a big cluster at the small end
        Aabb box;
        box.expand(Vec3(0.0f));
        box.expand(Vec3(0.0f));
        bounds.push_back(box);
    }
    const TreeFacts facts = check_structure(bounds);
    EXPECT_LT(facts.depth, kBvhMaxDepth);
    EXPECT_LE(facts.largest_leaf, 0xFFFFu);
}

TEST(BvhStructure, SkewedChainOverACoincidentClusterNeverOverflowsALeaf) {
    // With two bins each split can only peel the top element off a chain of
    // boxes spaced by a factor of 3, so the chain alone is deeper than the
    // traversal stack; the cluster under it must still end in leaves that
    // hold it completely (16-bit leaf counts) and within kBvhMaxDepth.
    std::vector<Aabb> bounds;
    for (int i = 0; i <= 70; ++i) {
        const float x = std::pow(3.0f, float(i));
        Aabb box;
        box.expand(Vec3(x, 0, 0));
        box.expand(Vec3(x * 1.01f, 1, 1));
        bounds.push_back(box);
    }
    for (int i = 0; i < 70000; ++i) {
        Aabb box;
        box.expand(Vec3(0, 0, 0));
        box.expand(Vec3(1e-3f, 1, 1));
        bounds.push_back(box);
    }
    BvhBuildOptions options;
    options.bin_count = 2;
    const TreeFacts facts = check_structure(bounds, options);
    EXPECT_LT(facts.depth, kBvhMaxDepth);
}

TEST(BvhStructure, SceneViewListsEveryPrimitiveOnce) {
    std::mt19937 rng(17);
    Scene scene = random_scene(rng, 777, 10.0f);
    scene.build_acceleration();
    const SceneView view = scene.view();
    ASSERT_EQ(view.primitive_count, scene.primitive_count());
    std::vector<int> seen(scene.primitive_count(), 0);
    for (uint32_t i = 0; i < view.primitive_count; ++i) {
        const PrimitiveRef ref = view.primitives[i];
        size_t flat = ref.index();
        if (ref.type() == PrimitiveType::Quad) flat += scene.spheres.size();
        if (ref.type() == PrimitiveType::Triangle) flat += scene.spheres.size() + scene.quads.size();
        ASSERT_LT(flat, seen.size());
        seen[flat]++;
    }
    for (int count : seen) EXPECT_EQ(count, 1);
}

TEST(PrimitiveRef, PacksTypeAndIndex) {
    const PrimitiveRef ref = PrimitiveRef::make(PrimitiveType::Triangle, kMaxPrimitivesPerType - 1);
    EXPECT_EQ(ref.type(), PrimitiveType::Triangle);
    EXPECT_EQ(ref.index(), kMaxPrimitivesPerType - 1);
    EXPECT_EQ(PrimitiveRef::make(PrimitiveType::Quad, 0).type(), PrimitiveType::Quad);
}

}  // namespace
}  // namespace farmrt
