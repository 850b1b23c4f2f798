// Reads a scene file's `background` and `lights` sections
// (docs/scene-format.md): the sky, a colour or an environment map and how it
// is sampled; point, spot and directional lights. Errors as the scene
// loader's: one line naming the file, line, column and key.
#pragma once

#include <map>
#include <string>

#include "core/scene.h"
#include "io/yaml_reader.h"

namespace farmrt {

class LightLoader : public YamlReader {
public:
    using YamlReader::YamlReader;
    // Where relative file names (environment maps) are found.
    void set_scene_directory(const std::string& directory) { scene_directory_ = directory; }

    void load_background(const Value& background, Scene& scene) const;
    void load_lights(const Value& lights, Scene& scene) const;

private:
    void load_environment(const Value& environment, Scene& scene) const;
    Color light_color(const Value& value) const;
    Vec3 unit_direction(const Value& value) const;
    std::string scene_directory_;
};

}  // namespace farmrt
