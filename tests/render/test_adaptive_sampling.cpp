// Adaptive sampling against a brute-force answer: each pixel stops at the
// first decision where the standard error of its mean luminance, computed
// here in double precision from its own samples traced one by one, falls
// below the threshold; its sum is exactly the sum of those first samples; the
// records are the same bytes for any threads, tiles, bands of rows or passes;
// statistics kept for the variance AOV leave the image unchanged; checkpoints
// keep the records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cmd/backends.h"
#include "core/aov.h"
#include "core/errors.h"
#include "io/checkpoint.h"
#include "io/scene_loader.h"
#include "render/frame_job.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

constexpr uint32_t kSpp = 40;
constexpr float kThreshold = 0.05f;
constexpr uint32_t kMinSpp = 2;

// configs/tiny.yaml (every material, a bright sky, a dark underside) with
// adaptive sampling, or with `extra` settings instead.
SceneDescription adaptive_scene(std::vector<std::string> settings = {"sampling.noise_threshold=0.05",
                                                                     "sampling.min_spp=2"}) {
    std::vector<SceneOverride> overrides = {{"sampling.spp=" + std::to_string(kSpp), ""}};
    for (const std::string& s : settings) overrides.push_back({s, ""});
    SceneDescription description = load_scene_file(testing::source_path("configs/tiny.yaml"), overrides);
    description.scene.build_acceleration();
    return description;
}

