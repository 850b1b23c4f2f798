// The YAML scene loader: every bad input gives ONE line naming the file, line,
// column and key path ("scene.yaml:15:13: objects[0].radius: must be > 0, got -1"),
// inline materials, and the defaults of everything optional.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/base_scene.h"
#include "io/scene_loader.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

using namespace testing;

TEST(SceneLoader, BaseSceneLoads) {
    const SceneDescription d = load(kBaseScene);
    EXPECT_EQ(d.settings.width, 32u);
    EXPECT_EQ(d.settings.height, 24u);
    EXPECT_EQ(d.settings.output, "out.ppm");
    EXPECT_EQ(d.settings.spp, 4u);
    ASSERT_EQ(d.scene.spheres.size(), 1u);
    EXPECT_EQ(d.scene.spheres[0].radius, 1.0f);
    EXPECT_EQ(d.settings.scene_file, "scene.yaml");
}

// ---- malformed YAML -------------------------------------------------------------

TEST(SceneLoaderErrors, MalformedYamlNamesFileLineAndColumn) {
    EXPECT_STARTS_WITH(load_error(with_line(11, "  red: {type: lambertian, albedo: [0.8, 0.1, 0.1]")),
                       "scene.yaml:12:1: malformed YAML: ");
    EXPECT_STARTS_WITH(load_error(with_line(6, "  spp: 4\n\tmax_depth: 3")), "scene.yaml:7:1: malformed YAML: ");
    EXPECT_STARTS_WITH(load_error(with_line(14, "    center: [0, 0, 0")), "scene.yaml:");
    EXPECT_NE(load_error(with_line(14, "    center: [0, 0, 0")).find("malformed YAML"), std::string::npos);
    EXPECT_STARTS_WITH(load_error(with_line(3, "  height: 24\n   bad indent: 1")), "scene.yaml:4:");
}

TEST(SceneLoaderErrors, DocumentThatIsNotAMapping) {
    EXPECT_EQ(load_error("- just\n- a list\n"),
              "scene.yaml:1:1: scene: the scene file must be a mapping with image, sampling, camera, objects");
    EXPECT_EQ(load_error("hello\n"),
              "scene.yaml:1:1: scene: the scene file must be a mapping with image, sampling, camera, objects");
}

TEST(SceneLoaderErrors, EmptyDocumentMissesImage) {
    const std::string message = load_error("");
    EXPECT_STARTS_WITH(message, "scene.yaml");
    EXPECT_NE(message.find("missing required key 'image'"), std::string::npos) << message;
}

// ---- samplers, filters and the clamp -------------------------------------------------

TEST(SceneLoaderErrors, SamplerFilterAndClampNameTheKeyAndTheLine) {
    EXPECT_EQ(load_error(with_inserted(6, "  sampler: halton")),
              "scene.yaml:7:12: sampling.sampler: unknown value 'halton' (expected sobol | independent)");
    EXPECT_EQ(load_error(with_inserted(4, "  filter: lanczos")),
              "scene.yaml:5:11: image.filter: unknown value 'lanczos' (expected box | gaussian | blackman-harris | "
              "mitchell)");
    EXPECT_EQ(load_error(with_inserted(4, "  filter_width: 0")),
              "scene.yaml:5:17: image.filter_width: must be in [0.1, 8], got 0");
    EXPECT_EQ(load_error(with_inserted(4, "  filter_width: .nan")),
              "scene.yaml:5:17: image.filter_width: must be a finite number, got .nan");
    EXPECT_EQ(load_error(with_inserted(6, "  clamp: -1")),
              "scene.yaml:7:10: sampling.clamp: must be >= 0 (0: off), got -1");
    EXPECT_EQ(load_error(with_inserted(6, "  clamp: {direct: 2, indirect: -0.5}")),
              "scene.yaml:7:32: sampling.clamp.indirect: must be >= 0 (0: off), got -0.5");
    EXPECT_EQ(load_error(with_inserted(6, "  clamp: {direkt: 2}")),
              "scene.yaml:7:11: sampling.clamp.direkt: unknown key (expected one of: direct, indirect)");
    EXPECT_STARTS_WITH(load_error(with_inserted(6, "  clamp: .inf")), "scene.yaml:7:10: sampling.clamp: ");
    EXPECT_EQ(load_error(with_inserted(6, "  light_sampler: uniform")),
              "scene.yaml:7:18: sampling.light_sampler: unknown value 'uniform' (expected tree | power)");
}

