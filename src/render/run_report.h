// The --stats JSON report: scene, settings, time per phase, throughput.
// Later layers (MPI ranks, GPUs) add their own sections as extra JSON members.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/render_settings.h"

namespace farmrt {

// Builds one JSON object, member by member, with correct escaping.
class JsonObject {
public:
    JsonObject& add(const std::string& key, const std::string& value);
    JsonObject& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
    JsonObject& add(const std::string& key, double value);
    JsonObject& add(const std::string& key, uint64_t value);
    JsonObject& add(const std::string& key, int value) { return add(key, uint64_t(value < 0 ? 0 : value)); }
    JsonObject& add(const std::string& key, uint32_t value) { return add(key, uint64_t(value)); }
    JsonObject& add(const std::string& key, bool value);
    JsonObject& add_raw(const std::string& key, const std::string& json);  // an object or array already encoded
    std::string str() const;

    static std::string quote(const std::string& text);

private:
    std::vector<std::pair<std::string, std::string>> members_;
};

struct PhaseTimes {
    double parse = 0, bvh_build = 0, render = 0, write = 0, total = 0;
    // Making the backend's renderer: the GPU's context, the scene's upload,
    // the kernel's set-up; the CPU's thread pool.
    double backend_setup = 0;
};

std::string settings_json(const RenderSettings& settings);
std::string phases_json(const PhaseTimes& phases);
// Writes atomically (temporary file + rename); throws RenderError on failure.
void write_text_file_atomically(const std::string& path, const std::string& text);

}  // namespace farmrt
