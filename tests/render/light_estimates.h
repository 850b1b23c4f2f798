// Scenes and estimates the light transport tests share: materials made in a
// line, a gray ground under a black sky, and the mean luminance of n paths
// with its standard error.
#pragma once

#include "core/integrator.h"
#include "out_of_line_path.h"
#include "io/scene_loader.h"
#include "test_helpers.h"

namespace farmrt::testing {

inline uint32_t add_color(Scene& scene, const Color& c) {
    Texture t;
    t.color = c;
    scene.textures.push_back(t);
    return uint32_t(scene.textures.size() - 1);
}

inline uint32_t add_lambertian(Scene& scene, const Color& albedo) {
    Material m;
    m.type = MaterialType::Lambertian;
    m.albedo_texture = add_color(scene, albedo);
    scene.materials.push_back(m);
    return uint32_t(scene.materials.size() - 1);
}

inline uint32_t add_emissive(Scene& scene, const Color& emission) {
    Material m;
    m.type = MaterialType::Emissive;
    m.emission_texture = add_color(scene, emission);
    scene.materials.push_back(m);
    return uint32_t(scene.materials.size() - 1);
}

inline Background constant_background(const Color& c) {
    Background b;
    b.type = BackgroundType::Constant;
    b.color = c;
    return b;
}

constexpr double kAlbedo = 0.5;

// The ground: y = 0, 200 x 200, gray, under a black sky unless changed.
inline Scene ground_scene() {
    Scene scene;
    const uint32_t gray = add_lambertian(scene, Color(float(kAlbedo)));
    scene.quads.push_back(make_quad(Vec3(-100, 0, -100), Vec3(0, 0, 200), Vec3(200, 0, 0), gray));
    scene.background = constant_background(Color(0.0f));
    return scene;
}

// A camera ray that meets the ground at `point`.
inline Ray ray_to(const Vec3& point) {
    const Vec3 origin = point + Vec3(0.7f, 2.5f, 0.4f);
    return Ray{origin, point - origin, 0.0f};
}

struct Estimate {
    double mean = 0, standard_error = 0;
};

// Mean luminance of n paths along `ray`.
inline Estimate estimate(const Scene& scene, const Ray& ray, Integrator integrator, uint32_t n, uint64_t seed = 1) {
    const SceneView view = scene.view();
    SampleMean paths;
    for (uint32_t s = 0; s < n; ++s) {
        PixelSampler sampler(SamplerKey{seed, 0}, 7, s);
        paths.add(luminance(trace_path_out_of_line(view, ray, sampler, 50, integrator)));
    }
    return Estimate{paths.mean(), paths.standard_error()};
}

// A diffuse sphere of albedo 0.8 at the origin under `environment_yaml` (a
// scene file's background), with `extra_objects` (scene file lines) beside it.
inline Scene sphere_under(const std::string& environment_yaml, const std::string& extra_objects = "") {
    const std::string text =
        "image: {width: 8, height: 8, output: out.ppm}\n"
        "sampling: {spp: 1}\n"
        "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0]}\n"
        "background: " +
        environment_yaml +
        "\n"
        "objects:\n"
        "  - {type: sphere, center: [0, 0, 0], radius: 1, material: {type: lambertian, albedo: [0.8, 0.8, 0.8]}}\n" +
        extra_objects;
    SceneDescription description = load_scene_text(text, "scene.yaml", "/");
    description.scene.build_acceleration();
    return std::move(description.scene);
}

}  // namespace farmrt::testing
