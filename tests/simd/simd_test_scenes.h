// Random scenes and rays for the SIMD tests, and how their hits compare.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/integrator.h"
#include "core/scene.h"
#include "simd/simd_level.h"
#include "simd/wide_accelerator.h"

namespace farmrt {

inline constexpr SimdLevel kSimdLevels[] = {SimdLevel::Sse42, SimdLevel::Avx2, SimdLevel::Avx512};

// ---- random mixed scenes ------------------------------------------------------

struct SceneRandom {
    std::mt19937 engine;
    explicit SceneRandom(uint32_t seed) : engine(seed) {}
    float uniform(float lo = 0.0f, float hi = 1.0f) { return std::uniform_real_distribution<float>(lo, hi)(engine); }
    int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine); }
    Vec3 point(float extent) {
        return Vec3(uniform(-extent, extent), uniform(-extent, extent), uniform(-extent, extent));
    }
    // Directions with exact zeros and axis-aligned cases (infinite reciprocals).
    Vec3 direction() {
        Vec3 d;
        do {
            d = point(1.0f);
            for (int axis = 0; axis < 3; ++axis) {
                if (integer(0, 7) == 0) d[axis] = 0.0f;
            }
        } while (length_squared(d) == 0.0f);
        return d;
    }
};

// Spheres (some moving, some huge), quads (some axis-aligned and flat),
// triangles (meshes sharing edges), and exact duplicates of each: ties.
inline Scene random_mixed_scene(uint32_t seed, int count) {
    SceneRandom random(seed);
    Scene scene;
    scene.materials.push_back(Material{});
    const float extent = 4.0f;
    for (int i = 0; i < count; ++i) {
        const int kind = random.integer(0, 5);
        if (kind <= 1) {
            Sphere s{random.point(extent), random.uniform(0.05f, 0.8f), Vec3(0.0f), 0};
            if (random.integer(0, 3) == 0) s.velocity = random.point(0.5f);
            if (random.integer(0, 40) == 0) s.radius = 50.0f;
            scene.spheres.push_back(s);
        } else if (kind == 2) {
            Vec3 u = random.point(1.0f), v = random.point(1.0f);
            if (random.integer(0, 2) == 0) {  // axis-aligned: a flat bounding box
                u = Vec3(random.uniform(0.2f, 1.5f), 0, 0);
                v = Vec3(0, 0, random.uniform(0.2f, 1.5f));
            }
            if (length_squared(cross(u, v)) > 1e-6f) scene.quads.push_back(make_quad(random.point(extent), u, v, 0));
        } else if (kind == 3) {
            // A small grid mesh: triangles that share edges and vertices.
            const Vec3 origin = random.point(extent), u = random.point(0.6f), v = random.point(0.6f);
            if (length_squared(cross(u, v)) < 1e-6f) continue;
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) {
                    const Vec3 p00 = origin + float(a) * u + float(b) * v, p10 = p00 + u, p01 = p00 + v,
                               p11 = p00 + u + v;
                    Triangle t{};
                    t.vertex0 = p00, t.vertex1 = p10, t.vertex2 = p11;
                    scene.triangles.push_back(t);
                    t.vertex0 = p00, t.vertex1 = p11, t.vertex2 = p01;
                    scene.triangles.push_back(t);
                }
            }
        } else if (kind == 4) {
            Triangle t{};
            t.vertex0 = random.point(extent);
            t.vertex1 = t.vertex0 + random.point(1.0f);
            t.vertex2 = t.vertex0 + random.point(1.0f);
            if (length_squared(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0)) > 1e-8f)
                scene.triangles.push_back(t);
        } else {
            // Exact duplicates: equal t, the smaller PrimitiveRef must win.
            if (!scene.spheres.empty())
                scene.spheres.push_back(scene.spheres[size_t(random.integer(0, int(scene.spheres.size()) - 1))]);
            if (!scene.quads.empty())
                scene.quads.push_back(scene.quads[size_t(random.integer(0, int(scene.quads.size()) - 1))]);
            if (!scene.triangles.empty()) {
                scene.triangles.push_back(scene.triangles[size_t(random.integer(0, int(scene.triangles.size()) - 1))]);
            }
        }
    }
    return scene;
}