TEST(SceneLoader, SamplerFilterAndClampDefaultsAndValues) {
    const RenderSettings defaults = load_scene_text(kBaseScene, "scene.yaml", "/").settings;
    EXPECT_EQ(defaults.sampler, SamplerType::Sobol);
    EXPECT_EQ(defaults.filter, FilterType::BlackmanHarris);
    EXPECT_EQ(defaults.filter_width, 1.5f);
    EXPECT_EQ(defaults.clamp_direct, 0.0f);
    EXPECT_EQ(defaults.clamp_indirect, 0.0f);
    EXPECT_FALSE(defaults.light_tree);
    EXPECT_TRUE(load_scene_text(with_inserted(6, "  light_sampler: tree"), "scene.yaml", "/").settings.light_tree);
    const RenderSettings set =
        load_scene_text(with_inserted(6, "  sampler: independent\n  clamp: {indirect: 10}"), "scene.yaml", "/")
            .settings;
    EXPECT_EQ(set.sampler, SamplerType::Independent);
    EXPECT_EQ(set.clamp_direct, 0.0f);
    EXPECT_EQ(set.clamp_indirect, 10.0f);
    const RenderSettings both = load_scene_text(with_inserted(6, "  clamp: 3"), "scene.yaml", "/").settings;
    EXPECT_EQ(both.clamp_direct, 3.0f);
    EXPECT_EQ(both.clamp_indirect, 3.0f);
    const RenderSettings mitchell = load_scene_text(with_inserted(4, "  filter: mitchell"), "scene.yaml", "/").settings;
    EXPECT_EQ(mitchell.filter, FilterType::Mitchell);
    EXPECT_EQ(mitchell.filter_width, 4.0f);  // its own default width
}

// ---- unknown and repeated keys --------------------------------------------------

TEST(SceneLoaderErrors, TypoInAKeyIsAnUnknownKey) {
    EXPECT_EQ(load_error(with_line(15, "    radus: 1")),
              "scene.yaml:15:5: objects[0].radus: unknown key (expected one of: type, center, center1, radius, "
              "material, transform)");
    EXPECT_EQ(load_error(with_inserted(9, "  vfvo: 30")),
              "scene.yaml:10:3: camera.vfvo: unknown key (expected one of: lookfrom, lookat, vup, vfov, "
              "defocus_angle, focus_dist, projection, ortho_height)");
    EXPECT_EQ(load_error(with_inserted(4, "  encodng: srgb")),
              "scene.yaml:5:3: image.encodng: unknown key (expected one of: width, height, output, encoding, "
              "data_type, aovs, exposure, view_transform, filter, filter_width, region, alpha)");
    EXPECT_EQ(load_error(with_appended("backgroud: {color: [0, 0, 0]}")),
              "scene.yaml:17:1: backgroud: unknown key (expected one of: image, sampling, camera, background, "
              "materials, objects, lights, animation)");
    EXPECT_EQ(load_error(with_line(11, "  red: {type: lambertian, albedo: [0.8, 0.1, 0.1], fuzz: 0}")),
              "scene.yaml:11:52: materials.red.fuzz: unknown key (expected one of: type, albedo)");
}

TEST(SceneLoaderErrors, RepeatedKeyIsAnError) {
    EXPECT_EQ(load_error(with_inserted(15, "    radius: 2")),
              "scene.yaml:16:5: objects[0].radius: duplicate key (first given on line 15)");
    EXPECT_EQ(load_error(with_inserted(11, "  red: {type: metal, albedo: [1, 1, 1]}")),
              "scene.yaml:12:3: materials.red: duplicate key (first given on line 11)");
}

TEST(SceneLoaderErrors, KeysMustBePlainNames) {
    EXPECT_EQ(load_error(with_appended("? [a, b]\n: 1")), "scene.yaml:17:3: scene: keys must be plain names");
    EXPECT_EQ(load_error(with_line(11, "  [red]: {type: lambertian, albedo: [0.8, 0.1, 0.1]}")),
              "scene.yaml:11:3: materials: keys must be plain names");
}

// ---- wrong types ------------------------------------------------------------------

