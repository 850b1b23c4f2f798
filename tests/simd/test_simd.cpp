// The SIMD tracer returns exactly what the scalar core returns: the same
// closest hit (t, primitive, u, v, bit for bit) for random rays over random
// mixed scenes, and byte-identical renders, at every instruction-set level this
// CPU supports (unsupported levels are skipped with a message). Also: the
// order-independent tie rule, the wide BVH's structure, and --simd errors.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "cmd/command_line_parser.h"
#include "core/errors.h"
#include "core/integrator.h"
#include "io/scene_loader.h"
#include "render/render_job.h"
#include "scoped_environment.h"
#include "simd/block_sampler.h"
#include "simd/cpu_renderer.h"
#include "simd/simd_kernels.h"
#include "simd/simd_level.h"
#include "simd/simd_test_scenes.h"
#include "simd/wide_accelerator.h"
#include "simd/wide_bvh.h"

namespace farmrt {
namespace {

std::string level_test_name(const testing::TestParamInfo<SimdLevel>& info) {
    switch (info.param) {
    case SimdLevel::Sse42: return "sse42";
    case SimdLevel::Avx2: return "avx2";
    case SimdLevel::Avx512: return "avx512";
    default: return "off";
    }
}

#define SKIP_UNLESS_SUPPORTED(level)                                                                          \
    do {                                                                                                      \
        if (!simd_level_compiled(level)) GTEST_SKIP() << "built without SIMD kernels (FARMRT_WITH_SIMD=OFF)"; \
        if (!simd_level_supported(level))                                                                     \
            GTEST_SKIP() << "this CPU does not support " << simd_level_name(level) << ": level not tested";   \
    } while (0)

TEST(ClosestHitRule, EqualDistanceTakesTheSmallerReferenceInAnyOrder) {
    Scene scene;
    scene.materials.push_back(Material{});
    for (int i = 0; i < 5; ++i) scene.spheres.push_back(Sphere{Vec3(0, 0, -5), 1.0f, Vec3(0.0f), 0});
    for (int i = 0; i < 3; ++i) scene.quads.push_back(make_quad(Vec3(-1, -1, -4), Vec3(2, 0, 0), Vec3(0, 2, 0), 0));
    const Ray ray{Vec3(0, 0, 0), Vec3(0, 0, -1), 0};
    scene.build_acceleration();
    Hit bvh_hit, brute_hit;
    ASSERT_TRUE(intersect_closest(scene.view(), ray, kMinHitDistance, bvh_hit));
    ASSERT_TRUE(intersect_closest_brute_force(scene.view(), ray, kMinHitDistance, brute_hit));
    // The spheres' near side and the quads lie at t = 4 exactly: eight ties.
    EXPECT_EQ(bvh_hit.t, 4.0f);
    EXPECT_EQ(bvh_hit.primitive.bits, PrimitiveRef::make(PrimitiveType::Sphere, 0).bits);
    EXPECT_EQ(brute_hit.primitive.bits, bvh_hit.primitive.bits);
    // Reversed test order: still the smallest reference.
    Hit reversed;
    const SceneView view = scene.view();
    for (uint32_t i = view.primitive_count; i-- > 0;) {
        intersect_primitive(view, view.primitives[i], ray, kMinHitDistance, reversed);
    }
    EXPECT_EQ(reversed.primitive.bits, bvh_hit.primitive.bits);
    EXPECT_EQ(float_bits(reversed.t), float_bits(bvh_hit.t));
}

TEST(ClosestHitRule, NextFloatUp) {
    EXPECT_EQ(next_float_up(1.0f), std::nextafter(1.0f, 2.0f));
    EXPECT_EQ(next_float_up(-1.0f), std::nextafter(-1.0f, 0.0f));
    EXPECT_EQ(float_bits(next_float_up(0.0f)), 1u);
    EXPECT_EQ(float_bits(next_float_up(-0.0f)), 1u);
    EXPECT_EQ(next_float_up(kInfinity), std::numeric_limits<float>::infinity());
    EXPECT_EQ(next_float_up(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
}

// ---- every SIMD level against the scalar path ---------------------------------

class SimdLevelTest : public testing::TestWithParam<SimdLevel> {};

TEST_P(SimdLevelTest, SameClosestHitsAsScalarOnRandomMixedScenes) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    for (uint32_t seed = 1; seed <= 12; ++seed) {
        Scene scene = random_mixed_scene(seed, seed <= 2 ? 3 : 40 * int(seed));
        scene.build_acceleration();
        const SceneView view = scene.view();
        const simd::WideAccelerator accelerator(view, GetParam());
        const simd::WideQuery wide = accelerator.closest_hit();
        const std::vector<RandomQuery> queries = random_queries(1000 + seed, 3000);
        for (size_t i = 0; i < queries.size(); ++i) {
            const RandomQuery& q = queries[i];
            Hit expected = q.start, brute = q.start, hit = q.start;
            const bool expected_found = intersect_closest(view, q.ray, q.t_min, expected);
            const bool brute_found = intersect_closest_brute_force(view, q.ray, q.t_min, brute);
            const bool found = wide(view, q.ray, q.t_min, hit);
            const std::string where = "seed " + std::to_string(seed) + ", ray " + std::to_string(i);
            expect_same_hit(brute_found, brute, expected_found, expected, where + " (scalar BVH vs brute force)");
            expect_same_hit(expected_found, expected, found, hit, where + " (" + simd_level_name(GetParam()) + ")");
        }
    }
}

// Secondary rays start on a sphere (its packet lane has c ~ 0, either sign,
// and one root ~ 0, either side of t_min): the wide test must agree with the
// scalar one there too, ties and rounding included.
TEST_P(SimdLevelTest, SameClosestHitsForRaysLeavingSpheres) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    SceneRandom random(31);
    Scene scene = random_sphere_scene(random, 300, false);
    scene.build_acceleration();
    const SceneView view = scene.view();
    const simd::WideAccelerator accelerator(view, GetParam());
    int leaving = 0;
    for (int i = 0; i < 4000; ++i) {
        const Ray primary{random.point(8.0f), random.direction(), 0.0f};
        Hit first;
        if (!intersect_closest(view, primary, kMinHitDistance, first)) continue;
        // From the hit point: away from the sphere, into it, and grazing.
        const Ray secondary{primary.at(first.t), random.direction(), 0.0f};
        for (const float t_min : {kMinHitDistance, 0.0f}) {
            expect_wide_matches_scalar(view, accelerator, secondary, t_min, Hit{}, "ray " + std::to_string(i));
        }
        ++leaving;
    }
    EXPECT_GT(leaving, 1000);
}

// Bundles of rays traced as one packet (the camera rays of a pixel's
// samples): every lane's hit equals the scalar BVH's for that ray alone, on
// spheres that move, overlap, repeat exactly (ties) and include the book's
// ground; bundles from one point, from a lens-sized disk, and leaving a surface.
TEST_P(SimdLevelTest, PacketsOfRaysGiveEachRaysClosestHit) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    SceneRandom random(57);
    Scene scene = random_sphere_scene(random, 400, true);
    scene.build_acceleration();
    const SceneView view = scene.view();
    const simd::WideAccelerator accelerator(view, GetParam());
    const int width = accelerator.width();
    int traced = 0, refused = 0;
    for (int bundle = 0; bundle < 3000; ++bundle) {
        const int count = random.integer(1, width);
        Vec3 origin = random.point(8.0f);
        const Vec3 direction = random.direction();
        if (bundle % 3 == 2) {  // leaving the surface that a first ray hits
            Hit first;
            if (!intersect_closest(view, Ray{origin, direction, 0.0f}, kMinHitDistance, first)) continue;
            origin = Ray{origin, direction, 0.0f}.at(first.t);
        }
        const float origin_spread = bundle % 3 == 1 ? 0.05f : 0.0f;
        const float direction_spread = random.integer(0, 3) == 0 ? 0.0f : random.uniform(0.0f, 0.3f);
        const float t_min = random.integer(0, 4) == 0 ? 0.0f : kMinHitDistance;
        std::vector<Ray> rays;
        for (int i = 0; i < count; ++i) {
            rays.push_back(Ray{origin + random.point(origin_spread), direction + random.point(direction_spread),
                               random.uniform(0.0f, 1.0f)});
        }
        std::vector<Hit> hits(static_cast<size_t>(count));
        bool found[16] = {};
        if (!accelerator.packet_closest_hits(rays.data(), count, t_min, hits.data(), found)) {
            bool signs_differ = false;
            for (const Ray& ray : rays) {
                for (int axis = 0; axis < 3; ++axis) {
                    signs_differ |= (1.0f / ray.direction[axis] < 0) != (1.0f / rays[0].direction[axis] < 0);
                }
            }
            ASSERT_TRUE(signs_differ) << "bundle " << bundle << ": refused although its rays share direction signs";
            ++refused;
            continue;
        }
        ++traced;
        for (int i = 0; i < count; ++i) {
            Hit expected;
            const bool expected_found = intersect_closest(view, rays[size_t(i)], t_min, expected);
            expect_same_hit(expected_found, expected, found[i], hits[size_t(i)],
                            "bundle " + std::to_string(bundle) + ", ray " + std::to_string(i));
        }
    }
    EXPECT_GT(traced, 1500);
    EXPECT_GT(refused, 10);  // bundles with mixed signs went to the single-ray traversal

