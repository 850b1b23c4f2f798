// Auxiliary images against exact answers: the depth of each pixel is the
// nearest of its camera rays' hits, computed here in double precision; the
// normal and albedo are the surfaces'; the images are the same bytes on any
// number of threads; written as EXR channels or PFM files beside the image.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include "io/image_output.h"
#include "io/openimageio_loader.h"
#include "io/openimageio_module.h"
#include "io/scene_loader.h"
#include "render/aov_pass.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

// A red diffuse sphere of radius 1 at the origin in front of a blue wall at
// z = -3, seen from z = 5 along -z (the viewing axis), pinhole.
SceneDescription sphere_and_wall(uint32_t spp = 4) {
    const std::string text =
        "image: {width: 24, height: 16, output: out.pfm}\n"
        "sampling: {spp: " +
        std::to_string(spp) +
        ", seed: 3}\n"
        "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0], vfov: 40}\n"
        "background: {color: [0.2, 0.3, 2.0]}\n"
        "objects:\n"
        "  - {type: sphere, center: [0, 0, 0], radius: 1, material: {type: lambertian, albedo: [0.8, 0.1, 0.1]}}\n"
        "  - {type: quad, Q: [-3, -2, -3], u: [6, 0, 0], v: [0, 4, 0], material: {type: lambertian, albedo: [0.1, 0.2, "
        "0.7]}}\n";
    SceneDescription description = load_scene_text(text, "scene.yaml", "/");
    description.scene.build_acceleration();
    return description;
}

// The nearest hit of one ray in double precision: the sphere, the wall, or none (+inf).
double exact_depth(const Ray& ray) {
    const double ox = ray.origin.x, oy = ray.origin.y, oz = ray.origin.z;
    const double dx = ray.direction.x, dy = ray.direction.y, dz = ray.direction.z;
    double t = INFINITY;
    const double a = dx * dx + dy * dy + dz * dz, half_b = ox * dx + oy * dy + oz * dz;
    const double c = ox * ox + oy * oy + oz * oz - 1.0, discriminant = half_b * half_b - a * c;
    if (discriminant >= 0) t = (-half_b - std::sqrt(discriminant)) / a;
    if (!std::isfinite(t) && dz != 0) {
        const double wall = (-3.0 - oz) / dz;
        const double x = ox + wall * dx, y = oy + wall * dy;
        if (wall > 0 && x >= -3 && x <= 3 && y >= -2 && y <= 2) t = wall;
    }
    return std::isfinite(t) ? -(t * dz) : INFINITY;  // along the viewing axis, -z
}

TEST(AovPass, DepthNormalAndAlbedoMatchTheSurfacesExactly) {
    const SceneDescription description = sphere_and_wall();
    const FrameSettings frame = frame_settings_for(description, 0);
    FrameAccumulator accumulator(frame.width, frame.height, 4, "id");
    accumulator.complete(Band{RowRange{0, frame.height}, SampleRange{0, 4}});
    const std::vector<AovImage> images =
        render_aovs(description.scene.view(), frame, {Aov::Depth, Aov::Normal, Aov::Albedo, Aov::Samples}, accumulator);
    ASSERT_EQ(images.size(), 4u);
    int sphere_pixels = 0, wall_pixels = 0, sky_pixels = 0;
    for (uint32_t y = 0; y < frame.height; ++y) {
        for (uint32_t x = 0; x < frame.width; ++x) {
            const uint32_t pixel = y * frame.width + x;
            double nearest = INFINITY;
            int on_wall = 0, on_sphere = 0;
            for (uint32_t s = 0; s < 4; ++s) {
                PixelSampler sampler(frame.key, pixel, s);
                const double depth = exact_depth(frame.camera_ray(x, y, sampler));
                nearest = std::min(nearest, depth);
                on_wall += depth > 7.9 && std::isfinite(depth);  // the sphere's far side is at 6 along the axis
                on_sphere += depth < 6.1;
            }
            const float depth = images[0].values[pixel];
            if (!std::isfinite(nearest)) {
                EXPECT_EQ(depth, kEscapedDepth) << x << "," << y << ": escaped rays are written at a finite depth";
                ++sky_pixels;
                continue;
            }
            EXPECT_NEAR(depth, nearest, 1e-4 * nearest) << x << "," << y;
            const float* normal = &images[1].values[size_t(pixel) * 3];
            const float* albedo = &images[2].values[size_t(pixel) * 3];
            if (on_wall == 4) {
                ++wall_pixels;
                EXPECT_NEAR(normal[2], 1.0f, 1e-5f);
                EXPECT_NEAR(albedo[2], 0.7f, 1e-5f);
            }
            if (on_sphere == 4) {
                ++sphere_pixels;
                EXPECT_GT(normal[2], 0.0f) << "faces the camera";
                EXPECT_NEAR(albedo[0], 0.8f, 1e-5f);
                EXPECT_NEAR(albedo[1], 0.1f, 1e-5f);
            }
            EXPECT_EQ(images[3].values[pixel], 4.0f);
        }
    }
    EXPECT_GT(sphere_pixels, 20);
    EXPECT_GT(wall_pixels, 20);
    EXPECT_GT(sky_pixels, 0);
}