TEST(SceneLoaderErrors, WrongTypesNameTheExpectedType) {
    EXPECT_EQ(load_error(with_line(2, "  width: wide")),
              "scene.yaml:2:10: image.width: expected an integer, got 'wide'");
    EXPECT_EQ(load_error(with_line(2, "  width: 32.5")),
              "scene.yaml:2:10: image.width: expected an integer, got '32.5'");
    EXPECT_EQ(load_error(with_line(2, "  width: [32]")), "scene.yaml:2:10: image.width: expected an integer");
    EXPECT_EQ(load_error(with_line(15, "    radius: big")),
              "scene.yaml:15:13: objects[0].radius: expected a number, got 'big'");
    EXPECT_EQ(load_error(with_line(15, "    radius: {r: 1}")),
              "scene.yaml:15:13: objects[0].radius: expected a number");
    EXPECT_EQ(load_error(with_line(14, "    center: 5")),
              "scene.yaml:14:13: objects[0].center: expected a list of 3 numbers");
    EXPECT_EQ(load_error(with_line(14, "    center: [1, 2]")),
              "scene.yaml:14:13: objects[0].center: expected a list of 3 numbers");
    EXPECT_EQ(load_error(with_line(14, "    center: [1, two, 3]")),
              "scene.yaml:14:17: objects[0].center[1]: expected a number, got 'two'");
    EXPECT_EQ(load_error(with_line(4, "  output: [a.png]")), "scene.yaml:4:11: image.output: expected a file name");
    const std::vector<std::string> lines = base_lines();
    const std::string head = join_lines({lines.begin(), lines.begin() + 11});  // lines 1-11
    EXPECT_EQ(load_error(head + "objects: {}\n"), "scene.yaml:12:10: objects: expected a list of objects");
    EXPECT_EQ(load_error(head + "objects: [sphere]\n"),
              "scene.yaml:12:11: objects[0]: expected an object mapping with a 'type'");
    EXPECT_EQ(load_error(
                  with_line(10, "materials: [red]").replace(with_line(10, "materials: [red]").find("  red:"), 2, "# ")),
              "scene.yaml:10:12: materials: expected a mapping of material names to materials");
    EXPECT_EQ(load_error("image: 5\n" + join_lines({lines.begin() + 4, lines.end()})),
              "scene.yaml:1:8: image: expected a mapping of keys to values");
    EXPECT_EQ(load_error(with_line(11, "  red: lambertian")),
              "scene.yaml:11:8: materials.red: expected a material mapping with a 'type'");
    EXPECT_EQ(load_error(with_line(6, "  spp: \"four\"")),
              "scene.yaml:6:8: sampling.spp: expected an integer, got 'four'");
    // An empty value is reported at its key, not at the next line's token.
    EXPECT_EQ(load_error(with_line(6, "  spp:")),
              "scene.yaml:6:3: sampling.spp: expected an integer, got an empty value");
    EXPECT_EQ(load_error(with_line(15, "    radius:")),
              "scene.yaml:15:5: objects[0].radius: expected a number, got an empty value");
    EXPECT_EQ(load_error(with_line(14, "    center:")),
              "scene.yaml:14:5: objects[0].center: expected a list of 3 numbers");
}

// ---- missing keys -----------------------------------------------------------------

TEST(SceneLoaderErrors, MissingRequiredKeysNameTheirParent) {
    EXPECT_EQ(load_error(with_line(15, "    # no radius")),
              "scene.yaml:13:5: objects[0]: missing required key 'radius'");
    EXPECT_EQ(load_error(with_line(16, "")), "scene.yaml:13:5: objects[0]: missing required key 'material'");
    EXPECT_EQ(load_error(with_line(13, "  - center: [0, 0, 0]")),
              "scene.yaml:13:5: objects[0]: missing required key 'type'");
    EXPECT_EQ(load_error(with_line(2, "")), "scene.yaml:3:3: image: missing required key 'width'");
    EXPECT_EQ(load_error(with_line(4, "")), "scene.yaml:2:3: image: missing required key 'output'");
    EXPECT_EQ(load_error(with_line(6, "  seed: 1")), "scene.yaml:6:3: sampling: missing required key 'spp'");
    EXPECT_EQ(load_error(with_line(8, "")), "scene.yaml:9:3: camera: missing required key 'lookfrom'");
    EXPECT_EQ(load_error(with_line(11, "  red: {albedo: [1, 1, 1]}")),
              "scene.yaml:11:8: materials.red: missing required key 'type'");
    EXPECT_EQ(load_error(with_line(11, "  red: {type: lambertian}")),
              "scene.yaml:11:8: materials.red: missing required key 'albedo'");
    const std::vector<std::string> lines = base_lines();
    const std::string no_objects = join_lines({lines.begin(), lines.begin() + 11});
    EXPECT_EQ(load_error(no_objects), "scene.yaml:1:1: scene: missing required key 'objects'");
    const std::string no_image = join_lines({lines.begin() + 4, lines.end()});
    EXPECT_EQ(load_error(no_image), "scene.yaml:1:1: scene: missing required key 'image'");
}

// ---- NaN and infinity ---------------------------------------------------------------

TEST(SceneLoaderErrors, NotANumberAndInfinityAreRejected) {
    EXPECT_EQ(load_error(with_line(15, "    radius: .nan")),
              "scene.yaml:15:13: objects[0].radius: must be a finite number, got .nan");
    EXPECT_EQ(load_error(with_line(15, "    radius: .inf")),
              "scene.yaml:15:13: objects[0].radius: must be a finite number, got .inf");
    EXPECT_EQ(load_error(with_line(15, "    radius: nan")),
              "scene.yaml:15:13: objects[0].radius: must be a finite number, got nan");
    EXPECT_EQ(load_error(with_line(14, "    center: [0, -.inf, 0]")),
              "scene.yaml:14:17: objects[0].center[1]: must be a finite number, got -.inf");
    EXPECT_EQ(load_error(with_line(14, "    center: [0, 0, 1e999]")),
              "scene.yaml:14:20: objects[0].center[2]: must be a finite number, got 1e999");
    EXPECT_EQ(load_error(with_line(11, "  red: {type: lambertian, albedo: [0.8, .NaN, 0.1]}")),
              "scene.yaml:11:41: materials.red.albedo[1]: must be a finite number, got .NaN");
    EXPECT_EQ(load_error(with_line(9, "  lookat: [0, 0, Infinity]")),
              "scene.yaml:9:18: camera.lookat[2]: must be a finite number, got Infinity");
}

