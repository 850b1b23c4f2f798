// Imported models (io/model_loader.h): glTF 2.0 accessors of every kind the
// spec allows, node hierarchies against transforms computed here in double,
// instancing, cameras, materials and punctual lights; OBJ with MTL (the
// Cornell box whose colours live in its material library renders like the
// scene-file one); PLY in its three encodings; and hostile files of each
// format, which give one line naming the file and the place.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "core/errors.h"
#include "io/mesh_loader.h"
#include "io/model_loader.h"
#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "gltf_builder.h"
#include "render/render_job.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

using namespace testing_gltf;

TEST(GltfImport, EveryIndexTypeAndPrimitiveModeGivesTheSameSquare) {
    testing::TemporaryDirectory directory;
    for (int index_type : {kUnsignedByte, kUnsignedShort, kUnsignedInt}) {
        GltfBuilder b;
        const int positions = b.add_values(kSquare, kFloat, 4, "VEC3");
        int indices = -1;
        const std::vector<int> corners = {0, 1, 2, 0, 2, 3};
        if (index_type == kUnsignedByte)
            indices = b.add_values(std::vector<uint8_t>(corners.begin(), corners.end()), index_type, 6, "SCALAR");
        if (index_type == kUnsignedShort)
            indices = b.add_values(std::vector<uint16_t>(corners.begin(), corners.end()), index_type, 6, "SCALAR");
        if (index_type == kUnsignedInt)
            indices = b.add_values(std::vector<uint32_t>(corners.begin(), corners.end()), index_type, 6, "SCALAR");
        const int strip = b.add_values(std::vector<uint16_t>{1, 2, 0, 3}, kUnsignedShort, 4, "SCALAR");
        const std::string body =
            "\"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": " + std::to_string(positions) +
            "}, \"indices\": " + std::to_string(indices) +
            "}]}, {\"primitives\": [{\"attributes\": {\"POSITION\": " + std::to_string(positions) +
            "}, \"indices\": " + std::to_string(strip) +
            ", \"mode\": 5}]}, "
            "{\"primitives\": [{\"attributes\": {\"POSITION\": " +
            std::to_string(positions) +
            "}, \"mode\": 6}]}], "
            "\"nodes\": [{\"mesh\": 0}, {\"mesh\": 1}, {\"mesh\": 2}], \"scenes\": [{\"nodes\": [0, 1, 2]}]";
        const ModelData model = load_text(directory, "square.gltf", b.json(body));
        ASSERT_EQ(model.meshes.size(), 3u);
        for (const ModelMesh& mesh : model.meshes) {
            ASSERT_EQ(mesh.triangles.size(), 2u) << index_type;
            double area = 0;
            for (const Triangle& t : mesh.triangles) {
                const Vec3 n = cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0);
                EXPECT_GT(n.z, 0.0f) << "winding kept counter-clockwise";
                area += 0.5 * length(n);
            }
            EXPECT_NEAR(area, 1.0, 1e-6);
        }
        // No material: the spec's default (white, metallic 1, roughness 1).
        ASSERT_EQ(model.materials.size(), 1u);
        EXPECT_EQ(model.materials[0].type, MaterialType::Principled);
        EXPECT_EQ(model.textures[model.materials[0].metallic_roughness_texture].color.z, 1.0f);
    }
}

// Lines and points beside triangles (guides, wireframes) are left out with
// a warning; a file of nothing else is refused (above).
TEST(GltfImport, PointsAndLinesBesideTrianglesAreLeftOut) {
    testing::TemporaryDirectory directory;
    GltfBuilder b;
    const int positions = b.add_values(kSquare, kFloat, 4, "VEC3");
    const std::string p = std::to_string(positions);
    const ModelData model = load_text(directory, "mixed.gltf",
                                      b.json("\"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": " + p +
                                             "}, \"mode\": 6}, {\"attributes\": {\"POSITION\": " + p +
                                             "}, \"mode\": 1}, {\"attributes\": "
                                             "{\"POSITION\": " +
                                             p + "}, \"mode\": 0}]}], \"nodes\": [{\"mesh\": 0}]"));
    ASSERT_EQ(model.meshes.size(), 1u);
    EXPECT_EQ(model.meshes[0].triangles.size(), 2u);
    ASSERT_EQ(model.warnings.size(), 1u);
    EXPECT_NE(model.warnings[0].find("leaves out primitives of points or lines"), std::string::npos)
        << model.warnings[0];
}

