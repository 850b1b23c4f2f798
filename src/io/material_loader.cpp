#include "io/material_loader.h"

#include "core/errors.h"
#include "io/texture_loader.h"

namespace farmrt {

uint32_t MaterialLoader::load_texture(const Value& value, Scene& scene) const {
    Texture texture;
    if (value.node.IsMap()) {
        const std::string kind = choice(required(value, "texture"), {"checker", "image"});
        if (kind == "checker") {
            require_map(value, {"texture", "scale", "even", "odd"});
            texture.type = TextureType::Checker;
            texture.inverse_scale = float(1.0 / size(required(value, "scale")));
            texture.even = color(required(value, "even"));
            texture.odd = color(required(value, "odd"));
        } else {
            require_map(value, {"texture", "file"});
            const Value file = required(value, "file");
            const std::string name = scalar_text(file, "a file name");
            const std::string path = resolve_scene_path(scene_directory_, name);
            const auto cached = image_cache_.find(path);
            if (cached != image_cache_.end()) {
                texture = cached->second;
            } else {
                try {
                    texture = load_image_texture(path, path, scene.texture_pixels);
                } catch (const InputError& e) {
                    fail(file, e.what());
                }
                image_cache_[path] = texture;
            }
        }
    } else {
        texture.color = color(value);
    }
    scene.textures.push_back(texture);
    return uint32_t(scene.textures.size() - 1);
}

Material MaterialLoader::load_material(const Value& value, Scene& scene) const {
    if (!value.node.IsMap()) fail(value, "expected a material mapping with a 'type'");
    const std::string type =
        choice(required(value, "type"), {"lambertian", "metal", "dielectric", "emissive", "principled"});
    if (type == "principled") return load_principled(value, scene);
    Material m;
    if (type == "lambertian") {
        require_map(value, {"type", "albedo"});
        m.type = MaterialType::Lambertian;
        m.albedo_texture = load_texture(required(value, "albedo"), scene);
    } else if (type == "metal") {
        require_map(value, {"type", "albedo", "fuzz"});
        m.type = MaterialType::Metal;
        m.albedo_texture = load_texture(required(value, "albedo"), scene);
        if (has(value, "fuzz")) m.fuzz = float(number_in(child(value, "fuzz"), 0, Bound::Closed, 1, Bound::Closed));
    } else if (type == "dielectric") {
        require_map(value, {"type", "ior"});
        m.type = MaterialType::Dielectric;
        m.ior = float(positive(required(value, "ior")));
    } else {
        require_map(value, {"type", "color"});
        m.type = MaterialType::Emissive;
        m.emission_texture = load_texture(required(value, "color"), scene);
    }
    return m;
}

// principled: {base_color, metallic, roughness, transmission, ior, emission}:
// glTF 2.0's metallic-roughness material (core/principled.h).
Material MaterialLoader::load_principled(const Value& value, Scene& scene) const {
    require_map(value, {"type", "base_color", "metallic", "roughness", "transmission", "ior", "emission"});
    Material m;
    m.type = MaterialType::Principled;
    const auto unit_number = [&](const char* key, double fallback) {
        return has(value, key) ? float(number_in(child(value, key), 0, Bound::Closed, 1, Bound::Closed))
                               : float(fallback);
    };
    const float metallic = unit_number("metallic", 0.0);
    const float roughness = unit_number("roughness", 0.5);
    m.transmission = unit_number("transmission", 0.0);
    if (has(value, "ior")) m.ior = float(number_in(child(value, "ior"), 1, Bound::Closed, 10, Bound::Closed));
    m.albedo_texture = has(value, "base_color") ? load_texture(child(value, "base_color"), scene) : [&] {
        Texture grey;
        grey.color = Color(0.8f);
        scene.textures.push_back(grey);
        return uint32_t(scene.textures.size() - 1);
    }();
    Texture metallic_roughness;
    metallic_roughness.color = Color(0.0f, roughness, metallic);
    scene.textures.push_back(metallic_roughness);
    m.metallic_roughness_texture = uint32_t(scene.textures.size() - 1);
    m.emission_texture = has(value, "emission") ? load_texture(child(value, "emission"), scene) : kNoTexture;
    return m;
}

}  // namespace farmrt