TEST(SceneLoaderErrors, NumbersBeyondFloatRangeAreRejected) {
    // 1e39 is finite in double but infinite as the float the renderer uses.
    EXPECT_EQ(load_error(with_line(11, "  red: {type: lambertian, albedo: [0.8, 0.1, 1e39]}")),
              "scene.yaml:11:46: materials.red.albedo[2]: must be a finite 32-bit float (magnitude at most 3.4e38), "
              "got 1e39");
    EXPECT_EQ(
        load_error(with_line(15, "    radius: 1e39")),
        "scene.yaml:15:13: objects[0].radius: must be a finite 32-bit float (magnitude at most 3.4e38), got 1e39");
}

// ---- sizes ----------------------------------------------------------------------------

TEST(SceneLoaderErrors, NegativeRadiusReadsLikeTheIssueExample) {
    EXPECT_EQ(load_error(with_line(15, "    radius: -1")), "scene.yaml:15:13: objects[0].radius: must be > 0, got -1");
    EXPECT_EQ(load_error(with_line(15, "    radius: 0")), "scene.yaml:15:13: objects[0].radius: must be > 0, got 0");
    // The fourth object, as in the issue's example line.
    const std::string four = with_appended(
        "  - {type: sphere, center: [0, 0, 1], radius: 1, material: red}\n"
        "  - {type: sphere, center: [0, 0, 2], radius: 1, material: red}\n"
        "  - {type: sphere, center: [0, 0, 3], radius: -1, material: red}");
    EXPECT_EQ(load_error(four), "scene.yaml:19:47: objects[3].radius: must be > 0, got -1");
}

TEST(SceneLoaderErrors, ZeroNegativeAndAbsurdImageSizes) {
    EXPECT_EQ(load_error(with_line(2, "  width: 0")),
              "scene.yaml:2:10: image.width: must be between 1 and 65536, got 0");
    EXPECT_EQ(load_error(with_line(3, "  height: -24")),
              "scene.yaml:3:11: image.height: must be between 1 and 65536, got -24");
    EXPECT_EQ(load_error(with_line(2, "  width: 100000")),
              "scene.yaml:2:10: image.width: must be between 1 and 65536, got 100000");
    EXPECT_EQ(load_error(with_line(2, "  width: 99999999999999999999999")),
              "scene.yaml:2:10: image.width: must be between 1 and 65536, got 99999999999999999999999");
    std::vector<std::string> lines = base_lines();
    lines[1] = "  width: 65536";
    lines[2] = "  height: 65536";
    EXPECT_EQ(load_error(join_lines(lines)),
              "scene.yaml:3:11: image.height: image of 65536x65536 exceeds the limit of 268435456 pixels");
    EXPECT_EQ(load_error(with_line(6, "  spp: 0")),
              "scene.yaml:6:8: sampling.spp: must be between 1 and 16777216, got 0");
    EXPECT_EQ(load_error(with_line(6, "  spp: 16777217")),
              "scene.yaml:6:8: sampling.spp: must be between 1 and 16777216, got 16777217");
}

TEST(SceneLoaderErrors, WidthTimesHeightTimesSppOverflow) {
    // Each factor is within its own limit; their product is not.
    std::vector<std::string> lines = base_lines();
    lines[1] = "  width: 16384";
    lines[2] = "  height: 16384";
    lines[5] = "  spp: 16777216";
    EXPECT_EQ(load_error(join_lines(lines)),
              "scene.yaml:6:8: sampling.spp: width x height x spp = 4503599627370496 samples exceeds the limit of "
              "17592186044416");
    lines[5] = "  spp: 65536";  // 2^44: exactly the limit
    EXPECT_EQ(load_error(join_lines(lines)), "(no error)");
}