    // More than spheres: no packets (the caller traces each ray on its own).
    Scene mixed = random_mixed_scene(5, 200);
    mixed.build_acceleration();
    const simd::WideAccelerator mixed_accelerator(mixed.view(), GetParam());
    Hit hit;
    bool hit_found = false;
    const Ray ray{Vec3(0.0f), Vec3(1.0f, 1.0f, 1.0f), 0.0f};
    EXPECT_FALSE(mixed_accelerator.packet_closest_hits(&ray, 1, kMinHitDistance, &hit, &hit_found));
}

// Sphere tests skip center + time * velocity where no sphere moves
// (WideBvhView::spheres_move): exact only while every velocity is +0 and no
// centre coordinate is -0 (-0 + +0 is +0). Scenes of static spheres on
// lattice points (centre and origin coordinates of 0: oc of +-0), then the
// same with one velocity of -0, one centre coordinate of -0, one moving
// sphere: the flag as stated, and single rays and camera packets at random
// times find the scalar core's hits in each.
TEST_P(SimdLevelTest, StaticSphereScenesSkipMotionExactly) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    SceneRandom random(71);
    const auto lattice = [] {
        Scene scene;
        scene.materials.push_back(Material{});
        for (int x = -3; x <= 3; ++x) {
            for (int z = -3; z <= 3; ++z) {
                scene.spheres.push_back(
                    Sphere{Vec3(float(x), 0.0f, float(z)), 0.3f + 0.02f * float(x + z), Vec3(0.0f), 0});
            }
        }
        return scene;
    };
    struct Case {
        const char* name;
        bool moves;
        void (*change)(Scene&);
    };
    const Case cases[] = {
        {"static", false, [](Scene&) {}},
        {"velocity -0", true, [](Scene& s) { s.spheres[3].velocity.y = -0.0f; }},
        {"centre -0", true, [](Scene& s) { s.spheres[24].center.y = -0.0f; }},
        {"moving", true, [](Scene& s) { s.spheres[10].velocity = Vec3(0.0f, 0.5f, 0.0f); }},
    };
    for (const Case& c : cases) {
        Scene scene = lattice();
        c.change(scene);
        scene.build_acceleration();
        const SceneView view = scene.view();
        EXPECT_EQ(simd::WideBvh<8>(view).view().spheres_move, c.moves) << c.name;
        const simd::WideAccelerator accelerator(view, GetParam());
        for (int bundle = 0; bundle < 400; ++bundle) {
            // Origins on lattice planes (a coordinate of exactly 0) half the time.
            Vec3 origin = random.point(6.0f);
            if (bundle % 2 == 0) origin[bundle / 2 % 3] = 0.0f;
            const Vec3 direction = Vec3(0.0f, 0.0f, 0.0f) - origin + random.point(1.0f);
            Ray rays[16];
            const int count = accelerator.width();
            for (int i = 0; i < count; ++i) {
                rays[i] = Ray{origin, direction + random.point(0.05f), i == 0 ? 0.0f : random.uniform(0.0f, 1.0f)};
            }
            Hit hits[16];
            bool found[16] = {};
            const bool packed = accelerator.packet_closest_hits(rays, count, kMinHitDistance, hits, found);
            for (int i = 0; i < count; ++i) {
                Hit expected, single;
                const bool expected_found = intersect_closest_brute_force(view, rays[i], kMinHitDistance, expected);
                const bool single_found = accelerator.closest_hit()(view, rays[i], kMinHitDistance, single);
                const std::string where =
                    std::string(c.name) + ", bundle " + std::to_string(bundle) + ", ray " + std::to_string(i);
                expect_same_hit(expected_found, expected, single_found, single, where);
                if (packed) expect_same_hit(expected_found, expected, found[i], hits[i], where + " (packet)");
            }
        }
    }
}

