// The scene loader tests' base scene and its helpers: a valid scene whose
// lines a test replaces or extends, loading it (with --set overrides), and
// the one-line error it gives.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/scene_loader.h"

namespace farmrt::testing {

// A valid scene; the tests replace or insert lines by number (1-based).
inline const char* const kBaseScene =
    "image:\n"                                              // 1
    "  width: 32\n"                                         // 2
    "  height: 24\n"                                        // 3
    "  output: out.ppm\n"                                   // 4
    "sampling:\n"                                           // 5
    "  spp: 4\n"                                            // 6
    "camera:\n"                                             // 7
    "  lookfrom: [0, 1, 5]\n"                               // 8
    "  lookat: [0, 0, 0]\n"                                 // 9
    "materials:\n"                                          // 10
    "  red: {type: lambertian, albedo: [0.8, 0.1, 0.1]}\n"  // 11
    "objects:\n"                                            // 12
    "  - type: sphere\n"                                    // 13
    "    center: [0, 0, 0]\n"                               // 14
    "    radius: 1\n"                                       // 15
    "    material: red\n";                                  // 16

inline std::vector<std::string> base_lines() {
    std::vector<std::string> lines;
    std::istringstream in(kBaseScene);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

inline std::string join_lines(const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    return text;
}

// The base scene with line `number` replaced by `text` (which may hold several lines).
inline std::string with_line(int number, const std::string& text) {
    std::vector<std::string> lines = base_lines();
    lines.at(size_t(number - 1)) = text;
    return join_lines(lines);
}

// The base scene with `text` inserted after line `number`.
inline std::string with_inserted(int number, const std::string& text) {
    std::vector<std::string> lines = base_lines();
    lines.insert(lines.begin() + number, text);
    return join_lines(lines);
}

inline std::string with_appended(const std::string& text) { return std::string(kBaseScene) + text + "\n"; }

inline SceneDescription load(const std::string& text, const std::vector<SceneOverride>& overrides = {}) {
    return load_scene_text(text, "scene.yaml", ".", overrides);
}

inline std::vector<SceneOverride> sets(std::initializer_list<const char*> assignments) {
    std::vector<SceneOverride> overrides;
    for (const char* a : assignments) overrides.push_back(SceneOverride{a, ""});
    return overrides;
}

// The InputError message, or a marker when loading succeeded / threw something else.
inline std::string load_error(const std::string& text, const std::vector<SceneOverride>& overrides = {}) {
    try {
        load(text, overrides);
    } catch (const InputError& e) {
        const std::string message = e.what();
        EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
        return message;
    } catch (const std::exception& e) {
        return std::string("(not an InputError) ") + e.what();
    }
    return "(no error)";
}

inline bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

#define EXPECT_STARTS_WITH(text, prefix) EXPECT_TRUE(starts_with(text, prefix)) << "  message: " << (text)

}  // namespace farmrt::testing
