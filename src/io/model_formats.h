// The readers behind load_model (io/model_loader.h), one per file format.
// Each throws InputError with one line naming the file and what is wrong.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "io/mesh_loader.h"
#include "io/model.h"

namespace farmrt {

// glTF 2.0: .gltf (external or embedded buffers) and .glb (io/gltf_loader.cpp).
ModelData load_gltf_model(const std::string& path, const std::string& display_path);
// Wavefront OBJ with the materials of its MTL files (io/model_loader.cpp).
ModelData load_obj_model(const std::string& path, const std::string& display_path);
// PLY, ASCII or binary of either byte order (io/ply_loader.cpp).
ModelData load_ply_model(const std::string& path, const std::string& display_path);
// STL, Collada (.dae), FBX and 3DS through assimp (io/assimp_loader.cpp),
// where the build has it (FARMRT_HAVE_ASSIMP).
ModelData load_assimp_model(const std::string& path, const std::string& display_path);

// An MTL-style material (OBJ's, and the classic diffuse/specular/shininess
// materials assimp reads from other formats) as the principled one, its
// textures added to `model` (io/model_loader.cpp). `directory`: where texture
// names are relative to; `image_textures`: those read so far, by path.
Material principled_from_mtl(const ObjMaterial& mtl, const std::filesystem::path& directory, ModelData& model,
                             const std::string& display_path, std::map<std::string, uint32_t>& image_textures);

}  // namespace farmrt
