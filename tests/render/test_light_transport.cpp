// Next-event estimation with MIS (integrator.h, lights.h, occlusion.h)
// against closed-form answers and against the book's estimator: a diffuse
// plane under point, spot and directional lights (exact per sample), under
// sphere, quad, triangle, instanced and cut-out lights (Lambert's polygon
// formula), the light picking and the light tree, the any-hit query against
// brute force, and the firefly clamp.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "core/errors.h"
#include "core/integrator.h"
#include "io/scene_loader.h"
#include "out_of_line_path.h"
#include "render/light_estimates.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

using namespace testing;

// ---- punctual lights: one deterministic value per path ---------------------------------------------

Light point_light(const Vec3& position, const Color& intensity) {
    Light light;
    light.type = LightType::Point;
    light.position = position;
    light.intensity = intensity;
    return light;
}

TEST(PunctualLights, PointLightOnADiffusePlaneIsAlbedoOverPiTimesIntensityCosineOverDistanceSquared) {
    Scene scene = ground_scene();
    const Vec3 light(0, 2, 0), point(1, 0, 0.5f);
    scene.punctual_lights.push_back(point_light(light, Color(3.0f)));
    scene.build_acceleration();
    const double d2 = 1 + 4 + 0.25, cosine = 2 / std::sqrt(d2);
    const double expected = kAlbedo / M_PI * 3.0 * cosine / d2;
    const Estimate e = estimate(scene, ray_to(point), Integrator::NextEvent, 64);
    EXPECT_NEAR(e.mean, expected, 1e-5 * expected);
    EXPECT_LT(e.standard_error, 1e-6 * expected);  // the same value on every path
    // The book's estimator never finds a point light.
    EXPECT_EQ(estimate(scene, ray_to(point), Integrator::Naive, 64).mean, 0.0);
}

TEST(PunctualLights, SpotLightFallsOffSmoothlyBetweenItsCones) {
    Scene scene = ground_scene();
    Light spot = point_light(Vec3(0, 2, 0), Color(5.0f));
    spot.type = LightType::Spot;
    spot.direction = Vec3(0, -1, 0);
    spot.cos_inner = float(std::cos(20 * M_PI / 180));
    spot.cos_outer = float(std::cos(40 * M_PI / 180));
    scene.punctual_lights.push_back(spot);
    scene.build_acceleration();
    for (const float x : {0.3f, 1.0f, 1.4f, 2.0f}) {
        const Vec3 point(x, 0, 0);
        const double d2 = double(x) * x + 4, cosine = 2 / std::sqrt(d2);
        const double t = std::clamp((cosine - spot.cos_outer) / (double(spot.cos_inner) - spot.cos_outer), 0.0, 1.0);
        const double expected = kAlbedo / M_PI * 5.0 * t * t * (3 - 2 * t) * cosine / d2;
        EXPECT_NEAR(estimate(scene, ray_to(point), Integrator::NextEvent, 16).mean, expected, 1e-5 + 1e-5 * expected)
            << "x = " << x;
    }
}

TEST(PunctualLights, DirectionalLightGivesIrradianceTimesCosine) {
    Scene scene = ground_scene();
    Light sun;
    sun.type = LightType::Directional;
    sun.direction = unit_vector(Vec3(0.3f, -1, 0.2f));
    sun.intensity = Color(2.0f);
    scene.punctual_lights.push_back(sun);
    scene.build_acceleration();
    const double expected = kAlbedo / M_PI * 2.0 * -double(sun.direction.y);
    EXPECT_NEAR(estimate(scene, ray_to(Vec3(3, 0, -2)), Integrator::NextEvent, 16).mean, expected, 1e-5 * expected);
}