TEST(GltfImport, NormalisedTexCoordsNormalsAndSparseAccessors) {
    testing::TemporaryDirectory directory;
    GltfBuilder b;
    const int positions = b.add_values(kSquare, kFloat, 4, "VEC3");
    const int normals = b.add_values(std::vector<float>{0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 2}, kFloat, 4, "VEC3");
    const int uv8 = b.add_values(std::vector<uint8_t>{0, 0, 255, 0, 255, 255, 0, 255}, kUnsignedByte, 4, "VEC2", true);
    const int uv16 =
        b.add_values(std::vector<uint16_t>{0, 0, 65535, 0, 65535, 65535, 0, 65535}, kUnsignedShort, 4, "VEC2", true);
    // Sparse: vertex 2 of the square moved to (3, 3, 0).
    const int sparse_indices = b.add_values(std::vector<uint16_t>{2}, kUnsignedShort, 1, "SCALAR");
    const int sparse_values = b.add_values(std::vector<float>{3, 3, 0}, kFloat, 1, "VEC3");
    b.accessors.push_back(
        "{\"bufferView\": 0, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\", \"sparse\": "
        "{\"count\": 1, \"indices\": {\"bufferView\": " +
        std::to_string(sparse_indices) +
        ", \"componentType\": 5123}, \"values\": {\"bufferView\": " + std::to_string(sparse_values) + "}}}");
    const int sparse = int(b.accessors.size() - 1);
    const std::string body =
        "\"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": " + std::to_string(positions) +
        ", \"NORMAL\": " + std::to_string(normals) + ", \"TEXCOORD_0\": " + std::to_string(uv8) +
        "}, \"mode\": 6}, "
        "{\"attributes\": {\"POSITION\": " +
        std::to_string(positions) + ", \"TEXCOORD_0\": " + std::to_string(uv16) +
        "}, \"mode\": 6}, {\"attributes\": {\"POSITION\": " + std::to_string(sparse) +
        "}, \"mode\": 6}]}], "
        "\"nodes\": [{\"mesh\": 0}]";
    const ModelData model = load_text(directory, "square.gltf", b.json(body));
    ASSERT_EQ(model.meshes.size(), 1u);
    const std::vector<Triangle>& t = model.meshes[0].triangles;
    ASSERT_EQ(t.size(), 6u);
    expect_near(t[0].normal0, Vec3(0, 0, 1));  // unit length
    for (int k : {0, 2}) {
        // Corner 2 of the fan's first triangle is vertex 2: (u, v) = (1, 1) in
        // glTF, (1, 0) once v counts up from the bottom of the image.
        EXPECT_NEAR(t[size_t(k)].uv[4], 1.0f, 1e-6f);
        EXPECT_NEAR(t[size_t(k)].uv[5], 0.0f, 1e-6f);
    }
    EXPECT_EQ(length_squared(t[2].normal0), 0.0f);  // no NORMAL: flat
    expect_near(t[4].vertex2, Vec3(3, 3, 0));
    expect_near(t[4].vertex1, Vec3(1, 0, 0));
}