TEST(SceneLoaderErrors, OtherOutOfRangeValues) {
    EXPECT_EQ(load_error(with_inserted(6, "  max_depth: 0")),
              "scene.yaml:7:14: sampling.max_depth: must be between 1 and 10000, got 0");
    EXPECT_EQ(load_error(with_inserted(6, "  max_depth: 1000000")),
              "scene.yaml:7:14: sampling.max_depth: must be between 1 and 10000, got 1000000");
    EXPECT_EQ(load_error(with_inserted(6, "  seed: -1")),
              "scene.yaml:7:9: sampling.seed: expected an integer between 0 and 18446744073709551615, got '-1'");
    EXPECT_EQ(load_error(with_inserted(9, "  vfov: 0")), "scene.yaml:10:9: camera.vfov: must be in (0, 180), got 0");
    EXPECT_EQ(load_error(with_inserted(9, "  vfov: 180")),
              "scene.yaml:10:9: camera.vfov: must be in (0, 180), got 180");
    EXPECT_EQ(load_error(with_inserted(9, "  vfov: 179.5")), "(no error)");
    EXPECT_EQ(load_error(with_inserted(9, "  vfov: 0.0001")), "(no error)");
    EXPECT_EQ(load_error(with_inserted(9, "  defocus_angle: -1")),
              "scene.yaml:10:18: camera.defocus_angle: must be in [0, 180), got -1");
    EXPECT_EQ(load_error(with_inserted(9, "  focus_dist: 0")),
              "scene.yaml:10:15: camera.focus_dist: must be > 0, got 0");
    EXPECT_EQ(load_error(with_line(11, "  red: {type: metal, albedo: [1, 1, 1], fuzz: 1.5}")),
              "scene.yaml:11:47: materials.red.fuzz: must be in [0, 1], got 1.5");
    EXPECT_EQ(load_error(with_line(11, "  red: {type: dielectric, ior: 0}")),
              "scene.yaml:11:32: materials.red.ior: must be > 0, got 0");
    EXPECT_EQ(load_error(with_line(11, "  red: {type: emissive, color: [1, -1, 1]}")),
              "scene.yaml:11:32: materials.red.color: color components must be >= 0");
    EXPECT_EQ(load_error(with_line(11,
                                   "  red: {type: lambertian, albedo: {texture: checker, scale: 0, even: [1, 1, 1], "
                                   "odd: [0, 0, 0]}}")),
              "scene.yaml:11:61: materials.red.albedo.scale: must be > 0, got 0");
}

TEST(SceneLoaderErrors, AbsurdCoordinatesAndLengths) {
    // Beyond 1e9 the intersection code's squares would overflow float.
    EXPECT_EQ(load_error(with_line(15, "    radius: 1e20")),
              "scene.yaml:15:13: objects[0].radius: must be at most 1e+09, got 1e20");
    EXPECT_EQ(load_error(with_line(14, "    center: [0, 2e9, 0]")),
              "scene.yaml:14:17: objects[0].center[1]: must be between -1e+09 and 1e+09, got 2e9");
    EXPECT_EQ(load_error(with_appended("  - {type: quad, Q: [0, 0, 0], u: [1e10, 0, 0], v: [0, 1, 0], material: red}")),
              "scene.yaml:17:36: objects[1].u[0]: must be between -1e+09 and 1e+09, got 1e10");
    EXPECT_EQ(load_error(with_line(15, "    radius: 1e9")), "(no error)");
}

TEST(SceneLoaderErrors, DegenerateGeometryAndCamera) {
    EXPECT_EQ(load_error(with_appended("  - {type: quad, Q: [0, 0, 0], u: [1, 0, 0], v: [2, 0, 0], material: red}")),
              "scene.yaml:17:49: objects[1].v: u and v must not be parallel or zero");
    EXPECT_EQ(
        load_error(with_appended("  - {type: triangle, vertices: [[0, 0, 0], [1, 1, 1], [2, 2, 2]], material: red}")),
        "scene.yaml:17:32: objects[1].vertices: degenerate triangle (zero area)");
    EXPECT_EQ(load_error(with_appended("  - {type: triangle, vertices: [[0, 0, 0], [1, 0, 0]], material: red}")),
              "scene.yaml:17:32: objects[1].vertices: expected 3 vertices");
    EXPECT_EQ(load_error(with_appended("  - {type: triangle, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "
                                       "normals: [[0, 0, 1], [0, 0, 0], [0, 0, 1]], material: red}")),
              "scene.yaml:17:88: objects[1].normals[1]: normal must not be zero");
    EXPECT_EQ(load_error(with_line(9, "  lookat: [0, 1, 5]")),
              "scene.yaml:9:11: camera.lookat: must differ from lookfrom");
    EXPECT_EQ(load_error(with_inserted(9, "  vup: [0, 2, 10]")),
              "scene.yaml:10:8: camera.vup: vup must not be parallel to the view direction");
}