TEST(PunctualLights, AnOccluderCastsAShadow) {
    Scene scene = ground_scene();
    const uint32_t black = add_lambertian(scene, Color(0.0f));
    scene.spheres.push_back(Sphere{Vec3(0.5f, 1, 0.25f), 0.2f, Vec3(0.0f), black});
    scene.punctual_lights.push_back(point_light(Vec3(0, 2, 0), Color(3.0f)));
    scene.build_acceleration();
    EXPECT_EQ(estimate(scene, ray_to(Vec3(1, 0, 0.5f)), Integrator::NextEvent, 64).mean, 0.0);
    // Beside the shadow the light arrives.
    EXPECT_GT(estimate(scene, ray_to(Vec3(-1, 0, 0.5f)), Integrator::NextEvent, 64).mean, 0.01);
}

// ---- area lights: Lambert's formula -------------------------------------------------------------------

// Irradiance at `point` (normal +y) from a uniform Lambertian polygon of
// radiance `radiance` above it (Lambert 1760; Arvo 1995): E = L/2 sum_i
// angle(R_i, R_i+1) (n . unit(R_i x R_i+1)).
double polygon_irradiance(const std::vector<Vec3>& vertices, const Vec3& point, double radiance) {
    double sum = 0;
    for (size_t i = 0; i < vertices.size(); ++i) {
        const Vec3 a = vertices[i] - point, b = vertices[(i + 1) % vertices.size()] - point;
        const double ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z;
        const double la = std::sqrt(ax * ax + ay * ay + az * az), lb = std::sqrt(bx * bx + by * by + bz * bz);
        const double angle = std::acos(std::clamp((ax * bx + ay * by + az * bz) / (la * lb), -1.0, 1.0));
        const double cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
        sum += angle * cy / std::sqrt(cx * cx + cy * cy + cz * cz);
    }
    return radiance / 2 * std::fabs(sum);
}

// NEE within 4.5 standard errors of `expected`, with an error well below the naive estimator's.
void expect_unbiased_and_better(const Scene& scene, const Vec3& point, double expected) {
    const Estimate nee = estimate(scene, ray_to(point), Integrator::NextEvent, 20000);
    const Estimate naive = estimate(scene, ray_to(point), Integrator::Naive, 20000, 2);
    EXPECT_NEAR(nee.mean, expected, 4.5 * nee.standard_error + 1e-4 * expected) << "NEE at " << point.x;
    EXPECT_NEAR(naive.mean, expected, 4.5 * naive.standard_error + 1e-4 * expected) << "naive at " << point.x;
    EXPECT_LT(nee.standard_error, 0.5 * naive.standard_error) << "at " << point.x;
}

TEST(AreaLights, SphereLightMatchesItsClosedForm) {
    // A sphere of radius r at distance d straight above: E = pi L (r / d)^2.
    Scene scene = ground_scene();
    const uint32_t lamp = add_emissive(scene, Color(4.0f));
    scene.spheres.push_back(Sphere{Vec3(0, 3, 0), 0.5f, Vec3(0.0f), lamp});
    scene.build_acceleration();
    expect_unbiased_and_better(scene, Vec3(0, 0, 0), kAlbedo * 4.0 * (0.5 / 3) * (0.5 / 3));
}