// 2000 small spheres (every 50th of radius 1) spread over a plane far
// around the origin, for rays that graze their tops (grazing_ray).
inline Scene grazing_sphere_scene(SceneRandom& random) {
    Scene scene;
    scene.materials.push_back(Material{});
    for (int i = 0; i < 2000; ++i) {
        const Vec3 center(random.uniform(-80.0f, 80.0f), 0.2f, random.uniform(-80.0f, 80.0f));
        scene.spheres.push_back(Sphere{center, i % 50 == 0 ? 1.0f : 0.2f, Vec3(0.0f), 0});
    }
    return scene;
}

// A ray from near the origin aimed within a hair of the top of one of
// grazing_sphere_scene's spheres (`target`), where the float sphere test
// rounds some hits outside the sphere's box.
inline Ray grazing_ray(SceneRandom& random, const Scene& scene, const Sphere*& target) {
    target = &scene.spheres[size_t(random.integer(0, 1999))];
    const Ray ray{Vec3(random.uniform(-3.0f, 3.0f), random.uniform(0.3f, 0.45f), random.uniform(-3.0f, 3.0f)),
                  target->center + Vec3(random.uniform(-0.01f, 0.01f), target->radius * random.uniform(0.999f, 1.0001f),
                                        random.uniform(-0.01f, 0.01f)),
                  0.0f};
    return Ray{ray.origin, ray.direction - ray.origin, 0.0f};
}

struct RandomQuery {
    Ray ray;
    float t_min;
    Hit start;  // incoming hit: usually none, sometimes a finite t_max
};

inline std::vector<RandomQuery> random_queries(uint32_t seed, int count) {
    SceneRandom random(seed);
    std::vector<RandomQuery> queries;
    for (int i = 0; i < count; ++i) {
        RandomQuery q;
        q.ray = Ray{random.point(6.0f), random.direction(), random.uniform(0.0f, 1.0f)};
        if (random.integer(0, 9) == 0) q.ray.direction = q.ray.direction * 1000.0f;  // not unit length
        q.t_min = random.integer(0, 4) == 0 ? 0.0f : kMinHitDistance;
        if (random.integer(0, 7) == 0) {
            q.start.t = random.uniform(0.5f, 8.0f);
            q.start.primitive = PrimitiveRef{uint32_t(random.integer(0, 1 << 29))};
        }
        queries.push_back(q);
    }
    return queries;
}

inline void expect_same_hit(bool expected_found, const Hit& expected, bool found, const Hit& hit,
                            const std::string& where) {
    ASSERT_EQ(expected_found, found) << where;
    ASSERT_EQ(float_bits(expected.t), float_bits(hit.t)) << where << ": t " << expected.t << " vs " << hit.t;
    ASSERT_EQ(expected.primitive.bits, hit.primitive.bits) << where;
    ASSERT_EQ(float_bits(expected.u), float_bits(hit.u)) << where;
    ASSERT_EQ(float_bits(expected.v), float_bits(hit.v)) << where;
}

// `count` spheres of radius 0.05 to 1 around the origin, then the book's
// ground. `variety`: a quarter of them move, and
// every tenth repeats an earlier one exactly (ties).
inline Scene random_sphere_scene(SceneRandom& random, int count, bool variety) {
    Scene scene;
    scene.materials.push_back(Material{});
    for (int i = 0; i < count; ++i) {
        Sphere sphere{random.point(5.0f), random.uniform(0.05f, 1.0f), Vec3(0.0f), 0};
        if (variety && random.integer(0, 3) == 0) sphere.velocity = random.point(0.5f);
        if (variety && i % 10 == 9) sphere = scene.spheres[size_t(random.integer(0, i - 1))];
        scene.spheres.push_back(sphere);
    }
    scene.spheres.push_back(Sphere{Vec3(0, -1000, 0), 1000.0f, Vec3(0.0f), 0});  // the book's ground
    return scene;
}

// The wide accelerator's closest hit for `ray` equals the scalar BVH's, both
// starting from `start` (none, or a finite t_max).
inline void expect_wide_matches_scalar(const SceneView& view, const simd::WideAccelerator& accelerator, const Ray& ray,
                                       float t_min, const Hit& start, const std::string& where) {
    Hit expected = start, hit = start;
    const bool expected_found = intersect_closest(view, ray, t_min, expected);
    const bool found = accelerator.closest_hit()(view, ray, t_min, hit);
    expect_same_hit(expected_found, expected, found, hit, where);
}

// ---- the tie rule (core, scalar) ----------------------------------------------

}  // namespace farmrt
