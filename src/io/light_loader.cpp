#include "io/light_loader.h"

#include <cmath>

#include "core/errors.h"
#include "io/texture_loader.h"

namespace farmrt {

void LightLoader::load_background(const Value& background, Scene& scene) const {
    Background& b = scene.background;
    require_map(background, {"sky", "color", "environment", "sampling"});
    if (has(background, "sampling")) {
        const std::string sampling = choice(child(background, "sampling"), {"auto", "light", "bsdf"});
        b.sampling = sampling == "light"  ? BackgroundSampling::Light
                     : sampling == "bsdf" ? BackgroundSampling::Bsdf
                                          : BackgroundSampling::Auto;
    }
    const int given = int(has(background, "sky")) + int(has(background, "color")) + int(has(background, "environment"));
    if (given != 1) fail(background, "give exactly one of 'sky', 'color' or 'environment'");
    if (has(background, "color")) {
        b.type = BackgroundType::Constant;
        b.color = color(child(background, "color"));
        return;
    }
    if (has(background, "environment")) {
        load_environment(child(background, "environment"), scene);
        return;
    }
    const Value sky = child(background, "sky");
    require_map(sky, {"horizon", "zenith"});
    b.type = BackgroundType::Sky;
    if (has(sky, "horizon")) b.horizon = color(child(sky, "horizon"));
    if (has(sky, "zenith")) b.zenith = color(child(sky, "zenith"));
}

// environment: {file: sky.exr, intensity: 1, rotation: 0} -- a
// latitude-longitude map (background.h), turned `rotation` degrees about +y.
void LightLoader::load_environment(const Value& environment, Scene& scene) const {
    require_map(environment, {"file", "intensity", "rotation"});
    Background& b = scene.background;
    b.type = BackgroundType::Image;
    const Value file = required(environment, "file");
    const std::string path = resolve_scene_path(scene_directory_, scalar_text(file, "a file name"));
    try {
        scene.textures.push_back(load_image_texture(path, path, scene.texture_pixels));
    } catch (const InputError& e) {
        fail(file, e.what());
    }
    b.texture = uint32_t(scene.textures.size() - 1);
    if (has(environment, "intensity")) {
        b.intensity = float(number_in(child(environment, "intensity"), 0, Bound::Closed, 1e9, Bound::Closed));
    }
    if (has(environment, "rotation")) {
        const double radians = number_in(child(environment, "rotation"), -360, Bound::Closed, 360, Bound::Closed) *
                               (3.14159265358979323846 / 180.0);
        b.rotation_cosine = float(std::cos(radians));
        b.rotation_sine = float(std::sin(radians));
    }
}

// lights: [{type: point, position, intensity}, {type: spot, position,
// direction, intensity, inner_angle, outer_angle}, {type: directional,
// direction, irradiance}]; intensity in W/sr per channel, angles in
// degrees from the axis.
void LightLoader::load_lights(const Value& lights, Scene& scene) const {
    if (!lights.node.IsSequence()) fail(lights, "expected a list of lights");
    for (size_t i = 0; i < lights.node.size(); ++i) {
        const Value value{lights.node[i], lights.path + "[" + std::to_string(i) + "]"};
        if (!value.node.IsMap()) fail(value, "expected a light mapping with a 'type'");
        const std::string type = choice(required(value, "type"), {"point", "spot", "directional"});
        Light light;
        if (type == "directional") {
            require_map(value, {"type", "direction", "irradiance"});
            light.type = LightType::Directional;
            light.direction = unit_direction(required(value, "direction"));
            light.intensity = light_color(required(value, "irradiance"));
        } else if (type == "point") {
            require_map(value, {"type", "position", "intensity"});
            light.type = LightType::Point;
            light.position = vector3(required(value, "position"));
            light.intensity = light_color(required(value, "intensity"));
        } else {
            require_map(value, {"type", "position", "direction", "intensity", "inner_angle", "outer_angle"});
            light.type = LightType::Spot;
            light.position = vector3(required(value, "position"));
            light.direction = unit_direction(required(value, "direction"));
            light.intensity = light_color(required(value, "intensity"));
            const Value outer = required(value, "outer_angle");
            const double outer_degrees = number_in(outer, 0, Bound::Open, 90, Bound::Closed);
            const double inner_degrees =
                has(value, "inner_angle") ? number_in(child(value, "inner_angle"), 0, Bound::Closed, 90, Bound::Closed)
                                          : 0.0;
            if (inner_degrees >= outer_degrees) fail(outer, "must be greater than inner_angle");
            light.cos_inner = float(std::cos(inner_degrees * 3.14159265358979323846 / 180.0));
            light.cos_outer = float(std::cos(outer_degrees * 3.14159265358979323846 / 180.0));
        }
        scene.punctual_lights.push_back(light);
    }
}

// A light's colour: [r, g, b], or one number for white.
Color LightLoader::light_color(const Value& value) const {
    if (!value.node.IsScalar()) return color(value);
    return Color(float(number_in(value, 0, Bound::Closed, 1e30, Bound::Closed)));
}

Vec3 LightLoader::unit_direction(const Value& value) const {
    const Vec3 d = vector3(value);
    if (!(length_squared(d) > 0)) fail(value, "direction must not be zero");
    return unit_vector(d);
}

}  // namespace farmrt
