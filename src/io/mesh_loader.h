// Wavefront OBJ meshes, read through tinyobjloader: faces triangulated, vertex
// normals kept for smooth shading, texture coordinates kept for textures.
#pragma once

#include <string>
#include <vector>

#include "core/primitives.h"

namespace farmrt {

// A material of an MTL file, as written there.
struct ObjMaterial {
    std::string name;
    Color diffuse{0.8f}, specular{0.0f}, emission{0.0f}, transmittance{0.0f};  // Kd, Ks, Ke, Tf
    float shininess = 0;                                                       // Ns
    float ior = 1.5f;                                                          // Ni
    float dissolve = 1;                                                        // d, or 1 - Tr
    int illum = 2;
    float roughness = 0, metallic = 0;              // Pr, Pm (0 where absent)
    std::string diffuse_texture, emission_texture;  // map_Kd, map_Ke: as written, relative to the MTL file
};

struct MeshData {
    // Triangle::material: 0, the scene assigns one; with materials, an index
    // into `materials`, or kNoObjMaterial for faces before any usemtl.
    std::vector<Triangle> triangles;
    std::vector<TriangleAttributes> attributes;  // Triangle::attributes indexes it (vertex colours)
    size_t skipped_degenerate = 0;               // zero-area faces, dropped
    std::vector<ObjMaterial> materials;
    std::vector<std::string> warnings;  // what was left out (a material library that does not exist)
};

// The most materials an OBJ's libraries may define (each costs tinyobjloader
// about 2 KB and its parse time; a million is a hostile file, not a model).
constexpr size_t kMaxObjMaterials = 100000;

constexpr uint32_t kNoObjMaterial = 0xFFFFFFFFu;

// Reads `path` (shown as `display_path` in errors). Throws InputError naming the
// file and, for malformed content, the line: "model.obj:12: face index 9 is out
// of range (8 vertices so far)".
MeshData load_obj_mesh(const std::string& path, const std::string& display_path);

// The same with the materials of its `mtllib` files (found next to it),
// face by face.
MeshData load_obj_model_mesh(const std::string& path, const std::string& display_path);

// The same from text already in memory (tests); `mtl_text`: the material
// library's contents, read only when `with_materials`.
MeshData parse_obj_mesh(const std::string& text, const std::string& display_path, bool with_materials = false,
                        const std::string& mtl_text = "");

}  // namespace farmrt
