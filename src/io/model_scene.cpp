#include "io/model_scene.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/errors.h"
#include "io/model_loader.h"

namespace farmrt {

// A model file as a scene: a scene file with the model as its one object,
// so that --set and the shorthand options change it as they would a scene
// (--set materials.clay=... --set objects[0].material=clay renders it in
// one material). The model's camera, if it has one, else one that frames it,
// and its aspect ratio, unless the options give them.
namespace {

// The value an override gives `key` when it is a whole number in range, else 0.
uint32_t overridden_side(const std::vector<SceneOverride>& overrides, const std::string& key) {
    uint32_t side = 0;
    for (const SceneOverride& o : overrides) {
        if (o.assignment.rfind(key + "=", 0) != 0) continue;
        try {
            const long long value = YAML::Load(o.assignment.substr(key.size() + 1)).as<long long>();
            side = value >= 1 && value <= kMaxImageSide ? uint32_t(value) : 0;
        } catch (const YAML::Exception&) {
            side = 0;  // the scene's loader names the bad value
        }
    }
    return side;
}

}  // namespace

SceneDescription load_model_scene(const std::string& path, const std::vector<SceneOverride>& overrides) {
    // The side the options leave out follows the model's aspect ratio, known
    // once it is loaded; until then it is as large as the other side allows,
    // so that the loader refuses no image.region that the final frame may
    // hold (the frame's own check below is exact).
    const uint32_t width_option = overridden_side(overrides, "image.width");
    const uint32_t height_option = overridden_side(overrides, "image.height");
    const bool width_follows = height_option > 0 && width_option == 0;
    const auto largest_beside = [](uint32_t other) {
        return uint32_t(std::min<uint64_t>(kMaxImageSide, kMaxPixels / std::max(other, 1u)));
    };
    YAML::Node root(YAML::NodeType::Map);
    root["image"]["width"] = width_follows ? largest_beside(height_option) : 960;
    root["image"]["height"] = width_follows ? 540 : largest_beside(width_option > 0 ? width_option : 960);
    root["image"]["output"] = std::filesystem::path(path).stem().string() + ".png";
    root["sampling"]["spp"] = 64;
    root["camera"]["lookfrom"] = std::vector<double>{0, 0, 1};
    root["camera"]["lookat"] = std::vector<double>{0, 0, 0};
    root["background"]["sky"] = YAML::Node(YAML::NodeType::Map);
    YAML::Node model(YAML::NodeType::Map);
    model["type"] = "model";
    std::error_code ignored;
    model["file"] = std::filesystem::absolute(path, ignored).string();
    root["objects"].push_back(model);
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    SceneDescription description;
    try {
        description = load_scene_node(root, path, parent.empty() ? "." : parent.string(), overrides);
    } catch (const InputError& e) {
        // The model's own error already names the file: not again as the
        // scene's one object, which the user never wrote.
        const std::string what = e.what(), scene_place = path + ": objects[0].file: ";
        if (what.rfind(scene_place, 0) == 0) throw InputError(what.substr(scene_place.size()));
        throw;
    }
    description.settings.scene_file = path;
    const auto overridden = [&](const char* prefix) {
        for (const SceneOverride& o : overrides) {
            if (o.assignment.rfind(prefix, 0) == 0) return true;
        }
        return false;
    };
    // One side given, the other follows the model camera's aspect ratio (or
    // the default 16:9): --width 320 alone is 320x180, not 320x540.
    const double aspect = description.model_camera && description.model_camera->aspect_ratio > 0
                              ? description.model_camera->aspect_ratio
                              : 960.0 / 540.0;
    const bool width_given = overridden("image.width"), height_given = overridden("image.height");
    RenderSettings& settings = description.settings;
    const bool region = overridden("image.region");
    if (!height_given) {
        settings.film_height =
            uint32_t(std::clamp(double(std::lround(settings.film_width / aspect)), 1.0, double(kMaxImageSide)));
    } else if (height_given && !width_given) {
        settings.film_width =
            uint32_t(std::clamp(double(std::lround(settings.film_height * aspect)), 1.0, double(kMaxImageSide)));
    }
    if (uint64_t(settings.film_width) * settings.film_height > kMaxPixels) {
        throw InputError(path + ": image of " + std::to_string(settings.film_width) + "x" +
                         std::to_string(settings.film_height) + " (the model's aspect ratio) exceeds the limit of " +
                         std::to_string(kMaxPixels) + " pixels");
    }
    if (!region) {
        settings.width = settings.film_width;
        settings.height = settings.film_height;
    } else if (settings.region_x + settings.width > settings.film_width ||
               settings.region_y + settings.height > settings.film_height) {
        throw InputError(path + ": image.region: " + region_bounds(settings) + " is not within the " +
                         std::to_string(settings.film_width) + "x" + std::to_string(settings.film_height) +
                         " frame (the model's aspect ratio)");
    }
    if (!overridden("camera")) {
        settings.camera = description.model_camera ? description.model_camera->settings
                                                   : framing_camera(description.model_bounds, 40.0,
                                                                    double(settings.film_width) / settings.film_height);
    }
    // The pixels depend on the model file too.
    description.canonical_scene += "\nmodel bytes: " + std::to_string(std::filesystem::file_size(path, ignored));
    return description;
}

}  // namespace farmrt