// The node hierarchy, instancing, camera, materials and light of
// configs/models/shapes.gltf, against the file's numbers.
TEST(GltfImport, HierarchyInstancesCameraMaterialsAndLights) {
    const ModelData model = load_model(testing::source_path("configs/models/shapes.gltf"), "shapes.gltf");
    ASSERT_EQ(model.meshes.size(), 4u);
    ASSERT_EQ(model.placements.size(), 5u);
    // The gold box: shelf (translate y 0.5) then its node (translate -1.3, turn 45 degrees about y).
    const double c = std::cos(M_PI / 4), s = std::sin(M_PI / 4);
    const ModelPlacement& gold = model.placements[0];
    for (const Vec3& p : {Vec3(0.5f, 0.5f, 0.5f), Vec3(-0.5f, 0.2f, 0.1f)}) {
        const Vec3 expected(float(c * p.x + s * p.z - 1.3), float(p.y + 0.5), float(-s * p.x + c * p.z));
        expect_near(gold.model_from_mesh.point(p), expected);
    }
    // The plastic box's mesh is placed twice: one mesh, two placements.
    EXPECT_EQ(model.placements[2].mesh, model.placements[3].mesh);
    Scene scene;
    add_model_to_scene(model, Transform::translate(Vec3(0, 1, 0)), scene, "shapes.gltf");
    EXPECT_EQ(scene.instance_count(), 2u);
    for (const auto& placement : scene.instance_placements) EXPECT_EQ(placement.material, kGeometryMaterial);
    ASSERT_EQ(scene.punctual_lights.size(), 1u);
    const Light& light = scene.punctual_lights[0];
    EXPECT_EQ(light.type, LightType::Spot);
    expect_near(light.position, Vec3(0, 6, 2));
    expect_near(light.intensity, Vec3(1.0f, 0.9f, 0.8f) * float(60000.0 / 683.0), 1e-3f);
    expect_near(light.direction, Vec3(0, -float(std::sin(65 * M_PI / 180)), -float(std::cos(65 * M_PI / 180))), 1e-5f);
    EXPECT_NEAR(light.cos_outer, std::cos(0.6), 1e-6);
    ASSERT_TRUE(model.camera.has_value());
    expect_near(model.camera->settings.lookfrom, Vec3(0, 2.2f, 5.5f));
    const Vec3 view = model.camera->settings.lookat - model.camera->settings.lookfrom;
    expect_near(view, Vec3(0, -float(std::sin(20 * M_PI / 180)), -float(std::cos(20 * M_PI / 180))));
    EXPECT_NEAR(model.camera->settings.vfov, 0.7 * 180 / M_PI, 1e-9);
    // Materials: gold metal, glass (transmission, ior), plastic.
    ASSERT_EQ(model.materials.size(), 4u);
    const Material& glass = model.materials[1];
    EXPECT_EQ(glass.transmission, 1.0f);
    EXPECT_EQ(glass.ior, 1.5f);
    const Texture& gold_roughness = model.textures[model.materials[0].metallic_roughness_texture];
    expect_near(gold_roughness.color, Vec3(0, 0.3f, 1));
}

// An orthographic camera: its view height is twice ymag and its aspect
// xmag / ymag; a magnification that is not positive names its place.
TEST(GltfImport, OrthographicCameras) {
    testing::TemporaryDirectory directory;
    auto with_camera = [](const std::string& magnifications) {
        GltfBuilder b;
        const int positions = b.add_values(kSquare, kFloat, 4, "VEC3");
        return b.json("\"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": " + std::to_string(positions) +
                      "}, \"mode\": 6}]}], \"cameras\": [{\"type\": \"orthographic\", \"orthographic\": {" +
                      magnifications +
                      ", \"znear\": 0.01, \"zfar\": 100}}], \"nodes\": [{\"mesh\": 0}, {\"camera\": 0, "
                      "\"translation\": [0, 0, 5]}], \"scenes\": [{\"nodes\": [0, 1]}]");
    };
    const ModelData model = load_text(directory, "ortho.gltf", with_camera("\"xmag\": 2, \"ymag\": 1"));
    ASSERT_TRUE(model.camera.has_value());
    EXPECT_EQ(model.camera->settings.projection, Projection::Orthographic);
    EXPECT_EQ(model.camera->settings.ortho_height, 2.0);
    EXPECT_EQ(model.camera->aspect_ratio, 2.0);
    expect_near(model.camera->settings.lookfrom, Vec3(0, 0, 5));
    const std::string error = model_error(directory, "flat.gltf", with_camera("\"xmag\": 2, \"ymag\": 0"));
    EXPECT_NE(error.find("/cameras/0/orthographic/ymag"), std::string::npos) << error;
    EXPECT_NE(error.find("must be positive"), std::string::npos) << error;
}

