// Reads materials and textures from a scene file (docs/scene-format.md): the
// book's lambertian, metal, dielectric and emissive, and the physically based
// `principled` material. Errors as the scene loader's: one line naming the
// file, line, column and key.
#pragma once

#include <map>
#include <string>

#include "core/scene.h"
#include "io/yaml_reader.h"

namespace farmrt {

class MaterialLoader : public YamlReader {
public:
    using YamlReader::YamlReader;
    // Where relative file names (image textures) are found.
    void set_scene_directory(const std::string& directory) { scene_directory_ = directory; }

    // Appends the material's textures to the scene; returns the material.
    Material load_material(const Value& value, Scene& scene) const;
    // A colour or a texture: [r, g, b], {texture: checker, scale, even, odd}
    // or {texture: image, file}. Appends it; returns its index.
    uint32_t load_texture(const Value& value, Scene& scene) const;

private:
    Material load_principled(const Value& value, Scene& scene) const;
    std::string scene_directory_;
    mutable std::map<std::string, Texture> image_cache_;  // resolved image path -> its texture
};

}  // namespace farmrt
