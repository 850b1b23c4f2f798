#include "io/scene_identity.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/animation.h"
#include "core/pixel_record.h"
#include "io/scene_loader.h"

namespace farmrt {
namespace {

bool skipped(const std::string& path) {
    return path == "image.output" || path == "image.encoding" || path == "image.data_type" || path == "camera" ||
           path == "animation";
}

// Scalars are quoted with their length so that no two trees share a text.
void append_canonical(const YAML::Node& node, const std::string& path, std::string& out) {
    switch (node.Type()) {
    case YAML::NodeType::Map: {
        // YAML::Node assignment writes through to the tree, so sort indices,
        // never the nodes themselves.
        std::vector<std::string> keys;
        std::vector<YAML::Node> values;
        for (auto it = node.begin(); it != node.end(); ++it) {
            keys.push_back(it->first.Scalar());
            values.push_back(it->second);
        }
        std::vector<size_t> order(keys.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
        out += "{";
        for (size_t i : order) {
            const std::string child = path.empty() ? keys[i] : path + "." + keys[i];
            if (skipped(child)) continue;
            out += std::to_string(keys[i].size()) + ":" + keys[i] + "=";
            append_canonical(values[i], child, out);
            out += ";";
        }
        out += "}";
        break;
    }
    case YAML::NodeType::Sequence:
        out += "[";
        for (size_t i = 0; i < node.size(); ++i) {
            append_canonical(node[i], path + "[" + std::to_string(i) + "]", out);
            out += ",";
        }
        out += "]";
        break;
    case YAML::NodeType::Scalar: out += std::to_string(node.Scalar().size()) + ":" + node.Scalar(); break;
    default: out += "~"; break;
    }
}

std::string hex_float(double x) {
    char text[64];
    std::snprintf(text, sizeof text, "%a", x);
    return text;
}

std::string hex_vector(const Vec3& v) { return hex_float(v.x) + "," + hex_float(v.y) + "," + hex_float(v.z); }

std::string hex64(uint64_t x) {
    char text[32];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(x));
    return text;
}

}  // namespace

uint64_t fnv1a64(const void* data, size_t size, uint64_t state) {
    const unsigned char* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) {
        state ^= bytes[i];
        state *= 0x100000001b3ull;
    }
    return state;
}

std::string canonical_scene_text(const YAML::Node& root) {
    std::string out;
    append_canonical(root, "", out);
    return out;
}

std::string frame_identity(const SceneDescription& description, uint32_t frame) {
    const RenderSettings& s = description.settings;
    const CameraSettings c = camera_at_frame(s.camera, description.animation, frame);
    std::string id;
    id += "frame=" + std::to_string(frame) + "\n";
    id += "width=" + std::to_string(s.width) + "\n";
    id += "height=" + std::to_string(s.height) + "\n";
    if (is_region(s)) {
        id += "region=" + std::to_string(s.region_x) + "," + std::to_string(s.region_y) + " of " +
              std::to_string(s.film_width) + "x" + std::to_string(s.film_height) + "\n";
    }
    id += "spp=" + std::to_string(s.spp) + "\n";
    id += "max_depth=" + std::to_string(s.max_depth) + "\n";
    id += std::string("integrator=") + integrator_name(s.integrator) + "\n";
    id += "seed=" + std::to_string(s.seed) + "\n";
    id += std::string("sampler=") + sampler_name(s.sampler) + "\n";
    id += std::string("filter=") + filter_name(s.filter) + "\n";
    id += std::string("light_sampler=") + (s.light_tree ? "tree" : "power") + "\n";
    id += "filter_width=" + hex_float(s.filter_width) + "\n";
    if (s.clamp_direct > 0.0f || s.clamp_indirect > 0.0f) {  // only where set, like noise_threshold
        id += "clamp_direct=" + hex_float(s.clamp_direct) + "\n";
        id += "clamp_indirect=" + hex_float(s.clamp_indirect) + "\n";
    }
    // Only where set, so that renders without them keep their identities.
    if (s.noise_threshold > 0.0f) {
        id += "noise_threshold=" + hex_float(s.noise_threshold) + "\n";
        id += "min_spp=" + std::to_string(s.min_spp) + "\n";
    }
    if (record_has_statistics(pixel_record_floats(s))) id += "pixel_statistics=yes\n";
    if (s.alpha) id += "alpha=yes\n";  // a transparent background: other light, another record
    id += "camera.lookfrom=" + hex_vector(c.lookfrom) + "\n";
    id += "camera.lookat=" + hex_vector(c.lookat) + "\n";
    id += "camera.vup=" + hex_vector(c.vup) + "\n";
    id += "camera.vfov=" + hex_float(c.vfov) + "\n";
    id += "camera.defocus_angle=" + hex_float(c.defocus_angle) + "\n";
    id += "camera.focus_dist=" + hex_float(c.focus_dist) + "\n";
    const std::string& scene = description.canonical_scene;
    id += "scene=" + hex64(fnv1a64(scene.data(), scene.size())) + "\n";
    return id;
}

std::string frame_digest(const SceneDescription& description, uint32_t frame) {
    const std::string identity = frame_identity(description, frame);
    return hex64(fnv1a64(identity.data(), identity.size()));
}

}  // namespace farmrt
