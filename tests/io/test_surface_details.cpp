// Surface detail that assets carry beyond geometry: vertex colours (glTF
// COLOR_0, PLY, OBJ) multiplying the base colour, and normal maps bending the
// shading normal in the frame of the file's tangents or of tangents made from
// (u, v). Checked against values computed here: colours decoded as the
// formats say, tangents along dP/du, bent normals in the frame the glTF
// specification defines, and a render whose every sample is the albedo.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/integrator.h"
#include "core/occlusion.h"
#include "core/scene.h"
#include "gltf_builder.h"
#include "io/model_loader.h"
#include "io/scene_loader.h"
#include "io/texture_loader.h"
#include "io/tangent_space.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

using namespace testing_gltf;

// ---- tangents made from (u, v): MikkTSpace's rules ---------------------------------------------------

Vec3 tangent_at(const std::vector<double>& tangents, size_t corner) {
    return Vec3(float(tangents[4 * corner]), float(tangents[4 * corner + 1]), float(tangents[4 * corner + 2]));
}

// A quad of two triangles in z = 0 with normal +z, its (u, v) an affine map
// of (x, y): dP/du and dP/dv are known, and every corner's tangent must be
// dP/du made unit and its handedness the side of dP/dv.
TEST(TangentSpace, FollowsIncreasingUAndKeepsTheSideOfIncreasingV) {
    const std::vector<double> positions = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const std::vector<double> normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const std::vector<uint32_t> corners = {0, 1, 2, 0, 2, 3};
    struct Mapping {
        double a, b, c, d;  // u = a x + b y, v = c x + d y
    };
    for (const Mapping m : {Mapping{1, 0, 0, 1}, Mapping{-1, 0, 0, 1}, Mapping{1, 0, 0, -1}, Mapping{0, 2, -3, 0},
                            Mapping{0.5, 0.5, -0.5, 0.5}}) {
        std::vector<double> uvs;
        for (size_t v = 0; v < 4; ++v) {
            const double x = positions[3 * v], y = positions[3 * v + 1];
            uvs.push_back(m.a * x + m.b * y);
            uvs.push_back(m.c * x + m.d * y);
        }
        // (x, y) = inverse of the map times (u, v): dP/du and dP/dv are its columns.
        const double determinant = m.a * m.d - m.b * m.c;
        const Vec3 along_u(float(m.d / determinant), float(-m.c / determinant), 0);
        const Vec3 along_v(float(-m.b / determinant), float(m.a / determinant), 0);
        const std::vector<double> tangents = tangent_space(positions, normals, uvs, corners);
        ASSERT_EQ(tangents.size(), 24u);
        for (size_t corner = 0; corner < 6; ++corner) {
            const Vec3 t = tangent_at(tangents, corner);
            expect_near(t, unit_vector(along_u));
            const Vec3 bitangent = float(tangents[4 * corner + 3]) * cross(Vec3(0, 0, 1), t);
            EXPECT_GT(dot(bitangent, along_v), 0.0f) << "corner " << corner << " mapping " << m.a << m.b << m.c << m.d;
        }
    }
    // No usable (u, v) (every corner the same): zero tangents, no map applied.
    const std::vector<double> flat(8, 0.5);
    for (double value : tangent_space(positions, normals, flat, corners)) EXPECT_EQ(value, 0.0);
}

// Two quads side by side sharing their middle edge, the right one's (u, v)
// mirrored (u = 2 - x), as artists mirror a symmetric model's texture: each
// half keeps its own tangent at the shared vertices (mirrored: -x, with
// handedness -1, so the bitangent still points along increasing v) instead
// of the two cancelling.
TEST(TangentSpace, MirroredHalvesKeepTheirOwnTangentsAtTheSeam) {
    const std::vector<double> positions = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
    const std::vector<double> normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const std::vector<double> uvs = {0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1};  // u = x, then 2 - x; v = y
    const std::vector<uint32_t> corners = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4};
    const std::vector<double> tangents = tangent_space(positions, normals, uvs, corners);
    for (size_t corner = 0; corner < 12; ++corner) {
        const bool mirrored = corner >= 6;
        expect_near(tangent_at(tangents, corner), Vec3(mirrored ? -1.0f : 1.0f, 0, 0));
        EXPECT_EQ(tangents[4 * corner + 3], mirrored ? -1.0 : 1.0) << "corner " << corner;
        const Vec3 bitangent = float(tangents[4 * corner + 3]) * cross(Vec3(0, 0, 1), tangent_at(tangents, corner));
        expect_near(bitangent, Vec3(0, 1, 0));
    }
}

