#include "io/scene_loader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/stop_flag.h"
#include "io/file_reader.h"
#include "io/frame_list.h"
#include "io/light_loader.h"
#include "io/material_loader.h"
#include "io/image_output.h"
#include "io/mesh_loader.h"
#include "io/model_loader.h"
#include "io/model_scene.h"
#include "io/object_loader.h"
#include "io/scene_identity.h"
#include "io/scene_overrides.h"
#include "io/texture_loader.h"
#include "io/yaml_reader.h"

namespace farmrt {
namespace {

class Loader : public YamlReader {
public:
    Loader(const std::string& display_name, const std::map<std::string, std::string>& override_origin)
        : YamlReader(display_name, override_origin),
          lights_(display_name, override_origin),
          materials_(display_name, override_origin) {}

    // ---- sections ----------------------------------------------------------------

    void load_image(const Value& image, RenderSettings& settings) const {
        require_map(image, {"width", "height", "output", "encoding", "data_type", "aovs", "exposure", "view_transform",
                            "filter", "filter_width", "region", "alpha"});
        const Value width = required(image, "width");
        const Value height = required(image, "height");
        settings.width = settings.film_width = uint32_t(integer(width, 1, kMaxImageSide));
        settings.height = settings.film_height = uint32_t(integer(height, 1, kMaxImageSide));
        if (uint64_t(settings.width) * settings.height > kMaxPixels) {
            fail(height, "image of " + std::to_string(settings.width) + "x" + std::to_string(settings.height) +
                             " exceeds the limit of " + std::to_string(kMaxPixels) + " pixels");
        }
        if (has(image, "region")) load_region(child(image, "region"), settings);
        const Value output = required(image, "output");
        settings.output = scalar_text(output, "a file name");
        const std::string reason = unsupported_format_reason(settings.output);
        if (!reason.empty()) fail(output, reason);
        const std::string pattern_problem = frame_pattern_problem(settings.output);
        if (!pattern_problem.empty()) fail(output, pattern_problem);
        if (has(image, "encoding")) {
            const std::string e = choice(child(image, "encoding"), {"srgb", "gamma2", "linear"});
            settings.encoding = e == "srgb" ? Encoding::Srgb : (e == "gamma2" ? Encoding::Gamma2 : Encoding::Linear);
        }
        if (has(image, "exposure")) {
            settings.exposure = float(number_in(child(image, "exposure"), -30, Bound::Closed, 30, Bound::Closed));
        }
        if (has(image, "view_transform")) {
            const std::string v = choice(child(image, "view_transform"), {"standard", "filmic"});
            settings.view_transform = v == "filmic" ? ViewTransform::Filmic : ViewTransform::Standard;
        }
        settings.data_type = default_data_type(settings.output);
        if (has(image, "data_type")) {
            const Value type_value = child(image, "data_type");
            const std::string t = choice(type_value, {"uint8", "uint16", "half", "float"});
            settings.data_type = t == "uint8"    ? PixelDataType::UInt8
                                 : t == "uint16" ? PixelDataType::UInt16
                                 : t == "half"   ? PixelDataType::Half
                                                 : PixelDataType::Float;
            const std::string problem = data_type_problem(settings.output, settings.data_type);
            if (!problem.empty()) fail(type_value, problem);
        }
        if (has(image, "aovs")) settings.aovs = load_aovs(child(image, "aovs"));
        if (has(image, "alpha")) {
            const Value alpha = child(image, "alpha");
            settings.alpha = boolean(alpha);
            const std::string problem = settings.alpha ? alpha_channel_problem(settings.output) : "";
            if (!problem.empty()) fail(alpha, problem);
        }
        if (has(image, "filter")) {
            const std::string f = choice(child(image, "filter"), {"box", "gaussian", "blackman-harris", "mitchell"});
            settings.filter = f == "box"        ? FilterType::Box
                              : f == "gaussian" ? FilterType::Gaussian
                              : f == "mitchell" ? FilterType::Mitchell
                                                : FilterType::BlackmanHarris;
        }
        settings.filter_width = default_filter_width(settings.filter);
        if (has(image, "filter_width")) {
            settings.filter_width = float(number_in(child(image, "filter_width"), kMinFilterWidth, Bound::Closed,
                                                    kMaxFilterWidth, Bound::Closed));
        }
    }

