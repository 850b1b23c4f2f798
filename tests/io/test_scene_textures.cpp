// Textures: the book's checker, image textures (bilinear, sRGB-decoded, v up,
// edges clamped), files relative to the scene, clear errors for bad files.
#include <gtest/gtest.h>

#include <cmath>

#include "io/image_output.h"
#include "io/texture_loader.h"
#include "scene_test_helpers.h"

namespace farmrt {
namespace {

TEST(Texture, SrgbDecodeFollowsTheStandardCurve) {
    EXPECT_EQ(srgb_to_linear(0.0f), 0.0f);
    EXPECT_NEAR(srgb_to_linear(1.0f), 1.0f, 1e-6f);
    EXPECT_NEAR(srgb_to_linear(0.04045f), 0.04045f / 12.92f, 1e-7f);
    EXPECT_NEAR(srgb_to_linear(0.5f), 0.214041f, 1e-5f);
    EXPECT_NEAR(srgb_to_linear(128.0f / 255.0f), 0.215861f, 1e-5f);
}

TEST(Texture, CheckerIsTheBooksSolidChecker) {
    Texture checker;
    checker.type = TextureType::Checker;
    checker.inverse_scale = 1.0f / 0.5f;
    checker.even = Color(1, 1, 1);
    checker.odd = Color(0, 0, 0);
    SurfaceInteraction si;
    auto at = [&](float x, float y, float z) {
        si.point = Vec3(x, y, z);
        return evaluate_texture(&checker, nullptr, 0, si).x;
    };
    EXPECT_EQ(at(0.1f, 0.1f, 0.1f), 1.0f);   // 0 + 0 + 0: even
    EXPECT_EQ(at(0.6f, 0.1f, 0.1f), 0.0f);   // 1 + 0 + 0: odd
    EXPECT_EQ(at(0.6f, 0.6f, 0.1f), 1.0f);   // 2: even
    EXPECT_EQ(at(-0.1f, 0.1f, 0.1f), 0.0f);  // -1 % 2 == -1: odd, as in the book's C++
    EXPECT_EQ(at(-0.6f, 0.1f, 0.1f), 1.0f);  // -2: even
}

// A 2x2 image: top row (0, 1), bottom row (2, 3) in red.
Texture two_by_two(std::vector<float>& pixels) {
    pixels = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
    Texture t;
    t.type = TextureType::Image;
    t.image_width = 2;
    t.image_height = 2;
    return t;
}

TEST(Texture, ImageLookupIsBilinearWithVUpAndClampedEdges) {
    std::vector<float> pixels;
    const Texture t = two_by_two(pixels);
    auto red = [&](float u, float v) { return lookup_image(t, pixels.data(), u, v).x; };
    EXPECT_FLOAT_EQ(red(0.25f, 0.75f), 0.0f);  // centre of the top-left texel
    EXPECT_FLOAT_EQ(red(0.75f, 0.75f), 1.0f);
    EXPECT_FLOAT_EQ(red(0.25f, 0.25f), 2.0f);  // v = 0 is the bottom row
    EXPECT_FLOAT_EQ(red(0.75f, 0.25f), 3.0f);
    EXPECT_FLOAT_EQ(red(0.5f, 0.5f), 1.5f);   // mean of four
    EXPECT_FLOAT_EQ(red(0.5f, 0.75f), 0.5f);  // between two
    EXPECT_FLOAT_EQ(red(0.0f, 1.0f), 0.0f);   // corners clamp to the edge texel
    EXPECT_FLOAT_EQ(red(1.0f, 0.0f), 3.0f);
    EXPECT_FLOAT_EQ(red(-3.0f, 7.0f), 0.0f);  // (u, v) outside [0, 1] clamp, as in the book
    EXPECT_FLOAT_EQ(red(0.375f, 0.75f), 0.25f);
}

void write_ppm(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb) {
    testing::write_text(path, "P6\n" + std::to_string(width) + " " + std::to_string(height) + "\n255\n" +
                                  std::string(rgb.begin(), rgb.end()));
}

std::string textured_scene(const std::string& file) {
    return testing::scene_yaml("  earth: {type: lambertian, albedo: {texture: image, file: " + file + "}}\n" +
                                   "  lamp: {type: emissive, color: {texture: image, file: " + file + "}}\n",
                               "  - {type: sphere, center: [0, 0, 0], radius: 1, material: earth}\n");
}

TEST(Texture, PpmImageIsSrgbDecodedAndReadOncePerFile) {
    const std::string directory = testing::temporary_directory("texture_ppm");
    write_ppm(directory + "/tiny.ppm", 2, 1, {255, 0, 0, 0, 128, 255});
    const SceneDescription d = load_scene_text(textured_scene("tiny.ppm"), "scene.yaml", directory);
    ASSERT_EQ(d.scene.texture_pixels.size(), 6u);  // one copy for both materials
    EXPECT_FLOAT_EQ(d.scene.texture_pixels[0], 1.0f);
    EXPECT_FLOAT_EQ(d.scene.texture_pixels[3], 0.0f);
    EXPECT_NEAR(d.scene.texture_pixels[4], srgb_to_linear(128.0f / 255.0f), 1e-6f);
    const Material& earth = d.scene.materials[0];
    const Texture& texture = d.scene.textures[earth.albedo_texture];
    EXPECT_EQ(texture.type, TextureType::Image);
    EXPECT_EQ(texture.image_width, 2u);
    // The emissive color took the same image.
    const Material& lamp = d.scene.materials[1];
    EXPECT_EQ(d.scene.textures[lamp.emission_texture].type, TextureType::Image);
}

TEST(Texture, PfmImageIsAlreadyLinear) {
    const std::string directory = testing::temporary_directory("texture_pfm");
    write_image(directory + "/tiny.pfm", 1, 1, {0.5f, 2.0f, 0.25f}, Encoding::Linear, PixelDataType::Float,
                ImageMetadata{});
    const SceneDescription d = load_scene_text(textured_scene("tiny.pfm"), "scene.yaml", directory);
    ASSERT_EQ(d.scene.texture_pixels.size(), 3u);
    EXPECT_EQ(d.scene.texture_pixels[0], 0.5f);
    EXPECT_EQ(d.scene.texture_pixels[1], 2.0f);
}

TEST(Texture, PngThroughOpenImageIoOrAClearError) {
    const std::string directory = testing::temporary_directory("texture_png");
    if (!have_openimageio()) {
        testing::write_text(directory + "/earth.png", "not really a png");
        const std::string unreadable = testing::load_error(textured_scene("earth.png"), directory);
        EXPECT_NE(unreadable.find("built without OpenImageIO"), std::string::npos) << unreadable;
        EXPECT_NE(unreadable.find("scene.yaml:5:"), std::string::npos) << unreadable;
        return;
    }
    const std::vector<float> linear = {0.2f, 0.5f, 0.8f, 0.0f, 1.0f, 0.05f};
    write_image(directory + "/earth.png", 2, 1, linear, Encoding::Srgb, PixelDataType::UInt8, ImageMetadata{});
    const SceneDescription d = load_scene_text(textured_scene("earth.png"), "scene.yaml", directory);
    ASSERT_EQ(d.scene.texture_pixels.size(), 6u);
    for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(d.scene.texture_pixels[i], linear[i], 0.01f) << i;
}

TEST(Texture, MissingOrBrokenFilesNameTheFileAndTheSceneLine) {
    const std::string directory = testing::temporary_directory("texture_errors");
    std::string error = testing::load_error(textured_scene("nowhere.ppm"), directory);
    EXPECT_NE(error.find("scene.yaml:5:"), std::string::npos) << error;
    EXPECT_NE(error.find("materials.earth.albedo.file: " + directory + "/nowhere.ppm: cannot read image texture"),
              std::string::npos)
        << error;
    testing::write_text(directory + "/broken.ppm", "P6\n4 4\n255\nshort");
    error = testing::load_error(textured_scene("broken.ppm"), directory);
    EXPECT_NE(error.find("scene.yaml:5:"), std::string::npos) << error;
    EXPECT_NE(error.find("broken.ppm: the header's 4 x 4 pixels need more bytes than the file holds"),
              std::string::npos)
        << error;
    error = testing::load_error(testing::scene_yaml("  m: {type: lambertian, albedo: {texture: image}}\n",
                                                    "  - {type: sphere, center: [0, 0, 0], radius: 1, material: m}\n"));
    EXPECT_NE(error.find("materials.m.albedo: missing required key 'file'"), std::string::npos) << error;
    error = testing::load_error(
        testing::scene_yaml("  m: {type: lambertian, albedo: {texture: image, file: a.ppm, scale: 2}}\n",
                            "  - {type: sphere, center: [0, 0, 0], radius: 1, material: m}\n"));
    EXPECT_NE(error.find("materials.m.albedo.scale: unknown key"), std::string::npos) << error;
}

// A sphere with an image texture shows the texel the book's (u, v) picks.
TEST(Texture, SphereAndQuadCoordinatesSelectTheExpectedTexels) {
    const std::string directory = testing::temporary_directory("texture_lookup");
    // 4x2: left half dark, right half bright; top row red, bottom row green-ish.
    write_ppm(directory + "/map.ppm", 4, 2,
              {255, 0, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255, 0, 255, 0, 0, 255, 0, 0, 0, 255, 0, 0, 255});
    SceneDescription d = load_scene_text(
        testing::scene_yaml("  map: {type: lambertian, albedo: {texture: image, file: map.ppm}}\n",
                            "  - {type: quad, Q: [0, 0, 0], u: [4, 0, 0], v: [0, 2, 0], material: map}\n"),
        "scene.yaml", directory);
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    auto color_at = [&](float x, float y) {
        Hit hit;
        const Ray ray{Vec3(x, y, 3), Vec3(0, 0, -1), 0};
        EXPECT_TRUE(intersect_closest(view, ray, kMinHitDistance, hit));
        const SurfaceInteraction si = surface_at(view, ray, hit);
        return evaluate_texture(view.textures, view.texture_pixels, view.materials[si.material].albedo_texture, si);
    };
    const Color top_left = color_at(0.5f, 1.5f);  // quad (a, b) = (0.125, 0.75): texel (0, 0)
    EXPECT_FLOAT_EQ(top_left.x, 1.0f);
    EXPECT_FLOAT_EQ(top_left.y, 0.0f);
    const Color bottom_right = color_at(3.5f, 0.5f);  // texel (3, 1)
    EXPECT_FLOAT_EQ(bottom_right.z, 1.0f);
    EXPECT_FLOAT_EQ(bottom_right.x, 0.0f);
}

}  // namespace
}  // namespace farmrt
