// STL, Collada, FBX and 3DS through assimp (io/assimp_loader.cpp), on
// Debian's assimp-testmodels: every file of those formats either loads with
// triangles or gives one line naming it; two encodings of one model load the
// same triangles; instanced nodes stay instanced; vertex colours and
// textures named in another case arrive.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/model_loader.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

#if FARMRT_TESTS_HAVE_ASSIMP

std::vector<std::string> assimp_files(const std::string& root) {
    std::vector<std::string> files;
    for (const char* folder : {"STL", "Collada", "FBX", "3DS"}) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root + "/" + folder)) {
            if (entry.is_regular_file() && is_assimp_model_file(entry.path().string())) {
                files.push_back(entry.path().string());
            }
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

size_t placed_triangles(const ModelData& model) {
    size_t triangles = 0;
    for (const ModelPlacement& p : model.placements) triangles += model.meshes[p.mesh].triangles.size();
    return triangles;
}

TEST(AssimpFormats, EveryFileLoadsWithTrianglesOrGivesOneLineNamingIt) {
    const std::string root = FARMRT_ASSIMP_MODELS;
    if (root.empty()) GTEST_SKIP() << "assimp-testmodels is not installed (apt-get install assimp-testmodels)";
    int loaded = 0, refused = 0;
    for (const std::string& file : assimp_files(root)) {
        try {
            const ModelData model = load_model(file, file);
            EXPECT_GT(placed_triangles(model), 0u) << file;
            for (const ModelMesh& mesh : model.meshes) {
                for (const Triangle& t : mesh.triangles) ASSERT_LT(t.material, model.materials.size()) << file;
            }
            ++loaded;
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind(file + ": ", 0), 0u) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            ++refused;
        }
    }
    // 64 files in Debian 12's assimp-testmodels: all but a handful hold triangles.
    EXPECT_GE(loaded, 50);
    EXPECT_LE(refused, 8);
}

TEST(AssimpFormats, TheSameModelInTwoEncodingsGivesTheSameTriangles) {
    const std::string root = FARMRT_ASSIMP_MODELS;
    if (root.empty()) GTEST_SKIP() << "assimp-testmodels is not installed";
    const ModelData ascii = load_model(root + "/STL/Spider_ascii.stl", "ascii");
    const ModelData binary = load_model(root + "/STL/Spider_binary.stl", "binary");
    ASSERT_EQ(ascii.meshes.size(), 1u);
    ASSERT_EQ(binary.meshes.size(), 1u);
    const std::vector<Triangle>& a = ascii.meshes[0].triangles;
    const std::vector<Triangle>& b = binary.meshes[0].triangles;
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GT(a.size(), 1000u);
    for (size_t i = 0; i < a.size(); ++i) {
        for (const auto& pair : {std::make_pair(a[i].vertex0, b[i].vertex0), std::make_pair(a[i].vertex1, b[i].vertex1),
                                 std::make_pair(a[i].vertex2, b[i].vertex2)}) {
            // ASCII prints the binary's floats to about 7 digits.
            ASSERT_NEAR(pair.first.x, pair.second.x, 1e-4f * (1 + std::fabs(pair.second.x))) << i;
            ASSERT_NEAR(pair.first.y, pair.second.y, 1e-4f * (1 + std::fabs(pair.second.y))) << i;
            ASSERT_NEAR(pair.first.z, pair.second.z, 1e-4f * (1 + std::fabs(pair.second.z))) << i;
        }
    }
    // A Collada model written as polygons and as triangles.
    const ModelData polygons = load_model(root + "/Collada/COLLADA.dae", "polygons");
    const ModelData triangles = load_model(root + "/Collada/COLLADA_triangulate.dae", "triangles");
    EXPECT_EQ(placed_triangles(polygons), placed_triangles(triangles));
    EXPECT_GT(placed_triangles(polygons), 1000u);
}

TEST(AssimpFormats, InstancesColoursAndTexturesArrive) {
    const std::string root = FARMRT_ASSIMP_MODELS;
    if (root.empty()) GTEST_SKIP() << "assimp-testmodels is not installed";
    // Nodes that instance one geometry place one mesh several times.
    const ModelData teapots = load_model(root + "/Collada/teapot_instancenodes.DAE", "teapots");
    EXPECT_LT(teapots.meshes.size(), teapots.placements.size());
    // Per-vertex colours.
    const ModelData colored = load_model(root + "/Collada/kwxport_test_vcolors.dae", "colors");
    bool tinted = false;
    for (const ModelMesh& mesh : colored.meshes) {
        for (const TriangleAttributes& a : mesh.attributes) tinted |= a.color[0].x != a.color[0].z;
    }
    EXPECT_TRUE(tinted);
#if FARMRT_TESTS_HAVE_OPENIMAGEIO
    // The 3DS names TEST.PNG; the folder holds test.png.
    const ModelData cube = load_model(root + "/3DS/cube_with_diffuse_texture.3DS", "cube");
    bool textured = false;
    for (const Material& m : cube.materials) textured |= cube.textures[m.albedo_texture].type == TextureType::Image;
    EXPECT_TRUE(textured);
#endif
}

TEST(AssimpFormats, BrokenFilesGiveOneLine) {
    testing::TemporaryDirectory directory;
    // A binary STL promising 1000 triangles and holding five bytes of them.
    std::string stl(80, ' ');
    stl += std::string("\xe8\x03\x00\x00", 4) + "short";
    testing::write_text(directory.file("short.stl"), stl);
    testing::write_text(directory.file("cut.dae"), "<?xml version=\"1.0\"?><COLLADA><library_geometries><geometry");
    testing::write_text(directory.file("empty.fbx"), "");
    for (const char* name : {"short.stl", "cut.dae", "empty.fbx", "missing.3ds"}) {
        try {
            load_model(directory.file(name), name);
            ADD_FAILURE() << name << " loaded";
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind(std::string(name) + ": ", 0), 0u) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
}

#else

TEST(AssimpFormats, WithoutAssimpTheFormatsAreNamedAsMissing) {
    try {
        load_model("model.stl", "model.stl");
        FAIL() << "loaded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("made without"), std::string::npos) << e.what();
    }
}

#endif

}  // namespace
}  // namespace farmrt