    // image.region: [x0, x1, y0, y1], the frame's columns [x0, x1) and rows
    // [y0, y1) (pbrt's --pixelbounds; rows counted from the top).
    void load_region(const Value& region, RenderSettings& settings) const {
        if (!region.node.IsSequence() || region.node.size() != 4) {
            fail(region, "expected [x0, x1, y0, y1]: the columns [x0, x1) and rows [y0, y1) to render");
        }
        uint32_t bounds[4];
        const char* const names[4] = {"x0", "x1", "y0", "y1"};
        for (int i = 0; i < 4; ++i) {
            const Value bound{region.node[i], region.path + "[" + std::to_string(i) + "]"};
            bounds[i] = uint32_t(integer(bound, 0, kMaxImageSide));
            const uint32_t side = i < 2 ? settings.film_width : settings.film_height;
            if (bounds[i] > side) {
                fail(bound, std::string(names[i]) + " = " + std::to_string(bounds[i]) + " is beyond the frame's " +
                                (i < 2 ? "width" : "height") + " of " + std::to_string(side));
            }
        }
        if (bounds[0] >= bounds[1] || bounds[2] >= bounds[3]) {
            fail(region, "x0 < x1 and y0 < y1 needed, got [" + std::to_string(bounds[0]) + ", " +
                             std::to_string(bounds[1]) + ", " + std::to_string(bounds[2]) + ", " +
                             std::to_string(bounds[3]) + "]");
        }
        settings.region_x = bounds[0];
        settings.region_y = bounds[2];
        settings.width = bounds[1] - bounds[0];
        settings.height = bounds[3] - bounds[2];
    }

    // sampling.clamp: a number for direct and indirect light alike, or
    // {direct: D, indirect: I}; 0 is off.
    void load_clamp(const Value& clamp, RenderSettings& settings) const {
        auto limit = [&](const Value& value) {
            const double x = number(value);
            if (!(x >= 0)) fail(value, "must be >= 0 (0: off), got " + value.node.Scalar());
            return float(std::min(x, double(kInfinity)));
        };
        if (clamp.node.IsMap()) {
            require_map(clamp, {"direct", "indirect"});
            if (has(clamp, "direct")) settings.clamp_direct = limit(child(clamp, "direct"));
            if (has(clamp, "indirect")) settings.clamp_indirect = limit(child(clamp, "indirect"));
            return;
        }
        settings.clamp_direct = settings.clamp_indirect = limit(clamp);
    }

    std::vector<Aov> load_aovs(const Value& list) const {
        if (!list.node.IsSequence()) fail(list, "expected a list of AOV names (" + aov_names() + ")");
        std::vector<Aov> aovs;
        for (size_t i = 0; i < list.node.size(); ++i) {
            const Value item{list.node[i], list.path + "[" + std::to_string(i) + "]"};
            const std::string name = scalar_text(item, "an AOV name");
            Aov aov{};
            if (!parse_aov(name, aov)) fail(item, "unknown AOV '" + name + "' (expected " + aov_names() + ")");
            if (std::find(aovs.begin(), aovs.end(), aov) != aovs.end()) fail(item, "AOV '" + name + "' listed twice");
            aovs.push_back(aov);
        }
        return aovs;
    }

