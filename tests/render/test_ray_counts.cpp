// Rays traced by kind (--stats, the summary): the CPU renderer's counts equal
// a brute-force count of the queries the core's scalar tracer makes sample by
// sample, match what a closed scene's paths must trace, and are the same for
// any threads, tiles, bands, passes and SIMD level.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "cmd/backends.h"
#include "core/pixel_record.h"
#include "io/scene_loader.h"
#include "render/frame_job.h"
#include "simd/simd_level.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

// The scalar tracer's query, tallying every call it answers (independent of
// ShadowCountingQuery and closest_hit_queries: it counts where the core calls
// it, not where a renderer says).
struct TallyQuery {
    uint64_t* closest_hit;
    uint64_t* any_hit;
    bool operator()(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) const {
        ++*closest_hit;
        return BvhQuery()(scene, ray, t_min, hit);
    }
    bool occluded(const SceneView& scene, const Ray& ray, float t_max) const {
        ++*any_hit;
        return BvhQuery().occluded(scene, ray, t_max);
    }
};

SceneDescription scene_of(const std::string& config, std::vector<std::string> settings) {
    std::vector<SceneOverride> overrides;
    for (const std::string& s : settings) overrides.push_back({s, ""});
    SceneDescription description = load_scene_file(testing::source_path(config), overrides);
    description.scene.build_acceleration();
    return description;
}

SceneDescription scene_text(const std::string& text) {
    SceneDescription description = load_scene_text(text, "rays.yaml", ".");
    description.scene.build_acceleration();
    return description;
}

struct Rendered {
    std::vector<float> sums;
    RayCounts rays;
};

// The whole frame in bands of `band_rows` rows and passes of `pass_samples` samples.
Rendered render(const SceneDescription& description, int threads, int tile, const std::string& simd,
                uint32_t band_rows = 0, uint32_t pass_samples = 0) {
    const FrameSettings frame = frame_settings_for(description, 0);
    const uint32_t spp = description.settings.spp;
    band_rows = band_rows ? band_rows : frame.height;
    pass_samples = pass_samples ? pass_samples : spp;
    Rendered out;
    out.sums.assign(size_t(frame.width) * frame.height * frame.sampling.record_floats, 0.0f);
    RendererOptions options;
    options.backend = "cpu";
    options.threads = threads;
    options.tile_size = tile;
    options.simd = simd;
    const auto renderer = make_band_renderer(description.scene, options);
    for (uint32_t s = 0; s < spp; s += pass_samples) {
        for (uint32_t y = 0; y < frame.height; y += band_rows) {
            const RowRange rows{y, std::min(frame.height, y + band_rows)};
            renderer->render(frame, rows, SampleRange{s, std::min(spp, s + pass_samples)},
                             out.sums.data() + size_t(y) * frame.width * frame.sampling.record_floats, nullptr);
        }
    }
    out.rays = renderer->rays_traced();
    return out;
}

// The rays of the frame counted query by query: every pixel's samples traced
// one by one by the core (accumulate_pixel), adaptive sampling's skips included.
RayCounts brute_force_rays(const SceneDescription& description, uint64_t& taken) {
    const FrameSettings frame = frame_settings_for(description, 0);
    uint64_t closest_hit = 0, any_hit = 0;
    taken = 0;
    const SceneView scene = description.scene.view();
    for (uint32_t y = 0; y < frame.height; ++y) {
        for (uint32_t x = 0; x < frame.width; ++x) {
            float record[kMaxRecordFloats] = {};
            accumulate_pixel(scene, frame, x, y, 0, description.settings.spp, record,
                             TallyQuery{&closest_hit, &any_hit});
            taken += uint64_t(samples_taken(record, frame.sampling.record_floats, description.settings.spp));
        }
    }
    RayCounts rays;
    rays.camera = taken;
    rays.extension = closest_hit - taken;
    rays.shadow = any_hit;
    return rays;
}

void expect_same(const RayCounts& a, const RayCounts& b, const std::string& what) {
    EXPECT_EQ(a.camera, b.camera) << what;
    EXPECT_EQ(a.extension, b.extension) << what;
    EXPECT_EQ(a.shadow, b.shadow) << what;
}