// The projections: each key of a camera applies to its projection only.
TEST(SceneLoaderErrors, CameraProjections) {
    EXPECT_EQ(load_error(with_inserted(7, "  projection: fisheye")),
              "scene.yaml:8:15: camera.projection: unknown value 'fisheye' (expected perspective | orthographic | "
              "equirectangular)");
    EXPECT_EQ(load_error(with_inserted(7, "  ortho_height: 3")),
              "scene.yaml:8:17: camera.ortho_height: applies only to an orthographic camera (projection: "
              "orthographic)");
    EXPECT_EQ(load_error(with_inserted(7, "  projection: orthographic\n  ortho_height: -3"))
                  .rfind("scene.yaml:9:17: camera.ortho_height: ", 0),
              0u);
    const SceneDescription ortho = load(with_inserted(7, "  projection: orthographic\n  ortho_height: 3"));
    EXPECT_EQ(ortho.settings.camera.projection, Projection::Orthographic);
    EXPECT_EQ(ortho.settings.camera.ortho_height, 3.0);
    EXPECT_EQ(load(with_inserted(7, "  projection: equirectangular")).settings.camera.projection,
              Projection::Equirectangular);
    EXPECT_EQ(load(kBaseScene).settings.camera.projection, Projection::Perspective);
    // The perspective camera's keys stay valid on the others (a scene's
    // projection switched with --set keeps its other keys), and are still checked.
    EXPECT_EQ(load(with_inserted(7, "  projection: equirectangular\n  vfov: 40")).settings.camera.projection,
              Projection::Equirectangular);
    EXPECT_EQ(load_error(with_inserted(7, "  projection: orthographic\n  vfov: 400"))
                  .rfind("scene.yaml:9:9: camera.vfov: ", 0),
              0u);
}

// ---- names and types ------------------------------------------------------------------

TEST(SceneLoaderErrors, UnknownMaterialNamesAndTypes) {
    EXPECT_EQ(load_error(with_line(16, "    material: rde")),
              "scene.yaml:16:15: objects[0].material: unknown material 'rde'");
    EXPECT_EQ(
        load_error(with_line(11, "  red: {type: lambertain, albedo: [0.8, 0.1, 0.1]}")),
        "scene.yaml:11:15: materials.red.type: unknown value 'lambertain' (expected lambertian | metal | dielectric "
        "| emissive | principled)");
    EXPECT_EQ(load_error(with_line(13, "  - type: cube")),
              "scene.yaml:13:11: objects[0].type: unknown value 'cube' (expected sphere | quad | box | triangle | mesh "
              "| model)");
    EXPECT_EQ(load_error(with_inserted(4, "  encoding: gama2")),
              "scene.yaml:5:13: image.encoding: unknown value 'gama2' (expected srgb | gamma2 | linear)");
    EXPECT_EQ(load_error(with_line(11,
                                   "  red: {type: lambertian, albedo: {texture: stripes, scale: 1, even: [1, 1, 1], "
                                   "odd: [0, 0, 0]}}")),
              "scene.yaml:11:45: materials.red.albedo.texture: unknown value 'stripes' (expected checker | image)");
    // A material defined after use is still unknown where it is used? Names are global: order does not matter.
    EXPECT_EQ(load_error(with_line(16, "    material: {type: metal, albedo: [1, 1, 1], fuzz: 0.1, ior: 1}")),
              "scene.yaml:16:59: objects[0].material.ior: unknown key (expected one of: type, albedo, fuzz)");
}

TEST(SceneLoaderErrors, UnsupportedOutputExtensions) {
    EXPECT_STARTS_WITH(load_error(with_line(4, "  output: out.xyz")),
                       "scene.yaml:4:11: image.output: unsupported image extension '.xyz'");
    EXPECT_EQ(load_error(with_line(4, "  output: out")),
              "scene.yaml:4:11: image.output: no file extension to choose the image format by (use .png, .exr, ...)");
    EXPECT_EQ(load_error(with_inserted(4, "  data_type: float")),
              "scene.yaml:5:14: image.data_type: .ppm images hold integer data only");
    EXPECT_EQ(load_error(with_line(4, "  output: out.pfm\n  data_type: uint8")),
              "scene.yaml:5:14: image.data_type: .pfm images hold float data only");
    // image.alpha: a boolean, for a format that keeps alpha (PPM keeps it beside).
    EXPECT_EQ(load_error(with_inserted(4, "  alpha: yes please")),
              "scene.yaml:5:10: image.alpha: unknown value 'yes please' (expected true | false)");
    EXPECT_EQ(load_error(with_line(4, "  output: out.jpg\n  alpha: true")),
              "scene.yaml:5:10: image.alpha: .jpg images have no alpha channel (use .exr, .png or .tiff; .pfm and "
              ".ppm get a NAME.alpha.pfm beside them)");
    EXPECT_EQ(load_error(with_inserted(4, "  alpha: true")), "(no error)");
}

// ---- files ------------------------------------------------------------------------------

TEST(SceneLoaderFiles, UnreadableSceneFileIsOneLineNamingThePath) {
    try {
        load_scene_file("/nonexistent-directory/scene.yaml");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "/nonexistent-directory/scene.yaml: cannot read scene file: No such file or directory");
    }
    const TemporaryDirectory directory;
    try {
        load_scene_file(directory.path().string());
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), directory.path().string() + ": cannot read scene file: is a directory");
    }
}

TEST(SceneLoaderFiles, ErrorsInAFileNameThatFileAsGiven) {
    const TemporaryDirectory directory;
    const std::string path = directory.file("bad.yaml");
    write_text(path, with_line(15, "    radius: -1"));
    try {
        load_scene_file(path);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), path + ":15:13: objects[0].radius: must be > 0, got -1");
    }
}