    void load_sampling(const Value& sampling, RenderSettings& settings, const Value& image) const {
        require_map(sampling, {"spp", "max_depth", "seed", "integrator", "noise_threshold", "min_spp", "sampler",
                               "clamp", "light_sampler"});
        const Value spp = required(sampling, "spp");
        settings.spp = uint32_t(integer(spp, 1, kMaxSamplesPerPixel));
        if (uint64_t(settings.width) * settings.height * settings.spp > kMaxSamplesPerImage) {
            fail(spp,
                 "width x height x spp = " + std::to_string(uint64_t(settings.width) * settings.height * settings.spp) +
                     " samples exceeds the limit of " + std::to_string(kMaxSamplesPerImage));
        }
        (void)image;
        if (has(sampling, "max_depth"))
            settings.max_depth = int(integer(child(sampling, "max_depth"), 1, kMaxDepthLimit));
        if (has(sampling, "seed")) settings.seed = unsigned64(child(sampling, "seed"));
        if (has(sampling, "integrator")) {
            settings.integrator = choice(child(sampling, "integrator"), {"nee", "naive"}) == "naive"
                                      ? Integrator::Naive
                                      : Integrator::NextEvent;
        }
        if (has(sampling, "noise_threshold")) {
            const Value threshold = child(sampling, "noise_threshold");
            const double t = number_in(threshold, 0.0, Bound::Closed, 1.0, Bound::Closed);
            if (t > 0.0 && t < kMinNoiseThreshold) {
                fail(threshold, "must be 0 (off) or at least " + format_number(kMinNoiseThreshold) + ", got " +
                                    threshold.node.Scalar());
            }
            settings.noise_threshold = float(t);
        }
        if (has(sampling, "sampler")) {
            settings.sampler = choice(child(sampling, "sampler"), {"sobol", "independent"}) == "sobol"
                                   ? SamplerType::Sobol
                                   : SamplerType::Independent;
        }
        if (has(sampling, "clamp")) load_clamp(child(sampling, "clamp"), settings);
        if (has(sampling, "light_sampler")) {
            settings.light_tree = choice(child(sampling, "light_sampler"), {"tree", "power"}) == "tree";
        }
        if (has(sampling, "min_spp"))
            settings.min_spp = uint32_t(integer(child(sampling, "min_spp"), 2, kMaxSamplesPerPixel));
    }

    void load_camera(const Value& camera, CameraSettings& c) const {
        require_map(camera,
                    {"lookfrom", "lookat", "vup", "vfov", "defocus_angle", "focus_dist", "projection", "ortho_height"});
        if (has(camera, "projection")) {
            const std::string projection =
                choice(child(camera, "projection"), {"perspective", "orthographic", "equirectangular"});
            c.projection = projection == "orthographic"      ? Projection::Orthographic
                           : projection == "equirectangular" ? Projection::Equirectangular
                                                             : Projection::Perspective;
        }
        if (has(camera, "ortho_height")) {
            if (c.projection != Projection::Orthographic) {
                fail(child(camera, "ortho_height"),
                     "applies only to an orthographic camera (projection: orthographic)");
            }
            c.ortho_height = size(child(camera, "ortho_height"));
        }
        // vfov, defocus_angle and focus_dist stay valid but unused on the
        // other projections, so that --set camera.projection=... works on any scene.
        c.lookfrom = vector3(required(camera, "lookfrom"));
        c.lookat = vector3(required(camera, "lookat"));
        if (has(camera, "vup")) c.vup = vector3(child(camera, "vup"));
        if (has(camera, "vfov")) c.vfov = number_in(child(camera, "vfov"), 0, Bound::Open, 180, Bound::Open);
        if (has(camera, "defocus_angle")) {
            c.defocus_angle = number_in(child(camera, "defocus_angle"), 0, Bound::Closed, 180, Bound::Open);
        }
        c.focus_dist =
            has(camera, "focus_dist") ? size(child(camera, "focus_dist")) : double(length(c.lookfrom - c.lookat));
        const Vec3 view = c.lookfrom - c.lookat;
        if (!(length_squared(view) > 0)) fail(child(camera, "lookat"), "must differ from lookfrom");
        if (!(length_squared(cross(c.vup, view)) > 1e-12f * length_squared(view) * length_squared(c.vup))) {
            fail(has(camera, "vup") ? child(camera, "vup") : camera, "vup must not be parallel to the view direction");
        }
    }

