// Backgrounds as lights (background.h, lights.h): white furnaces under
// constant and image backgrounds, skies and colours sampled only when asked,
// an environment map against the naive estimator, the environment's
// density, and lights and backgrounds read from scene files with their key
// and line.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "core/errors.h"
#include "core/integrator.h"
#include "io/scene_loader.h"
#include "render/light_estimates.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

using namespace testing;

// ---- backgrounds ------------------------------------------------------------------------------------

// A latitude-longitude map as a PFM: dim blue sky, a bright sun near (s, t) = (0.3, 0.25).
std::string write_environment(const testing::TemporaryDirectory& directory, bool uniform) {
    const int width = 64, height = 32;
    const std::string path = directory.file(uniform ? "uniform.pfm" : "sun.pfm");
    std::ofstream out(path, std::ios::binary);
    out << "PF\n" << width << " " << height << "\n-1.0\n";
    for (int row = height - 1; row >= 0; --row) {  // PFM rows run bottom to top
        for (int column = 0; column < width; ++column) {
            float texel[3] = {1.0f, 1.0f, 1.0f};
            if (!uniform) {
                const bool sun = std::abs(column - 19) <= 1 && std::abs(row - 8) <= 1;
                texel[0] = sun ? 400.0f : 0.2f;
                texel[1] = sun ? 380.0f : 0.3f;
                texel[2] = sun ? 300.0f : 0.6f;
            }
            out.write(reinterpret_cast<const char*>(texel), sizeof texel);
        }
    }
    return path;
}

TEST(Backgrounds, WhiteFurnaceReturnsAlbedoTimesTheBackground) {
    // A convex diffuse sphere under uniform radiance 1 reflects exactly its albedo.
    testing::TemporaryDirectory directory;
    const std::string uniform_map = write_environment(directory, true);
    for (const std::string& background : {std::string("{color: [1, 1, 1], sampling: light}"),
                                          "{environment: {file: " + uniform_map + ", rotation: 40}}"}) {
        const Scene scene = sphere_under(background);
        ASSERT_EQ(scene.lights().size(), 1u) << background;
        for (const Vec3& target : {Vec3(0, 0, 0), Vec3(0.5f, 0.6f, 0), Vec3(-0.7f, -0.5f, 0)}) {
            const Ray ray{Vec3(0, 0, 5), target - Vec3(0, 0, 5), 0.0f};
            const Estimate e = estimate(scene, ray, Integrator::NextEvent, 4000);
            EXPECT_NEAR(e.mean, 0.8, 4.5 * e.standard_error + 1e-4) << background;
        }
    }
}

TEST(Backgrounds, SkyAndColourAreLightsOnlyWhenAsked) {
    EXPECT_EQ(sphere_under("{color: [1, 1, 1]}").lights().size(), 0u);
    EXPECT_EQ(sphere_under("{sky: {}}").lights().size(), 0u);
    EXPECT_EQ(sphere_under("{sky: {}, sampling: light}").lights().size(), 1u);
    EXPECT_EQ(sphere_under("{color: [0, 0, 0], sampling: light}").lights().size(), 0u);  // sends nothing
    testing::TemporaryDirectory directory;
    const std::string map = write_environment(directory, false);
    EXPECT_EQ(sphere_under("{environment: {file: " + map + "}}").lights().size(), 1u);
    EXPECT_EQ(sphere_under("{environment: {file: " + map + "}, sampling: bsdf}").lights().size(), 0u);
    // The sampled sky converges to the same radiance as the unsampled one.
    const Scene sampled = sphere_under("{sky: {}, sampling: light}");
    const Scene unsampled = sphere_under("{sky: {}}");
    for (const Vec3& target : {Vec3(0, 0, 0), Vec3(0.5f, 0.6f, 0)}) {
        const Ray ray{Vec3(0, 0, 5), target - Vec3(0, 0, 5), 0.0f};
        const Estimate a = estimate(sampled, ray, Integrator::NextEvent, 20000);
        const Estimate b = estimate(unsampled, ray, Integrator::NextEvent, 20000, 2);
        EXPECT_NEAR(a.mean, b.mean, 4.5 * std::hypot(a.standard_error, b.standard_error));
    }
}

TEST(Backgrounds, EnvironmentMapLightingAgreesWithTheNaiveEstimator) {
    testing::TemporaryDirectory directory;
    const std::string map = write_environment(directory, false);
    const Scene scene = sphere_under("{environment: {file: " + map + ", rotation: 25, intensity: 0.5}}",
                                     "  - {type: quad, Q: [-50, -1, -50], u: [100, 0, 0], v: [0, 0, 100], "
                                     "material: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}\n");
    for (const Vec3& target : {Vec3(0, 0, 0), Vec3(0.5f, 0.6f, 0), Vec3(-0.6f, -0.4f, 0), Vec3(2.5f, -1, 1)}) {
        const Ray ray{Vec3(0, 0, 5), target - Vec3(0, 0, 5), 0.0f};
        const Estimate nee = estimate(scene, ray, Integrator::NextEvent, 20000);
        const Estimate naive = estimate(scene, ray, Integrator::Naive, 200000, 2);
        EXPECT_NEAR(nee.mean, naive.mean, 4.5 * std::hypot(nee.standard_error, naive.standard_error));
        EXPECT_LT(nee.standard_error, naive.standard_error);  // with 10x fewer paths
    }
}

