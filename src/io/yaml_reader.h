// Typed values from a scene's YAML: numbers in ranges, vectors, colors,
// choices and maps with known keys, every error naming where it stands.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "core/errors.h"
#include "io/scene_loader.h"

namespace farmrt {

// A YAML node with the key path that reached it, so every error can say where.
struct Value {
    YAML::Node node;
    std::string path;  // "objects[3].radius"
    // Where the key of an empty value ("radius:") stands: yaml-cpp marks an
    // empty value at the next token, often on the following line.
    YAML::Mark key_mark = YAML::Mark::null_mark();
};

// A path inside the scene: relative to the scene file's directory.
inline std::string resolve_scene_path(const std::string& scene_directory, const std::string& name) {
    const std::filesystem::path path(name);
    if (path.is_absolute() || scene_directory.empty()) return path.lexically_normal().string();
    return (std::filesystem::path(scene_directory) / path).lexically_normal().string();
}

// Reads typed values out of YAML nodes, each error one line naming the file,
// line, column and key path (or the --set that gave the value).
class YamlReader {
public:
    YamlReader(std::string display_name, std::map<std::string, std::string> override_origin)
        : display_name_(std::move(display_name)), override_origin_(std::move(override_origin)) {}

    [[noreturn]] void fail(const Value& value, const std::string& problem) const {
        std::string where;
        for (const auto& [path, origin] : override_origin_) {
            if (value.path == path || value.path.rfind(path + ".", 0) == 0 || value.path.rfind(path + "[", 0) == 0) {
                where = origin;
            }
        }
        if (where.empty()) {
            const YAML::Mark mark =
                value.node.IsNull() && value.key_mark.line >= 0 ? value.key_mark : value.node.Mark();
            where = display_name_;
            if (mark.line >= 0) where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
        }
        throw InputError(where + ": " + (value.path.empty() ? std::string("scene") : value.path) + ": " + problem);
    }

    // The map's keys must all be in `allowed`; catches typos such as "radus".
    void require_map(const Value& value, std::initializer_list<const char*> allowed) const {
        if (!value.node.IsMap()) fail(value, "expected a mapping of keys to values");
        check_keys(value);
        for (auto it = value.node.begin(); it != value.node.end(); ++it) {
            const std::string key = it->first.Scalar();
            bool known = false;
            for (const char* name : allowed) known |= key == name;
            if (!known) {
                std::string list;
                for (const char* name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
                fail(Value{it->first, join(value.path, key)}, "unknown key (expected one of: " + list + ")");
            }
        }
    }

    // Keys must be plain names, each given once: YAML allows a list as a key, and
    // yaml-cpp keeps a repeated key's first value, silently ignoring a later
    // correction such as "radius: 1 ... radius: 2".
    void check_keys(const Value& map) const {
        std::map<std::string, int> first_line;
        for (auto it = map.node.begin(); it != map.node.end(); ++it) {
            if (!it->first.IsScalar()) fail(Value{it->first, map.path}, "keys must be plain names");
            const std::string key = it->first.Scalar();
            const auto [found, inserted] = first_line.emplace(key, it->first.Mark().line + 1);
            if (!inserted) {
                fail(Value{it->first, join(map.path, key)},
                     "duplicate key (first given on line " + std::to_string(found->second) + ")");
            }
        }
    }

    static std::string join(const std::string& path, const std::string& key) {
        return path.empty() ? key : path + "." + key;
    }

    Value child(const Value& parent, const char* key) const {
        Value value{parent.node[key], join(parent.path, key)};
        if (value.node.IsNull()) {
            for (auto it = parent.node.begin(); it != parent.node.end(); ++it) {
                if (it->first.Scalar() == key) value.key_mark = it->first.Mark();
            }
        }
        return value;
    }
    bool has(const Value& parent, const char* key) const { return parent.node.IsMap() && parent.node[key]; }
    Value required(const Value& parent, const char* key) const {
        if (!has(parent, key)) fail(parent, std::string("missing required key '") + key + "'");
        return child(parent, key);
    }

    std::string scalar_text(const Value& value, const char* expected) const {
        if (value.node.IsNull()) fail(value, std::string("expected ") + expected + ", got an empty value");
        if (!value.node.IsScalar()) fail(value, std::string("expected ") + expected);
        return value.node.Scalar();
    }

    double number(const Value& value) const {
        const std::string text = scalar_text(value, "a number");
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        double result = std::strtod(begin, &end);
        const std::string lower = to_lower(text);
        if (lower == ".nan" || lower == "nan" || lower == ".inf" || lower == "-.inf" || lower == "+.inf" ||
            lower == "inf" || lower == "-inf") {
            fail(value, "must be a finite number, got " + text);
        }
        if (text.empty() || end != begin + text.size()) fail(value, "expected a number, got '" + text + "'");
        if (!std::isfinite(result)) fail(value, "must be a finite number, got " + text);
        // Every value is used as a 32-bit float, where this one would be infinite.
        if (std::fabs(result) > double(std::numeric_limits<float>::max())) {
            fail(value, "must be a finite 32-bit float (magnitude at most 3.4e38), got " + text);
        }
        return result;
    }

    // A coordinate or a length: limited to kMaxSceneCoordinate so that the
    // squares and products of the intersection code stay finite in float.
    double coordinate(const Value& value) const {
        const double x = number(value);
        if (std::fabs(x) > kMaxSceneCoordinate) {
            fail(value, "must be between -" + format_number(kMaxSceneCoordinate) + " and " +
                            format_number(kMaxSceneCoordinate) + ", got " + value.node.Scalar());
        }
        return x;
    }

    static std::string format_number(double x) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", x);
        return text;
    }