TEST_P(SimdLevelTest, SameClosestHitsWithLinearListAndLeafSizes) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    Scene scene = random_mixed_scene(77, 150);
    const std::vector<RandomQuery> queries = random_queries(78, 2000);
    for (int variant = 0; variant < 5; ++variant) {
        simd::WideBvhOptions options;
        if (variant == 0) {
            scene.build_linear_list();
        } else {
            scene.build_acceleration();
            options.max_leaf_primitives = variant == 1 ? 1 : (variant == 2 ? 64 : 0);
            if (variant == 3) options.collapse = simd::WideCollapse::LargestArea;
            if (variant == 4) options.packet_cost = 0.25f;  // other cuts
        }
        const SceneView view = scene.view();
        const simd::WideAccelerator accelerator(view, GetParam(), options);
        for (size_t i = 0; i < queries.size(); ++i) {
            const RandomQuery& q = queries[i];
            expect_wide_matches_scalar(view, accelerator, q.ray, q.t_min, q.start,
                                       "variant " + std::to_string(variant) + ", ray " + std::to_string(i));
        }
    }
}

// Rays grazing the tops of distant small spheres, where a float sphere test
// (|oc|^2 - r^2 cancels) would accept some at points just outside the
// sphere's box: the binary BVH, the linear list (no boxes above the
// primitives) and each wide BVH, whose leaf boxes differ, find the same
// closest hits (the double sphere test, and hit_within_bounds for any hit
// that rounding still puts outside its box).
TEST_P(SimdLevelTest, SameClosestHitsForGrazingRays) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    SceneRandom random(31);
    Scene scene = grazing_sphere_scene(random);
    Scene linear = scene;
    scene.build_acceleration();
    linear.build_linear_list();
    const SceneView view = scene.view(), linear_view = linear.view();
    std::vector<std::unique_ptr<simd::WideAccelerator>> accelerators;
    for (const simd::WideCollapse collapse : {simd::WideCollapse::SahOptimal, simd::WideCollapse::LargestArea}) {
        simd::WideBvhOptions options;
        options.collapse = collapse;
        accelerators.push_back(std::make_unique<simd::WideAccelerator>(view, GetParam(), options));
    }
    int grazing = 0;
    for (int i = 0; i < 20000; ++i) {
        const Sphere* target = nullptr;
        const Ray aimed = grazing_ray(random, scene, target);
        float t;
        grazing += intersect_sphere(*target, aimed, kMinHitDistance, kInfinity, t);
        Hit expected;
        const bool expected_found = intersect_closest(linear_view, aimed, kMinHitDistance, expected);
        Hit binary;
        const bool binary_found = intersect_closest(view, aimed, kMinHitDistance, binary);
        expect_same_hit(expected_found, expected, binary_found, binary, "binary BVH, ray " + std::to_string(i));
        for (size_t a = 0; a < accelerators.size(); ++a) {
            Hit wide;
            const bool wide_found = accelerators[a]->closest_hit()(view, aimed, kMinHitDistance, wide);
            expect_same_hit(expected_found, expected, wide_found, wide,
                            "wide BVH " + std::to_string(a) + ", ray " + std::to_string(i));
        }
    }
    EXPECT_GT(grazing, 1000) << "too few rays graze their target: the test does not exercise silhouettes";
}