// A vertex's tangent is the sum of its group's corner tangents weighed by
// the corners' angles (not by the triangles' areas); vertices equal in
// position, normal and (u, v) are one however the file indexes them; and
// triangles that only touch at a vertex are not one group.
TEST(TangentSpace, CornersWeighByAngleInGroupsJoinedAcrossEdges) {
    // At the origin: a right-angled corner whose u runs along +x, and across
    // their shared edge to (0, 1, 0) a 45-degree corner of a larger triangle
    // whose u runs along (1, 1): MikkTSpace sums pi/2 (1, 0, 0) + pi/4 (1, 1, 0) / sqrt 2.
    const std::vector<double> positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 1, 0};
    std::vector<double> normals(12, 0.0);
    for (size_t v = 0; v < 4; ++v) normals[3 * v + 2] = 1;
    const std::vector<double> uvs = {0, 0, 1, 0, 0, 1, -1, 2};  // triangle 2: u = x, v = -x + y
    const std::vector<uint32_t> corners = {0, 1, 2, 0, 2, 3};
    const std::vector<double> tangents = tangent_space(positions, normals, uvs, corners);
    const double diagonal = M_PI / 4 / std::sqrt(2.0);
    const Vec3 expected = unit_vector(Vec3(float(M_PI / 2 + diagonal), float(diagonal), 0));
    expect_near(tangent_at(tangents, 0), expected);
    expect_near(tangent_at(tangents, 3), expected);
    for (size_t corner = 0; corner < 6; ++corner) EXPECT_EQ(tangents[4 * corner + 3], 1.0) << corner;
    // Unindexed, every shared vertex written twice: the same tangents, corner for corner.
    std::vector<double> split_positions, split_normals, split_uvs;
    std::vector<uint32_t> split_corners;
    for (uint32_t v : corners) {
        for (int k = 0; k < 3; ++k) split_positions.push_back(positions[3 * v + size_t(k)]);
        for (int k = 0; k < 3; ++k) split_normals.push_back(normals[3 * v + size_t(k)]);
        for (int k = 0; k < 2; ++k) split_uvs.push_back(uvs[2 * v + size_t(k)]);
        split_corners.push_back(uint32_t(split_corners.size()));
    }
    EXPECT_EQ(tangent_space(split_positions, split_normals, split_uvs, split_corners), tangents);
    // Two triangles that share only the origin: each corner keeps its own
    // triangle's tangent (+x; and +y for the second, whose (u, v) = (y, x)).
    const std::vector<double> touching = {0, 0, 0, 1, 0, 0, 0, 1, 0, 2, -2, 0, 0, -2, 0};
    std::vector<double> touching_normals(15, 0.0);
    for (size_t v = 0; v < 5; ++v) touching_normals[3 * v + 2] = 1;
    const std::vector<double> touching_uvs = {0, 0, 1, 0, 0, 1, -2, 2, -2, 0};
    const std::vector<double> apart = tangent_space(touching, touching_normals, touching_uvs, {0, 1, 2, 0, 3, 4});
    expect_near(tangent_at(apart, 0), Vec3(1, 0, 0));
    expect_near(tangent_at(apart, 3), Vec3(0, 1, 0));
}

// ---- vertex colours --------------------------------------------------------------------------------

