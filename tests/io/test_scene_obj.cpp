// OBJ meshes through tinyobjloader: triangulation, normals, UVs, relative
// paths, and malformed files rejected with the file and the line.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "io/mesh_loader.h"
#include "scene_test_helpers.h"

namespace farmrt {
namespace {

std::string parse_error(const std::string& text) {
    try {
        parse_obj_mesh(text, "model.obj");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(ObjMesh, TriangulatesAndKeepsNormalsAndUvs) {
    const MeshData mesh = parse_obj_mesh(
        "# a unit square as one quad face, and a triangle with negative indices\n"
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
        "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
        "vn 0 0 2\n"
        "o square\nusemtl whatever\ns 1\n"
        "f 1/1/1 2/2/1 3/3/1 4/4/1\n"
        "v 0 0 1\nv 1 0 1\nv 0 1 1\n"
        "f -3 -2 -1\n",
        "model.obj");
    ASSERT_EQ(mesh.triangles.size(), 3u);
    const Triangle& first = mesh.triangles[0];
    EXPECT_EQ(first.vertex0.x, 0.0f);
    EXPECT_EQ(first.vertex1.x, 1.0f);
    EXPECT_FLOAT_EQ(first.normal0.z, 1.0f);  // normalised
    EXPECT_FLOAT_EQ(first.uv[2], 1.0f);      // vertex 2's (u, v) = (1, 0)
    EXPECT_FLOAT_EQ(first.uv[3], 0.0f);
    // In the square, each corner's (u, v) equals its (x, y), whichever diagonal splits it.
    for (int k = 0; k < 2; ++k) {
        const Triangle& t = mesh.triangles[size_t(k)];
        const Vec3 corners[3] = {t.vertex0, t.vertex1, t.vertex2};
        for (int c = 0; c < 3; ++c) {
            EXPECT_EQ(t.uv[2 * c], corners[c].x);
            EXPECT_EQ(t.uv[2 * c + 1], corners[c].y);
        }
    }
    // No normals, no UVs: flat shading and the default UVs.
    const Triangle& last = mesh.triangles[2];
    EXPECT_EQ(length_squared(last.normal0), 0.0f);
    EXPECT_EQ(last.vertex0.z, 1.0f);
    EXPECT_FLOAT_EQ(last.uv[2], 1.0f);
    EXPECT_FLOAT_EQ(last.uv[5], 1.0f);
}

TEST(ObjMesh, DropsZeroAreaFaces) {
    const MeshData mesh = parse_obj_mesh("v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n", "model.obj");
    EXPECT_EQ(mesh.triangles.size(), 1u);
    EXPECT_EQ(mesh.skipped_degenerate, 1u);
}

TEST(ObjMesh, MalformedFilesNameTheLine) {
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 1 abc 0\nf 1 2 3\n"), "model.obj:3: 'abc' is not a number");
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 4\n"),
              "model.obj:4: vertex index 4 is out of range (3 vertices so far)");
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2\n"), "model.obj:4: a face needs at least 3 vertices");
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1/1 2/1 3/1\n"),
              "model.obj:4: texture coordinate index 1 is out of range (0 texture coordinates so far)");
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 1 1 0\nvn 0 0 1\nf 1//1 2//2 3//1\n"),
              "model.obj:5: normal index 2 is out of range (1 normal so far)");
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0\n"), "model.obj:2: 'v' expects 3 to 6 numbers, got 2");
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 nan\n"), "model.obj:2: 'nan' is not a finite number");
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 x 3\n"), "model.obj:4: vertex index 'x' is not an integer");
    EXPECT_EQ(parse_error("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 0 1 2\n"),
              "model.obj:4: vertex index 0 is out of range (3 vertices so far)");
    EXPECT_EQ(parse_error("v 0 0 0\n"), "model.obj: no faces (f lines) in the OBJ file");
    EXPECT_EQ(parse_error(""), "model.obj: no faces (f lines) in the OBJ file");
}

TEST(ObjMesh, SceneErrorsNameTheSceneLineAndTheMeshLine) {
    const std::string directory = testing::temporary_directory("obj_errors");
    testing::write_text(directory + "/bad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 9\n");
    const std::string bad =
        testing::scene_yaml(testing::kGrayMaterial, "  - {type: mesh, file: bad.obj, material: gray}\n");
    std::string error = testing::load_error(bad, directory);
    EXPECT_NE(error.find("scene.yaml:7:"), std::string::npos) << error;
    EXPECT_NE(error.find("objects[0].file: " + directory + "/bad.obj:4: vertex index 9 is out of range"),
              std::string::npos)
        << error;
    const std::string missing =
        testing::scene_yaml(testing::kGrayMaterial, "  - {type: mesh, file: nowhere.obj, material: gray}\n");
    error = testing::load_error(missing, directory);
    EXPECT_NE(error.find("scene.yaml:7:"), std::string::npos) << error;
    EXPECT_NE(error.find("nowhere.obj: cannot read mesh file: No such file or directory"), std::string::npos) << error;
}

TEST(ObjMesh, PathsAreRelativeToTheSceneFile) {
    const std::string directory = testing::temporary_directory("obj_relative");
    ASSERT_EQ(std::system(("mkdir -p '" + directory + "/models'").c_str()), 0);
    testing::write_text(directory + "/models/tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    const std::string scene_path = directory + "/scene.yaml";
    testing::write_text(scene_path, testing::scene_yaml(testing::kGrayMaterial,
                                                        "  - {type: mesh, file: models/tri.obj, material: gray}\n"));
    const SceneDescription d = load_scene_file(scene_path);
    EXPECT_EQ(d.scene.triangles.size(), 1u);
}

TEST(ObjMesh, CommittedKnotHasAtLeast100kSmoothTexturedTriangles) {
    const MeshData mesh = load_obj_mesh(std::string(FARMRT_SOURCE_DIR) + "/configs/models/knot.obj", "knot.obj");
    EXPECT_GE(mesh.triangles.size(), 100000u);
    EXPECT_EQ(mesh.skipped_degenerate, 0u);
    for (size_t i = 0; i < mesh.triangles.size(); i += 997) {
        const Triangle& t = mesh.triangles[i];
        EXPECT_NEAR(length(t.normal0), 1.0f, 1e-5f);
        // Smooth normals agree with the face's orientation (outward tube normals).
        const Vec3 face = cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0);
        EXPECT_GT(dot(face, t.normal0 + t.normal1 + t.normal2), 0.0f) << i;
        EXPECT_GE(t.uv[0], 0.0f);
        EXPECT_LE(t.uv[0], 1.0f);
    }
}

}  // namespace
}  // namespace farmrt