// Rays along the axes and diagonals of a lattice (direction components
// exactly 0: infinite reciprocals), from origins exactly on box planes (0 x
// infinity is NaN in the slab test) and at primitives' boxes' edges: the
// wide traversal's hit_within_bounds for lane boxes, four axes at a time,
// takes the scalar slab test's answer there too.
TEST_P(SimdLevelTest, SameClosestHitsForAxisAlignedRaysOnBoxPlanes) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    Scene scene;
    scene.materials.push_back(Material{});
    for (int x = -2; x <= 2; ++x) {
        for (int z = -2; z <= 2; ++z) {
            const Vec3 at(float(x), 0.0f, float(z));
            if ((x + z) % 3 == 0) {
                scene.spheres.push_back(Sphere{at, 0.5f, Vec3(0.0f), 0});
            } else if ((x + z) % 3 == 1) {
                scene.quads.push_back(make_quad(at - Vec3(0.5f, 0.0f, 0.5f), Vec3(1, 0, 0), Vec3(0, 0, 1), 0));
            } else {
                scene.triangles.push_back(Triangle{at - Vec3(0.5f, 0.5f, 0.0f),
                                                   at + Vec3(0.5f, -0.5f, 0.0f),
                                                   at + Vec3(0.0f, 0.5f, 0.0f),
                                                   {},
                                                   {},
                                                   {},
                                                   {},
                                                   0});
            }
        }
    }
    scene.build_acceleration();
    const SceneView view = scene.view();
    const simd::WideAccelerator accelerator(view, GetParam());
    const float planes[] = {-2.5f, -2.0f, -1.5f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 2.5f};
    const Vec3 directions[] = {Vec3(1, 0, 0),  Vec3(-1, 0, 0), Vec3(0, 1, 0),  Vec3(0, -1, 0),  Vec3(0, 0, 1),
                               Vec3(0, 0, -1), Vec3(1, 1, 0),  Vec3(-1, 0, 1), Vec3(0, -1, -1), Vec3(1, -1, 1)};
    int found_count = 0, query = 0;
    for (const float a : planes) {
        for (const float b : planes) {
            for (const Vec3& direction : directions) {
                // Start 4 units back along the direction, then shift onto the planes.
                const Vec3 origins[] = {Vec3(a, b, 0.0f) - 4.0f * direction, Vec3(a, 0.0f, b) - 4.0f * direction,
                                        Vec3(0.0f, a, b) - 4.0f * direction, Vec3(a, 0.5f, b)};
                for (const Vec3& origin : origins) {
                    const Ray ray{origin, direction, 0.0f};
                    Hit expected, hit;
                    const bool expected_found = intersect_closest_brute_force(view, ray, kMinHitDistance, expected);
                    const bool found = accelerator.closest_hit()(view, ray, kMinHitDistance, hit);
                    expect_same_hit(expected_found, expected, found, hit, "query " + std::to_string(query++));
                    found_count += found;
                }
            }
        }
    }
    EXPECT_GT(found_count, query / 10) << "too few rays hit anything to test the rule";
}