TEST(VertexColors, EveryFormatDecodesThemAsItsSpecificationSays) {
    testing::TemporaryDirectory directory;
    // glTF: linear values, floats or normalised integers, VEC3 or VEC4 (alpha dropped).
    GltfBuilder b;
    const std::vector<float> positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const int position = b.add_values(positions, kFloat, 3, "VEC3");
    const int floats = b.add_values(std::vector<float>{0.25f, 0.5f, 1, 0, 0, 0, 1, 1, 1}, kFloat, 3, "VEC3");
    const int bytes = b.add_values(std::vector<uint8_t>{255, 0, 51, 7, 0, 255, 102, 9, 255, 255, 255, 0}, kUnsignedByte,
                                   3, "VEC4", true);
    const int shorts =
        b.add_values(std::vector<uint16_t>{65535, 0, 0, 0, 65535, 0, 0, 0, 0}, kUnsignedShort, 3, "VEC3", true);
    auto mesh = [&](int colors) {
        return "{\"primitives\": [{\"attributes\": {\"POSITION\": " + std::to_string(position) +
               ", \"COLOR_0\": " + std::to_string(colors) + "}}]}";
    };
    const ModelData gltf = load_text(directory, "c.gltf",
                                     b.json("\"meshes\": [" + mesh(floats) + ", " + mesh(bytes) + ", " + mesh(shorts) +
                                            "], \"nodes\": [{\"mesh\": 0}, {\"mesh\": 1}, {\"mesh\": 2}]"));
    ASSERT_EQ(gltf.meshes.size(), 3u);
    const Color want[3][3] = {{{0.25f, 0.5f, 1}, {0, 0, 0}, {1, 1, 1}},
                              {{1, 0, 0.2f}, {0, 1, 0.4f}, {1, 1, 1}},
                              {{1, 0, 0}, {0, 1, 0}, {0, 0, 0}}};
    for (size_t m = 0; m < 3; ++m) {
        const ModelMesh& got = gltf.meshes[m];
        ASSERT_EQ(got.triangles.size(), 1u);
        ASSERT_NE(got.triangles[0].attributes, kNoAttributes);
        for (int c = 0; c < 3; ++c) expect_near(got.attributes[got.triangles[0].attributes].color[c], want[m][c]);
    }
    // PLY: 8- and 16-bit values are display colours (sRGB-encoded), floats linear.
    const std::string ply =
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
        "property uchar red\nproperty uchar green\nproperty uchar blue\nelement face 1\n"
        "property list uchar int vertex_indices\nend_header\n0 0 0 255 128 0\n1 0 0 0 0 0\n0 1 0 10 20 30\n3 0 1 2\n";
    const ModelData from_ply = load_text(directory, "c.ply", ply);
    const ModelMesh& ply_mesh = from_ply.meshes[0];
    ASSERT_EQ(ply_mesh.attributes.size(), 1u);
    expect_near(ply_mesh.attributes[0].color[0], Color(1, srgb_to_linear(128 / 255.0f), 0));
    expect_near(ply_mesh.attributes[0].color[2],
                Color(srgb_to_linear(10 / 255.0f), srgb_to_linear(20 / 255.0f), srgb_to_linear(30 / 255.0f)));
    // OBJ ('v x y z r g b'): sRGB-encoded values in [0, 1]; a file without colours has no attributes.
    const ModelData from_obj = load_text(directory, "c.obj", "v 0 0 0 1 0.5 0\nv 1 0 0 0 0 1\nv 0 1 0\nf 1 2 3\n");
    const ModelMesh& obj_mesh = from_obj.meshes[0];
    ASSERT_EQ(obj_mesh.attributes.size(), 1u);
    expect_near(obj_mesh.attributes[0].color[0], Color(1, srgb_to_linear(0.5f), 0));
    expect_near(obj_mesh.attributes[0].color[2], Color(1, 1, 1));
    EXPECT_TRUE(load_text(directory, "w.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").meshes[0].attributes.empty());

    // Values outside [0, 1]: one line naming the place.
    GltfBuilder bad;
    const int bad_position = bad.add_values(positions, kFloat, 3, "VEC3");
    const int bright = bad.add_values(std::vector<float>{2, 0, 0, 0, 0, 0, 0, 0, 0}, kFloat, 3, "VEC3");
    EXPECT_EQ(model_error(directory, "bad.gltf",
                          bad.json("\"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": " +
                                   std::to_string(bad_position) + ", \"COLOR_0\": " + std::to_string(bright) +
                                   "}}]}], \"nodes\": [{\"mesh\": 0}]")),
              "bad.gltf: /accessors/1: a COLOR_0 value lies outside [0, 1]");
    const std::string float_ply =
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
        "property float red\nproperty float green\nproperty float blue\nelement face 1\n"
        "property list uchar int vertex_indices\nend_header\n0 0 0 1 1 1\n1 0 0 0 1.5 0\n0 1 0 0 0 0\n3 0 1 2\n";
    const std::string ply_error = model_error(directory, "bad.ply", float_ply);
    EXPECT_NE(ply_error.find("bad.ply: "), std::string::npos) << ply_error;
    EXPECT_NE(ply_error.find("green lies outside [0, 1]"), std::string::npos) << ply_error;
    EXPECT_EQ(model_error(directory, "bad.obj", "v 0 0 0 1 0 0\nv 1 0 0 0 -2 0\nv 0 1 0\nf 1 2 3\n"),
              "bad.obj: vertex 2: colour values must lie in [0, 1]");
}

