#include "render/run_report.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "io/temporary_name.h"

namespace farmrt {

std::string JsonObject::quote(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += char(c);
            }
        }
    }
    return out + "\"";
}

JsonObject& JsonObject::add(const std::string& key, const std::string& value) {
    members_.emplace_back(key, quote(value));
    return *this;
}

JsonObject& JsonObject::add(const std::string& key, double value) {
    char text[64];
    if (std::isfinite(value)) {
        std::snprintf(text, sizeof text, "%.6g", value);
    } else {
        std::snprintf(text, sizeof text, "null");
    }
    members_.emplace_back(key, text);
    return *this;
}

JsonObject& JsonObject::add(const std::string& key, uint64_t value) {
    members_.emplace_back(key, std::to_string(value));
    return *this;
}

JsonObject& JsonObject::add(const std::string& key, bool value) {
    members_.emplace_back(key, value ? "true" : "false");
    return *this;
}

JsonObject& JsonObject::add_raw(const std::string& key, const std::string& json) {
    members_.emplace_back(key, json);
    return *this;
}

std::string JsonObject::str() const {
    std::string out = "{";
    for (size_t i = 0; i < members_.size(); ++i) {
        out += (i ? ", " : "") + quote(members_[i].first) + ": " + members_[i].second;
    }
    return out + "}";
}

std::string settings_json(const RenderSettings& s) {
    JsonObject settings;
    settings.add("width", s.width).add("height", s.height);
    if (is_region(s)) {
        // image.region as the scene gives it, [x0, x1, y0, y1] of the frame.
        settings.add_raw("region", region_bounds(s));
    }
    return settings.add("output", s.output)
        .add("encoding", encoding_name(s.encoding))
        .add("data_type", data_type_name(s.data_type))
        .add("spp", s.spp)
        .add("max_depth", s.max_depth)
        .add("integrator", integrator_name(s.integrator))
        .add("seed", s.seed)
        .str();
}

std::string phases_json(const PhaseTimes& p) {
    return JsonObject()
        .add("parse", p.parse)
        .add("bvh_build", p.bvh_build)
        .add("backend_setup", p.backend_setup)
        .add("render", p.render)
        .add("write", p.write)
        .add("total", p.total)
        .str();
}

void write_text_file_atomically(const std::string& path, const std::string& text) {
    const std::string temporary = temporary_path_for(path, ".tmp");
    {
        std::ofstream out(temporary, std::ios::binary);
        if (!out) throw RenderError(path + ": cannot open for writing: " + std::strerror(errno));
        out << text;
        out.flush();
        if (!out) {
            std::remove(temporary.c_str());
            throw RenderError(path + ": write failed: " + std::strerror(errno));
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw RenderError(path + ": cannot move into place: " + std::strerror(errno));
    }
}

}  // namespace farmrt
