// --set KEY.PATH=VALUE (and -o, --spp, ...): a scene value replaced in the
// YAML before it is read, remembered by its key path so that an error in the
// value names the option that gave it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "io/scene_loader.h"

namespace farmrt {

// Sets the value at the override's key path in `root` (creating missing
// mappings); records key path -> the option's text in `origins`. Throws
// InputError naming the option on a bad path or value.
void apply_override(YAML::Node& root, const SceneOverride& override_value, std::map<std::string, std::string>& origins);

}  // namespace farmrt