TEST(SceneLoaderFiles, SceneDirectoryIsTheFilesDirectory) {
    const TemporaryDirectory directory;
    const std::string path = directory.file("good.yaml");
    write_text(path, kBaseScene);
    const SceneDescription d = load_scene_file(path);
    EXPECT_EQ(d.settings.scene_directory, directory.path().string());
    EXPECT_EQ(d.settings.scene_file, path);
}

TEST(SceneLoaderFiles, CommittedConfigsLoad) {
    // Their outputs are .png: name a built-in format so that this passes without OpenImageIO too.
    const std::vector<SceneOverride> builtin_output = {SceneOverride{"image.output=out.pfm", ""}};
    const SceneDescription spheres = load_scene_file(testing::source_path("configs/spheres.yaml"), builtin_output);
    EXPECT_EQ(spheres.settings.width, 1200u);
    EXPECT_EQ(spheres.settings.height, 675u);
    EXPECT_GT(spheres.scene.spheres.size(), 400u);  // ground, 3 big spheres, the grid of small ones
    EXPECT_FLOAT_EQ(float(spheres.settings.camera.vfov), 20.0f);
    const SceneDescription tiny = load_scene_file(testing::source_path("configs/tiny.yaml"), builtin_output);
    EXPECT_EQ(tiny.scene.quads.size(), 1u);
    EXPECT_EQ(tiny.scene.triangles.size(), 1u);
    const SceneDescription emissive = load_scene_file(testing::source_path("configs/emissive.yaml"), builtin_output);
    EXPECT_EQ(emissive.scene.background.type, BackgroundType::Constant);
}

// ---- inline materials and defaults ------------------------------------------------------

TEST(SceneLoader, InlineMaterialsAreAddedPerObject) {
    const SceneDescription d = load(with_appended(
        "  - {type: sphere, center: [2, 0, 0], radius: 1, material: {type: metal, albedo: [0.7, 0.6, 0.5], fuzz: "
        "0.25}}\n"
        "  - {type: sphere, center: [4, 0, 0], radius: 1, material: {type: dielectric, ior: 1.33}}\n"
        "  - {type: sphere, center: [6, 0, 0], radius: 1, material: {type: emissive, color: [4, 4, 4]}}"));
    ASSERT_EQ(d.scene.spheres.size(), 4u);
    ASSERT_EQ(d.scene.materials.size(), 4u);
    const Material& metal = d.scene.materials[d.scene.spheres[1].material];
    EXPECT_EQ(metal.type, MaterialType::Metal);
    EXPECT_EQ(metal.fuzz, 0.25f);
    EXPECT_EQ(d.scene.textures[metal.albedo_texture].color.y, 0.6f);
    EXPECT_EQ(d.scene.materials[d.scene.spheres[2].material].ior, 1.33f);
    EXPECT_EQ(d.scene.textures[d.scene.materials[d.scene.spheres[3].material].emission_texture].color.x, 4.0f);
    EXPECT_EQ(d.scene.spheres[0].material, 0u);  // the named one
}

TEST(SceneLoader, NamedMaterialsAreSharedAndTexturesParsed) {
    const SceneDescription d = load(with_line(11,
                                              "  red: {type: lambertian, albedo: {texture: checker, scale: 0.5, "
                                              "even: [0.2, 0.3, 0.1], odd: [0.9, 0.9, 0.9]}}") +
                                    "  - {type: sphere, center: [2, 0, 0], radius: 1, material: red}\n");
    EXPECT_EQ(d.scene.materials.size(), 1u);
    EXPECT_EQ(d.scene.spheres[0].material, d.scene.spheres[1].material);
    const Texture& checker = d.scene.textures[d.scene.materials[0].albedo_texture];
    EXPECT_EQ(checker.type, TextureType::Checker);
    EXPECT_EQ(checker.inverse_scale, 2.0f);
    EXPECT_EQ(checker.odd.x, 0.9f);
}

// image.region cuts a window from the frame: the image is the window, the
// camera keeps the whole frame; without it the image is the whole frame.
TEST(SceneLoader, RegionIsAWindowOfTheWholeFrame) {
    const RenderSettings whole = load(kBaseScene).settings;
    EXPECT_EQ(whole.film_width, 32u);
    EXPECT_EQ(whole.film_height, 24u);
    EXPECT_FALSE(is_region(whole));
    const RenderSettings window = load(with_inserted(4, "  region: [4, 30, 0, 9]")).settings;
    EXPECT_EQ(window.width, 26u);
    EXPECT_EQ(window.height, 9u);
    EXPECT_EQ(window.film_width, 32u);
    EXPECT_EQ(window.film_height, 24u);
    EXPECT_EQ(window.region_x, 4u);
    EXPECT_EQ(window.region_y, 0u);
    EXPECT_TRUE(is_region(window));
    EXPECT_EQ(load_error(with_inserted(4, "  region: [4, 30, 0, 25]")),
              "scene.yaml:5:22: image.region[3]: y1 = 25 is beyond the frame's height of 24");
    EXPECT_EQ(load_error(with_inserted(4, "  region: {x: [0, 4]}")),
              "scene.yaml:5:11: image.region: expected [x0, x1, y0, y1]: the columns [x0, x1) and rows [y0, y1) to "
              "render");
    // A wider frame from --set makes room for the window.
    EXPECT_EQ(load(with_inserted(4, "  region: [30, 40, 0, 9]"), sets({"image.width=40"})).settings.width, 10u);
}