TEST(GltfImport, HostileFilesGiveOneLineNamingThePlace) {
    testing::TemporaryDirectory directory;
    GltfBuilder b;
    const int positions = b.add_values(kSquare, kFloat, 4, "VEC3");
    const int bad_index = b.add_values(std::vector<uint16_t>{0, 1, 9}, kUnsignedShort, 3, "SCALAR");
    const int not_finite = b.add_values(std::vector<float>{0, 0, 0, 1, NAN, 0, 1, 1, 0}, kFloat, 3, "VEC3");
    const auto mesh = [](const std::string& primitive) {
        return "\"meshes\": [{\"primitives\": [" + primitive + "]}], \"nodes\": [{\"mesh\": 0}]";
    };
    const std::string good = "{\"attributes\": {\"POSITION\": " + std::to_string(positions) + "}}";
    struct Case {
        std::string text, expected;
    };
    const std::string valid = b.json(mesh(good));
    std::string long_count = valid;
    long_count.replace(long_count.find("\"count\": 4"), 10, "\"count\": 4000000000");
    std::string lying_view = valid;
    lying_view.replace(lying_view.find("\"byteLength\": 48"), 16, "\"byteLength\": 4800");
    const Case cases[] = {
        {"{\"asset\": {\"version\": \"2.0\"}, \"meshes\": [", "malformed glTF"},
        {b.json(mesh("{\"attributes\": {\"POSITION\": " + std::to_string(positions) +
                     "}, \"indices\": " + std::to_string(bad_index) + "}")),
         "/accessors/1: index 9 at element 2 is out of range (4 vertices)"},
        {b.json(mesh("{\"attributes\": {\"POSITION\": " + std::to_string(not_finite) + "}}")),
         "/accessors/2: element 1 is not a finite number"},
        {b.json(mesh("{\"attributes\": {\"POSITION\": " + std::to_string(positions) + "}, \"mode\": 1}")),
         "holds no triangles: its primitives are points or lines, which farmrt does not render"},
        {b.json(mesh("{\"attributes\": {\"NORMAL\": " + std::to_string(positions) + "}}")),
         "/meshes/0/primitives/0/attributes: has no POSITION"},
        {b.json(mesh(good) + ", \"extensionsRequired\": [\"KHR_draco_mesh_compression\"], \"extensionsUsed\": "
                             "[\"KHR_draco_mesh_compression\"]"),
         "requires extension KHR_draco_mesh_compression"},
        {b.json(mesh(good).replace(mesh(good).find("{\"mesh\": 0}"), 11, "{\"mesh\": 0, \"children\": [0]}") +
                ", \"scenes\": [{\"nodes\": [0]}]"),
         "/nodes/0: is its own ancestor"},
        {b.json(mesh(good).replace(mesh(good).find("{\"mesh\": 0}"), 11, "{\"mesh\": 0, \"children\": [0]}")),
         "/nodes: every node is a child"},
        {b.json("\"meshes\": [{\"primitives\": [" + good + "]}], \"nodes\": [{\"mesh\": 3}]"),
         "/nodes/0/mesh: refers to a missing mesh"},
        {b.json(mesh(good).replace(mesh(good).find("{\"mesh\": 0}"), 11,
                                   "{\"mesh\": 0, \"matrix\": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1e400, 0, 0, 1]}")),
         ""},  // 1e400: a JSON number out of range, or a transform that is not finite
        {long_count, "/accessors/0"},
        {lying_view, "/bufferViews/0"},
        {b.json("\"materials\": [{\"pbrMetallicRoughness\": {\"baseColorTexture\": {\"index\": 0, \"extensions\": "
                "{\"KHR_texture_transform\": {}}}}}], \"textures\": [{\"source\": 0}], \"images\": [{\"uri\": "
                "\"x.png\"}], " +
                mesh(good)),
         ""},  // the image is missing: a clean error, whichever tinygltf or farmrt finds first
        {b.json(mesh(good) + ", \"scenes\": [{\"nodes\": [0]}]").replace(0, 1, "{\"scene\": 5, "), "scene"},
    };
    for (const Case& c : cases) {
        const std::string error = model_error(directory, "model.gltf", c.text);
        EXPECT_FALSE(error.empty()) << c.text.substr(0, 200);
        EXPECT_EQ(error.rfind("model.gltf: ", 0), 0u) << error;
        EXPECT_NE(error.find(c.expected), std::string::npos) << error << " (expected " << c.expected << ")";
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
    // A binary file cut short, and one whose chunk claims more than it holds.
    const std::string glb =
        testing::read_text(std::string(FARMRT_ASSIMP_MODELS).empty()
                               ? testing::source_path("configs/models/shapes.gltf")
                               : std::string(FARMRT_ASSIMP_MODELS) + "/glTF2/BoxTextured-glTF-Binary/BoxTextured.glb");
    if (glb.compare(0, 4, "glTF") == 0) {
        for (size_t keep : {size_t(11), size_t(20), glb.size() / 2, glb.size() - 7}) {
            const std::string error = model_error(directory, "cut.glb", glb.substr(0, keep));
            EXPECT_EQ(error.rfind("cut.glb: ", 0), 0u) << keep << ": " << error;
        }
    }
}

// KHR_texture_transform: the transformed texture, at farmrt's (u, v), is the
// plain texture at the coordinates the glTF specification gives (offset,
// rotation, scale applied to glTF's (u, v), whose v runs down), computed in
// double; the same image with and without a transform is two textures; a
// malformed transform names its place.
TEST(GltfImport, TextureTransformMapsCoordinatesAsTheSpecificationSays) {
    testing::TemporaryDirectory directory;
    GltfBuilder b;
    const int positions = b.add_values(kSquare, kFloat, 4, "VEC3");
    // A 2 x 2 PNG (red, green / blue, yellow), embedded.
    const std::string png =
        "data:image/png;base64,"
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM////ZwAAHu8E/KPItPcAAAAASUVORK5CYII=";
    auto with_transform = [&](const std::string& transform) {
        return b.json(
            "\"materials\": [{\"pbrMetallicRoughness\": {\"baseColorTexture\": {\"index\": 0, \"extensions\": "
            "{\"KHR_texture_transform\": " +
            transform +
            "}}}}, {\"pbrMetallicRoughness\": {\"baseColorTexture\": {\"index\": 0}}}], \"textures\": [{\"source\": "
            "0}], \"images\": [{\"uri\": \"" +
            png +
            "\"}], \"extensionsUsed\": [\"KHR_texture_transform\"], \"meshes\": [{\"primitives\": [{\"attributes\": "
            "{\"POSITION\": " +
            std::to_string(positions) + "}, \"material\": 0, \"mode\": 6}, {\"attributes\": {\"POSITION\": " +
            std::to_string(positions) + "}, \"material\": 1, \"mode\": 6}]}], \"nodes\": [{\"mesh\": 0}]");
    };
    const double offset[2] = {0.25, -0.1}, rotation = 0.3, scale[2] = {2.0, 0.5};
    const ModelData model = load_text(
        directory, "t.gltf", with_transform("{\"offset\": [0.25, -0.1], \"rotation\": 0.3, \"scale\": [2, 0.5]}"));
    ASSERT_EQ(model.materials.size(), 2u);
    const uint32_t transformed = model.materials[0].albedo_texture, plain = model.materials[1].albedo_texture;
    ASSERT_NE(transformed, plain);
    EXPECT_EQ(model.textures[transformed].transformed, 1u);
    EXPECT_EQ(model.textures[plain].transformed, 0u);
    int compared = 0;
    for (int i = 0; i < 400; ++i) {
        const double u = (i % 20 + 0.37) / 20.0, v = (i / 20 + 0.61) / 20.0;
        // The specification's mapping, in glTF's (u, v), then back to farmrt's.
        const double gu = u, gv = 1.0 - v;
        const double su = scale[0] * gu, sv = scale[1] * gv;
        const double tu = std::cos(rotation) * su + std::sin(rotation) * sv + offset[0];
        const double tv = -std::sin(rotation) * su + std::cos(rotation) * sv + offset[1];
        const double mu = tu, mv = 1.0 - tv;
        // Away from the repeat's seams, where the lookup jumps between edges.
        const double fu = mu - std::floor(mu), fv = mv - std::floor(mv);
        if (fu < 1e-3 || fu > 1 - 1e-3 || fv < 1e-3 || fv > 1 - 1e-3) continue;
        SurfaceInteraction at;
        at.u = float(u);
        at.v = float(v);
        SurfaceInteraction mapped;
        mapped.u = float(mu);
        mapped.v = float(mv);
        const Color got = evaluate_texture(model.textures.data(), model.texture_pixels.data(), transformed, at);
        const Color want = evaluate_texture(model.textures.data(), model.texture_pixels.data(), plain, mapped);
        for (int c = 0; c < 3; ++c) ASSERT_NEAR(got[c], want[c], 2e-4) << "u " << u << " v " << v << " channel " << c;
        ++compared;
    }
    EXPECT_GT(compared, 300);
    EXPECT_EQ(model_error(directory, "bad.gltf", with_transform("{\"offset\": [1]}")),
              "bad.gltf: /materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset: "
              "expected two numbers");
    EXPECT_EQ(model_error(directory, "big.gltf", with_transform("{\"scale\": [1e30, 1]}")),
              "big.gltf: /materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform: a value "
              "is not finite or exceeds 1e9");
}

// ---- OBJ with MTL ------------------------------------------------------------------------------------

std::vector<float> render(SceneDescription description, uint32_t size, uint32_t spp, uint64_t seed) {
    RenderSettings& settings = description.settings;
    settings.width = settings.height = settings.film_width = settings.film_height = size;
    settings.spp = spp;
    settings.seed = seed;
    description.scene.build_acceleration();
    const FrameSettings frame = frame_settings_for(description, 0);
    std::vector<float> sums(size_t(size) * size * 3, 0.0f);
    RendererOptions options;
    make_band_renderer(description.scene, options)
        ->render(frame, RowRange{0, size}, SampleRange{0, spp}, sums.data(), nullptr);
    return resolve_pixels(sums, spp);
}

// Means of the 8 x 8 blocks, per channel.
std::vector<double> blocks(const std::vector<float>& pixels, uint32_t size) {
    const uint32_t n = size / 8;
    std::vector<double> means(size_t(n) * n * 3, 0.0);
    for (uint32_t y = 0; y < n * 8; ++y) {
        for (uint32_t x = 0; x < n * 8; ++x) {
            for (int c = 0; c < 3; ++c)
                means[(size_t(y / 8) * n + x / 8) * 3 + c] += pixels[(size_t(y) * size + x) * 3 + c] / 64.0;
        }
    }
    return means;
}

double rms(const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
    return std::sqrt(sum / double(a.size()));
}

TEST(ObjImport, CornellBoxFromItsMaterialLibraryRendersLikeTheSceneFile) {
    const std::vector<SceneOverride> overrides = {{"image.output=unused.pfm", ""}};
    SceneDescription book = load_scene_file(testing::source_path("configs/cornell.yaml"), overrides);
    SceneDescription obj = load_scene_text(
        "image: {width: 48, height: 48, output: unused.pfm}\nsampling: {spp: 1}\n"
        "camera: {lookfrom: [278, 278, -800], lookat: [278, 278, 0], vfov: 40}\nbackground: {color: [0, 0, 0]}\n"
        "objects:\n  - {type: model, file: models/cornell_box.obj}\n",
        "scene.yaml", testing::source_path("configs"));
    const uint32_t size = 48, spp = 256;
    const std::vector<float> image = render(obj, size, spp, 1);
    // Lit, the left wall green and the right one red (seen from -z).
    double left[3] = {0, 0, 0}, right[3] = {0, 0, 0};
    for (uint32_t y = 12; y < 36; ++y) {
        for (int c = 0; c < 3; ++c) {
            left[c] += image[(size_t(y) * size + 3) * 3 + c];
            right[c] += image[(size_t(y) * size + size - 4) * 3 + c];
        }
    }
    EXPECT_GT(left[1], 2 * left[0]);
    EXPECT_GT(right[0], 3 * right[1]);
    EXPECT_GT(left[1] / 24, 0.05);
    // Statistically the scene file's box: their block means differ by no more
    // than two renders of the scene file with different seeds do.
    const std::vector<double> a = blocks(image, size), b = blocks(render(book, size, spp, 1), size),
                              b2 = blocks(render(book, size, spp, 2), size);
    EXPECT_LT(rms(a, b), 1.5 * rms(b, b2)) << rms(a, b) << " vs " << rms(b, b2);
}

TEST(ObjImport, MaterialsMapOntoThePrincipledMaterial) {
    testing::TemporaryDirectory directory;
    testing::write_text(directory.file("m.mtl"),
                        "newmtl matte\nKd 0.5 0.25 0.125\nillum 1\n"
                        "newmtl shiny\nKd 0.2 0.2 0.2\nKs 0.5 0.5 0.5\nNs 98\nNi 1.4\n"
                        "newmtl glass\nKd 1 1 1\nillum 7\nNi 1.33\n"
                        "newmtl lamp\nKe 4 5 6\n"
                        "newmtl pbr\nKd 1 0 0\nPr 0.7\nPm 1\n");
    const std::string faces =
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nmtllib m.mtl\nusemtl matte\nf 1 2 3\nusemtl shiny\nf 1 2 3\n"
        "usemtl glass\nf 1 2 3\nusemtl lamp\nf 1 2 3\nusemtl pbr\nf 1 2 3\n";
    const ModelData model = load_text(directory, "m.obj", faces);
    ASSERT_EQ(model.meshes[0].triangles.size(), 5u);
    const auto material = [&](size_t face) { return model.materials[model.meshes[0].triangles[face].material]; };
    const auto color = [&](uint32_t texture) { return model.textures[texture].color; };
    expect_near(color(material(0).albedo_texture), Vec3(0.5f, 0.25f, 0.125f));
    EXPECT_EQ(material(0).ior, 1.0f);  // no specular: Lambertian
    EXPECT_EQ(material(1).ior, 1.4f);
    EXPECT_NEAR(color(material(1).metallic_roughness_texture).y, std::sqrt(std::sqrt(2.0 / 100.0)), 1e-6);
    EXPECT_EQ(material(2).transmission, 1.0f);
    EXPECT_EQ(material(2).ior, 1.33f);
    ASSERT_NE(material(3).emission_texture, kNoTexture);
    expect_near(color(material(3).emission_texture), Vec3(4, 5, 6));
    EXPECT_EQ(material(0).emission_texture, kNoTexture);
    expect_near(color(material(4).metallic_roughness_texture), Vec3(0, 0.7f, 1));
    // A missing library is an error naming the line.
    // A library that does not exist: a warning and the grey default, as in Blender and assimp.
    const ModelData missing =
        load_text(directory, "n.obj", "mtllib none.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nusemtl gone\nf 1 2 3\n");
    ASSERT_EQ(missing.warnings.size(), 1u);
    EXPECT_EQ(missing.warnings[0].rfind("n.obj:1: mtllib: ", 0), 0u) << missing.warnings[0];
    EXPECT_NE(missing.warnings[0].find("no such file; its materials render in a grey default"), std::string::npos);
    ASSERT_EQ(missing.meshes.size(), 1u);
    EXPECT_EQ(missing.meshes[0].triangles.size(), 1u) << "the model still renders";
    // One that exists but is not a regular file is an error.
    std::filesystem::create_directory(directory.file("dir.mtl"));
    const std::string error = model_error(directory, "d.obj", "mtllib dir.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n");
    EXPECT_EQ(error.rfind("d.obj:1: mtllib: ", 0), 0u) << error;
    // A million materials are refused before tinyobjloader parses them.
    std::string many;
    for (size_t i = 0; i <= kMaxObjMaterials; ++i) many += "newmtl m" + std::to_string(i) + "\n";
    testing::write_text(directory.file("many.mtl"), many);
    const std::string too_many =
        model_error(directory, "m.obj", "mtllib many.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n");
    EXPECT_NE(too_many.find("materials; farmrt reads at most 100000"), std::string::npos) << too_many;
}

// ---- PLY ---------------------------------------------------------------------------------------------

std::string ply_header(const std::string& format, int vertices, int faces) {
    return "ply\nformat " + format + " 1.0\ncomment made by farmrt's tests\nelement vertex " +
           std::to_string(vertices) +
           "\nproperty float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty "
           "float nz\n"
           "element face " +
           std::to_string(faces) + "\nproperty list uchar int vertex_indices\nend_header\n";
}

template <class T>
void put(std::string& out, T value, bool big_endian) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    if (big_endian) std::reverse(bytes, bytes + sizeof(T));
    out.append(bytes, sizeof(T));
}