TEST(AreaLights, QuadTriangleAndInstancedLightsMatchLambertsFormula) {
    Scene scene = ground_scene();
    const uint32_t lamp = add_emissive(scene, Color(3.0f));
    const std::vector<Vec3> quad{Vec3(-0.5f, 2, -0.5f), Vec3(0.5f, 2, -0.5f), Vec3(0.5f, 2, 0.5f),
                                 Vec3(-0.5f, 2, 0.5f)};
    scene.quads.push_back(make_quad(quad[0], quad[1] - quad[0], quad[3] - quad[0], lamp));
    Triangle triangle{};
    triangle.vertex0 = Vec3(3, 1.5f, 0);
    triangle.vertex1 = Vec3(4, 1.5f, 0);
    triangle.vertex2 = Vec3(3, 1.5f, 1);
    triangle.material = lamp;
    scene.triangles.push_back(triangle);
    // A unit quad in object space placed by an instance: turned and scaled.
    const Transform placement =
        Transform::scale(0.8, 1, 0.6).then(Transform::rotate_y(30)).then(Transform::translate(Vec3(-4, 1.8f, 0)));
    scene.quads.push_back(make_quad(Vec3(-0.5f, 0, -0.5f), Vec3(1, 0, 0), Vec3(0, 0, 1), lamp));
    const uint32_t geometry =
        scene.add_instance_geometry({PrimitiveRef::make(PrimitiveType::Quad, uint32_t(scene.quads.size() - 1))});
    scene.add_instance(geometry, placement, lamp);
    scene.build_acceleration();
    EXPECT_EQ(scene.lights().size(), 3u);
    std::vector<Vec3> placed;
    for (const Vec3& v : {Vec3(-0.5f, 0, -0.5f), Vec3(0.5f, 0, -0.5f), Vec3(0.5f, 0, 0.5f), Vec3(-0.5f, 0, 0.5f)}) {
        placed.push_back(placement.point(v));
    }
    const std::vector<Vec3> lamp_triangle{triangle.vertex0, triangle.vertex1, triangle.vertex2};
    for (const Vec3& point : {Vec3(0, 0, 0), Vec3(3.2f, 0, 0.2f), Vec3(-4, 0, 0.3f), Vec3(-1.5f, 0, 0.5f)}) {
        const double irradiance = polygon_irradiance(quad, point, 3.0) + polygon_irradiance(lamp_triangle, point, 3.0) +
                                  polygon_irradiance(placed, point, 3.0);
        expect_unbiased_and_better(scene, point, kAlbedo / M_PI * irradiance);
    }
}

Triangle emissive_triangle(const Vec3& a, const Vec3& b, const Vec3& c, uint32_t material) {
    Triangle t{};
    t.vertex0 = a;
    t.vertex1 = b;
    t.vertex2 = c;
    t.material = material;
    return t;
}

// A square lamp of two triangles at height 2 over [-0.5, 0.5]^2 in (x, z),
// with (u, v) = (x + 0.5, z + 0.5), cut out by `mode`: alpha 0 on the half
// x < 0 and 1 on the other (an image of two texels, whose bilinear ramp
// crosses the Mask cutoff of 0.5 exactly at x = 0), or `constant_alpha`.
Scene cutout_lamp_scene(AlphaMode mode, float constant_alpha = -1) {
    Scene scene = ground_scene();
    Material lamp;
    lamp.type = MaterialType::Emissive;
    lamp.emission_texture = add_color(scene, Color(3.0f));
    lamp.alpha_mode = mode;
    if (constant_alpha >= 0) {
        lamp.alpha_texture = add_color(scene, Color(constant_alpha));
    } else {
        Texture halves;
        halves.type = TextureType::Image;
        halves.image_width = 2;
        halves.image_height = 1;
        halves.image_offset = uint32_t(scene.texture_pixels.size());
        for (float alpha : {0.0f, 1.0f}) scene.texture_pixels.insert(scene.texture_pixels.end(), 3, alpha);
        scene.textures.push_back(halves);
        lamp.alpha_texture = uint32_t(scene.textures.size() - 1);
    }
    scene.materials.push_back(lamp);
    const uint32_t material = uint32_t(scene.materials.size() - 1);
    const Vec3 corners[4] = {{-0.5f, 2, -0.5f}, {0.5f, 2, -0.5f}, {0.5f, 2, 0.5f}, {-0.5f, 2, 0.5f}};
    for (const auto& corner : {std::array<int, 3>{0, 1, 2}, std::array<int, 3>{0, 2, 3}}) {
        Triangle t = emissive_triangle(corners[corner[0]], corners[corner[1]], corners[corner[2]], material);
        for (int c = 0; c < 3; ++c) {
            t.uv[2 * c] = corners[corner[c]].x + 0.5f;
            t.uv[2 * c + 1] = corners[corner[c]].z + 0.5f;
        }
        scene.triangles.push_back(t);
    }
    scene.build_acceleration();
    return scene;
}