TEST_P(SimdLevelTest, EmptySceneHasNoHits) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    Scene scene;
    scene.build_acceleration();
    const simd::WideAccelerator accelerator(scene.view(), GetParam());
    Hit hit;
    EXPECT_FALSE(accelerator.closest_hit()(scene.view(), Ray{Vec3(0.0f), Vec3(0, 0, -1), 0}, kMinHitDistance, hit));
    EXPECT_EQ(hit.t, kInfinity);
}

TEST_P(SimdLevelTest, WideBvhHoldsEveryPrimitiveOnce) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    Scene scene = random_mixed_scene(5, 300);
    scene.build_acceleration();
    const simd::WideAccelerator accelerator(scene.view(), GetParam());
    const simd::WideBvhStats stats = accelerator.stats();
    EXPECT_EQ(stats.used_packet_lanes, scene.primitive_count());
    EXPECT_LE(stats.packets * size_t(accelerator.width()),
              scene.primitive_count() + stats.leaves * 3 * size_t(accelerator.width()));
    EXPECT_LT(stats.nodes, scene.nodes().size());
}

// The SAH-optimal collapse searches every cut of the binary BVH into at most
// N children (the largest-area collapse's among them): its tree's expected
// cost is never higher, and on the larger scenes lower. Building is portable
// code, so every width is checked whatever this CPU runs.
template <int N>
void expect_sah_collapse_no_costlier(const SceneView& view, size_t primitives, const std::string& where) {
    for (const float packet_cost : {1.0f, 0.5f, 3.0f}) {
        simd::WideBvhOptions options;
        options.packet_cost = packet_cost;
        const simd::WideBvhStats optimal = simd::WideBvh<N>(view, options).stats();
        options.collapse = simd::WideCollapse::LargestArea;
        const simd::WideBvhStats largest = simd::WideBvh<N>(view, options).stats();
        const std::string label =
            where + ", width " + std::to_string(N) + ", packet cost " + std::to_string(packet_cost);
        EXPECT_EQ(optimal.used_packet_lanes, primitives) << label;
        EXPECT_EQ(largest.used_packet_lanes, primitives) << label;
        EXPECT_LE(optimal.sah_cost, largest.sah_cost * (1.0 + 1e-6)) << label;
        if (primitives > 1000) {
            EXPECT_LT(optimal.sah_cost, largest.sah_cost) << label;
        }
    }
}