// A one-triangle scene facing +z under a uniform white sky, shaded by the
// book's estimator: a Lambertian's cosine-sampled bounce always escapes to
// the sky, so every sample of a pixel is exactly the albedo there, the
// texture's colour times the interpolated vertex colour.
TEST(VertexColors, MultiplyTheBaseColourOfEveryMaterialInARender) {
    testing::TemporaryDirectory directory;
    const std::string ply =
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
        "property float red\nproperty float green\nproperty float blue\nelement face 1\n"
        "property list uchar int vertex_indices\nend_header\n-4 -4 0 1 0 0\n4 -4 0 0 1 0\n0 4 0 0 0 1\n3 0 1 2\n";
    testing::write_text(directory.file("t.ply"), ply);
    const std::string scene =
        "image: {width: 8, height: 8, output: t.png}\nsampling: {spp: 2, max_depth: 2, integrator: naive}\n"
        "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0], vup: [0, 1, 0], vfov: 20}\n"
        "background: {color: [1, 1, 1]}\nmaterials: {paint: {type: lambertian, albedo: [0.5, 0.8, 1]}}\n"
        "objects:\n  - {type: model, file: t.ply, material: paint}\n";
    testing::write_text(directory.file("s.yaml"), scene);
    SceneDescription d = load_scene_file(directory.file("s.yaml"));
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    int checked = 0;
    for (int i = 0; i < 64; ++i) {
        const Ray ray{Vec3(-1.5f + 0.4f * float(i % 8), -1.5f + 0.4f * float(i / 8), 5.0f), Vec3(0, 0, -1), 0};
        Hit hit;
        if (!intersect_closest(view, ray, kMinHitDistance, hit)) continue;
        const SurfaceInteraction si = surface_at(view, ray, hit);
        // Barycentric weights of the point, computed here in double.
        const double x = si.point.x, y = si.point.y;
        const double w2 = (y + 4) / 8, w1 = (x + 4) / 8 - w2 / 2, w0 = 1 - w1 - w2;
        const Color want(float(0.5 * w0), float(0.8 * w1), float(1.0 * w2));
        expect_near(base_color_at(view.materials[si.material], view.textures, view.texture_pixels, si), want, 1e-5f);
        PixelSampler sampler(SamplerKey{}, uint32_t(i), 0);
        expect_near(trace_path(view, ray, sampler, 2, BvhQuery(), Integrator::Naive), want, 1e-5f);
        ++checked;
    }
    EXPECT_GT(checked, 20);
}

// ---- normal maps -------------------------------------------------------------------------------------

