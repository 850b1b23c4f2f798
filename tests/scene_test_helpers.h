// Small helpers shared by the scene tests (primitives, transforms, meshes,
// textures, instances).
#pragma once

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "scene.h"
#include "scene_loader.h"

namespace farmrt::testing {

// Closest hit through the BVH of a built scene.
inline bool trace(const SceneView& view, const Vec3& origin, const Vec3& direction, Hit& hit, float time = 0.0f) {
    hit = Hit{};
    return intersect_closest(view, Ray{origin, direction, time}, kMinHitDistance, hit);
}

// A scene file body with a fixed header; `objects` is the YAML list's items.
inline std::string scene_yaml(const std::string& materials, const std::string& objects) {
    return "image: {width: 8, height: 8, output: out.ppm}\n"
           "sampling: {spp: 1}\n"
           "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0]}\n"
           "materials:\n" +
           materials + "objects:\n" + objects;
}

inline const char* kGrayMaterial = "  gray: {type: lambertian, albedo: [0.5, 0.5, 0.5]}\n";

// A fresh temporary directory for files a test writes.
inline std::string temporary_directory(const std::string& name) {
    const std::string directory = std::string(::testing::TempDir()) + "farmrt_" + name;
    std::string command = "mkdir -p '" + directory + "'";
    if (std::system(command.c_str()) != 0) return ::testing::TempDir();
    return directory;
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// The error message of loading `text` as a scene from `directory`, or "" when it loads.
inline std::string load_error(const std::string& text, const std::string& directory = ".") {
    try {
        load_scene_text(text, "scene.yaml", directory);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

}  // namespace farmrt::testing