TEST(Backgrounds, SampledDirectionsHaveTheDensityTheyReport) {
    testing::TemporaryDirectory directory;
    const Scene scene =
        sphere_under("{environment: {file: " + write_environment(directory, false) + ", rotation: 70}}");
    const SceneView view = scene.view();
    ASSERT_GT(view.background.distribution_columns, 0u);
    std::mt19937 random(9);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    int agreeing = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        float pdf = 0;
        const Vec3 d =
            sample_environment(view.background, view.environment_distribution, uniform(random), uniform(random), pdf);
        EXPECT_NEAR(length(d), 1.0f, 1e-5f);
        const float again = environment_pdf(view.background, view.environment_distribution, d);
        agreeing += std::fabs(again - pdf) <= 1e-3f * pdf;  // all but cell borders
    }
    EXPECT_GE(agreeing, n * 99 / 100);
    // The density integrates to one over the sphere (uniform directions).
    double integral = 0;
    const int m = 400000;
    for (int i = 0; i < m; ++i) {
        integral += environment_pdf(view.background, view.environment_distribution,
                                    unit_vector_from(uniform(random), uniform(random)));
    }
    EXPECT_NEAR(4 * M_PI * integral / m, 1.0, 0.02);
}

// ---- scene files --------------------------------------------------------------------------------------

TEST(LightsInSceneFiles, AreReadAndCheckedWithTheirKeyAndLine) {
    const std::string header =
        "image: {width: 8, height: 8, output: out.ppm}\n"
        "sampling: {spp: 1, integrator: nee}\n"
        "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0]}\n"
        "objects: []\n";
    const SceneDescription d =
        load_scene_text(header +
                            "lights:\n"
                            "  - {type: point, position: [0, 2, 0], intensity: [1, 2, 3]}\n"
                            "  - {type: spot, position: [0, 2, 0], direction: [0, -2, 0], intensity: 4, inner_angle: "
                            "10, outer_angle: 30}\n"
                            "  - {type: directional, direction: [0, -1, 0], irradiance: [1, 1, 1]}\n",
                        "lights.yaml", "/");
    ASSERT_EQ(d.scene.punctual_lights.size(), 3u);
    EXPECT_EQ(d.scene.punctual_lights[1].type, LightType::Spot);
    EXPECT_FLOAT_EQ(d.scene.punctual_lights[1].direction.y, -1.0f);
    EXPECT_NEAR(d.scene.punctual_lights[1].cos_outer, std::cos(30 * M_PI / 180), 1e-6);
    testing::TemporaryDirectory directory;
    const std::string map = write_environment(directory, true);
    const std::pair<std::string, std::string> bad[] = {
        {"lights:\n  - {type: area}\n", "lights.yaml:6:12: lights[0].type: unknown value 'area'"},
        {"lights:\n  - {type: point, position: [0, 2, 0], intensity: [1, 1, -1]}\n", "lights[0].intensity"},
        {"lights:\n  - {type: directional, direction: [0, 0, 0], irradiance: 1}\n",
         "lights[0].direction: direction must not be zero"},
        {"lights:\n  - {type: spot, position: [0, 1, 0], direction: [0, -1, 0], intensity: 1, inner_angle: 40, "
         "outer_angle: 30}\n",
         "lights[0].outer_angle: must be greater than inner_angle"},
        {"lights:\n  - {type: point, position: [0, 2, 0], intensity: 1, color: 2}\n", "lights[0].color: unknown key"},
        {"background: {environment: {file: missing.exr}}\n", "background.environment.file"},
        {"background: {environment: {file: " + map + ", intensity: -1}}\n",
         "background.environment.intensity: must be in"},
        {"background: {environment: {file: " + map + ", rotation: .nan}}\n", "background.environment.rotation"},
        {"background: {color: [0, 0, 0], environment: {file: " + map + "}}\n", "give exactly one of"},
    };
    for (const auto& [text, expected] : bad) {
        try {
            load_scene_text(header + text, "lights.yaml", "/");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    }
    try {
        load_scene_text(
            "image: {width: 8, height: 8, output: out.ppm}\nsampling: {spp: 1, integrator: bidirectional}\n"
            "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0]}\nobjects: []\n",
            "lights.yaml", "/");
        ADD_FAILURE() << "accepted an unknown integrator";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("lights.yaml:2:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("sampling.integrator"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace farmrt