// One triangle in z = 0 (normal +z, tangent +x) whose material's normal map
// is the constant `bent`, placed directly or through an instance rotated a
// quarter turn about z.
struct NormalMappedTriangle {
    Scene scene;
    NormalMappedTriangle(const Color& bent, float handedness, bool instanced) {
        Texture white;
        white.color = Color(1.0f);
        Texture map;
        map.color = bent;
        scene.textures = {white, map};
        Material material;
        material.type = MaterialType::Lambertian;
        material.albedo_texture = 0;
        material.normal_texture = 1;
        scene.materials = {material};
        Triangle t{};
        t.vertex0 = Vec3(-1, -1, 0);
        t.vertex1 = Vec3(1, -1, 0);
        t.vertex2 = Vec3(0, 1, 0);
        for (int i = 0; i < 6; ++i) t.uv[i] = kDefaultTriangleUvs[i];
        t.material = 0;
        t.attributes = 0;
        TriangleAttributes a;
        for (Vec3& tangent : a.tangent) tangent = Vec3(1, 0, 0);
        a.handedness = handedness;
        scene.triangle_attributes = {a};
        scene.triangles = {t};
        if (instanced) {
            const uint32_t geometry = scene.add_instance_geometry({PrimitiveRef::make(PrimitiveType::Triangle, 0)});
            scene.add_instance(geometry, Transform::rotate_z(90.0), kGeometryMaterial);
        }
        scene.build_acceleration();
    }
    // The shading normal where a ray along -z (or +z from below) meets it.
    Vec3 normal(bool from_above) const {
        const SceneView view = scene.view();
        const Ray ray{Vec3(0.05f, -0.1f, from_above ? 3.0f : -3.0f), Vec3(0, 0, from_above ? -1.0f : 1.0f), 0};
        Hit hit;
        EXPECT_TRUE(intersect_closest(view, ray, kMinHitDistance, hit));
        return surface_at(view, ray, hit).normal;
    }
};

TEST(NormalMaps, BendTheShadingNormalInTheTangentFrame) {
    // x along the tangent, y along handedness * cross(normal, tangent), z along the normal.
    expect_near(NormalMappedTriangle(Color(0.6f, 0, 0.8f), 1, false).normal(true), Vec3(0.6f, 0, 0.8f));
    expect_near(NormalMappedTriangle(Color(0, 0.6f, 0.8f), 1, false).normal(true), Vec3(0, 0.6f, 0.8f));
    expect_near(NormalMappedTriangle(Color(0, 0.6f, 0.8f), -1, false).normal(true), Vec3(0, -0.6f, 0.8f));
    // Unnormalised map values are made unit; seen from below, the normal faces the ray.
    expect_near(NormalMappedTriangle(Color(1.2f, 0, 1.6f), 1, false).normal(false), Vec3(-0.6f, 0, -0.8f));
    // A bend past the surface's own side is not applied.
    expect_near(NormalMappedTriangle(Color(1, 0, -0.1f), 1, false).normal(true), Vec3(0, 0, 1));
    // Through an instance the tangent frame turns with it: x becomes y.
    expect_near(NormalMappedTriangle(Color(0.6f, 0, 0.8f), 1, true).normal(true), Vec3(0, 0.6f, 0.8f));
}

