// image.alpha: the alpha channel is the share of a pixel's camera samples
// that meet a surface, the background seen directly leaves the colour (which
// stays premultiplied by alpha), and both are the same bits in every
// decomposition of the render.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "core/pixel_record.h"
#include "io/scene_loader.h"
#include "render/render_job.h"

namespace farmrt {
namespace {

constexpr uint32_t kSide = 64;
constexpr uint32_t kSpp = 64;
constexpr double kDistance = 5.0, kRadius = 1.0, kVerticalFov = 40.0;

// A grey sphere of radius kRadius on the camera's axis at kDistance, under a
// sky; box filter, so that every camera sample falls in its own pixel.
PreparedJob sphere_job(const std::string& image_settings) {
    const std::string text = "image: {width: " + std::to_string(kSide) + ", height: " + std::to_string(kSide) +
                             ", output: out.pfm, filter: box" + image_settings +
                             "}\n"
                             "sampling: {spp: " +
                             std::to_string(kSpp) +
                             ", max_depth: 4, seed: 3}\n"
                             "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0], vfov: 40}\n"
                             "background: {sky: {horizon: [1, 1, 1], zenith: [0.5, 0.7, 1.0]}}\n"
                             "materials: {gray: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}\n"
                             "objects:\n"
                             "  - {type: sphere, center: [0, 0, 0], radius: 1, material: gray}\n";
    return prepare_job(load_scene_text(text, "sphere.yaml", "."), CommandLine{}, PhaseTimes{});
}

std::vector<float> render(const PreparedJob& job, int threads, int tile, const std::string& simd) {
    const FrameSettings& frame = job.frame;
    std::vector<float> sums(size_t(frame.width) * frame.height * frame.sampling.record_floats, 0.0f);
    RendererOptions options;
    options.backend = "cpu";
    options.threads = threads;
    options.tile_size = tile;
    options.simd = simd;
    make_band_renderer(job.description.scene, options)
        ->render(frame, RowRange{0, frame.height}, SampleRange{0, job.description.settings.spp}, sums.data(), nullptr);
    return sums;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The sphere's outline on the image: a circle about the image's centre whose
// radius in pixels is tan(asin(R / d)) over tan(vfov / 2), times half the
// height.
double outline_radius() {
    const double half_angle = std::asin(kRadius / kDistance);
    return std::tan(half_angle) / std::tan(kVerticalFov / 2 * M_PI / 180) * (kSide / 2.0);
}

// The distances from the image's centre of pixel (x, y)'s nearest and
// farthest points.
void pixel_distances(uint32_t x, uint32_t y, double& nearest, double& farthest) {
    const double c = kSide / 2.0;
    const double dx_near = std::max({c - (x + 1.0), x - c, 0.0}), dy_near = std::max({c - (y + 1.0), y - c, 0.0});
    const double dx_far = std::max(std::fabs(x - c), std::fabs(x + 1.0 - c));
    const double dy_far = std::max(std::fabs(y - c), std::fabs(y + 1.0 - c));
    nearest = std::hypot(dx_near, dy_near);
    farthest = std::hypot(dx_far, dy_far);
}

TEST(Alpha, IsTheShareOfTheSphereInEachPixel) {
    const PreparedJob job = sphere_job(", alpha: true");
    const uint32_t floats = job.frame.sampling.record_floats;
    ASSERT_EQ(floats, kColorFloats + 1);
    const std::vector<float> sums = render(job, 2, 16, "auto");
    const double radius = outline_radius();
    double coverage = 0;
    int inside = 0, outside = 0;
    for (uint32_t y = 0; y < kSide; ++y) {
        for (uint32_t x = 0; x < kSide; ++x) {
            const float* record = &sums[(size_t(y) * kSide + x) * floats];
            const float alpha = record[kColorFloats] / float(kSpp);
            coverage += alpha;
            double nearest, farthest;
            pixel_distances(x, y, nearest, farthest);
            // Half a pixel of slack for where the camera puts pixel centres.
            if (farthest < radius - 0.5) {
                ++inside;
                EXPECT_EQ(alpha, 1.0f) << x << "," << y;
                EXPECT_GT(record[0], 0.0f) << "the sky still lights the sphere: " << x << "," << y;
            } else if (nearest > radius + 0.5) {
                ++outside;
                EXPECT_EQ(alpha, 0.0f) << x << "," << y;
                EXPECT_EQ(record[0], 0.0f) << "the background leaves the colour: " << x << "," << y;
                EXPECT_EQ(record[1], 0.0f);
                EXPECT_EQ(record[2], 0.0f);
            } else {
                EXPECT_GE(alpha, 0.0f);
                EXPECT_LE(alpha, 1.0f);
            }
        }
    }
    EXPECT_GT(inside, 700);
    EXPECT_GT(outside, 2500);
    // The alpha summed over the image is the outline's area (Sobol samples
    // stratify each pixel: far below 0.5% of error).
    const double area = M_PI * radius * radius;
    EXPECT_NEAR(coverage, area, 0.005 * area) << "radius " << radius << " px";
}

TEST(Alpha, CoveredPixelsKeepTheOpaqueRendersColour) {
    const PreparedJob transparent = sphere_job(", alpha: true");
    const PreparedJob opaque = sphere_job("");
    ASSERT_EQ(opaque.frame.sampling.record_floats, kColorFloats);
    const std::vector<float> with_alpha = render(transparent, 2, 16, "auto");
    const std::vector<float> without = render(opaque, 2, 16, "auto");
    int covered = 0, open = 0;
    for (size_t pixel = 0; pixel < size_t(kSide) * kSide; ++pixel) {
        const float* a = &with_alpha[pixel * 4];
        const float* o = &without[pixel * 3];
        if (a[3] == float(kSpp)) {
            ++covered;  // every camera ray met the sphere: the same paths, the same light
            EXPECT_EQ(std::memcmp(a, o, 3 * sizeof(float)), 0) << "pixel " << pixel;
        } else if (a[3] == 0.0f) {
            ++open;  // the sky alone: it shows in the opaque render only
            EXPECT_GT(o[0] + o[1] + o[2], 0.0f) << "pixel " << pixel;
        }
    }
    EXPECT_GT(covered, 700);
    EXPECT_GT(open, 2500);
}

TEST(Alpha, SameBitsOnAnyThreadsTilesAndSimdLevel) {
    for (const char* settings : {", alpha: true", ", alpha: true, aovs: [variance]"}) {
        const PreparedJob job = sphere_job(settings);
        const std::vector<float> reference = render(job, 1, 16, "off");
        EXPECT_TRUE(same_bits(render(job, 3, 5, "auto"), reference)) << settings;
        EXPECT_TRUE(same_bits(render(job, 2, 7, "off"), reference)) << settings;
    }
    // Adaptive sampling: the alpha sum comes after the statistics, over the
    // samples each pixel took.
    const std::string text =
        "image: {width: 48, height: 32, output: out.pfm, alpha: true}\n"
        "sampling: {spp: 64, noise_threshold: 0.05, min_spp: 16}\n"
        "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0], vfov: 40}\n"
        "materials: {gray: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}\n"
        "objects: [{type: sphere, center: [0, 0, 0], radius: 1, material: gray}]\n";
    const PreparedJob adaptive = prepare_job(load_scene_text(text, "a.yaml", "."), CommandLine{}, PhaseTimes{});
    ASSERT_EQ(adaptive.frame.sampling.record_floats, kStatisticsFloats + 1);
    const std::vector<float> reference = render(adaptive, 1, 16, "off");
    EXPECT_TRUE(same_bits(render(adaptive, 3, 5, "auto"), reference));
    bool stopped_early = false;
    for (size_t pixel = 0; pixel < reference.size() / 6; ++pixel) {
        const float* record = &reference[pixel * 6];
        const float taken = record[kSamplesTaken];
        stopped_early |= taken < 64.0f;
        EXPECT_GE(record[5], 0.0f);
        EXPECT_LE(record[5], taken) << "pixel " << pixel;
    }
    EXPECT_TRUE(stopped_early);
}

}  // namespace
}  // namespace farmrt