TEST(WideBvhCollapse, SahOptimalCostsNoMoreThanLargestArea) {
    std::vector<std::pair<std::string, Scene>> scenes;
    scenes.emplace_back("mixed", random_mixed_scene(11, 400));
    SceneRandom random(12);
    Scene spheres = random_sphere_scene(random, 3000, true);
    spheres.spheres.pop_back();  // without the ground, whose box would outweigh the rest of the cost
    scenes.emplace_back("spheres", std::move(spheres));
    scenes.emplace_back("spheres.yaml", load_scene_file(std::string(FARMRT_SOURCE_DIR) + "/configs/spheres.yaml",
                                                        {{"image.output=spheres.ppm", ""}})
                                            .scene);
    for (auto& [name, scene] : scenes) {
        scene.build_acceleration();
        const SceneView view = scene.view();
        expect_sah_collapse_no_costlier<4>(view, scene.primitive_count(), name);
        expect_sah_collapse_no_costlier<8>(view, scene.primitive_count(), name);
        expect_sah_collapse_no_costlier<16>(view, scene.primitive_count(), name);
    }
}

// Whole renders: the per-pixel float sums, hence every output byte, are equal.
std::vector<float> render_sums(const SceneDescription& description, SimdLevel level, int threads,
                               CpuTuning::Traversal traversal = CpuTuning::Traversal::Wide) {
    const FrameSettings frame = frame_settings_for(description, 0);
    CpuTuning tuning;
    tuning.traversal = traversal;
    CpuRenderer renderer(description.scene.view(), threads, 8, level, tuning);
    if (traversal == CpuTuning::Traversal::Wide) {
        EXPECT_EQ(renderer.wide_traversal(), level != SimdLevel::Off);
    }
    std::vector<float> sums(size_t(frame.width) * frame.height * 3, 0.0f);
    renderer.render(frame, RowRange{0, frame.height}, SampleRange{0, description.settings.spp}, sums.data(), nullptr);
    return sums;
}

void expect_identical_renders(SceneDescription description, SimdLevel level) {
    description.scene.build_acceleration();
    const std::vector<float> scalar = render_sums(description, SimdLevel::Off, 2);
    for (const CpuTuning::Traversal traversal : {CpuTuning::Traversal::Wide, CpuTuning::Traversal::Auto}) {
        const std::vector<float> wide = render_sums(description, level, 2, traversal);
        ASSERT_EQ(scalar.size(), wide.size());
        size_t different = 0;
        for (size_t i = 0; i < scalar.size(); ++i) different += float_bits(scalar[i]) != float_bits(wide[i]);
        EXPECT_EQ(different, 0u) << "of " << scalar.size() << " float sums differ, wide traversal "
                                 << (traversal == CpuTuning::Traversal::Wide);
    }
}

TEST_P(SimdLevelTest, SpheresRenderIsByteIdentical) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    expect_identical_renders(
        load_scene_file(std::string(FARMRT_SOURCE_DIR) + "/configs/spheres.yaml", {{"image.width=64", ""},
                                                                                   {"image.height=36", ""},
                                                                                   {"sampling.spp=3", ""},
                                                                                   {"image.output=spheres.ppm", ""}}),
        GetParam());
}