// configs/models/tiles.gltf: a normal map of a dome on every tile, no TANGENT
// in the file. The tangents made from (u, v) and the map's convention (+x
// right, +y up in the image, glTF's) must bend normals away from each dome's
// centre in world space: right of it towards +x, above it in the image
// (towards the image's top: farmrt's v up, which the file maps to +z)
// towards +z.
TEST(NormalMaps, TheTilesModelsDomesBendNormalsOutwardsInWorldSpace) {
    const ModelData model = load_model(testing::source_path("configs/models/tiles.gltf"), "tiles.gltf");
    ASSERT_EQ(model.materials.size(), 1u);
    ASSERT_NE(model.materials[0].normal_texture, kNoTexture);
    ASSERT_FALSE(model.meshes[0].attributes.empty());
    Scene scene;
    add_model_to_scene(model, Transform::identity(), scene, "tiles.gltf");
    scene.build_acceleration();
    const SceneView view = scene.view();
    // A dome's centre: texel (16, 16) of the 64-texel map, repeated each metre:
    // u = 0.25 at x = -1.75; farmrt's v = 0.75 at z = 0.75.
    const auto normal_at = [&](float x, float z) {
        const Ray ray{Vec3(x, 2, z), Vec3(0, -1, 0), 0};
        Hit hit;
        EXPECT_TRUE(intersect_closest(view, ray, kMinHitDistance, hit));
        return surface_at(view, ray, hit).normal;
    };
    const Vec3 centre = normal_at(-1.75f, 0.75f);
    EXPECT_NEAR(centre.y, 1.0f, 0.02f);
    const Vec3 right = normal_at(-1.6f, 0.75f), left = normal_at(-1.9f, 0.75f);
    const Vec3 towards_image_top = normal_at(-1.75f, 0.9f), towards_image_bottom = normal_at(-1.75f, 0.6f);
    EXPECT_GT(right.x, 0.3f);
    EXPECT_LT(left.x, -0.3f);
    EXPECT_NEAR(right.z, 0.0f, 0.05f);
    EXPECT_GT(towards_image_top.z, 0.3f);
    EXPECT_LT(towards_image_bottom.z, -0.3f);
    EXPECT_NEAR(towards_image_top.x, 0.0f, 0.05f);
    // Between the domes the map is flat: the mesh's normal.
    expect_near(normal_at(-1.5f, 0.5f), Vec3(0, 1, 0), 0.02f);
}

TEST(NormalMaps, GltfNormalTexturesAreDecodedAndScaledAndBadScalesRefused) {
    testing::TemporaryDirectory directory;
    GltfBuilder b;
    const int position = b.add_values(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, 3, "VEC3");
    const int normal = b.add_values(std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 1}, kFloat, 3, "VEC3");
    const int uv = b.add_values(std::vector<float>{0, 1, 1, 1, 0, 0}, kFloat, 3, "VEC2");
    const int tangent = b.add_values(std::vector<float>{0, 1, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1}, kFloat, 3, "VEC4");
    // A 2 x 2 PNG (red, green / blue, yellow), embedded.
    const std::string png =
        "data:image/png;base64,"
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM////ZwAAHu8E/KPItPcAAAAASUVORK5CYII=";
    const auto file = [&](const std::string& scale, bool with_tangents) {
        return b.json(
            "\"materials\": [{\"normalTexture\": {\"index\": 0, \"scale\": " + scale +
            "}}], \"textures\": [{\"source\": 0}], \"images\": [{\"uri\": \"" + png +
            "\"}], \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": " + std::to_string(position) +
            ", \"NORMAL\": " + std::to_string(normal) + ", \"TEXCOORD_0\": " + std::to_string(uv) +
            (with_tangents ? ", \"TANGENT\": " + std::to_string(tangent) : std::string()) +
            "}, \"material\": 0}]}], \"nodes\": [{\"mesh\": 0}]");
    };
    const ModelData model = load_text(directory, "n.gltf", file("0.5", true));
    const Texture& map = model.textures[model.materials[0].normal_texture];
    ASSERT_EQ(map.type, TextureType::Image);
    // Texel 0 is red (255, 0, 0): (2 c - 1) times (scale, scale, 1).
    const float* texel = model.texture_pixels.data() + 3 * size_t(map.image_offset);
    EXPECT_FLOAT_EQ(texel[0], 0.5f);
    EXPECT_FLOAT_EQ(texel[1], -0.5f);
    EXPECT_FLOAT_EQ(texel[2], -1.0f);
    // The file's tangents and handedness, as they are.
    const ModelMesh& mesh = model.meshes[0];
    ASSERT_EQ(mesh.attributes.size(), 1u);
    expect_near(mesh.attributes[0].tangent[0], Vec3(0, 1, 0));
    EXPECT_EQ(mesh.attributes[0].handedness, -1.0f);
    // Without TANGENT: made from (u, v): u grows along +x here, farmrt's v along +y.
    const ModelData made = load_text(directory, "m.gltf", file("1", false));
    const TriangleAttributes& a = made.meshes[0].attributes.at(0);
    expect_near(a.tangent[1], Vec3(1, 0, 0));
    EXPECT_EQ(a.handedness, 1.0f);
    EXPECT_EQ(model_error(directory, "bad.gltf", file("1e9", true)),
              "bad.gltf: /materials/0/normalTexture/scale: must be finite and at most 1000 in magnitude");
}

