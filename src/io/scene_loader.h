// Reads a YAML scene into RenderSettings + Scene, validating every value.
// Errors are InputError with one line: "file:line:column: key.path: problem".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/animation.h"
#include "core/render_settings.h"
#include "core/scene.h"
#include "io/model.h"

namespace YAML {
class Node;
}

namespace farmrt {

// One "key.path=value" replacement, and how the user wrote it (for errors).
struct SceneOverride {
    std::string assignment;  // "camera.vfov=30"
    std::string origin;      // "--set camera.vfov=30", "--spp 16"; empty = "--set " + assignment
};

struct SceneDescription {
    RenderSettings settings;
    Scene scene;
    Animation animation;                // animation: section (frames, camera keyframes)
    std::string canonical_scene;        // what identifies the scene's pixels (scene_identity.h)
    std::vector<std::string> warnings;  // one line each: what imported models asked for that farmrt ignores
    // What {type: model} objects brought: their world-space bounds, and the
    // first camera one of them has (a model file rendered directly uses it).
    Aabb model_bounds;
    std::optional<ModelCamera> model_camera;
};

// `overrides` are "key.path=value" strings (--set and the shorthand options);
// they replace or add values in the file before validation.
// A model file (.gltf, .glb, .obj, .ply: io/model_loader.h) is a scene of
// its own: the model under a sky, seen by its camera if it has one, else by
// one that frames it.
SceneDescription load_scene_file(const std::string& path, const std::vector<SceneOverride>& overrides = {});
SceneDescription load_scene_text(const std::string& text, const std::string& display_name,
                                 const std::string& scene_directory, const std::vector<SceneOverride>& overrides = {});
// A scene already parsed (a model file's generated scene): the overrides
// applied, then validated like a file's. `directory` resolves relative paths.
SceneDescription load_scene_node(YAML::Node root, const std::string& display_name, const std::string& directory,
                                 const std::vector<SceneOverride>& overrides);

// Largest accepted values: beyond these a scene is a typo, not a render.
constexpr uint32_t kMaxImageSide = 65536;
constexpr uint64_t kMaxPixels = 1ull << 28;
constexpr uint32_t kMaxSamplesPerPixel = 1u << 24;
// sampling.noise_threshold below this (but not 0) asks for more precision
// than float sums hold.
constexpr double kMinNoiseThreshold = 1e-6;
// image.filter_width, pixels.
constexpr double kMinFilterWidth = 0.1;
constexpr double kMaxFilterWidth = 8.0;
constexpr uint64_t kMaxSamplesPerImage = 1ull << 44;
constexpr int kMaxDepthLimit = 10000;
// Largest magnitude of a coordinate or length: squares and products of two
// squared lengths (quad edges) must stay finite in 32-bit float, and float has
// no precision left for a scene spread wider than this anyway.
constexpr double kMaxSceneCoordinate = 1e9;
// The smallest length (radius, focus_dist, checker scale, scale factors):
// its square and its reciprocal stay normal floats.
constexpr double kMinSceneLength = 1e-9;

}  // namespace farmrt
