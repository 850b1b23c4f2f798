// Determinism: the per-pixel sums are the same bits whatever the thread count,
// tile size, split into bands of rows or passes over sample ranges (and so
// whatever the later MPI ranks and GPUs do), and the written file is the same
// bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "cmd/backends.h"
#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "render/render_job.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

using testing::TemporaryDirectory;

// configs/tiny.yaml (every material, a checker texture, a quad, a triangle,
// defocus) plus a moving sphere, at 4 spp.
SceneDescription tiny_scene(uint64_t seed = 7, const std::vector<std::string>& settings = {}) {
    std::vector<SceneOverride> overrides = {SceneOverride{"sampling.spp=4", ""},
                                            SceneOverride{"sampling.seed=" + std::to_string(seed), ""},
                                            SceneOverride{"objects[2].center1=[-1.1, 0.8, 0.2]", ""}};
    for (const std::string& setting : settings) overrides.push_back(SceneOverride{setting, ""});
    return load_scene_file(testing::source_path("configs/tiny.yaml"), overrides);
}

struct Fixture {
    SceneDescription description;
    FrameSettings frame;

    explicit Fixture(uint64_t seed = 7, bool linear_list = false, const std::vector<std::string>& settings = {})
        : description(tiny_scene(seed, settings)) {
        if (linear_list) {
            description.scene.build_linear_list();
        } else {
            description.scene.build_acceleration();
        }
        frame = frame_settings_for(description, 0);
    }

    size_t value_count() const { return size_t(frame.width) * frame.height * 3; }

    // One render of the whole image, rows [0, height) and every sample.
    std::vector<float> render(int threads, int tile) const {
        std::vector<float> sums(value_count(), 0.0f);
        RendererOptions options;
        options.threads = threads;
        options.tile_size = tile;
        const auto renderer = make_band_renderer(description.scene, options);
        renderer->render(frame, RowRange{0, frame.height}, SampleRange{0, description.settings.spp}, sums.data(),
                         nullptr);
        return sums;
    }