// A cut-out lamp lights the ground from where it is kept alone, whether its
// light is found by sampling it or by hitting it: a Mask lamp as its kept
// half, a Blend lamp as alpha times the whole lamp.
TEST(AreaLights, CutOutLampsEmitOnlyWhereTheyAreKept) {
    const Scene mask = cutout_lamp_scene(AlphaMode::Mask);
    ASSERT_EQ(mask.lights().size(), 2u);
    const std::vector<Vec3> kept_half{Vec3(0, 2, -0.5f), Vec3(0.5f, 2, -0.5f), Vec3(0.5f, 2, 0.5f), Vec3(0, 2, 0.5f)};
    const std::vector<Vec3> whole{Vec3(-0.5f, 2, -0.5f), Vec3(0.5f, 2, -0.5f), Vec3(0.5f, 2, 0.5f),
                                  Vec3(-0.5f, 2, 0.5f)};
    for (const Vec3& point : {Vec3(0, 0, 0), Vec3(-0.8f, 0, 0.3f), Vec3(1.2f, 0, -0.4f)}) {
        expect_unbiased_and_better(mask, point, kAlbedo / M_PI * polygon_irradiance(kept_half, point, 3.0));
    }
    const Scene blend = cutout_lamp_scene(AlphaMode::Blend, 0.4f);
    for (const Vec3& point : {Vec3(0, 0, 0), Vec3(0.9f, 0, 0.6f)}) {
        expect_unbiased_and_better(blend, point, 0.4 * kAlbedo / M_PI * polygon_irradiance(whole, point, 3.0));
    }
}

TEST(AreaLights, LightsArePickedInProportionToTheirPower) {
    Scene scene = ground_scene();
    const uint32_t lamp = add_emissive(scene, Color(1.0f));
    const float sides[5] = {1, 2, 3, 4, 10};
    for (float side : sides) scene.quads.push_back(make_quad(Vec3(0, 5, 0), Vec3(side, 0, 0), Vec3(0, 0, 1), lamp));
    scene.punctual_lights.push_back(point_light(Vec3(0, 3, 0), Color(2.0f)));
    scene.build_acceleration();
    const SceneView view = scene.view();
    ASSERT_EQ(view.light_count, 6u);
    double total = 0;
    for (uint32_t i = 0; i < view.light_count; ++i) {
        total += light_power_probability(view, view.lights[i]);
        // The table's probability (what next-event estimation uses) is the
        // one an emitter hit computes (what MIS weighs it against), bit for bit.
        EXPECT_EQ(view.light_alias[i].pmf, light_power_probability(view, view.lights[i])) << "light " << i;
        float pmf = 0.0f;
        const float u = (float(i) + 0.5f) / float(view.light_count);
        const uint32_t picked = pick_light(view, u, Vec3(0, 0, 0), pmf);
        EXPECT_EQ(pmf, light_power_probability(view, view.lights[picked]));
    }
    EXPECT_NEAR(total, 1.0, 1e-5);
    std::vector<int> counts(view.light_count, 0);
    const int n = 200000;
    std::mt19937 random(5);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (int i = 0; i < n; ++i) ++counts[pick_light_by_power(view, uniform(random))];
    double chi_square = 0;
    for (uint32_t i = 0; i < view.light_count; ++i) {
        const double expected = n * double(light_power_probability(view, view.lights[i]));
        chi_square += (counts[i] - expected) * (counts[i] - expected) / expected;
    }
    EXPECT_LT(chi_square, 20.5);  // 5 degrees of freedom: p = 0.001
}

// ---- the light tree --------------------------------------------------------------------------------