    enum class Bound { Closed, Open };

    // A number in the interval from lo to hi, each end open or closed; the
    // message writes the interval as "(0, 180)" or "[0, 1]".
    double number_in(const Value& value, double lo, Bound lo_bound, double hi, Bound hi_bound) const {
        const double x = number(value);
        const bool above = lo_bound == Bound::Open ? x > lo : x >= lo;
        const bool below = hi_bound == Bound::Open ? x < hi : x <= hi;
        if (!(above && below)) {
            fail(value, std::string("must be in ") + (lo_bound == Bound::Open ? "(" : "[") + format_number(lo) + ", " +
                            format_number(hi) + (hi_bound == Bound::Open ? ")" : "]") + ", got " + value.node.Scalar());
        }
        return x;
    }

    // Positive in double and as the float the renderer keeps (1e-50 is 0 there).
    double positive(const Value& value) const {
        const double x = number(value);
        if (!(x > 0)) fail(value, "must be > 0, got " + value.node.Scalar());
        if (!(float(x) >= std::numeric_limits<float>::min())) {
            fail(value, "must be at least " + format_number(std::numeric_limits<float>::min()) +
                            " (the smallest normal float), got " + value.node.Scalar());
        }
        return x;
    }

    // A positive length (radius, distance, scale).
    double size(const Value& value) const {
        const double x = positive(value);
        if (x < kMinSceneLength) {
            fail(value, "must be at least " + format_number(kMinSceneLength) + ", got " + value.node.Scalar());
        }
        if (x > kMaxSceneCoordinate) {
            fail(value, "must be at most " + format_number(kMaxSceneCoordinate) + ", got " + value.node.Scalar());
        }
        return x;
    }

    long long integer(const Value& value, long long lo, long long hi) const {
        const std::string text = scalar_text(value, "an integer");
        char* end = nullptr;
        errno = 0;
        const long long result = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end != text.c_str() + text.size()) {
            fail(value, "expected an integer, got '" + text + "'");
        }
        if (errno == ERANGE || result < lo || result > hi) {
            fail(value, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + text);
        }
        return result;
    }

    uint64_t unsigned64(const Value& value) const {
        const std::string text = scalar_text(value, "an integer");
        char* end = nullptr;
        errno = 0;
        const unsigned long long result = std::strtoull(text.c_str(), &end, 10);
        if (text.empty() || text[0] == '-' || end != text.c_str() + text.size() || errno == ERANGE) {
            fail(value, "expected an integer between 0 and 18446744073709551615, got '" + text + "'");
        }
        return result;
    }

    enum class VectorKind { Geometry, Color };

    // [x, y, z]: geometry (points, offsets, directions) within kMaxSceneCoordinate,
    // colors any finite float.
    Vec3 vector3(const Value& value, VectorKind kind = VectorKind::Geometry) const {
        if (!value.node.IsSequence() || value.node.size() != 3) fail(value, "expected a list of 3 numbers");
        Vec3 v;
        for (int i = 0; i < 3; ++i) {
            const Value component{value.node[i], value.path + "[" + std::to_string(i) + "]"};
            v[i] = float(kind == VectorKind::Geometry ? coordinate(component) : number(component));
        }
        return v;
    }

    Color color(const Value& value) const {
        const Vec3 c = vector3(value, VectorKind::Color);
        if (c.x < 0 || c.y < 0 || c.z < 0) fail(value, "color components must be >= 0");
        return c;
    }

    std::string choice(const Value& value, std::initializer_list<const char*> options) const {
        const std::string text = scalar_text(value, "a string");
        std::string list;
        for (const char* option : options) {
            if (text == option) return text;
            list += (list.empty() ? "" : " | ") + std::string(option);
        }
        fail(value, "unknown value '" + text + "' (expected " + list + ")");
    }

    bool boolean(const Value& value) const { return choice(value, {"true", "false"}) == "true"; }

    static std::string to_lower(std::string s) {
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    }

protected:
    std::string display_name_;
    std::map<std::string, std::string> override_origin_;
};

}  // namespace farmrt