    // Renders `rows` in its own buffer (as a rank would) and copies it into `image`.
    void render_band(RowRange rows, SampleRange samples, int threads, int tile, std::vector<float>& image) const {
        const size_t row_values = size_t(frame.width) * 3;
        std::vector<float> band(image.begin() + long(rows.begin * row_values),
                                image.begin() + long(rows.end * row_values));
        RendererOptions options;
        options.threads = threads;
        options.tile_size = tile;
        make_band_renderer(description.scene, options)->render(frame, rows, samples, band.data(), nullptr);
        std::copy(band.begin(), band.end(), image.begin() + long(rows.begin * row_values));
    }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(Determinism, SumsAreBitIdenticalForAnyThreadCount) {
    const Fixture fixture;
    const std::vector<float> reference = fixture.render(1, 16);
    double total = 0;
    for (float v : reference) total += v;
    ASSERT_GT(total, 0.0);  // a real image, not all black
    for (int threads : {2, 3, 4, 5, 8}) {
        EXPECT_TRUE(same_bits(fixture.render(threads, 16), reference)) << threads << " threads";
    }
}

TEST(Determinism, EverySamplerFilterAndClampGivesTheSameBitsInAnyDecomposition) {
    const std::vector<std::vector<std::string>> variants = {
        {"sampling.sampler=independent", "image.filter=box"},
        {"sampling.sampler=sobol", "image.filter=mitchell"},
        {"sampling.sampler=sobol", "image.filter=gaussian", "image.filter_width=2", "sampling.clamp=0.5"},
        {"sampling.sampler=independent", "image.filter=blackman-harris", "sampling.clamp={direct: 4, indirect: 0.25}"},
    };
    std::vector<std::vector<float>> images;
    for (const auto& settings : variants) {
        const Fixture fixture(7, false, settings);
        const std::vector<float> reference = fixture.render(1, 16);
        EXPECT_TRUE(same_bits(fixture.render(3, 5), reference)) << settings[0] << " " << settings[1];
        std::vector<float> banded(fixture.value_count(), 0.0f);
        const uint32_t height = fixture.frame.height;
        fixture.render_band(RowRange{height / 3, height}, SampleRange{0, 1}, 2, 7, banded);
        fixture.render_band(RowRange{0, height / 3}, SampleRange{0, 4}, 1, 3, banded);
        fixture.render_band(RowRange{height / 3, height}, SampleRange{1, 4}, 2, 11, banded);
        EXPECT_TRUE(same_bits(banded, reference)) << settings[0] << " " << settings[1];
        for (const auto& other : images) EXPECT_FALSE(same_bits(other, reference)) << "each variant its own image";
        images.push_back(reference);
    }
}

TEST(Determinism, SumsAreBitIdenticalForAnyTileSize) {
    const Fixture fixture;
    const std::vector<float> reference = fixture.render(2, 16);
    for (int tile : {1, 2, 3, 5, 7, 13, 32, 47, 4096}) {
        EXPECT_TRUE(same_bits(fixture.render(3, tile), reference)) << "tile " << tile;
    }
}

TEST(Determinism, BandsOfRowsInAnyOrderGiveTheSameSums) {
    const Fixture fixture;
    const std::vector<float> reference = fixture.render(2, 16);
    const uint32_t height = fixture.frame.height, spp = fixture.description.settings.spp;
    std::mt19937 rng(3);
    for (int trial = 0; trial < 5; ++trial) {
        // Random cut points, bands rendered in shuffled order with random threads and tiles.
        std::vector<uint32_t> cuts = {0, height};
        for (int i = 0; i < 4; ++i) cuts.push_back(uint32_t(rng() % height));
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        std::vector<RowRange> bands;
        for (size_t i = 0; i + 1 < cuts.size(); ++i) bands.push_back(RowRange{cuts[i], cuts[i + 1]});
        std::shuffle(bands.begin(), bands.end(), rng);
        std::vector<float> image(fixture.value_count(), 0.0f);
        for (const RowRange& band : bands) {
            fixture.render_band(band, SampleRange{0, spp}, int(1 + rng() % 3), int(1 + rng() % 20), image);
        }
        EXPECT_TRUE(same_bits(image, reference)) << "trial " << trial;
    }
}

TEST(Determinism, SamplePassesAccumulateToTheOneShotSums) {
    // A resumed or progressive render adds sample ranges in order to the same sums.
    const Fixture fixture;
    const std::vector<float> reference = fixture.render(2, 16);
    const uint32_t height = fixture.frame.height;
    for (const std::vector<uint32_t>& boundaries :
         std::vector<std::vector<uint32_t>>{{0, 1, 2, 3, 4}, {0, 3, 4}, {0, 1, 4}, {0, 2, 4}}) {
        std::vector<float> sums(fixture.value_count(), 0.0f);
        for (size_t p = 0; p + 1 < boundaries.size(); ++p) {
            fixture.render_band(RowRange{0, height}, SampleRange{boundaries[p], boundaries[p + 1]}, 2, 8, sums);
        }
        EXPECT_TRUE(same_bits(sums, reference)) << "passes ending at " << boundaries[1];
    }
}

TEST(Determinism, BandsAndPassesTogether) {
    const Fixture fixture;
    const std::vector<float> reference = fixture.render(1, 16);
    std::vector<float> sums(fixture.value_count(), 0.0f);
    // Pass 1: samples [0, 3) in three bands; pass 2: sample 3 in two other bands.
    fixture.render_band(RowRange{10, 32}, SampleRange{0, 3}, 2, 4, sums);
    fixture.render_band(RowRange{0, 5}, SampleRange{0, 3}, 1, 9, sums);
    fixture.render_band(RowRange{5, 10}, SampleRange{0, 3}, 3, 2, sums);
    fixture.render_band(RowRange{17, 32}, SampleRange{3, 4}, 2, 16, sums);
    fixture.render_band(RowRange{0, 17}, SampleRange{3, 4}, 2, 5, sums);
    EXPECT_TRUE(same_bits(sums, reference));
}

TEST(Determinism, LinearListRendersTheSameBitsAsTheBvh) {
    const Fixture with_bvh, without_bvh(7, /*linear_list=*/true);
    EXPECT_TRUE(same_bits(with_bvh.render(2, 16), without_bvh.render(2, 16)));
}

TEST(Determinism, SeedAndFrameChangeTheImage) {
    const Fixture seven(7), eight(8);
    EXPECT_FALSE(same_bits(seven.render(2, 16), eight.render(2, 16)));
    Fixture next_frame(7);
    next_frame.frame = frame_settings_for(next_frame.description, 1);
    EXPECT_FALSE(same_bits(seven.render(2, 16), next_frame.render(2, 16)));
}

TEST(Determinism, ProgressCounterCountsEverySample) {
    const Fixture fixture;
    std::vector<float> sums(fixture.value_count(), 0.0f);
    RendererOptions options;
    options.threads = 3;
    options.tile_size = 5;
    std::atomic<uint64_t> done{0};
    make_band_renderer(fixture.description.scene, options)
        ->render(fixture.frame, RowRange{3, 20}, SampleRange{1, 4}, sums.data(), &done);
    EXPECT_EQ(done.load(), uint64_t(fixture.frame.width) * 17 * 3);
}

}  // namespace
}  // namespace farmrt