// A 12 x 12 grid of small lamps of unequal power over the ground, a point
// light, a spot light and a sky sampled as a light.
Scene lamp_grid_scene(bool with_sky) {
    Scene scene = ground_scene();
    for (int i = 0; i < 12; ++i) {
        for (int j = 0; j < 12; ++j) {
            const uint32_t lamp = add_emissive(scene, Color(float(1 + (i * 7 + j * 3) % 5)));
            const Vec3 corner(-30.0f + 5.0f * float(i), 4.0f + 0.1f * float(j % 3), -30.0f + 5.0f * float(j));
            if ((i + j) % 2 == 0) {
                scene.quads.push_back(make_quad(corner, Vec3(0.5f, 0, 0), Vec3(0, 0, 0.5f), lamp));
            } else {
                scene.triangles.push_back(
                    emissive_triangle(corner, corner + Vec3(0.6f, 0, 0), corner + Vec3(0, 0, 0.6f), lamp));
            }
        }
    }
    scene.punctual_lights.push_back(point_light(Vec3(3, 2, 1), Color(20.0f)));
    Light spot = point_light(Vec3(-5, 3, 2), Color(40.0f));
    spot.type = LightType::Spot;
    spot.direction = unit_vector(Vec3(0.2f, -1, 0));
    spot.cos_inner = 0.9f;
    spot.cos_outer = 0.7f;
    scene.punctual_lights.push_back(spot);
    if (with_sky) {
        scene.background = constant_background(Color(0.3f));
        scene.background.sampling = BackgroundSampling::Light;
    }
    scene.build_acceleration();
    scene.set_light_tree(true);
    return scene;
}

TEST(LightTree, ChoicesFollowTheProbabilitiesThatMultipleImportanceSamplingReplays) {
    for (bool with_sky : {false, true}) {
        const Scene scene = lamp_grid_scene(with_sky);
        const SceneView view = scene.view();
        ASSERT_TRUE(view.use_light_tree);
        ASSERT_EQ(view.light_count, 144u + 2u + (with_sky ? 1u : 0u));
        for (const Vec3& point : {Vec3(0, 0, 0), Vec3(-20, 0, 12), Vec3(31, 0, -29), Vec3(-5, 1, 2)}) {
            // Every light's probability from the point, and the draws.
            std::vector<double> probability(view.light_count, 0.0);
            double total = 0;
            for (uint32_t i = 0; i < view.light_count; ++i) {
                const Light& light = view.lights[i];
                if (is_infinite_light(light.type)) {
                    probability[i] = light_power_probability(view, light);
                } else {
                    const LightTrail trail = view.light_trails[i];
                    probability[i] =
                        view.tree_probability * light_tree_pmf(view.light_tree, point, trail.bits, trail.depth);
                }
                total += probability[i];
            }
            EXPECT_NEAR(total, 1.0, 1e-4) << "from " << point.x << ", " << point.z;
            std::vector<int> counts(view.light_count, 0);
            const int n = 400000;
            for (int k = 0; k < n; ++k) {
                float pmf = 0;
                const uint32_t light = pick_light(view, (float(k) + 0.5f) / float(n), point, pmf);
                ASSERT_NE(light, kNoLight);
                ++counts[light];
                // The choice's probability is the one the trail replays, bit for bit.
                const Light& chosen = view.lights[light];
                if (chosen.type == LightType::Quad || chosen.type == LightType::Triangle) {
                    ASSERT_EQ(pmf, light_pick_probability(view, chosen, point));
                }
                ASSERT_NEAR(pmf, probability[light], 1e-6 + 1e-4 * probability[light]);
            }
            // Evenly spaced u: the counts are the probabilities up to the tree's rounding.
            for (uint32_t i = 0; i < view.light_count; ++i) {
                EXPECT_NEAR(counts[i] / double(n), probability[i], 2e-5 + 1e-3 * probability[i]) << "light " << i;
            }
        }
    }
}