TEST(RayCounts, EqualABruteForceCountOfTheCoresQueries) {
    // The Cornell box (next-event estimation: shadow rays), the book's
    // estimator (none), and adaptive sampling (pixels that stop early).
    const std::vector<std::vector<std::string>> cases = {
        {"image.width=24", "image.height=18", "sampling.spp=6"},
        {"image.width=24", "image.height=18", "sampling.spp=6", "sampling.integrator=naive"},
        {"image.width=24", "image.height=18", "sampling.spp=24", "sampling.noise_threshold=0.2", "sampling.min_spp=4"},
    };
    for (const std::vector<std::string>& settings : cases) {
        const SceneDescription description = scene_of("configs/cornell.yaml", settings);
        const std::string what = settings.back();
        uint64_t samples_taken = 0;
        const RayCounts expected = brute_force_rays(description, samples_taken);
        ASSERT_GT(expected.extension, 0u) << what;
        const Rendered scalar = render(description, 1, 16, "off");
        expect_same(scalar.rays, expected, what + ", scalar");
        EXPECT_EQ(scalar.rays.camera, samples_taken) << what;
        if (settings.back() == "sampling.integrator=naive") {
            EXPECT_EQ(expected.shadow, 0u);
        } else {
            EXPECT_GT(expected.shadow, 0u) << what;
        }
        if (description.settings.noise_threshold > 0) {
            const uint64_t positions = uint64_t(24) * 18 * description.settings.spp;
            EXPECT_LT(samples_taken, positions) << "adaptive sampling should have stopped some pixels early";
        }
    }
}

TEST(RayCounts, SameForAnyThreadsTilesBandsPassesAndSimdLevel) {
    // The Cornell box (quads: the SIMD levels' wide traversal) and the book's
    // spheres (their camera rays traced in packets).
    for (const std::string config : {"configs/cornell.yaml", "configs/spheres.yaml"}) {
        const SceneDescription description = scene_of(config, {"image.width=40", "image.height=30", "sampling.spp=8"});
        const Rendered reference = render(description, 1, 16, "off");
        uint64_t taken = 0;
        expect_same(reference.rays, brute_force_rays(description, taken), config);
        std::vector<std::string> levels = {"off", "auto"};
        for (SimdLevel level : {SimdLevel::Sse42, SimdLevel::Avx2, SimdLevel::Avx512}) {
            if (simd_level_supported(level)) levels.push_back(simd_level_name(level));
        }
        for (const std::string& simd : levels) {
            for (const auto& [threads, tile, band_rows, pass_samples] :
                 std::vector<std::tuple<int, int, uint32_t, uint32_t>>{{2, 7, 0, 0}, {3, 16, 7, 3}}) {
                const Rendered r = render(description, threads, tile, simd, band_rows, pass_samples);
                const std::string what = config + ", simd " + simd + ", " + std::to_string(threads) + " threads";
                EXPECT_EQ(r.sums, reference.sums) << what;
                expect_same(r.rays, reference.rays, what);
            }
        }
    }
}

// Inside a closed grey sphere with no light to sample, every path bounces
// until max_depth cuts it (below the depth where Russian roulette starts):
// max_depth closest-hit rays a sample, and no shadow ray. With a point light
// at its centre, which every point of the wall faces, each segment samples
// it: one shadow ray a segment.
TEST(RayCounts, AClosedRoomsPathsTraceMaxDepthRays) {
    for (const int max_depth : {1, 4}) {
        for (const bool lit : {false, true}) {
            const std::string text =
                "image: {width: 12, height: 10, output: out.pfm}\n"
                "sampling: {spp: 5, max_depth: " +
                std::to_string(max_depth) +
                "}\n"
                "camera: {lookfrom: [0, 0, 0], lookat: [0, 0, -1], vfov: 60}\n"
                "background: {color: [0, 0, 0]}\n" +
                std::string(lit ? "lights: [{type: point, position: [0, 0, 0], intensity: [1, 1, 1]}]\n" : "") +
                "materials: {gray: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}\n"
                "objects:\n"
                "  - {type: sphere, center: [0, 0, 0], radius: 10, material: gray}\n";
            const SceneDescription description = scene_text(text);
            const uint64_t samples = 12 * 10 * 5;
            const Rendered r = render(description, 2, 4, "auto");
            const std::string what = "max_depth " + std::to_string(max_depth) + (lit ? ", lit" : "");
            EXPECT_EQ(r.rays.camera, samples) << what;
            EXPECT_EQ(r.rays.extension, samples * uint64_t(max_depth - 1)) << what;
            EXPECT_EQ(r.rays.shadow, lit ? samples * uint64_t(max_depth) : 0u) << what;
        }
    }
}

}  // namespace
}  // namespace farmrt
