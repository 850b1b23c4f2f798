// Small helpers shared by the scene tests (primitives, transforms, meshes,
// textures, instances).
#pragma once

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "core/scene.h"
#include "io/scene_loader.h"

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

class Random {
public:
    explicit Random(uint32_t seed) : engine_(seed) {}
    float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(engine_); }
    Vec3 point(float extent) {
        return Vec3(uniform(-extent, extent), uniform(-extent, extent), uniform(-extent, extent));
    }
    int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine_); }

private:
    std::mt19937 engine_;
};

inline Triangle random_triangle(Random& random, const Vec3& near, float size) {
    Triangle t{};
    t.vertex0 = near + random.point(size);
    t.vertex1 = near + random.point(size);
    t.vertex2 = near + random.point(size);
    return t;
}

// Spheres (some moving), quads, triangles, and instances of two shared
// geometries (a triangle soup, and a one-sphere geometry placed as ellipsoids).
inline Scene random_scene(uint32_t seed) {
    Random random(seed);
    Scene scene;
    scene.materials.push_back(Material{});
    scene.textures.push_back(Texture{});
    const int spheres = random.integer(0, 60), quads = random.integer(0, 60), triangles = random.integer(0, 200);
    for (int i = 0; i < spheres; ++i) {
        Sphere s{random.point(10), random.uniform(0.05f, 1.5f), Vec3(0.0f), 0};
        if (i % 3 == 0) s.velocity = random.point(1);
        scene.spheres.push_back(s);
    }
    for (int i = 0; i < quads; ++i) {
        scene.quads.push_back(make_quad(random.point(10), random.point(2), random.point(2), 0));
    }
    for (int i = 0; i < triangles; ++i) scene.triangles.push_back(random_triangle(random, random.point(10), 1.0f));
    // Shared soup: 300 triangles in the unit cube, instanced several times.
    std::vector<PrimitiveRef> soup;
    for (int i = 0; i < 300; ++i) {
        soup.push_back(PrimitiveRef::make(PrimitiveType::Triangle, uint32_t(scene.triangles.size())));
        scene.triangles.push_back(random_triangle(random, random.point(1), 0.3f));
    }
    const uint32_t soup_geometry = scene.add_instance_geometry(soup);
    scene.spheres.push_back(Sphere{Vec3(0.0f), 1.0f, Vec3(0.0f), 0});
    const uint32_t ball_geometry =
        scene.add_instance_geometry({PrimitiveRef::make(PrimitiveType::Sphere, uint32_t(scene.spheres.size() - 1))});
    const int instances = random.integer(1, 8);
    for (int i = 0; i < instances; ++i) {
        const Vec3 scale(random.uniform(0.3f, 3), random.uniform(0.3f, 3), random.uniform(0.3f, 3));
        const Transform t = Transform::scale(scale.x, scale.y, scale.z)
                                .then(Transform::rotate_x(random.uniform(-180, 180)))
                                .then(Transform::rotate_y(random.uniform(-180, 180)))
                                .then(Transform::rotate_z(random.uniform(-180, 180)))
                                .then(Transform::translate(random.point(10)));
        scene.add_instance(i % 3 == 2 ? ball_geometry : soup_geometry, t, 0);
    }
    return scene;
}

}  // namespace farmrt::testing
