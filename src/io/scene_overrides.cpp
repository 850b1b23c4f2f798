#include "io/scene_overrides.h"

#include <string>
#include <vector>

#include "core/errors.h"

namespace farmrt {
namespace {

struct PathStep {
    std::string key;  // a map key, or empty for a list index
    long index = -1;
};

std::vector<PathStep> parse_key_path(const std::string& path, const std::string& origin) {
    std::vector<PathStep> steps;
    size_t i = 0;
    while (i < path.size()) {
        if (path[i] == '[') {
            const size_t close = path.find(']', i);
            if (close == std::string::npos) throw InputError(origin + ": unclosed '[' in key path");
            const std::string digits = path.substr(i + 1, close - i - 1);
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
                throw InputError(origin + ": list index must be a non-negative integer");
            }
            // Longer than 9 digits: beyond any list farmrt reads, and beyond stol.
            if (digits.size() > 9) throw InputError(origin + ": list index " + digits + " is too large");
            steps.push_back(PathStep{"", std::stol(digits)});
            i = close + 1;
            if (i < path.size() && path[i] == '.') ++i;
        } else {
            size_t end = path.find_first_of(".[", i);
            if (end == std::string::npos) end = path.size();
            const std::string key = path.substr(i, end - i);
            if (key.empty()) throw InputError(origin + ": empty key in key path");
            steps.push_back(PathStep{key, -1});
            i = end;
            if (i < path.size() && path[i] == '.') ++i;
        }
    }
    if (steps.empty()) throw InputError(origin + ": empty key path");
    return steps;
}

}  // namespace

void apply_override(YAML::Node& root, const SceneOverride& override_value,
                    std::map<std::string, std::string>& origins) {
    const std::string& assignment = override_value.assignment;
    const std::string origin = override_value.origin.empty() ? "--set " + assignment : override_value.origin;
    const size_t equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) throw InputError(origin + ": expected key.path=value");
    const std::string path = assignment.substr(0, equals);
    YAML::Node value;
    try {
        value = YAML::Load(assignment.substr(equals + 1));
    } catch (const YAML::Exception& e) {
        throw InputError(origin + ": value is not valid YAML: " + e.msg);
    }
    const std::vector<PathStep> steps = parse_key_path(path, origin);
    YAML::Node cursor = root;
    for (size_t s = 0; s < steps.size(); ++s) {
        const bool last = s + 1 == steps.size();
        if (steps[s].index >= 0) {
            if (!cursor.IsSequence() || size_t(steps[s].index) >= cursor.size()) {
                throw InputError(origin + ": " + path + ": list index " + std::to_string(steps[s].index) +
                                 " is out of range");
            }
            if (last) {
                cursor[size_t(steps[s].index)] = value;
            } else {
                YAML::Node next = cursor[size_t(steps[s].index)];
                cursor.reset(next);
            }
        } else {
            // A missing parent (undefined) becomes a mapping: --set camera.vfov=30 works without a camera.
            if (cursor.IsDefined() && !cursor.IsMap() && !cursor.IsNull()) {
                throw InputError(origin + ": " + path + ": '" + steps[s].key +
                                 "' is inside a value that is not a mapping");
            }
            if (last) {
                cursor[steps[s].key] = value;
            } else {
                YAML::Node next = cursor[steps[s].key];
                cursor.reset(next);
            }
        }
    }
    // Errors name the override by the key path the loader reports, so store it
    // in that spelling: "objects[0]radius" and "objects.[0].radius" are "objects[0].radius".
    std::string canonical;
    for (const PathStep& step : steps) {
        canonical +=
            step.index >= 0 ? "[" + std::to_string(step.index) + "]" : (canonical.empty() ? "" : ".") + step.key;
    }
    origins[canonical] = origin;
}

}  // namespace farmrt
