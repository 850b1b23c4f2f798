// The committed scene configs load, and the Cornell box renders as the book's:
// lit only by its two-sided ceiling light, green wall left, red wall right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cmd/backends.h"
#include "mpi/job_message.h"
#include "render/band_renderer.h"
#include "render/render_job.h"
#include "scene_test_helpers.h"

namespace farmrt {
namespace {

std::string config(const std::string& name) { return std::string(FARMRT_SOURCE_DIR) + "/configs/" + name; }

// The configs write .png; a build without OpenImageIO refuses that name, so
// the tests (which write nothing) name a built-in format.
SceneDescription load_config(const std::string& name, std::vector<SceneOverride> overrides = {}) {
    overrides.push_back({"image.output=out.pfm", ""});
    return load_scene_file(config(name), overrides);
}

TEST(Configs, CornellBoxIsTheBooks) {
    const SceneDescription d = load_config("cornell.yaml");
    EXPECT_EQ(d.settings.width, 600u);
    EXPECT_EQ(d.settings.height, 600u);
    EXPECT_EQ(d.settings.camera.vfov, 40.0);
    EXPECT_EQ(d.settings.camera.lookfrom.z, -800.0f);
    EXPECT_EQ(d.scene.background.type, BackgroundType::Constant);
    EXPECT_EQ(d.scene.quads.size(), 6u + 2 * 6u);  // five walls and the light, two boxes
    EXPECT_EQ(d.scene.instance_count(), 0u);
    // The tall box: rotate_y(15) then translate (265, 0, 295); its first face
    // (front, z = max) starts at the transformed (0, 0, 165).
    const Quad& front = d.scene.quads[6];
    const Vec3 expected = Transform::rotate_y(15).then(Transform::translate(Vec3(265, 0, 295))).point(Vec3(0, 0, 165));
    EXPECT_NEAR(front.corner.x, expected.x, 1e-3f);
    EXPECT_NEAR(front.corner.z, expected.z, 1e-3f);
}

std::vector<float> render(const std::string& file, uint32_t width, uint32_t height, uint32_t spp) {
    std::vector<SceneOverride> overrides = {{"image.width=" + std::to_string(width), ""},
                                            {"image.height=" + std::to_string(height), ""},
                                            {"sampling.spp=" + std::to_string(spp), ""}};
    SceneDescription d = load_config(file, overrides);
    d.scene.build_acceleration();
    const FrameSettings frame = frame_settings_for(d, 0);
    RendererOptions options;
    const std::unique_ptr<BandRenderer> renderer = make_band_renderer(d.scene, options);
    std::vector<float> sums(size_t(width) * height * 3, 0.0f);
    renderer->render(frame, RowRange{0, height}, SampleRange{0, spp}, sums.data(), nullptr);
    for (float& v : sums) v /= float(spp);
    return sums;
}

TEST(Configs, CornellBoxRenders) {
    const uint32_t size = 96;
    const std::vector<float> image = render("cornell.yaml", size, size, 8);
    auto pixel = [&](uint32_t x, uint32_t y, int c) { return image[(size_t(y) * size + x) * 3 + c]; };
    // Looking at the light (rows 12.6 to 15.8 at this size), pixels where every
    // sample sees the emitter are exactly its 15.
    float brightest = 0;
    for (uint32_t y = 10; y < 18; ++y) {
        for (uint32_t x = 40; x < 56; ++x) brightest = std::max(brightest, pixel(x, y, 0));
    }
    EXPECT_EQ(brightest, 15.0f);
    // The walls: green on the left, red on the right (the camera looks along +z, so +x is left).
    double left_green = 0, left_red = 0, right_green = 0, right_red = 0;
    for (uint32_t y = 30; y < 60; ++y) {
        for (uint32_t x = 6; x < 14; ++x) {
            left_green += pixel(x, y, 1);
            left_red += pixel(x, y, 0);
            right_green += pixel(size - 1 - x, y, 1);
            right_red += pixel(size - 1 - x, y, 0);
        }
    }
    EXPECT_GT(left_green, 2 * left_red);
    EXPECT_GT(right_red, 2 * right_green);
    // Nothing outside the box: the black background shows nowhere, all pixels finite.
    double total = 0;
    for (float v : image) {
        ASSERT_TRUE(std::isfinite(v));
        total += v;
    }
    EXPECT_GT(total / double(image.size()), 0.05);
}

TEST(Configs, MeshStressAndTexturedScenesLoad) {
    const SceneDescription mesh = load_config("mesh.yaml");
    EXPECT_GE(mesh.scene.triangles.size(), 100000u);
    const SceneDescription stress = load_config("stress.yaml");
    EXPECT_GE(stress.scene.rendered_primitive_count(), 1000000u);
    EXPECT_LT(stress.scene.triangles.size(), 200000u);  // the mesh is stored once
    const SceneDescription textured = load_config("textured.yaml");
    bool has_image = false, has_checker = false;
    for (const Texture& t : textured.scene.textures) {
        has_image |= t.type == TextureType::Image;
        has_checker |= t.type == TextureType::Checker;
    }
    EXPECT_TRUE(has_image);
    EXPECT_TRUE(has_checker);
}

// The farm sends rank 0's loaded scene to every rank: instances, their shared
// geometry, image texels and triangles' vertex colours and tangents must
// arrive whole, and render the same bytes.
TEST(Configs, InstancesAndTexturesSurviveTheFarmsJobMessage) {
    for (const char* file : {"textured.yaml", "stress.yaml", "surface_details.yaml"}) {
        const std::vector<SceneOverride> overrides = {
            {"image.width=24", ""}, {"image.height=16", ""}, {"sampling.spp=1", ""}};
        JobMessage job;
        job.description = load_config(file, overrides);
        JobMessage received = deserialize_job(serialize_job(job));
        SceneDescription& sent = job.description;
        SceneDescription& got = received.description;
        EXPECT_EQ(got.scene.texture_pixels, sent.scene.texture_pixels) << file;
        EXPECT_EQ(got.scene.instance_count(), sent.scene.instance_count()) << file;
        EXPECT_EQ(got.scene.rendered_primitive_count(), sent.scene.rendered_primitive_count()) << file;
        std::vector<float> images[2];
        int k = 0;
        for (SceneDescription* d : {&sent, &got}) {
            d->scene.build_acceleration();
            const FrameSettings frame = frame_settings_for(*d, 0);
            const std::unique_ptr<BandRenderer> renderer = make_band_renderer(d->scene, RendererOptions{});
            images[k].assign(size_t(d->settings.width) * d->settings.height * 3, 0.0f);
            renderer->render(frame, RowRange{0, d->settings.height}, SampleRange{0, 1}, images[k].data(), nullptr);
            ++k;
        }
        EXPECT_EQ(images[0], images[1]) << file;
    }
}

}  // namespace
}  // namespace farmrt
