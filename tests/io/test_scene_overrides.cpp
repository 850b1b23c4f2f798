// --set overrides on a scene: replacing, adding and nesting values, later
// ones winning, a whole scene built from them, and bad values and malformed
// overrides as one line named by the option that gave them.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "io/base_scene.h"
#include "io/scene_loader.h"

namespace farmrt {
namespace {

using namespace testing;

TEST(SceneOverrides, ReplaceAddAndNestValues) {
    const SceneDescription d = load(
        kBaseScene,
        sets({"camera.vfov=30", "objects[0].radius=2.5", "sampling.max_depth=7", "background={color: [0.1, 0.2, 0.3]}",
              "image.output=x.pfm", "objects[0].center=[1, 2, 3]", "materials.red.albedo=[0, 1, 0]"}));
    EXPECT_EQ(d.settings.camera.vfov, 30.0);
    EXPECT_EQ(d.scene.spheres[0].radius, 2.5f);
    EXPECT_EQ(d.scene.spheres[0].center.z, 3.0f);
    EXPECT_EQ(d.settings.max_depth, 7);
    EXPECT_EQ(d.scene.background.type, BackgroundType::Constant);
    EXPECT_EQ(d.scene.background.color.z, 0.3f);
    EXPECT_EQ(d.settings.output, "x.pfm");
    EXPECT_EQ(d.settings.data_type, PixelDataType::Float);
    EXPECT_EQ(d.scene.textures[d.scene.materials[0].albedo_texture].color.y, 1.0f);
}

TEST(SceneOverrides, LaterOverridesWinAndCanAppendWholeObjects) {
    const SceneDescription d =
        load(kBaseScene, sets({"sampling.spp=8", "sampling.spp=16",
                               "objects=[{type: sphere, center: [0, 0, 0], radius: 3, material: red},"
                               " {type: sphere, center: [0, 5, 0], radius: 1, material: red}]"}));
    EXPECT_EQ(d.settings.spp, 16u);
    ASSERT_EQ(d.scene.spheres.size(), 2u);
    EXPECT_EQ(d.scene.spheres[0].radius, 3.0f);
}

TEST(SceneOverrides, CanBuildAWholeSceneFromNothing) {
    const SceneDescription d = load("", sets({"image={width: 4, height: 4, output: a.ppm}", "sampling.spp=1",
                                              "camera={lookfrom: [0, 0, 1], lookat: [0, 0, 0]}", "objects=[]",
                                              "background.sky.horizon=[1, 0, 0]"}));
    EXPECT_EQ(d.settings.width, 4u);
    EXPECT_EQ(d.settings.spp, 1u);  // its missing parent 'sampling' was created
    EXPECT_EQ(d.scene.background.horizon.y, 0.0f);
    EXPECT_EQ(d.scene.primitive_count(), 0u);
}

TEST(SceneOverrides, BadValuesAreNamedByTheOverride) {
    EXPECT_EQ(load_error(kBaseScene, sets({"objects[0].radius=-1"})),
              "--set objects[0].radius=-1: objects[0].radius: must be > 0, got -1");
    EXPECT_EQ(load_error(kBaseScene, sets({"camera.vfvo=30"})),
              "--set camera.vfvo=30: camera.vfvo: unknown key (expected one of: lookfrom, lookat, vup, vfov, "
              "defocus_angle, focus_dist, projection, ortho_height)");
    EXPECT_EQ(load_error(kBaseScene, sets({"camera.vfov=wide"})),
              "--set camera.vfov=wide: camera.vfov: expected a number, got 'wide'");
    EXPECT_EQ(load_error(kBaseScene, sets({"objects[0]={type: sphere, radius: 1, material: red}"})),
              "--set objects[0]={type: sphere, radius: 1, material: red}: objects[0]: missing required key 'center'");
    EXPECT_EQ(load_error(kBaseScene, sets({"objects[0].center=[0, .nan, 0]"})),
              "--set objects[0].center=[0, .nan, 0]: objects[0].center[1]: must be a finite number, got .nan");
    // The key path in any spelling the parser accepts still names the override.
    EXPECT_EQ(load_error(kBaseScene, sets({"objects[0]radius=-1"})),
              "--set objects[0]radius=-1: objects[0].radius: must be > 0, got -1");
    // Shorthand options name themselves.
    EXPECT_EQ(load_error(kBaseScene, {SceneOverride{"sampling.spp=0", "--spp 0"}}),
              "--spp 0: sampling.spp: must be between 1 and 16777216, got 0");
    EXPECT_STARTS_WITH(load_error(kBaseScene, {SceneOverride{"image.output=a.xyz", "-o a.xyz"}}),
                       "-o a.xyz: image.output: unsupported image extension '.xyz'");
}

TEST(SceneOverrides, MalformedOverridesAreOneLine) {
    EXPECT_EQ(load_error(kBaseScene, sets({"camera.vfov"})), "--set camera.vfov: expected key.path=value");
    EXPECT_EQ(load_error(kBaseScene, sets({"=3"})), "--set =3: expected key.path=value");
    EXPECT_STARTS_WITH(load_error(kBaseScene, sets({"camera.vfov=[1,"})),
                       "--set camera.vfov=[1,: value is not valid YAML: ");
    EXPECT_EQ(load_error(kBaseScene, sets({"objects[5].radius=1"})),
              "--set objects[5].radius=1: objects[5].radius: list index 5 is out of range");
    EXPECT_EQ(load_error(kBaseScene, sets({"objects[x].radius=1"})),
              "--set objects[x].radius=1: list index must be a non-negative integer");
    EXPECT_EQ(load_error(kBaseScene, sets({"objects[0.radius=1"})),
              "--set objects[0.radius=1: unclosed '[' in key path");
    EXPECT_EQ(load_error(kBaseScene, sets({"camera..vfov=1"})), "--set camera..vfov=1: empty key in key path");
    EXPECT_EQ(load_error(kBaseScene, sets({"image.width.x=1"})),
              "--set image.width.x=1: image.width.x: 'x' is inside a value that is not a mapping");
    EXPECT_EQ(load_error(kBaseScene, sets({"objects.radius=1"})),
              "--set objects.radius=1: objects.radius: 'radius' is inside a value that is not a mapping");
}

}  // namespace
}  // namespace farmrt