    // animation: {frames: 1-120, camera: {keyframes: [{frame: 1, lookfrom: ..., ...}, ...]}} (animation.h)
    void load_animation(const Value& animation, const CameraSettings& base, Animation& a) const {
        require_map(animation, {"frames", "camera"});
        a.present = true;
        if (has(animation, "camera")) {
            const Value camera = child(animation, "camera");
            require_map(camera, {"keyframes"});
            const Value keyframes = required(camera, "keyframes");
            if (!keyframes.node.IsSequence() || keyframes.node.size() == 0) {
                fail(keyframes, "expected a non-empty list of keyframes");
            }
            for (size_t i = 0; i < keyframes.node.size(); ++i) {
                const Value key{keyframes.node[i], keyframes.path + "[" + std::to_string(i) + "]"};
                require_map(key, {"frame", "lookfrom", "lookat", "vfov", "focus_dist", "defocus_angle"});
                CameraKeyframe k;
                const Value frame = required(key, "frame");
                k.frame = uint32_t(integer(frame, 0, kMaxFrameNumber));
                if (!a.keyframes.empty() && k.frame <= a.keyframes.back().frame) {
                    fail(frame, "keyframes must be in increasing frame order (previous keyframe is frame " +
                                    std::to_string(a.keyframes.back().frame) + ")");
                }
                k.camera = base;
                if (has(key, "lookfrom")) k.camera.lookfrom = vector3(child(key, "lookfrom"));
                if (has(key, "lookat")) k.camera.lookat = vector3(child(key, "lookat"));
                // The same rules as the camera's own keys.
                if (has(key, "vfov")) k.camera.vfov = number_in(child(key, "vfov"), 0, Bound::Open, 180, Bound::Open);
                if (has(key, "focus_dist")) k.camera.focus_dist = size(child(key, "focus_dist"));
                if (has(key, "defocus_angle")) {
                    k.camera.defocus_angle = number_in(child(key, "defocus_angle"), 0, Bound::Closed, 180, Bound::Open);
                }
                const std::string problem = camera_problem(k.camera);
                if (!problem.empty()) fail(key, problem);
                a.keyframes.push_back(k);
            }
        }
        if (has(animation, "frames")) {
            const Value frames = child(animation, "frames");
            std::string problem;
            if (!parse_frame_list(scalar_text(frames, "a frame list such as 1-120"), a.frames, problem)) {
                fail(frames, problem);
            }
        } else if (!a.keyframes.empty()) {
            // The same limit as a frame list's (frame_list.h), checked before the list is made.
            const uint64_t span = uint64_t(a.keyframes.back().frame) - a.keyframes.front().frame + 1;
            if (span > kMaxFrameCount) {
                fail(animation, "the keyframes span " + std::to_string(span) + " frames, more than the limit of " +
                                    std::to_string(kMaxFrameCount) + "; give animation.frames");
            }
            for (uint32_t f = a.keyframes.front().frame; f <= a.keyframes.back().frame; ++f) a.frames.push_back(f);
        } else {
            fail(animation, "missing required key 'frames'");
        }
        // Interpolated cameras stay valid between valid keys except for
        // lookfrom meeting lookat on the way: check every frame of the sequence.
        for (uint32_t f : a.frames) {
            const std::string problem = camera_problem(camera_at_frame(base, a, f));
            if (!problem.empty()) {
                fail(child(animation, "camera"),
                     "at frame " + std::to_string(f) + " the interpolated camera is invalid: " + problem);
            }
        }
    }

    std::string resolve_path(const std::string& name) const { return resolve_scene_path(scene_directory_, name); }

    void load_materials(const Value& materials, Scene& scene) {
        if (!materials.node.IsMap()) fail(materials, "expected a mapping of material names to materials");
        check_keys(materials);
        for (auto it = materials.node.begin(); it != materials.node.end(); ++it) {
            const std::string name = it->first.Scalar();
            const Material m = materials_.load_material(Value{it->second, join(materials.path, name)}, scene);
            scene.materials.push_back(m);
            material_index_[name] = uint32_t(scene.materials.size() - 1);
        }
    }