std::string binary_square(bool big_endian, int vertices_claimed = 4, int index = 3) {
    std::string out = ply_header(big_endian ? "binary_big_endian" : "binary_little_endian", vertices_claimed, 1);
    for (int v = 0; v < 4; ++v) {
        for (int k = 0; k < 3; ++k) put(out, kSquare[size_t(3 * v + k)], big_endian);
        for (float n : {0.0f, 0.0f, 1.0f}) put(out, n, big_endian);
    }
    out += char(4);
    for (int i : {0, 1, 2, index}) put(out, int32_t(i), big_endian);
    return out;
}

TEST(PlyImport, AsciiAndBothBinaryOrdersReadTheSameQuad) {
    testing::TemporaryDirectory directory;
    std::string ascii = ply_header("ascii", 4, 1);
    for (int v = 0; v < 4; ++v)
        ascii +=
            std::to_string(kSquare[size_t(3 * v)]) + " " + std::to_string(kSquare[size_t(3 * v + 1)]) + " 0 0 0 1\n";
    ascii += "4 0 1 2 3\n";
    const ModelData reference = load_text(directory, "a.ply", ascii);
    ASSERT_EQ(reference.meshes[0].triangles.size(), 2u);
    for (bool big : {false, true}) {
        const ModelData model = load_text(directory, "b.ply", binary_square(big));
        ASSERT_EQ(model.meshes[0].triangles.size(), 2u);
        for (size_t t = 0; t < 2; ++t) {
            expect_near(model.meshes[0].triangles[t].vertex2, reference.meshes[0].triangles[t].vertex2, 0);
            expect_near(model.meshes[0].triangles[t].normal1, Vec3(0, 0, 1), 0);
        }
    }
}