// ---- cut-outs ----------------------------------------------------------------------------------------

// A square of two triangles in z = 0, (u, v) = (x, y) over [0, 1], whose
// material's alpha is an image of two texels: 0 on the left half, 1 on the
// right (nearest within each half: the lookup is bilinear across the middle
// only). `mode`: the cut-out.
struct CutoutSquare {
    Scene scene;
    CutoutSquare(AlphaMode mode, float constant_alpha = -1) {
        Texture white;
        white.color = Color(1.0f);
        Texture alpha;
        if (constant_alpha >= 0) {
            alpha.color = Color(constant_alpha);
        } else {
            alpha.type = TextureType::Image;
            alpha.image_width = 2;
            alpha.image_height = 1;
            alpha.image_offset = 0;
            scene.texture_pixels = {0, 0, 0, 1, 1, 1};
        }
        scene.textures = {white, alpha};
        Material material;
        material.albedo_texture = 0;
        material.alpha_mode = mode;
        material.alpha_texture = 1;
        scene.materials = {material};
        const Vec3 corners[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
        for (const auto& corner : {std::array<int, 3>{0, 1, 2}, std::array<int, 3>{0, 2, 3}}) {
            Triangle t{};
            t.vertex0 = corners[corner[0]];
            t.vertex1 = corners[corner[1]];
            t.vertex2 = corners[corner[2]];
            for (int c = 0; c < 3; ++c) {
                t.uv[2 * c] = corners[corner[c]].x;
                t.uv[2 * c + 1] = corners[corner[c]].y;
            }
            t.material = 0;
            scene.triangles.push_back(t);
        }
        scene.build_acceleration();
    }
};

TEST(Cutouts, MaskKeepsTheSurfaceWhereAlphaReachesTheCutoffInEveryQuery) {
    const CutoutSquare square(AlphaMode::Mask);
    const SceneView view = square.scene.view();
    ASSERT_TRUE(view.has_cutouts);
    int kept = 0, cut = 0;
    for (int i = 0; i < 400; ++i) {
        const float x = (float(i % 20) + 0.5f) / 20.0f, y = (float(i / 20) + 0.5f) / 20.0f;
        const Ray ray{Vec3(x, y, 1), Vec3(0.01f, -0.02f, -1), 0};
        // Alpha at the hit, from the bilinear lookup across the two texels.
        const float hit_x = x + 0.01f;
        const float alpha = std::clamp(hit_x * 2.0f - 0.5f, 0.0f, 1.0f);
        if (std::fabs(alpha - 0.5f) < 0.02f) continue;  // too near the cutoff for this test's own rounding
        Hit closest, brute;
        const bool found = intersect_closest(view, ray, kMinHitDistance, closest);
        EXPECT_EQ(found, intersect_closest_brute_force(view, ray, kMinHitDistance, brute)) << x << " " << y;
        EXPECT_EQ(found, alpha >= 0.5f) << x << " " << y;
        EXPECT_EQ(intersect_any(view, ray, kMinHitDistance, kInfinity), found) << x << " " << y;
        (found ? kept : cut) += 1;
    }
    EXPECT_GT(kept, 100);
    EXPECT_GT(cut, 100);
    // The same square opaque: every ray hits.
    const CutoutSquare opaque(AlphaMode::Opaque);
    Hit hit;
    EXPECT_TRUE(
        intersect_closest(opaque.scene.view(), Ray{Vec3(0.1f, 0.5f, 1), Vec3(0, 0, -1), 0}, kMinHitDistance, hit));
}

// Blend: each ray meets the surface with probability alpha, decided by the
// ray and the triangle alone (the same ray, the same answer).
TEST(Cutouts, BlendKeepsTheSurfaceWithProbabilityAlpha) {
    for (const float alpha : {0.2f, 0.5f, 0.9f}) {
        const CutoutSquare square(AlphaMode::Blend, alpha);
        const SceneView view = square.scene.view();
        const int rays = 20000;
        int kept = 0;
        for (int i = 0; i < rays; ++i) {
            const float x = 0.05f + 0.9f * float(i % 200) / 200.0f, y = 0.05f + 0.9f * float(i / 200) / 100.0f;
            const Ray ray{Vec3(x, y, 1), Vec3(0.003f * float(i % 7), 0, -1), 0};
            Hit first, again;
            const bool found = intersect_closest(view, ray, kMinHitDistance, first);
            ASSERT_EQ(found, intersect_closest(view, ray, kMinHitDistance, again));
            ASSERT_EQ(found, intersect_any(view, ray, kMinHitDistance, kInfinity));
            kept += found;
        }
        // Five standard deviations of a binomial count.
        const double expected = alpha * rays, deviation = std::sqrt(rays * alpha * (1 - alpha));
        EXPECT_NEAR(kept, expected, 5 * deviation) << "alpha " << alpha;
    }
}

TEST(Cutouts, GltfAlphaModesReadTheBaseColoursAlphaAndBadValuesAreRefused) {
    testing::TemporaryDirectory directory;
    GltfBuilder b;
    const int position = b.add_values(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, 3, "VEC3");
    // A 1 x 1 RGBA PNG: (255, 0, 0, 128).
    const std::string png =
        "data:image/png;base64,"
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DQAAAEgQGALFXOsAAAAABJRU5ErkJggg==";
    const auto file = [&](const std::string& material) {
        return b.json("\"materials\": [" + material + "], \"textures\": [{\"source\": 0}], \"images\": [{\"uri\": \"" +
                      png + "\"}], \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": " +
                      std::to_string(position) + "}, \"material\": 0}]}], \"nodes\": [{\"mesh\": 0}]");
    };
    const ModelData mask = load_text(
        directory, "m.gltf",
        file("{\"alphaMode\": \"MASK\", \"alphaCutoff\": 0.25, \"pbrMetallicRoughness\": {\"baseColorFactor\": [1, "
             "1, 1, 0.5], \"baseColorTexture\": {\"index\": 0}}}"));
    const Material& m = mask.materials[0];
    EXPECT_EQ(m.alpha_mode, AlphaMode::Mask);
    EXPECT_EQ(m.alpha_cutoff, 0.25f);
    const Texture& alpha = mask.textures[m.alpha_texture];
    ASSERT_EQ(alpha.type, TextureType::Image);
    EXPECT_NEAR(mask.texture_pixels[3 * size_t(alpha.image_offset)], 0.5f * 128.0f / 255.0f, 1e-6f);
    const ModelData blend = load_text(directory, "b.gltf",
                                      file("{\"alphaMode\": \"BLEND\", \"pbrMetallicRoughness\": {\"baseColorFactor\": "
                                           "[1, 1, 1, 0.3]}}"));
    EXPECT_EQ(blend.materials[0].alpha_mode, AlphaMode::Blend);
    EXPECT_FLOAT_EQ(blend.textures[blend.materials[0].alpha_texture].color.x, 0.3f);
    EXPECT_EQ(load_text(directory, "o.gltf", file("{}")).materials[0].alpha_mode, AlphaMode::Opaque);
    EXPECT_EQ(model_error(directory, "bad.gltf", file("{\"alphaMode\": \"CUTOUT\"}")),
              "bad.gltf: /materials/0/alphaMode: must be OPAQUE, MASK or BLEND, got 'CUTOUT'");
    EXPECT_EQ(model_error(directory, "cut.gltf", file("{\"alphaMode\": \"MASK\", \"alphaCutoff\": -1}")),
              "cut.gltf: /materials/0/alphaCutoff: must be finite and not negative");
}

}  // namespace
}  // namespace farmrt
