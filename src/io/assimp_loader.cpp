// STL, Collada (.dae), FBX and 3DS models through assimp: its meshes (as
// triangles; points and lines dropped), node hierarchy, vertex normals,
// (u, v), vertex colours and materials, the classic ones mapped onto the
// principled material as OBJ's MTL materials are (principled_from_mtl).
#include <assimp/Importer.hpp>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <system_error>

#include "core/errors.h"
#include "core/stop_flag.h"
#include "io/model_formats.h"

namespace farmrt {
namespace {

// The most nodes deep a hierarchy may nest (a cycle-free file never comes close).
constexpr int kMaxNodeDepth = 1000;

class AssimpReader {
public:
    AssimpReader(const aiScene& scene, const std::string& path, const std::string& display_path)
        : scene_(scene), directory_(std::filesystem::path(path).parent_path()), file_(display_path) {}

    ModelData read() {
        for (unsigned i = 0; i < scene_.mNumMaterials; ++i) model_.materials.push_back(material(i));
        mesh_of_.assign(scene_.mNumMeshes, -1);
        if (scene_.mRootNode == nullptr) fail("has no node hierarchy");
        visit(*scene_.mRootNode, Transform::identity(), 0);
        if (model_.meshes.empty()) fail("holds no triangles (only points, lines or nothing a renderer shows)");
        if (scene_.mNumLights > 0) warn("ignores its " + std::to_string(scene_.mNumLights) + " light(s)");
        if (scene_.mNumCameras > 0) warn("ignores its camera(s): farmrt frames the model itself");
        return std::move(model_);
    }

private:
    [[noreturn]] void fail(const std::string& problem) const { throw InputError(file_ + ": " + problem); }
    void warn(const std::string& what) { model_.warnings.push_back(file_ + ": " + what); }

    // ---- materials ---------------------------------------------------------------------------------

    Material material(unsigned index) {
        const aiMaterial& m = *scene_.mMaterials[index];
        ObjMaterial mtl;
        aiString name;
        mtl.name = m.Get(AI_MATKEY_NAME, name) == AI_SUCCESS ? std::string(name.C_Str()) : std::to_string(index);
        if (mtl.name == AI_DEFAULT_MATERIAL_NAME) {
            // What assimp gives files without materials (STL): the grey diffuse
            // other importers show them in, as for OBJ faces without usemtl.
            Material grey = default_model_material(model_, Color(0.8f), 0.0f, 1.0f);
            grey.ior = 1.0f;
            return grey;
        }
        const auto color = [&](const char* key, unsigned type, unsigned slot, Color& out) {
            aiColor3D c;
            if (m.Get(key, type, slot, c) != AI_SUCCESS) return false;
            out = Color(c.r, c.g, c.b);
            return true;
        };
        const auto number = [&](const char* key, unsigned type, unsigned slot, float& out) {
            ai_real value;
            if (m.Get(key, type, slot, value) != AI_SUCCESS) return false;
            out = float(value);
            return true;
        };
        if (!color(AI_MATKEY_BASE_COLOR, mtl.diffuse)) color(AI_MATKEY_COLOR_DIFFUSE, mtl.diffuse);
        color(AI_MATKEY_COLOR_SPECULAR, mtl.specular);
        color(AI_MATKEY_COLOR_EMISSIVE, mtl.emission);
        number(AI_MATKEY_SHININESS, mtl.shininess);
        number(AI_MATKEY_REFRACTI, mtl.ior);
        number(AI_MATKEY_OPACITY, mtl.dissolve);
        number(AI_MATKEY_METALLIC_FACTOR, mtl.metallic);
        number(AI_MATKEY_ROUGHNESS_FACTOR, mtl.roughness);
        // Not finite: an error. Negative: what some exporters write for
        // "unset" (-1 roughness, shininess): read as 0, with a warning.
        bool negative = false;
        for (float* v : {&mtl.diffuse.x, &mtl.diffuse.y, &mtl.diffuse.z, &mtl.specular.x, &mtl.specular.y,
                         &mtl.specular.z, &mtl.emission.x, &mtl.emission.y, &mtl.emission.z, &mtl.shininess, &mtl.ior,
                         &mtl.metallic, &mtl.roughness}) {
            if (!std::isfinite(*v)) fail("material '" + mtl.name + "': a colour or factor is not finite");
            if (*v < 0.0f) {
                negative = true;
                *v = 0.0f;
            }
        }
        if (negative) warn("material '" + mtl.name + "': reads its negative colours or factors as 0");
        // Opacity outside [0, 1] (exporters write 0 for "unset" too rarely to guess): as written, clamped.
        mtl.dissolve = std::isfinite(mtl.dissolve) ? std::clamp(mtl.dissolve, 0.0f, 1.0f) : 1.0f;
        mtl.diffuse_texture = texture(m, aiTextureType_BASE_COLOR, mtl.name);
        if (mtl.diffuse_texture.empty()) mtl.diffuse_texture = texture(m, aiTextureType_DIFFUSE, mtl.name);
        mtl.emission_texture = texture(m, aiTextureType_EMISSIVE, mtl.name);
        if (!mtl.emission_texture.empty() && !(mtl.emission.x > 0 || mtl.emission.y > 0 || mtl.emission.z > 0)) {
            mtl.emission_texture.clear();  // an emission map under a black emissive colour emits nothing
        }
        return principled_from_mtl(mtl, directory_, model_, file_, image_textures_);
    }