TEST(PlyImport, HostileFilesAreRefusedBeforeTheyAreRead) {
    testing::TemporaryDirectory directory;
    const std::string good = binary_square(false);
    const struct {
        std::string text, expected;
    } cases[] = {
        {binary_square(false, 2000000000), "the header promises 2000000000 vertex elements, more than the file's"},
        {binary_square(false, 4, 7), "face 0: vertex index 7 is out of range (4 vertices)"},
        {good.substr(0, good.size() - 3), "the data ends inside face 0 (truncated file)"},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float "
         "z\nend_header\nnan 0 0\n",
         "vertex 0: x is not a finite number"},
        {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n",
         "no end_header"},
        {"PLY\n", "not a PLY file"},
        {ply_header("ascii", 3, 1) + "0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n200 0 1 2\n",
         "the data ends inside face 0"},
        {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 "
         "0 0\n1 0 0\n0 1 0\n",
         "no faces"},
    };
    for (const auto& c : cases) {
        std::string error;
        try {
            load_text(directory, "bad.ply", c.text);
        } catch (const InputError& e) {
            error = e.what();
        }
        EXPECT_EQ(error.rfind("bad.ply: ", 0), 0u) << error;
        EXPECT_NE(error.find(c.expected), std::string::npos) << error;
    }
}

