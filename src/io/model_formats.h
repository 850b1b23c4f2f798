// The readers behind load_model (io/model_loader.h), one per file format.
// Each throws InputError with one line naming the file and what is wrong.
#pragma once

#include <string>

#include "io/model.h"

namespace farmrt {

// glTF 2.0: .gltf (external or embedded buffers) and .glb (io/gltf_loader.cpp).
ModelData load_gltf_model(const std::string& path, const std::string& display_path);
// Wavefront OBJ with the materials of its MTL files (io/model_loader.cpp).
ModelData load_obj_model(const std::string& path, const std::string& display_path);
// PLY, ASCII or binary of either byte order (io/ply_loader.cpp).
ModelData load_ply_model(const std::string& path, const std::string& display_path);

}  // namespace farmrt