TEST(LightTree, NearbyLampsAreChosenMoreOftenThanByPower) {
    const Scene scene = lamp_grid_scene(false);
    const SceneView view = scene.view();
    // Under the lamp nearest the point, its probability far exceeds its power's share.
    const Vec3 point(-30.25f, 0, -29.75f);
    uint32_t nearest = kNoLight;
    for (uint32_t i = 0; i < view.light_count; ++i) {
        if (view.lights[i].type == LightType::Quad && view.quads[view.lights[i].primitive].corner.x == -30.0f &&
            view.quads[view.lights[i].primitive].corner.z == -30.0f) {
            nearest = i;
        }
    }
    ASSERT_NE(nearest, kNoLight);
    const float tree = light_pick_probability(view, view.lights[nearest], point);
    EXPECT_GT(tree, 20.0f * light_power_probability(view, view.lights[nearest]));
}

TEST(LightTree, ConvergesToTheSameLightAsPickingByPowerWithLessNoise) {
    for (bool with_sky : {false, true}) {
        Scene tree = lamp_grid_scene(with_sky);
        Scene power = lamp_grid_scene(with_sky);
        power.set_light_tree(false);
        ASSERT_FALSE(power.view().use_light_tree);
        for (const Vec3& target : {Vec3(0, 0, 0), Vec3(-20, 0, 12), Vec3(14, 0, -9)}) {
            const Ray ray = ray_to(target);
            const Estimate a = estimate(tree, ray, Integrator::NextEvent, 20000);
            const Estimate b = estimate(power, ray, Integrator::NextEvent, 20000, 2);
            EXPECT_NEAR(a.mean, b.mean, 4.5 * std::hypot(a.standard_error, b.standard_error)) << "sky " << with_sky;
            // Without the sky (which takes most choices by its power), the lamps near the point decide the noise.
            if (!with_sky) {
                EXPECT_LT(a.standard_error, 0.7 * b.standard_error);
            }
        }
    }
}

// ---- the any-hit query --------------------------------------------------------------------------------

TEST(AnyHit, AgreesWithTheBruteForceClosestHit) {
    Scene scene;
    const uint32_t gray = add_lambertian(scene, Color(0.5f));
    std::mt19937 random(11);
    std::uniform_real_distribution<float> coordinate(-5.0f, 5.0f), size(0.1f, 0.8f);
    for (int i = 0; i < 60; ++i) {
        const Vec3 c(coordinate(random), coordinate(random), coordinate(random));
        scene.spheres.push_back(Sphere{c, size(random), Vec3(0.0f), gray});
        scene.quads.push_back(
            make_quad(c + Vec3(1, 0, 0), Vec3(size(random), 0, 0), Vec3(0, size(random), 0.3f), gray));
        Triangle t{};
        t.vertex0 = c - Vec3(1, 0, 0);
        t.vertex1 = t.vertex0 + Vec3(size(random), 0, 0);
        t.vertex2 = t.vertex0 + Vec3(0, 0, size(random));
        t.material = gray;
        scene.triangles.push_back(t);
    }
    const uint32_t geometry = scene.add_instance_geometry(
        {PrimitiveRef::make(PrimitiveType::Triangle, 0), PrimitiveRef::make(PrimitiveType::Sphere, 1)});
    for (int i = 0; i < 10; ++i) {
        scene.add_instance(
            geometry, Transform::rotate_x(17 * i).then(Transform::translate(Vec3(coordinate(random), 0, 0))), gray);
    }
    scene.build_acceleration();
    const SceneView view = scene.view();
    int blocked = 0;
    for (int i = 0; i < 20000; ++i) {
        const Ray ray{Vec3(coordinate(random), coordinate(random), coordinate(random)),
                      Vec3(coordinate(random), coordinate(random), coordinate(random)), 0.0f};
        const float t_max = std::uniform_real_distribution<float>(0.0f, 1.5f)(random);
        Hit hit;
        const bool closest = intersect_closest_brute_force(view, ray, kMinHitDistance, hit) && hit.t < t_max;
        ASSERT_EQ(intersect_any(view, ray, kMinHitDistance, t_max), closest) << "ray " << i;
        blocked += closest;
    }
    EXPECT_GT(blocked, 2000);
}