    uint32_t object_material(const Value& object, Scene& scene) const {
        const Value value = required(object, "material");
        if (value.node.IsMap()) {
            scene.materials.push_back(materials_.load_material(value, scene));
            return uint32_t(scene.materials.size() - 1);
        }
        const std::string name = scalar_text(value, "a material name or an inline material");
        const auto found = material_index_.find(name);
        if (found == material_index_.end()) fail(value, "unknown material '" + name + "'");
        return found->second;
    }

    SceneDescription load(const YAML::Node& root_node, const std::string& scene_directory) {
        SceneDescription description;
        const Value root{root_node, ""};
        if (!root_node.IsMap()) fail(root, "the scene file must be a mapping with image, sampling, camera, objects");
        require_map(root, {"image", "sampling", "camera", "background", "materials", "objects", "lights", "animation"});
        RenderSettings& settings = description.settings;
        settings.scene_directory = scene_directory;
        scene_directory_ = scene_directory;
        lights_.set_scene_directory(scene_directory);
        materials_.set_scene_directory(scene_directory);
        const Value image = required(root, "image");
        load_image(image, settings);
        load_sampling(required(root, "sampling"), settings, image);
        load_camera(required(root, "camera"), settings.camera);
        if (has(root, "animation")) load_animation(child(root, "animation"), settings.camera, description.animation);
        if (has(root, "background")) lights_.load_background(child(root, "background"), description.scene);
        if (has(root, "lights")) lights_.load_lights(child(root, "lights"), description.scene);
        if (has(root, "materials")) load_materials(child(root, "materials"), description.scene);
        const Value objects = required(root, "objects");
        if (!objects.node.IsSequence()) fail(objects, "expected a list of objects");
        ObjectLoader object_loader(
            display_name_, override_origin_, scene_directory,
            [this](const Value& object, Scene& scene) { return object_material(object, scene); });
        object_loader.count_file_uses(objects.node);
        for (size_t i = 0; i < objects.node.size(); ++i) {
            stop_if_requested("loading the scene");
            object_loader.load_object(Value{objects.node[i], "objects[" + std::to_string(i) + "]"}, description);
        }
        if (description.scene.spheres.size() >= kMaxPrimitivesPerType ||
            description.scene.quads.size() >= kMaxPrimitivesPerType ||
            description.scene.triangles.size() >= kMaxPrimitivesPerType) {
            fail(objects, "too many primitives");
        }
        return description;
    }

private:
    LightLoader lights_;
    MaterialLoader materials_;
    std::map<std::string, uint32_t> material_index_;
    std::string scene_directory_;
};

}  // namespace

SceneDescription load_scene_node(YAML::Node root, const std::string& display_name, const std::string& directory,
                                 const std::vector<SceneOverride>& overrides) {
    std::map<std::string, std::string> origins;
    if (!root || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
    for (const SceneOverride& o : overrides) apply_override(root, o, origins);
    Loader loader(display_name, origins);
    SceneDescription description = loader.load(root, directory);
    description.canonical_scene = canonical_scene_text(root);
    return description;
}

SceneDescription load_scene_text(const std::string& text, const std::string& display_name,
                                 const std::string& scene_directory, const std::vector<SceneOverride>& overrides) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's message for it is "bad file".
        throw InputError(display_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                         std::to_string(e.mark.column + 1) + ": malformed YAML: nested more than " +
                         std::to_string(e.depth()) + " levels deep");
    } catch (const YAML::Exception& e) {
        throw InputError(display_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                         std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg);
    }
    SceneDescription description = load_scene_node(root, display_name, scene_directory, overrides);
    description.settings.scene_file = display_name;
    return description;
}

SceneDescription load_scene_file(const std::string& path, const std::vector<SceneOverride>& overrides) {
    if (is_model_file(path)) return load_model_scene(path, overrides);
    const std::string text = read_regular_file(path, path, "scene file");
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return load_scene_text(text, path, parent.empty() ? "." : parent.string(), overrides);
}

}  // namespace farmrt
