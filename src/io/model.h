// A model read from a third-party file (glTF 2.0, OBJ with its materials,
// PLY), before it joins a scene: its own materials and textures, its meshes
// and where its nodes place them, its lights and its first camera.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/camera.h"
#include "core/light_types.h"
#include "core/materials.h"
#include "core/primitives.h"
#include "core/transform.h"

namespace farmrt {

struct ModelMesh {
    std::vector<Triangle> triangles;             // Triangle::material: an index into ModelData::materials
    std::vector<TriangleAttributes> attributes;  // Triangle::attributes indexes it
};

// One node's use of a mesh: the mesh in the model's space.
struct ModelPlacement {
    uint32_t mesh = 0;
    Transform model_from_mesh;
};

struct ModelCamera {
    CameraSettings settings;  // lookfrom, lookat, vup, vfov in the model's space
    double aspect_ratio = 0;  // width / height; 0 when the file gives none
};

struct ModelData {
    std::vector<Material> materials;  // texture indices into `textures`
    std::vector<Texture> textures;    // image_offset into `texture_pixels`
    std::vector<float> texture_pixels;
    std::vector<ModelMesh> meshes;
    std::vector<ModelPlacement> placements;
    std::vector<Light> lights;  // in the model's space
    std::optional<ModelCamera> camera;
    std::vector<std::string> warnings;  // one line each, for optional features it ignored

    uint32_t add_texture(const Texture& texture) {
        textures.push_back(texture);
        return uint32_t(textures.size() - 1);
    }
    uint32_t add_constant(const Color& color) {
        Texture texture;
        texture.color = color;
        return add_texture(texture);
    }
};

// The principled material every importer starts from: glTF's defaults
// (white, fully metallic, fully rough: what a file gets where it says
// nothing), with its textures added to `model`.
Material default_model_material(ModelData& model, const Color& base_color, float metallic, float roughness);

}  // namespace farmrt
