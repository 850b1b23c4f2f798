// A model file (.gltf, .glb, .obj, .ply) rendered directly (`farmrt
// model.glb`): a scene of its own, the model under a sky, seen by its camera
// if it has one, else by one that frames it in the image's aspect ratio.
#pragma once

#include <string>
#include <vector>

#include "io/scene_loader.h"

namespace farmrt {

SceneDescription load_model_scene(const std::string& path, const std::vector<SceneOverride>& overrides);

}  // namespace farmrt