TEST(AovPass, SameBytesOnAnyNumberOfThreads) {
    const SceneDescription description = sphere_and_wall(64);
    const FrameSettings frame = frame_settings_for(description, 0);
    FrameAccumulator accumulator(frame.width, frame.height, 64, "id");
    accumulator.complete(Band{RowRange{0, frame.height}, SampleRange{0, 64}});
    const std::vector<Aov> all = {Aov::Albedo, Aov::Normal, Aov::Depth, Aov::Samples};
    std::vector<std::vector<float>> first;
    for (int threads : {1, 3}) {
        omp_set_num_threads(threads);
        const std::vector<AovImage> images = render_aovs(description.scene.view(), frame, all, accumulator);
        for (size_t i = 0; i < images.size(); ++i) {
            if (threads == 1) {
                first.push_back(images[i].values);
            } else {
                ASSERT_EQ(0, std::memcmp(first[i].data(), images[i].values.data(), first[i].size() * sizeof(float)))
                    << aov_name(all[i]);
            }
        }
    }
}

TEST(AovPass, SamplesFollowATimeLimitedFrame) {
    const SceneDescription description = sphere_and_wall(64);
    const FrameSettings frame = frame_settings_for(description, 0);
    FrameAccumulator accumulator(frame.width, frame.height, 64, "id");
    accumulator.complete(Band{RowRange{0, frame.height}, SampleRange{0, 12}});
    accumulator.end_at(12);
    ASSERT_TRUE(accumulator.done());
    const std::vector<AovImage> images = render_aovs(description.scene.view(), frame, {Aov::Samples}, accumulator);
    for (float count : images[0].values) ASSERT_EQ(count, 12.0f);
}

TEST(AovOutput, FilesBesideImagesWithoutLayers) {
    testing::TemporaryDirectory directory;
    const uint32_t width = 5, height = 3;
    std::vector<float> pixels(width * height * 3, 0.5f);
    AovImage depth{Aov::Depth, {}}, albedo{Aov::Albedo, {}};
    for (uint32_t i = 0; i < width * height; ++i) depth.values.push_back(float(i) + 0.25f);
    for (uint32_t i = 0; i < width * height * 3; ++i) albedo.values.push_back(float(i) / 64.0f);
    const std::string path = (directory.path() / "frame.ppm").string();
    write_image(path, width, height, pixels, Encoding::Srgb, PixelDataType::UInt8, ImageMetadata{}, {depth, albedo});
    int channels = 0;
    EXPECT_EQ(testing::read_pfm((directory.path() / "frame.depth.pfm").string(), channels), depth.values);
    EXPECT_EQ(channels, 1);
    EXPECT_EQ(testing::read_pfm((directory.path() / "frame.albedo.pfm").string(), channels), albedo.values);
    EXPECT_EQ(channels, 3);
}

TEST(AovOutput, ChannelsOfAnOpenExrImage) {
    if (!openimageio()) GTEST_SKIP() << "built without OpenImageIO";
    testing::TemporaryDirectory directory;
    const uint32_t width = 4, height = 2;
    std::vector<float> pixels(width * height * 3);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = float(i);
    AovImage normal{Aov::Normal, {}}, samples{Aov::Samples, {}}, variance{Aov::Variance, {}};
    for (uint32_t i = 0; i < width * height * 3; ++i) normal.values.push_back(float(i % 3) - 0.5f);
    for (uint32_t i = 0; i < width * height; ++i)
        samples.values.push_back(4096.0f + float(i));  // beyond half's integers
    for (uint32_t i = 0; i < width * height; ++i)
        variance.values.push_back(1e-9f * float(i + 1));  // below half's range
    const std::string path = (directory.path() / "frame.exr").string();
    write_image(path, width, height, pixels, Encoding::Linear, PixelDataType::Half, ImageMetadata{},
                {normal, samples, variance});
    OiioImageRead read;
    ASSERT_EQ(openimageio()->read(path, 1 << 20, read), "");
    ASSERT_EQ(read.channels, 8);
    for (uint32_t p = 0; p < width * height; ++p) {
        const float* values = &read.values[size_t(p) * 8];
        for (int c = 0; c < 3; ++c) EXPECT_EQ(values[c], pixels[p * 3 + uint32_t(c)]);  // small integers: exact in half
        // OpenEXR stores channels by name: N.X, N.Y, N.Z, samples and variance follow R, G, B in OpenImageIO's order.
        std::vector<float> rest(values + 3, values + 8);
        std::sort(rest.begin(), rest.end());
        EXPECT_EQ(rest.back(), 4096.0f + float(p)) << "the samples channel is float";
        EXPECT_EQ(rest[1], 1e-9f * float(p + 1)) << "the variance channel is float";
    }
}

}  // namespace
}  // namespace farmrt