TEST(SceneLoader, DefaultsOfOptionalValues) {
    const SceneDescription d = load(kBaseScene);
    const RenderSettings& s = d.settings;
    EXPECT_EQ(s.encoding, Encoding::Srgb);
    EXPECT_EQ(s.data_type, PixelDataType::UInt8);
    EXPECT_EQ(s.max_depth, 50);
    EXPECT_EQ(s.seed, 0u);
    EXPECT_EQ(s.camera.vup.y, 1.0f);
    EXPECT_EQ(s.camera.vfov, 90.0);
    EXPECT_EQ(s.camera.defocus_angle, 0.0);
    EXPECT_NEAR(s.camera.focus_dist, std::sqrt(26.0), 1e-6);  // |lookfrom - lookat|
    EXPECT_EQ(d.scene.background.type, BackgroundType::Sky);
    EXPECT_EQ(d.scene.background.horizon.x, 1.0f);
    EXPECT_EQ(d.scene.background.zenith.y, 0.7f);
    EXPECT_EQ(d.scene.spheres[0].velocity.x, 0.0f);
    const SceneDescription metal = load(with_line(11, "  red: {type: metal, albedo: [1, 1, 1]}"));
    EXPECT_EQ(metal.scene.materials[0].fuzz, 0.0f);
    const SceneDescription exr = load(with_line(4, "  output: out.pfm"));
    EXPECT_EQ(exr.settings.data_type, PixelDataType::Float);
    const SceneDescription triangle =
        load(with_appended("  - {type: triangle, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], material: red}"));
    const Triangle& t = triangle.scene.triangles[0];
    EXPECT_EQ(t.uv[2], 1.0f);
    EXPECT_EQ(t.uv[5], 1.0f);
    EXPECT_EQ(length_squared(t.normal0), 0.0f);  // flat shading
}

TEST(SceneLoader, EveryOptionalValueIsRead) {
    const SceneDescription d = load(
        "image: {width: 10, height: 5, output: a.ppm, encoding: gamma2, data_type: uint16}\n"
        "sampling: {spp: 3, max_depth: 9, seed: 18446744073709551615}\n"
        "camera: {lookfrom: [1, 2, 3], lookat: [0, 0, 0], vup: [0, 0, 1], vfov: 35, defocus_angle: 2, focus_dist: 4}\n"
        "background: {sky: {horizon: [0.1, 0.2, 0.3], zenith: [0.4, 0.5, 0.6]}}\n"
        "objects:\n"
        "  - {type: sphere, center: [0, 0, 0], center1: [0, 1, 0], radius: 1, material: {type: lambertian, albedo: [1, "
        "1, 1]}}\n"
        "  - {type: quad, Q: [0, 0, 0], u: [1, 0, 0], v: [0, 1, 0], material: {type: lambertian, albedo: [1, 1, 1]}}\n"
        "  - {type: triangle, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], normals: [[0, 0, 2], [0, 0, 1], [0, 0, "
        "1]],\n"
        "     uvs: [[0.5, 0.5], [1, 0.5], [0.5, 1]], material: {type: lambertian, albedo: [1, 1, 1]}}\n");
    EXPECT_EQ(d.settings.encoding, Encoding::Gamma2);
    EXPECT_EQ(d.settings.data_type, PixelDataType::UInt16);
    EXPECT_EQ(d.settings.max_depth, 9);
    EXPECT_EQ(d.settings.seed, 18446744073709551615ull);
    EXPECT_EQ(d.settings.camera.vup.z, 1.0f);
    EXPECT_EQ(d.settings.camera.defocus_angle, 2.0);
    EXPECT_EQ(d.settings.camera.focus_dist, 4.0);
    EXPECT_EQ(d.scene.background.zenith.z, 0.6f);
    EXPECT_EQ(d.scene.spheres[0].velocity.y, 1.0f);
    EXPECT_EQ(d.scene.quads[0].normal.z, 1.0f);
    EXPECT_EQ(d.scene.triangles[0].normal0.z, 1.0f);  // normalised
    EXPECT_EQ(d.scene.triangles[0].uv[0], 0.5f);
}

}  // namespace
}  // namespace farmrt
