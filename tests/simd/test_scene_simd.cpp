// The SIMD tracer on scenes beyond spheres: the same closest hits as the
// scalar core with instances, watertight triangles and boxes (bit for bit,
// including the instance), and byte-identical renders of the scene configs,
// at every instruction-set level this CPU supports.
#include <gtest/gtest.h>

#include <cstring>

#include "cmd/backends.h"
#include "render/band_renderer.h"
#include "render/render_job.h"
#include "scene_test_helpers.h"
#include "simd/simd_level.h"
#include "simd/wide_accelerator.h"

namespace farmrt {
namespace {

const SimdLevel kLevels[] = {SimdLevel::Sse42, SimdLevel::Avx2, SimdLevel::Avx512};

bool usable(SimdLevel level) { return simd_level_compiled(level) && simd_level_supported(level); }

uint32_t bits_of(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}

TEST(SceneSimd, SameClosestHitsWithInstancesAsScalar) {
    int tested_levels = 0;
    for (const SimdLevel level : kLevels) {
        if (!usable(level)) continue;
        ++tested_levels;
        for (uint32_t seed = 1; seed <= 10; ++seed) {
            Scene scene = testing::random_scene(seed);
            scene.build_acceleration();
            const SceneView view = scene.view();
            const simd::WideAccelerator accelerator(view, level);
            const simd::WideQuery wide = accelerator.closest_hit();
            testing::Random random(seed * 31);
            for (int r = 0; r < 300; ++r) {
                const Ray ray{random.point(14), random.point(1), random.uniform(0, 1)};
                Hit scalar_hit, simd_hit;
                const bool found = intersect_closest(view, ray, kMinHitDistance, scalar_hit);
                ASSERT_EQ(found, wide(view, ray, kMinHitDistance, simd_hit)) << simd_level_name(level) << " " << r;
                if (!found) continue;
                ASSERT_EQ(bits_of(scalar_hit.t), bits_of(simd_hit.t));
                ASSERT_EQ(scalar_hit.primitive.bits, simd_hit.primitive.bits);
                ASSERT_EQ(scalar_hit.instance, simd_hit.instance);
                ASSERT_EQ(bits_of(scalar_hit.u), bits_of(simd_hit.u));
                ASSERT_EQ(bits_of(scalar_hit.v), bits_of(simd_hit.v));
            }
        }
    }
    if (tested_levels == 0) GTEST_SKIP() << "no SIMD level available";
}

std::vector<float> render(const SceneDescription& d, const std::string& simd) {
    const FrameSettings frame = frame_settings_for(d, 0);
    RendererOptions options;
    options.simd = simd;
    const std::unique_ptr<BandRenderer> renderer = make_band_renderer(d.scene, options);
    std::vector<float> sums(size_t(d.settings.width) * d.settings.height * frame.sampling.record_floats, 0.0f);
    renderer->render(frame, RowRange{0, d.settings.height}, SampleRange{0, d.settings.spp}, sums.data(), nullptr);
    return sums;
}

// Every committed config, small: the scalar tracer and each SIMD level this
// CPU has give the same bytes. The last case adds motion blur and a rotated,
// non-uniformly scaled sphere (an instance) to the tiny scene.
TEST(SceneSimd, ConfigRendersAreByteIdenticalToScalar) {
    struct Case {
        const char* file;
        uint32_t width, height, spp;
        std::vector<std::string> extra;  // further --set overrides
    };
    const Case cases[] = {
        {"cornell.yaml", 40, 40, 2, {}},
        {"textured.yaml", 48, 32, 2, {}},
        {"mesh.yaml", 48, 27, 2, {}},
        {"stress.yaml", 48, 27, 1, {}},
        {"spheres.yaml", 48, 27, 2, {}},
        {"many_spheres.yaml", 48, 27, 1, {}},
        {"emissive.yaml", 40, 30, 4, {}},
        {"lights.yaml", 48, 27, 2, {}},
        {"models.yaml", 40, 40, 2, {}},
        {"models/shapes.gltf", 48, 27, 2, {}},
        {"surface_details.yaml", 48, 27, 2, {}},
        {"spheres.yaml", 48, 27, 2, {"background.sampling=light"}},
        // Adaptive sampling: the records (counts included) in packets cut at the decisions.
        {"spheres.yaml", 48, 27, 40, {"sampling.noise_threshold=0.05", "sampling.min_spp=4"}},
        {"many_spheres.yaml", 48, 27, 24, {"sampling.noise_threshold=0.1", "sampling.min_spp=2"}},
        {"tiny.yaml", 48, 32, 4, {}},
        {"tiny.yaml",
         48,
         32,
         4,
         {"objects[2]={type: sphere, center: [-1.1, 0.5, 0], center1: [-1.1, 0.9, 0.3], radius: 0.5,"
          " material: steel}",
          "objects[3]={type: sphere, center: [0, 0, 0], radius: 0.5, material: ground,"
          " transform: {scale: [1, 0.6, 1.4], rotate_z: 30, translate: [1.1, 0.4, 0]}}"}},
    };
    int compared = 0;
    for (const Case& c : cases) {
        std::vector<SceneOverride> overrides = {{"image.width=" + std::to_string(c.width), ""},
                                                {"image.height=" + std::to_string(c.height), ""},
                                                {"sampling.spp=" + std::to_string(c.spp), ""},
                                                {"image.output=out.pfm", ""}};  // also without OpenImageIO
        for (const std::string& set : c.extra) overrides.push_back({set, ""});
        SceneDescription d = load_scene_file(std::string(FARMRT_SOURCE_DIR) + "/configs/" + c.file, overrides);
        d.scene.build_acceleration();
        const std::string name = std::string(c.file) + (c.extra.empty() ? "" : " with " + c.extra[0].substr(0, 40));
        const std::vector<float> scalar = render(d, "off");
        double total = 0;
        for (const float v : scalar) total += v;
        EXPECT_GT(total, 0.0) << name << ": a black image proves nothing";
        for (const SimdLevel level : kLevels) {
            if (!usable(level)) continue;
            const std::vector<float> wide = render(d, simd_level_name(level));
            ASSERT_EQ(scalar.size(), wide.size());
            EXPECT_EQ(0, std::memcmp(scalar.data(), wide.data(), scalar.size() * sizeof(float)))
                << name << " at " << simd_level_name(level);
            ++compared;
        }
    }
    if (compared == 0) GTEST_SKIP() << "no SIMD level available on this CPU or in this build: nothing compared";
}

}  // namespace
}  // namespace farmrt