TEST_P(SimdLevelTest, MixedSceneRenderIsByteIdentical) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    const std::string text = R"(
image: {width: 48, height: 32, output: mixed.ppm}
sampling: {spp: 4, max_depth: 12, seed: 3}
camera: {lookfrom: [0, 1.5, 6], lookat: [0, 0.7, 0], vup: [0, 1, 0], vfov: 40, defocus_angle: 0.5, focus_dist: 6}
background: {sky: {horizon: [1, 1, 1], zenith: [0.5, 0.7, 1.0]}}
materials:
  floor: {type: lambertian, albedo: [0.6, 0.6, 0.6]}
  lamp: {type: emissive, color: [4, 3, 2]}
  glass: {type: dielectric, ior: 1.5}
  mirror: {type: metal, albedo: [0.9, 0.9, 0.9], fuzz: 0.1}
objects:
  - {type: quad, Q: [-4, 0, -4], u: [8, 0, 0], v: [0, 0, 8], material: floor}
  - {type: quad, Q: [-2, 0, -1.5], u: [4, 0, 0], v: [0, 2.5, 0], material: mirror}
  - {type: sphere, center: [-1.2, 0.5, 0.5], center1: [-1.0, 0.7, 0.5], radius: 0.5, material: lamp}
  - {type: sphere, center: [0.3, 0.6, 0.8], radius: 0.6, material: glass}
  - {type: triangle, vertices: [[1, 0, 0], [2, 0, 0], [1.5, 1.5, 0.5]], normals: [[0, 0, 1], [1, 0, 1], [0, 1, 1]], material: floor}
  - {type: triangle, vertices: [[1, 0, 0], [1.5, 1.5, 0.5], [0.8, 1.2, 1.0]], material: mirror}
  - {type: triangle, vertices: [[2, 0, 0], [2.5, 1.2, 0.8], [1.5, 1.5, 0.5]], material: glass}
)";
    expect_identical_renders(load_scene_text(text, "mixed.yaml", "."), GetParam());
}

// The kernel's Philox blocks, several per instruction, are philox4x32_10's,
// and the sampler built on them returns PixelSampler's values in every
// dimension, those past the precomputed blocks included.
TEST_P(SimdLevelTest, LanePhiloxBlocksAndSamplerMatchScalar) {
    SKIP_UNLESS_SUPPORTED(GetParam());
    const simd::Kernels* kernels = simd::kernels_for(GetParam());
    ASSERT_NE(kernels, nullptr);
    ASSERT_GE(kernels->philox_block_count, 2);
    ASSERT_LE(kernels->philox_block_count, simd::kMaxLaneBlocks);
    std::mt19937_64 random(5);
    for (int trial = 0; trial < 200; ++trial) {
        SamplerKey key;
        key.seed = trial < 2 ? uint64_t(trial) * 0xFFFFFFFFFFFFFFFFull : random();
        key.frame = uint32_t(random());
        const uint32_t pixel = trial == 3 ? 0xFFFFFFFFu : uint32_t(random());
        const uint32_t sample = uint32_t(random() % 100000);
        alignas(64) uint64_t words[4 * simd::kMaxLaneBlocks];
        kernels->philox_blocks(key, pixel, sample, words);
        for (int b = 0; b < kernels->philox_block_count; ++b) {
            const PhiloxBlock expected = philox4x32_10(PhiloxBlock{{pixel, sample, uint32_t(b), key.frame}},
                                                       uint32_t(key.seed), uint32_t(key.seed >> 32));
            for (int word = 0; word < 4; ++word) {
                ASSERT_EQ(uint32_t(words[word * simd::kMaxLaneBlocks + b]), expected.v[word])
                    << "block " << b << " word " << word;
            }
        }
        simd::BlockSampler lanes(key, pixel, sample, words, uint32_t(kernels->philox_block_count));
        PixelSampler scalar(key, pixel, sample);
        for (uint32_t dimension = 0; dimension < 80; ++dimension) {
            ASSERT_EQ(float_bits(lanes.uniform(dimension)), float_bits(scalar.uniform(dimension)))
                << "dimension " << dimension;
        }
    }
}

// Tiny scenes and scenes whose geometry sits in instances keep the scalar
// BVH under a SIMD level; scenes of many primitives take the wide one.
INSTANTIATE_TEST_SUITE_P(Levels, SimdLevelTest, testing::ValuesIn(kSimdLevels), level_test_name);

}  // namespace
}  // namespace farmrt
