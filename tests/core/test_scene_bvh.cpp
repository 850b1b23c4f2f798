// The BVH over mixed primitive types and instances: the same closest hit as
// brute force, a valid tree, and the same tree for any thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <random>

#include "scene_test_helpers.h"

namespace farmrt {
namespace {

using testing::Random;
using testing::random_scene;

TEST(BvhMixed, SameClosestHitAsBruteForceWithInstances) {
    int hits = 0, instance_hits = 0;
    for (uint32_t seed = 1; seed <= 25; ++seed) {
        Scene scene = random_scene(seed);
        scene.build_acceleration();
        const SceneView view = scene.view();
        Random random(seed * 977);
        for (int r = 0; r < 400; ++r) {
            const Ray ray{random.point(14), random.point(1), random.uniform(0, 1)};
            Hit bvh_hit, brute_hit;
            const bool found = intersect_closest(view, ray, kMinHitDistance, bvh_hit);
            const bool brute = intersect_closest_brute_force(view, ray, kMinHitDistance, brute_hit);
            ASSERT_EQ(found, brute) << "seed " << seed << " ray " << r;
            if (!found) continue;
            ++hits;
            instance_hits += bvh_hit.instance != kNoInstance;
            ASSERT_EQ(bvh_hit.t, brute_hit.t) << "seed " << seed << " ray " << r;
            EXPECT_EQ(bvh_hit.primitive.bits, brute_hit.primitive.bits);
            EXPECT_EQ(bvh_hit.instance, brute_hit.instance);
        }
    }
    EXPECT_GT(hits, 1000);
    EXPECT_GT(instance_hits, 100);
}

// tiny.yaml's camera ray that met the wall quad 1.1e-5 of its height above
// the top edge (inside the edge tolerance) while the binary BVH culled the
// quad's leaf: the scalar tracer and the GPU's exact kernel saw the sky, the
// SIMD tracer (another BVH) the wall. Every tracer must find brute force's hit.
TEST(BvhMixed, FindsAQuadHitWithinTheEdgeToleranceAsBruteForceDoes) {
    const SceneDescription d =
        load_scene_file(std::string(FARMRT_SOURCE_DIR) + "/configs/tiny.yaml", {{"image.output=unused.pfm", ""}});
    Scene scene = d.scene;
    scene.build_acceleration();
    const SceneView view = scene.view();
    const Ray ray{Vec3(3.00016356f, 1.5016942f, 3.99945378f), Vec3(-2.80251241f, -0.00138270855f, -4.27154446f),
                  0.536568105f};
    Hit bvh_hit, brute_hit;
    ASSERT_TRUE(intersect_closest_brute_force(view, ray, kMinHitDistance, brute_hit));
    ASSERT_EQ(brute_hit.primitive.type(), PrimitiveType::Quad);
    ASSERT_TRUE(intersect_closest(view, ray, kMinHitDistance, bvh_hit));
    EXPECT_EQ(bvh_hit.t, brute_hit.t);
    EXPECT_EQ(bvh_hit.primitive.bits, brute_hit.primitive.bits);
}

TEST(BvhMixed, LinearListAgreesWithTheBvh) {
    Scene with_bvh = random_scene(99), linear = random_scene(99);
    with_bvh.build_acceleration();
    linear.build_linear_list();
    const SceneView a = with_bvh.view(), b = linear.view();
    Random random(5);
    for (int r = 0; r < 500; ++r) {
        const Ray ray{random.point(14), random.point(1), 0.5f};
        Hit ha, hb;
        ASSERT_EQ(intersect_closest(a, ray, kMinHitDistance, ha), intersect_closest(b, ray, kMinHitDistance, hb));
        EXPECT_EQ(ha.t, hb.t);
        EXPECT_EQ(ha.instance, hb.instance);
    }
}

// Every node's box contains its children's (or its primitives'), every
// primitive sits in exactly one leaf.
void expect_valid_tree(const Bvh& bvh, const std::vector<Aabb>& bounds) {
    std::vector<int> seen(bounds.size(), 0);
    std::vector<uint32_t> stack = {0};
    auto inside = [](const Aabb& inner, const Aabb& outer) {
        return inner.lower.x >= outer.lower.x && inner.lower.y >= outer.lower.y && inner.lower.z >= outer.lower.z &&
               inner.upper.x <= outer.upper.x && inner.upper.y <= outer.upper.y && inner.upper.z <= outer.upper.z;
    };
    size_t visited = 0;
    while (!stack.empty()) {
        const uint32_t index = stack.back();
        stack.pop_back();
        ASSERT_LT(index, bvh.nodes.size());
        ++visited;
        const BvhNode& node = bvh.nodes[index];
        if (node.is_leaf()) {
            for (uint32_t i = 0; i < node.count; ++i) {
                const uint32_t primitive = bvh.primitive_order[node.offset + i];
                ++seen[primitive];
                ASSERT_TRUE(inside(bounds[primitive], node.bounds));
            }
            continue;
        }
        for (const uint32_t child : {index + 1, node.offset}) {
            ASSERT_TRUE(inside(bvh.nodes[child].bounds, node.bounds));
            stack.push_back(child);
        }
    }
    EXPECT_EQ(visited, bvh.nodes.size());
    for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << i;
}

std::vector<Aabb> random_boxes(size_t count, uint32_t seed) {
    Random random(seed);
    std::vector<Aabb> boxes(count);
    for (size_t i = 0; i < count; ++i) {
        // Clustered, with duplicates, so that every split path is taken.
        const Vec3 center = (i % 7 == 0) ? Vec3(1, 1, 1) : random.point(i % 2 ? 100.0f : 3.0f);
        boxes[i].expand(center - Vec3(random.uniform(0, 0.5f)));
        boxes[i].expand(center + Vec3(random.uniform(0, 0.5f)));
    }
    return boxes;
}

// Large enough for tasks and for parallel binning at the top.
TEST(BvhBuild, SameTreeForAnyThreadCount) {
    const std::vector<Aabb> boxes = random_boxes(300000, 3);
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    const Bvh serial = build_bvh(boxes);
    omp_set_num_threads(4);
    const Bvh parallel = build_bvh(boxes);
    omp_set_num_threads(saved);
    ASSERT_EQ(serial.nodes.size(), parallel.nodes.size());
    EXPECT_EQ(0, std::memcmp(serial.nodes.data(), parallel.nodes.data(), serial.nodes.size() * sizeof(BvhNode)));
    EXPECT_EQ(serial.primitive_order, parallel.primitive_order);
    expect_valid_tree(parallel, boxes);
}

TEST(BvhBuild, ValidForSmallDegenerateAndEmptyInputs) {
    for (size_t count : {0, 1, 2, 5, 17, 1000}) {
        const std::vector<Aabb> boxes = random_boxes(count, uint32_t(count) + 1);
        const Bvh bvh = build_bvh(boxes);
        ASSERT_GE(bvh.nodes.size(), 1u);
        if (count > 0) expect_valid_tree(bvh, boxes);
    }
    // All boxes identical: no plane separates them; leaves stay within 16 bits.
    std::vector<Aabb> same(100000);
    for (Aabb& b : same) {
        b.expand(Vec3(0, 0, 0));
        b.expand(Vec3(1, 1, 1));
    }
    expect_valid_tree(build_bvh(same), same);
}

}  // namespace
}  // namespace farmrt