// ---- firefly control (sampling.clamp) ------------------------------------------------------

// Mean luminance of n paths of at most max_depth segments, with the scene's clamp.
Estimate clamped_estimate(const Scene& scene, const Ray& ray, uint32_t n, int max_depth) {
    const SceneView view = scene.view();
    testing::SampleMean paths;
    for (uint32_t s = 0; s < n; ++s) {
        PixelSampler sampler(SamplerKey{5, 0}, 3, s);
        paths.add(luminance(trace_path_out_of_line(view, ray, sampler, max_depth, Integrator::NextEvent)));
    }
    return Estimate{paths.mean(), paths.standard_error()};
}

TEST(FireflyClamp, ClampsDirectLightToItsLimitAndLeavesTheRestAlone) {
    Scene scene = sphere_under("{color: [3, 2, 1]}");
    const Ray miss{Vec3(0, 0, 5), Vec3(0, 1, 0), 0.0f};  // sees the background: direct light
    PixelSampler sampler(SamplerKey{1, 0}, 0, 0);
    scene.set_sample_clamp(1.5f, 0.0f);
    Color seen = trace_path_out_of_line(scene.view(), miss, sampler, 50);
    EXPECT_EQ(seen.x, 1.5f);  // the largest component brought to the limit, the others in proportion
    EXPECT_EQ(seen.y, 1.0f);
    EXPECT_EQ(seen.z, 0.5f);
    scene.set_sample_clamp(0.0f, 0.1f);  // an indirect limit does not touch direct light
    seen = trace_path_out_of_line(scene.view(), miss, sampler, 50);
    EXPECT_EQ(seen.x, 3.0f);
}

TEST(FireflyClamp, AnInfiniteLimitChangesNoBitAndAZeroIndirectLimitLeavesDirectLightOnly) {
    Scene scene = sphere_under("{sky: {}, sampling: light}",
                               "  - {type: quad, Q: [-50, -1, -50], u: [100, 0, 0], v: [0, 0, 100], "
                               "material: {type: lambertian, albedo: [0.7, 0.7, 0.7]}}\n");
    const Ray ray{Vec3(0, 0, 5), Vec3(0.3f, -0.8f, 0) - Vec3(0, 0, 5), 0.0f};
    const SceneView off = scene.view();
    Scene huge = scene;
    huge.set_sample_clamp(3e38f, 3e38f);
    for (uint32_t s = 0; s < 2000; ++s) {
        PixelSampler a(SamplerKey{2, 0}, 1, s), b(SamplerKey{2, 0}, 1, s);
        const Color x = trace_path_out_of_line(off, ray, a, 50), y = trace_path_out_of_line(huge.view(), ray, b, 50);
        ASSERT_TRUE(x.x == y.x && x.y == y.y && x.z == y.z) << "sample " << s;
    }
    // With the indirect limit near 0 only direct light is left (what
    // reaches the camera after one scattering), which the first two segments
    // of a path find whole: longer paths add nothing more.
    const Estimate all = clamped_estimate(scene, ray, 20000, 50);
    scene.set_sample_clamp(0.0f, 1e-30f);
    const Estimate direct = clamped_estimate(scene, ray, 20000, 2);
    const Estimate clamped = clamped_estimate(scene, ray, 20000, 50);
    EXPECT_NEAR(clamped.mean, direct.mean, 1e-6 * direct.mean);
    EXPECT_GT(all.mean - direct.mean, 5 * std::hypot(all.standard_error, direct.standard_error));
}

}  // namespace
}  // namespace farmrt