    // The texture file of `type`, relative to the model's folder; empty,
    // with a warning, where it is embedded in the file or does not exist
    // (files often name textures on the machine that wrote them).
    std::string texture(const aiMaterial& m, aiTextureType type, const std::string& material_name) {
        if (m.GetTextureCount(type) == 0) return "";
        aiString name;
        if (m.GetTexture(type, 0, &name) != AI_SUCCESS || name.length == 0) return "";
        std::string file(name.C_Str());
        if (file[0] == '*') {
            warn("material '" + material_name + "': ignores an embedded texture");
            return "";
        }
        std::replace(file.begin(), file.end(), '\\', '/');
        std::error_code error;
        if (std::filesystem::is_regular_file(directory_ / file, error)) return file;
        // Formats from DOS and Windows (3DS, FBX) name files in another case than they are stored in.
        const std::filesystem::path wanted(file);
        const std::filesystem::path folder = directory_ / wanted.parent_path();
        for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
            if (same_ignoring_case(entry.path().filename().string(), wanted.filename().string()) &&
                entry.is_regular_file(error)) {
                return (wanted.parent_path() / entry.path().filename()).string();
            }
        }
        warn("material '" + material_name + "': texture " + file + " does not exist; renders without it");
        return "";
    }

    static bool same_ignoring_case(const std::string& a, const std::string& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                   return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
               });
    }

    // ---- meshes and nodes ---------------------------------------------------------------------------

    static Transform transform_of(const aiMatrix4x4& a) {
        Transform t;
        const ai_real* rows[3] = {&a.a1, &a.b1, &a.c1};
        for (int row = 0; row < 3; ++row) {
            for (int column = 0; column < 4; ++column) t.m[row][column] = double(rows[row][column]);
        }
        return t;
    }

    void visit(const aiNode& node, const Transform& parent, int depth) {
        if (depth > kMaxNodeDepth) fail("its node hierarchy lies more than 1000 levels deep");
        const Transform world = transform_of(node.mTransformation).then(parent);
        for (const auto& row : world.m) {
            for (double v : row) {
                if (!std::isfinite(v)) fail("node '" + std::string(node.mName.C_Str()) + "': transform not finite");
            }
        }
        for (unsigned i = 0; i < node.mNumMeshes; ++i) {
            const unsigned mesh = node.mMeshes[i];
            if (mesh >= scene_.mNumMeshes) fail("node '" + std::string(node.mName.C_Str()) + "': missing mesh");
            const int index = mesh_index(mesh);
            if (index >= 0) model_.placements.push_back(ModelPlacement{uint32_t(index), world});
        }
        for (unsigned i = 0; i < node.mNumChildren; ++i) {
            if (node.mChildren[i] != nullptr) visit(*node.mChildren[i], world, depth + 1);
        }
    }

    // The ModelMesh of assimp mesh `index`, read on first use; -1 for one
    // without triangles.
    int mesh_index(unsigned index) {
        if (mesh_of_[index] != -1) return mesh_of_[index];
        stop_if_requested("loading a model");
        const aiMesh& m = *scene_.mMeshes[index];
        mesh_of_[index] = -2;
        if (!(m.mPrimitiveTypes & aiPrimitiveType_TRIANGLE) || m.mVertices == nullptr) return -2;
        if (m.HasBones()) warn("renders skinned meshes in their bind pose");
        const std::string where = "mesh '" + std::string(m.mName.C_Str()) + "'";
        for (unsigned v = 0; v < m.mNumVertices; ++v) {
            const aiVector3D& p = m.mVertices[v];
            for (ai_real c : {p.x, p.y, p.z}) {
                if (!(std::isfinite(c) && std::fabs(c) < 1e30f)) fail(where + ": a vertex is not finite");
            }
        }
        if (m.mMaterialIndex >= model_.materials.size()) fail(where + ": refers to a missing material");
        ModelMesh mesh;
        mesh.triangles.reserve(m.mNumFaces);
        for (unsigned f = 0; f < m.mNumFaces; ++f) {
            const aiFace& face = m.mFaces[f];
            if (face.mNumIndices != 3) continue;
            for (unsigned k = 0; k < 3; ++k) {
                if (face.mIndices[k] >= m.mNumVertices) fail(where + ": a face's vertex index is out of range");
            }
            add_triangle(m, face, mesh, where);
        }
        if (mesh.triangles.empty()) return -2;
        model_.meshes.push_back(std::move(mesh));
        mesh_of_[index] = int(model_.meshes.size() - 1);
        return mesh_of_[index];
    }

    void add_triangle(const aiMesh& m, const aiFace& face, ModelMesh& mesh, const std::string& where) {
        const auto vec = [](const aiVector3D& v) { return Vec3(float(v.x), float(v.y), float(v.z)); };
        Triangle t{};
        t.vertex0 = vec(m.mVertices[face.mIndices[0]]);
        t.vertex1 = vec(m.mVertices[face.mIndices[1]]);
        t.vertex2 = vec(m.mVertices[face.mIndices[2]]);
        if (!(length_squared(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0)) > 0)) return;  // degenerate
        if (m.mNormals != nullptr) {
            Vec3 normals[3];
            bool smooth = true;
            for (int c = 0; c < 3; ++c) {
                normals[c] = vec(m.mNormals[face.mIndices[c]]);
                const float length = length_squared(normals[c]);
                smooth = smooth && length > 0 && std::isfinite(length);
            }
            if (smooth) {
                t.normal0 = unit_vector(normals[0]);
                t.normal1 = unit_vector(normals[1]);
                t.normal2 = unit_vector(normals[2]);
            }
        }
        // assimp's (u, v) have v up, as farmrt's.
        for (int c = 0; c < 3; ++c) {
            const bool textured = m.HasTextureCoords(0) && std::isfinite(m.mTextureCoords[0][face.mIndices[c]].x) &&
                                  std::isfinite(m.mTextureCoords[0][face.mIndices[c]].y);
            t.uv[2 * c] = textured ? float(m.mTextureCoords[0][face.mIndices[c]].x) : kDefaultTriangleUvs[2 * c];
            t.uv[2 * c + 1] =
                textured ? float(m.mTextureCoords[0][face.mIndices[c]].y) : kDefaultTriangleUvs[2 * c + 1];
        }
        t.material = m.mMaterialIndex;
        if (m.HasVertexColors(0)) {
            TriangleAttributes a;
            for (int c = 0; c < 3; ++c) {
                const aiColor4D& color = m.mColors[0][face.mIndices[c]];
                for (float v : {color.r, color.g, color.b}) {
                    if (!(v >= 0.0f && v <= 1.0f)) fail(where + ": a vertex colour lies outside [0, 1]");
                }
                a.color[c] = Color(color.r, color.g, color.b);
            }
            t.attributes = uint32_t(mesh.attributes.size());
            mesh.attributes.push_back(a);
        }
        mesh.triangles.push_back(t);
    }

    const aiScene& scene_;
    const std::filesystem::path directory_;
    const std::string& file_;
    ModelData model_;
    std::vector<int> mesh_of_;  // per assimp mesh: its ModelMesh, -1 not read yet, -2 none
    std::map<std::string, uint32_t> image_textures_;
};

}  // namespace

ModelData load_assimp_model(const std::string& path, const std::string& display_path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        throw InputError(display_path + ": " +
                         (std::filesystem::exists(path, error) ? "not a regular file" : "no such file"));
    }
    Assimp::Importer importer;
    // Points and lines are removed; polygons become triangles (assimp's own
    // triangulation: concave faces included).
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const aiScene* scene =
        importer.ReadFile(path, aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure);
    if (scene == nullptr) throw InputError(display_path + ": " + one_line(importer.GetErrorString()));
    // assimp marks a scene without meshes (cameras, lights or animation only) incomplete.
    if (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
        throw InputError(display_path + ": holds no meshes (only cameras, lights or animation)");
    }
    return AssimpReader(*scene, path, display_path).read();
}

}  // namespace farmrt
