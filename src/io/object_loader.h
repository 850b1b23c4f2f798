// Reads a scene file's `objects` (docs/scene-format.md): spheres, quads,
// boxes, triangles, OBJ meshes and models, each with its transform and
// material; a mesh or model file that several objects place is read once and
// instanced. Errors as the scene loader's: one line naming the file, line,
// column and key.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "io/mesh_loader.h"
#include "io/model_loader.h"
#include "io/scene_loader.h"
#include "io/yaml_reader.h"

namespace farmrt {

class ObjectLoader : public YamlReader {
public:
    // The scene material an object names or defines inline (the scene loader's materials).
    using MaterialOf = std::function<uint32_t(const Value& object, Scene& scene)>;

    ObjectLoader(const std::string& display_name, const std::map<std::string, std::string>& override_origin,
                 std::string scene_directory, MaterialOf material_of)
        : YamlReader(display_name, override_origin),
          scene_directory_(std::move(scene_directory)),
          material_of_(std::move(material_of)) {}

    // How many objects use each mesh and model file, before loading any:
    // decides between baking into the top level and instancing.
    void count_file_uses(const YAML::Node& objects);
    void load_object(const Value& object, SceneDescription& description);

private:
    std::string resolve_path(const std::string& name) const { return resolve_scene_path(scene_directory_, name); }
    uint32_t object_material(const Value& object, Scene& scene) const { return material_of_(object, scene); }
    // `transform: {scale, rotate_x, rotate_y, rotate_z, translate}`, applied in that order.
    Transform load_transform(const Value& value) const;
    Transform object_transform(const Value& object) const;
    // The book's box(): six quads from the min and max corners.
    static void add_box(const Vec3& lo, const Vec3& hi, const Transform& transform, uint32_t material, Scene& scene);
    void load_sphere(const Value& object, Scene& scene) const;
    void load_quad(const Value& object, Scene& scene) const;
    void load_box(const Value& object, Scene& scene) const;
    void load_triangle(const Value& object, Scene& scene) const;
    MeshData read_mesh(const Value& file, const std::string& path) const;
    void check_triangle_capacity(const Value& where, const Scene& scene, size_t adding) const;
    // A mesh used once is transformed into world space and joins the top level;
    // a mesh file used several times is stored once and placed by instances.
    void load_mesh(const Value& object, Scene& scene);
    // {type: model, file, transform, material}: a whole model with its own
    // materials and lights; `material` replaces all of its materials (a
    // clay render). Its camera is kept for a model file rendered directly.
    void load_model_object(const Value& object, Scene& scene, SceneDescription& description);
    static void use_model_camera(const ModelData& model, const Transform& transform, SceneDescription& description);

    std::string scene_directory_;
    MaterialOf material_of_;
    std::map<std::string, size_t> mesh_uses_;        // resolved mesh path -> objects using it
    std::map<std::string, uint32_t> mesh_geometry_;  // resolved mesh path -> instance geometry
    struct LoadedModel {
        ModelData model;
        SharedModel shared;
        bool warned = false;
    };
    std::map<std::string, size_t> model_uses_;   // resolved model path -> objects placing it
    std::map<std::string, LoadedModel> models_;  // resolved model path -> the model, read once
};

}  // namespace farmrt