std::vector<float> render(const SceneDescription& description, const FrameSettings& frame, int threads, int tile) {
    std::vector<float> sums(size_t(frame.width) * frame.height * frame.sampling.record_floats, 0.0f);
    RendererOptions options;
    options.threads = threads;
    options.tile_size = tile;
    make_band_renderer(description.scene, options)
        ->render(frame, RowRange{0, frame.height}, SampleRange{0, description.settings.spp}, sums.data(), nullptr);
    return sums;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The pixel's samples, traced one by one without adaptive sampling, NaNs dropped as add_sample drops them.
std::vector<Color> pixel_samples(const SceneDescription& description, FrameSettings frame, uint32_t x, uint32_t y) {
    frame.sampling = PixelSampling{};
    std::vector<Color> samples;
    for (uint32_t s = 0; s < kSpp; ++s) {
        PixelSampler sampler(frame.key, frame.pixel_index(x, y), s);
        const Color c = trace_sample(description.scene.view(), frame, x, y, sampler, BvhQuery()).radiance;
        samples.push_back(Color(c.x == c.x ? c.x : 0.0f, c.y == c.y ? c.y : 0.0f, c.z == c.z ? c.z : 0.0f));
    }
    return samples;
}

// The mean luminance of the first n samples and its variance, two-pass in double.
std::pair<double, double> mean_and_variance_of_mean(const std::vector<Color>& samples, uint32_t n) {
    double mean = 0;
    for (uint32_t i = 0; i < n; ++i) mean += luminance(samples[i]);
    mean /= n;
    double squares = 0;
    for (uint32_t i = 0; i < n; ++i) squares += (luminance(samples[i]) - mean) * (luminance(samples[i]) - mean);
    return {mean, squares / (n - 1) / n};
}

// var(mean) / (threshold^2 max(mean, 1e-4)) over the first n samples;
// infinite (never converged) while no sample has found light.
double error_ratio(const std::vector<Color>& samples, uint32_t n) {
    double light = 0;
    for (uint32_t i = 0; i < n; ++i) light += double(samples[i].x) + samples[i].y + samples[i].z;
    if (light == 0) return INFINITY;
    const auto [mean, variance_of_mean] = mean_and_variance_of_mean(samples, n);
    return variance_of_mean / (double(kThreshold) * kThreshold * std::max(mean, 1e-4));
}

TEST(AdaptiveSampling, PixelsStopAtTheFirstDecisionTheirOwnSamplesAllow) {
    const SceneDescription description = adaptive_scene();
    const FrameSettings frame = frame_settings_for(description, 0);
    ASSERT_EQ(frame.sampling.record_floats, kStatisticsFloats);
    const std::vector<float> records = render(description, frame, 2, 16);
    uint32_t stopped_early = 0, marginal = 0;
    for (uint32_t y = 0; y < frame.height; ++y) {
        for (uint32_t x = 0; x < frame.width; ++x) {
            const float* record = &records[(size_t(y) * frame.width + x) * kStatisticsFloats];
            const std::vector<Color> samples = pixel_samples(description, frame, x, y);
            const uint32_t taken = uint32_t(record[kSamplesTaken]);
            ASSERT_TRUE(taken == kSpp || (taken >= kMinSpp && (taken - kMinSpp) % kDecisionInterval == 0))
                << "pixel " << x << "," << y << " stopped at " << taken << ", not at a decision";
            // Every decision up to the stop, brute force: go on before it, stop at it.
            for (uint32_t decision = kMinSpp; decision < kSpp && decision <= taken; decision += kDecisionInterval) {
                const double ratio = error_ratio(samples, decision);
                if ((ratio <= 1.0) != (decision == taken)) {
                    // Float sums against double: they may disagree only on the boundary itself.
                    EXPECT_NEAR(ratio, 1.0, 1e-3) << "pixel " << x << "," << y << " at " << decision;
                    ++marginal;
                }
            }
            stopped_early += taken < kSpp;
            // Exactly the first `taken` samples, added in order.
            float sum[kStatisticsFloats] = {};
            for (uint32_t s = 0; s < taken; ++s) add_sample_to_record(sum, PixelSample{samples[s]}, kStatisticsFloats);
            EXPECT_EQ(std::memcmp(sum, record, sizeof sum), 0) << "pixel " << x << "," << y;
            double mean = 0, deviations = 0;
            for (uint32_t s = 0; s < taken; ++s) mean += luminance(samples[s]);
            mean /= taken;
            for (uint32_t s = 0; s < taken; ++s)
                deviations += (luminance(samples[s]) - mean) * (luminance(samples[s]) - mean);
            // Up to the float mean's resolution (its sum of up to 40 samples,
            // 1e-7 relative each): below a noise of 1e-5 of the mean.
            const double resolution = 1e-5 * std::max(mean, 1e-3);
            EXPECT_NEAR(record[kLuminanceDeviations], deviations, 1e-3 * deviations + taken * resolution * resolution)
                << "pixel " << x << "," << y;
        }
    }
    const uint32_t pixels = frame.width * frame.height;
    // The scene has both: pixels that converge early (sky) and pixels that do not.
    EXPECT_GT(stopped_early, pixels / 10);
    EXPECT_LT(stopped_early, pixels);
    EXPECT_LE(marginal, 2u);
}

// speculative_run_end against its definition, brute force: the stops are
// the decisions inside (begin, end) and end; the run ends at the first stop,
// or at the furthest stop within the lookahead's reach.
TEST(AdaptiveSampling, SpeculativeRunsEndAtTheFurthestStopWithinTheLookahead) {
    for (const uint32_t min_samples : {2u, 8u, 16u, 37u}) {
        PixelSampling sampling;
        sampling.record_floats = kStatisticsFloats;
        sampling.noise_threshold = 0.01f;
        sampling.min_samples = min_samples;
        for (const uint32_t lookahead : {0u, 10u, 25u, 100u, 400u}) {
            for (const uint32_t end : {min_samples + 1, 100u, 1000u, 1024u}) {
                for (uint32_t begin = 0; begin < end; ++begin) {
                    const uint64_t reach = uint64_t(begin) * lookahead / 100;
                    uint32_t expected = 0;
                    for (uint32_t p = begin + 1; p <= end; ++p) {
                        const bool stop = p == end || (p >= min_samples && (p - min_samples) % kDecisionInterval == 0);
                        if (!stop) continue;
                        if (expected == 0 || p - begin <= reach) expected = p;
                    }
                    ASSERT_EQ(speculative_run_end(sampling, begin, end, lookahead), expected)
                        << "min " << min_samples << " lookahead " << lookahead << " run [" << begin << ", " << end
                        << ")";
                }
            }
        }
    }
}

// run_end_within against its definition, brute force: from a run's end, the
// furthest stop (a decision, or end) at most `samples` past begin, never
// before the run's end.
TEST(AdaptiveSampling, FilledRunsEndAtTheFurthestStopWithinTheSamples) {
    for (const uint32_t min_samples : {2u, 16u, 37u}) {
        PixelSampling sampling;
        sampling.record_floats = kStatisticsFloats;
        sampling.noise_threshold = 0.01f;
        sampling.min_samples = min_samples;
        for (const uint32_t end : {min_samples + 1, 100u, 1024u}) {
            for (const uint64_t samples : {uint64_t(0), uint64_t(1), uint64_t(20), uint64_t(333), uint64_t(1) << 40}) {
                for (uint32_t begin = 0; begin < end; ++begin) {
                    const uint32_t run_end = speculative_run_end(sampling, begin, end, 50);
                    uint32_t expected = run_end;
                    for (uint32_t p = run_end + 1; p <= end; ++p) {
                        const bool stop = p == end || (p >= min_samples && (p - min_samples) % kDecisionInterval == 0);
                        if (stop && p - begin <= samples) expected = p;
                    }
                    ASSERT_EQ(run_end_within(sampling, begin, end, run_end, samples), expected)
                        << "min " << min_samples << " samples " << samples << " run [" << begin << ", " << end << ")";
                }
            }
        }
    }
}

// The GPU's adaptive launches, emulated: each traces every pixel still
// sampling at its start to speculative_run_end, past decisions, and the sums
// add each pixel's samples run by run (for_each_sample_run), leaving out
// those after the decision where it stops: the records are the CPU's bytes,
// in fewer launches the further the lookahead reaches.
TEST(AdaptiveSampling, SpeculativeLaunchesGiveTheSameRecords) {
    const SceneDescription description = adaptive_scene();
    const FrameSettings frame = frame_settings_for(description, 0);
    const std::vector<float> expected = render(description, frame, 2, 16);
    const uint32_t floats = frame.sampling.record_floats;
    uint32_t launches_without_lookahead = 0;
    for (const uint32_t lookahead : {0u, 150u, 400u}) {
        std::vector<float> records(expected.size(), 0.0f);
        uint32_t launches = 0, wasted = 0;
        for (uint32_t begin = 0; begin < kSpp; ++launches) {
            const uint32_t end = speculative_run_end(frame.sampling, begin, kSpp, lookahead);
            for (uint32_t y = 0; y < frame.height; ++y) {
                for (uint32_t x = 0; x < frame.width; ++x) {
                    float* record = &records[(size_t(y) * frame.width + x) * floats];
                    if (adaptive_run_end(record, frame.sampling, begin, end) == begin) continue;
                    std::vector<PixelSample> traced;  // the launch's samples of the pixel, [begin, end)
                    for (uint32_t s = begin; s < end; ++s) {
                        PixelSampler sampler(frame.key, frame.pixel_index(x, y), s);
                        traced.push_back(trace_sample(description.scene.view(), frame, x, y, sampler, BvhQuery()));
                    }
                    uint32_t added = 0;
                    for_each_sample_run(record, frame.sampling, begin, end, [&](uint32_t first, uint32_t last) {
                        for (uint32_t s = first; s < last; ++s) add_sample_to_record(record, traced[s - begin], floats);
                        added += last - first;
                    });
                    wasted += end - begin - added;
                }
            }
            begin = end;
        }
        EXPECT_TRUE(same_bits(records, expected)) << "lookahead " << lookahead;
        if (lookahead == 0) {
            EXPECT_EQ(wasted, 0u);
            launches_without_lookahead = launches;
        } else {
            EXPECT_LT(launches, launches_without_lookahead) << "lookahead " << lookahead;
            // Some pixels stopped inside a launch: samples traced and left out.
            EXPECT_GT(wasted, 0u) << "lookahead " << lookahead;
        }
    }
}

TEST(AdaptiveSampling, SameRecordsForAnyThreadsTilesBandsAndPasses) {
    const SceneDescription description = adaptive_scene();
    const FrameSettings frame = frame_settings_for(description, 0);
    const std::vector<float> reference = render(description, frame, 1, 16);
    EXPECT_TRUE(same_bits(render(description, frame, 3, 5), reference));
    EXPECT_TRUE(same_bits(render(description, frame, 2, 1), reference));
    // Bands in random order, passes cut anywhere (on decisions and between them), as the farm deals them.
    const size_t row_floats = size_t(frame.width) * kStatisticsFloats;
    std::mt19937 rng(5);
    for (const std::vector<uint32_t>& passes :
         std::vector<std::vector<uint32_t>>{{0, 1, 2, 3, 18, 40}, {0, 7, 17, 19, 34, 35, 40}, {0, 40}}) {
        std::vector<float> sums(reference.size(), 0.0f);
        for (size_t p = 0; p + 1 < passes.size(); ++p) {
            std::vector<uint32_t> cuts = {0, frame.height, uint32_t(rng() % frame.height),
                                          uint32_t(rng() % frame.height)};
            std::sort(cuts.begin(), cuts.end());
            cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
            for (size_t b = cuts.size() - 1; b-- > 0;) {
                const RowRange rows{cuts[b], cuts[b + 1]};
                std::vector<float> band(sums.begin() + long(rows.begin * row_floats),
                                        sums.begin() + long(rows.end * row_floats));
                RendererOptions options;
                options.threads = int(1 + rng() % 3);
                options.tile_size = int(1 + rng() % 20);
                make_band_renderer(description.scene, options)
                    ->render(frame, rows, SampleRange{passes[p], passes[p + 1]}, band.data(), nullptr);
                std::copy(band.begin(), band.end(), sums.begin() + long(rows.begin * row_floats));
            }
        }
        EXPECT_TRUE(same_bits(sums, reference)) << "passes ending at " << passes[1];
    }
}

TEST(AdaptiveSampling, StatisticsForTheVarianceAovLeaveTheImageUnchanged) {
    const SceneDescription plain = adaptive_scene({});
    const SceneDescription with_variance = adaptive_scene({"image.aovs=[variance]"});
    const FrameSettings plain_frame = frame_settings_for(plain, 0), frame = frame_settings_for(with_variance, 0);
    ASSERT_EQ(plain_frame.sampling.record_floats, kColorFloats);
    ASSERT_EQ(frame.sampling.record_floats, kStatisticsFloats);
    const std::vector<float> colors = render(plain, plain_frame, 2, 16);
    const std::vector<float> records = render(with_variance, frame, 2, 16);
    FrameAccumulator accumulator(frame.width, frame.height, kSpp, "id", kStatisticsFloats);
    std::copy(records.begin(), records.end(), accumulator.row_sums(0));
    accumulator.complete(Band{RowRange{0, frame.height}, SampleRange{0, kSpp}});
    const std::vector<float> variance = accumulator.luminance_variance();
    const size_t pixels = size_t(frame.width) * frame.height;
    for (size_t p = 0; p < pixels; ++p) {
        ASSERT_EQ(std::memcmp(&colors[p * 3], &records[p * kStatisticsFloats], 3 * sizeof(float)), 0) << "pixel " << p;
        ASSERT_EQ(records[p * kStatisticsFloats + kSamplesTaken], float(kSpp));
    }
    // The variance image against a two-pass double computation, at a few pixels.
    for (const size_t p : {size_t(0), pixels / 3, pixels / 2, pixels - 1}) {
        const uint32_t x = uint32_t(p % frame.width), y = uint32_t(p / frame.width);
        const std::vector<Color> samples = pixel_samples(plain, plain_frame, x, y);
        const double expected = mean_and_variance_of_mean(samples, kSpp).second;
        EXPECT_NEAR(variance[p], expected, 1e-4 * expected + 1e-9) << "pixel " << p;
    }
}

TEST(AdaptiveSampling, CheckpointsKeepTheRecords) {
    testing::TemporaryDirectory directory;
    const SceneDescription description = adaptive_scene();
    const FrameSettings frame = frame_settings_for(description, 0);
    FrameAccumulator accumulator(frame.width, frame.height, kSpp, "id", kStatisticsFloats);
    make_band_renderer(description.scene, RendererOptions{})
        ->render(frame, RowRange{0, frame.height}, SampleRange{0, 20}, accumulator.row_sums(0), nullptr);
    accumulator.complete(Band{RowRange{0, frame.height}, SampleRange{0, 20}});
    const std::string path = (directory.path() / "frame.checkpoint").string();
    write_checkpoint(path, accumulator.checkpoint());

    FrameAccumulator resumed(frame.width, frame.height, kSpp, "id", kStatisticsFloats);
    resumed.resume_from(path);
    EXPECT_TRUE(same_bits(resumed.sums(), accumulator.sums()));
    // The rest of the frame from the checkpoint: the uninterrupted render's records.
    make_band_renderer(description.scene, RendererOptions{})
        ->render(frame, RowRange{0, frame.height}, SampleRange{20, kSpp}, resumed.row_sums(0), nullptr);
    EXPECT_TRUE(same_bits(resumed.sums(), render(description, frame, 2, 16)));

    FrameAccumulator colors_only(frame.width, frame.height, kSpp, "id");
    EXPECT_THROW(colors_only.resume_from(path), InputError);

    // A count beyond the pixel's position is corruption, caught as such (checksum rewritten).
    Checkpoint bad = accumulator.checkpoint();
    bad.sums[kSamplesTaken] = 21.0f;
    write_checkpoint(path, bad);
    try {
        read_checkpoint(path);
        FAIL() << "a count above the position was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("pixel 0 has a bad sample count"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace farmrt