// ---- the models of Debian's assimp-testmodels -----------------------------------------------------------

std::vector<std::string> files_with_extensions(const std::string& directory) {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
        std::string extension = entry.path().extension().string();
        for (char& ch : extension) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        if (extension == ".obj" || extension == ".ply" || extension == ".gltf" || extension == ".glb") {
            files.push_back(entry.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

TEST(AssimpTestModels, RealModelsLoadWithTheirMaterials) {
    const std::string root = FARMRT_ASSIMP_MODELS;
    if (root.empty()) GTEST_SKIP() << "assimp-testmodels is not installed (apt-get install assimp-testmodels)";
    for (const char* variant :
         {"BoxTextured-glTF/BoxTextured.gltf", "BoxTextured-glTF-Binary/BoxTextured.glb",
          "BoxTextured-glTF-Embedded/BoxTextured.gltf", "BoxTextured-glTF-pbrSpecularGlossiness/BoxTextured.gltf"}) {
        const ModelData model = load_model(root + "/glTF2/" + variant, variant);
        ASSERT_EQ(model.meshes.size(), 1u) << variant;
        EXPECT_EQ(model.meshes[0].triangles.size(), 12u) << variant;
        const Texture& texture = model.textures[model.materials.at(0).albedo_texture];
        EXPECT_EQ(texture.type, TextureType::Image) << variant;
        EXPECT_EQ(texture.image_width, 211u) << variant;  // CesiumLogoFlat.png
        EXPECT_EQ(texture.image_height, 211u) << variant;
    }
    // The one that requires a WebGL technique says so.
    EXPECT_THROW(load_model(root + "/glTF2/BoxTextured-glTF-techniqueWebGL/BoxTextured.gltf", "x"), InputError);
    const ModelData engine = load_model(root + "/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb", "engine");
    size_t triangles = 0;
    for (const ModelPlacement& p : engine.placements) triangles += engine.meshes[p.mesh].triangles.size();
    EXPECT_GT(triangles, 100000u);
    EXPECT_LT(engine.meshes.size(), engine.placements.size());  // meshes placed several times
    const ModelData cameras = load_model(root + "/glTF2/cameras/Cameras.gltf", "cameras");
    EXPECT_TRUE(cameras.camera.has_value());
#if FARMRT_TESTS_HAVE_OPENIMAGEIO
    const ModelData spider = load_model(root + "/OBJ/spider.obj", "spider");
    int textured = 0;
    for (const Material& m : spider.materials) textured += spider.textures[m.albedo_texture].type == TextureType::Image;
    EXPECT_EQ(spider.materials.size(), 5u);
    EXPECT_EQ(textured, 5);
#endif
    const ModelData wuson = load_model(root + "/PLY/Wuson.ply", "wuson");
    EXPECT_GT(wuson.meshes[0].triangles.size(), 3000u);
}

TEST(AssimpTestModels, InvalidModelsGiveOneCleanError) {
    const std::string root = FARMRT_ASSIMP_MODELS;
    if (root.empty()) GTEST_SKIP() << "assimp-testmodels is not installed (apt-get install assimp-testmodels)";
    int checked = 0;
    for (const char* folder : {"invalid", "glTF2/IndexOutOfRange", "glTF2/MissingBin", "glTF2/SchemaFailures"}) {
        for (const std::string& file : files_with_extensions(root + "/" + folder)) {
            try {
                load_model(file, file);
                ADD_FAILURE() << file << " loaded";
            } catch (const InputError& e) {
                const std::string what = e.what();
                EXPECT_EQ(what.rfind(file, 0), 0u) << what;
                EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            }
            ++checked;
        }
    }
    EXPECT_GE(checked, 8);
}

}  // namespace
}  // namespace farmrt
