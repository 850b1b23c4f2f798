// Models in scenes: `{type: model, file: model.glb, transform: ...}` and
// `farmrt model.glb`. Reads glTF 2.0 (.gltf, .glb), OBJ with its MTL
// materials (.obj) and PLY (.ply) into a ModelData, and adds one to a scene:
// each mesh placed once is baked into the top level in world space, a mesh
// placed by several nodes is stored once and instanced, and every triangle
// keeps its own material.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/aabb.h"
#include "core/scene.h"
#include "io/model.h"

namespace farmrt {

// Whether `path` names a model file farmrt reads (by its extension).
bool is_model_file(const std::string& path);
// Whether `path` names a model that assimp reads for farmrt (STL, Collada,
// FBX, 3DS), whether or not this build has assimp.
bool is_assimp_model_file(const std::string& path);
// The extensions is_model_file accepts, for messages: ".gltf, .glb, ...".
std::string model_extensions_text();

// Reads the model at `path` (named `display_path` in errors). Throws
// InputError with one line naming the file and what is wrong.
ModelData load_model(const std::string& path, const std::string& display_path);

// Adds the model, placed by `world_from_model`, to the scene: its materials,
// textures, triangles, instances and lights. Returns the world-space bounds
// of what it added. `display_path` names the model in errors (too many
// primitives).
// `material`: a scene material that replaces all of the model's, or
// kGeometryMaterial to keep them.
Aabb add_model_to_scene(const ModelData& model, const Transform& world_from_model, Scene& scene,
                        const std::string& display_path, uint32_t material = kGeometryMaterial);

// A model that several objects of a scene place: its materials, textures and
// triangles enter the scene once, with the first placement, and every mesh
// placement of every object becomes an instance of the one stored geometry,
// so memory grows with the unique geometry, not the number of placements.
struct SharedModel {
    bool stored = false;
    uint32_t material_base = 0;
    std::vector<uint32_t> geometry;  // per mesh of the model
    std::vector<Aabb> mesh_bounds;   // per mesh, in the mesh's own space
};

// Places `model` once more through `shared` (see SharedModel); the same
// contract as add_model_to_scene otherwise.
Aabb place_shared_model(const ModelData& model, const Transform& world_from_model, Scene& scene,
                        const std::string& display_path, uint32_t material, SharedModel& shared);

// A triangle with its vertices and shading normals moved by `transform`.
Triangle transformed_triangle(Triangle t, const Transform& transform);

// Appends a mesh's triangles and their attributes (Triangle::attributes
// indexes `attributes`) to the scene, moved by `transform` and each given the
// material material_of(its own). Returns the refs of the triangles added.
std::vector<PrimitiveRef> append_triangles(const std::vector<Triangle>& triangles,
                                           const std::vector<TriangleAttributes>& attributes,
                                           const Transform& transform,
                                           const std::function<uint32_t(uint32_t)>& material_of, Scene& scene);

// A camera that frames `bounds` from the front and a little above, with the
// given vertical field of view, in an image of `aspect_ratio` (width /
// height): the whole bounding sphere fits across the narrower side.
CameraSettings framing_camera(const Aabb& bounds, double vfov_degrees, double aspect_ratio);

}  // namespace farmrt
