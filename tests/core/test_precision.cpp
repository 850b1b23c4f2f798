// Float robustness of intersection and ray spawning (src/core/primitives.h,
// src/core/ray_spawn.h, surface_at in src/core/surface.h):
// - the sphere test against the quadratic evaluated in long double on the
//   same float inputs, on a million random rays: grazing rays at small
//   spheres across a scene, the r = 1000 ground sphere from just above it,
//   spheres 10,000 units away, and rays leaving sphere surfaces;
// - rays leaving any surface (spheres of every size, quads and triangles at
//   coordinates of 500 and 500,000, rotated boxes, an ellipsoid instance), grazing or not, never hit it again where
//   they cannot;
// - the Cornell box scaled by 1000 and by 0.001, camera included, renders
//   the same image as the Cornell box.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "core/integrator.h"
#include "core/scene.h"
#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "render/render_job.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

using Real = long double;

// The sphere's roots on the ray, in long double from the float inputs.
struct ReferenceRoots {
    bool real = false;
    Real near_root = 0, far_root = 0;
    // |discriminant| relative to a (|oc|^2 + r^2): how far the ray is from
    // tangent, in the units the float and double tests round in.
    Real margin = 0;
};

ReferenceRoots reference_roots(const Vec3& center, float radius, const Ray& ray) {
    const Real ox = Real(center.x) - ray.origin.x, oy = Real(center.y) - ray.origin.y,
               oz = Real(center.z) - ray.origin.z;
    const Real dx = ray.direction.x, dy = ray.direction.y, dz = ray.direction.z;
    const Real a = dx * dx + dy * dy + dz * dz;
    const Real h = dx * ox + dy * oy + dz * oz;
    const Real oc_squared = ox * ox + oy * oy + oz * oz, r_squared = Real(radius) * radius;
    const Real c = oc_squared - r_squared;
    const Real discriminant = h * h - a * c;
    ReferenceRoots roots;
    roots.margin = std::fabs(discriminant) / (a * (oc_squared + r_squared));
    if (discriminant < 0) return roots;
    roots.real = true;
    const Real q = h >= 0 ? h + std::sqrt(discriminant) : h - std::sqrt(discriminant);
    const Real first = q / a, second = c / q;
    roots.near_root = std::min(first, second);
    roots.far_root = std::max(first, second);
    return roots;
}

// The first root in (0, infinity), or 0 for none.
Real first_positive(const ReferenceRoots& roots) {
    if (!roots.real) return 0;
    if (roots.near_root > 0) return roots.near_root;
    return roots.far_root > 0 ? roots.far_root : 0;
}

Vec3 random_unit(std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (;;) {
        const Vec3 v(normal(rng), normal(rng), normal(rng));
        if (length_squared(v) > 1e-6f) return unit_vector(v);
    }
}

float uniform(std::mt19937& rng, float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }

// 10^uniform(lo, hi): scales spread over orders of magnitude.
float log_uniform(std::mt19937& rng, float lo, float hi) { return std::pow(10.0f, uniform(rng, lo, hi)); }

struct SphereCase {
    Sphere sphere;
    Ray ray;
};

// Counts the rays where intersect_sphere disagrees with the long double
// roots: a hit where there is none or a miss where there is one (rays within
// 1e-12 of tangent excepted: there the answer is the rounding's), or a
// distance off by more than float rounding.
struct SphereAudit {
    int checked = 0, ambiguous = 0, hits = 0, wrong_hit = 0, wrong_distance = 0;
    std::string first_failure;

    void check(const SphereCase& c) {
        ++checked;
        const ReferenceRoots roots = reference_roots(c.sphere.center, c.sphere.radius, c.ray);
        if (roots.margin < 1e-12L) {
            ++ambiguous;
            return;
        }
        const Real expected = first_positive(roots);
        float t = 0;
        const bool found = intersect_sphere(c.sphere, c.ray, 0.0f, kInfinity, t);
        hits += found;
        bool bad = false;
        if (found != (expected > 0)) {
            ++wrong_hit;
            bad = true;
        } else if (found && std::fabs(Real(t) - expected) > 2.5e-7L * expected) {
            ++wrong_distance;
            bad = true;
        }
        if (bad && first_failure.empty()) {
            std::ostringstream out;
            out.precision(9);
            out << "centre (" << c.sphere.center.x << ", " << c.sphere.center.y << ", " << c.sphere.center.z << ") r "
                << c.sphere.radius << ", origin (" << c.ray.origin.x << ", " << c.ray.origin.y << ", " << c.ray.origin.z
                << "), direction (" << c.ray.direction.x << ", " << c.ray.direction.y << ", " << c.ray.direction.z
                << "): found " << found << " t " << t << ", expected " << double(expected);
            first_failure = out.str();
        }
    }
    void expect_clean(const char* what) const {
        std::printf("%s: %d rays, %d hits, %d within 1e-12 of tangent\n", what, checked, hits, ambiguous);
        EXPECT_EQ(wrong_hit, 0) << what << ": " << first_failure;
        EXPECT_EQ(wrong_distance, 0) << what << ": " << first_failure;
        EXPECT_GT(hits, checked / 20) << what << ": too few hits to say anything";
    }
};

Sphere make_sphere(const Vec3& center, float radius) {
    Sphere s{};
    s.center = center;
    s.radius = radius;
    return s;
}

constexpr int kRaysPerCase = 250000;

TEST(SpherePrecision, SmallSpheresAcrossTheSceneAtTheirSilhouettes) {
    // The first book's final scene: r = 0.2 spheres within 11 units of the
    // origin, seen from (13, 2, 3) through a lens; rays aimed within 0.1% of
    // the radius of the silhouette, on both sides.
    std::mt19937 rng(1);
    SphereAudit audit;
    for (int i = 0; i < kRaysPerCase; ++i) {
        const Sphere s = make_sphere(Vec3(uniform(rng, -11, 11), 0.2f, uniform(rng, -11, 11)), 0.2f);
        const Vec3 origin = Vec3(13, 2, 3) + 0.1f * random_unit(rng);
        Vec3 toward = s.center - origin;
        const Vec3 side = unit_vector(cross(toward, random_unit(rng)));
        const Vec3 target = s.center + (s.radius * (1.0f + uniform(rng, -1e-3f, 1e-3f))) * side;
        audit.check({s, Ray{origin, target - origin, 0.0f}});
    }
    audit.expect_clean("small spheres");
}

TEST(SpherePrecision, GroundSphereOfRadius1000FromJustAboveIt) {
    // Origins between 1e-5 and 3 above the r = 1000 sphere, directions from
    // grazing (1e-5 of a radian) to steep, up and down.
    std::mt19937 rng(2);
    SphereAudit audit;
    const Sphere ground = make_sphere(Vec3(0, -1000, 0), 1000);
    for (int i = 0; i < kRaysPerCase; ++i) {
        const Vec3 origin(uniform(rng, -12, 12), log_uniform(rng, -5, 0.5f), uniform(rng, -12, 12));
        const float angle = (i % 2 ? 1.0f : -1.0f) * log_uniform(rng, -5, 0);
        const float heading = uniform(rng, 0, 6.2831853f);
        const Vec3 direction(std::cos(heading) * std::cos(angle), std::sin(angle), std::sin(heading) * std::cos(angle));
        audit.check({ground, Ray{origin, uniform(rng, 0.5f, 2.0f) * direction, 0.0f}});
    }
    audit.expect_clean("ground sphere");
}

TEST(SpherePrecision, SpheresTenThousandUnitsAway) {
    std::mt19937 rng(3);
    SphereAudit audit;
    for (int i = 0; i < kRaysPerCase; ++i) {
        const Sphere s = make_sphere(1e4f * random_unit(rng), log_uniform(rng, -1, 2));
        const Vec3 origin = random_unit(rng);
        const Vec3 side = unit_vector(cross(s.center - origin, random_unit(rng)));
        const Vec3 target = s.center + (s.radius * uniform(rng, 0.99f, 1.01f)) * side;
        audit.check({s, Ray{origin, target - origin, 0.0f}});
    }
    audit.expect_clean("far spheres");
}

// The scene of one sphere, for surface_at.
struct OneSphere {
    Scene scene;
    SceneView view;
    explicit OneSphere(const Sphere& s) {
        scene.materials.push_back(Material{});
        scene.spheres.push_back(s);
        scene.build_acceleration();
        view = scene.view();
    }
};

// A direction leaving a surface with unit normal n: grazing (down to 1e-5 of
// a radian) as often as steep, to the side `outward` says.
Vec3 leaving_direction(std::mt19937& rng, const Vec3& n, bool outward) {
    const Vec3 tangent = unit_vector(cross(n, random_unit(rng)));
    const float elevation = log_uniform(rng, -5, 0.2f);
    return unit_vector(tangent + (outward ? elevation : -elevation) * n);
}

TEST(SpherePrecision, RaysLeavingSphereSurfaces) {
    // Hit points of camera rays, then rays leaving them (spawned as the
    // integrator spawns them) out of and into the sphere.
    std::mt19937 rng(4);
    SphereAudit audit;
    const Sphere spheres[] = {make_sphere(Vec3(-10, 0.2f, -7), 0.2f), make_sphere(Vec3(0, -1000, 0), 1000),
                              make_sphere(Vec3(4, 1, 0), 1), make_sphere(Vec3(300, 200, 100), 1e-3f)};
    for (const Sphere& s : spheres) {
        OneSphere scene(s);
        for (int i = 0; i < kRaysPerCase / 4; ++i) {
            const Vec3 origin = s.center + (s.radius * 3 + 10) * random_unit(rng);
            const Ray camera{origin, (s.center + (0.9f * s.radius) * random_unit(rng)) - origin, 0.0f};
            Hit hit;
            if (!intersect_closest(scene.view, camera, kMinHitDistance, hit)) continue;
            const SurfaceInteraction si = surface_at(scene.view, camera, hit);
            const Vec3 outward = unit_vector(si.point - s.center);
            const Vec3 direction = leaving_direction(rng, outward, i % 2 == 0);
            audit.check({s, Ray{spawn_origin(si.point, si.spawn_offset, direction), direction, 0.0f}});
        }
    }
    audit.expect_clean("rays leaving spheres");
}

// ---- rays leaving surfaces --------------------------------------------------

struct LoadedScene {
    SceneDescription description;
    SceneView view;
    explicit LoadedScene(const std::string& yaml) : description(load_scene_text(yaml, "precision test scene", ".")) {
        description.scene.build_acceleration();
        view = description.scene.view();
    }
};

std::string one_object_scene(const std::string& object) {
    return "image: {width: 8, height: 8, output: unused.pfm}\nsampling: {spp: 1}\ncamera: {lookfrom: [0, 0, 10], "
           "lookat: [0, 0, 0]}\n"
           "materials: {white: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}\nobjects:\n  - " +
           object + "\n";
}

// Rays from all around `center` at points of the object, then, from each hit,
// a ray leaving the surface. `convex`: the object is closed and convex (a
// sphere, a box), and the ray leaves it outwards, so it cannot meet the face
// it leaves again; else the object is flat (a quad, a triangle), and the ray
// leaves to either side. Returns the rays that hit the primitive they leave.
int count_rehits(const std::string& object, const Vec3& center, float size, bool convex, int rays,
                 std::string& failure) {
    const LoadedScene scene(one_object_scene(object));
    std::mt19937 rng(5);
    int leaving = 0, rehits = 0;
    for (int i = 0; i < rays; ++i) {
        const Vec3 origin = center + (4.0f * size) * random_unit(rng);
        const Ray camera{origin, (center + (0.5f * size) * random_unit(rng)) - origin, 0.0f};
        Hit hit;
        if (!intersect_closest(scene.view, camera, kMinHitDistance, hit)) continue;
        const SurfaceInteraction si = surface_at(scene.view, camera, hit);
        Vec3 normal = unit_vector(si.spawn_offset);
        if (convex && dot(normal, si.point - center) < 0) normal = -normal;  // outward
        const bool outward = convex || i % 2 == 0;
        const Vec3 direction = leaving_direction(rng, normal, outward);
        const Ray leaving_ray{spawn_origin(si.point, si.spawn_offset, direction), direction, 0.0f};
        ++leaving;
        Hit again;
        if (intersect_closest(scene.view, leaving_ray, kMinHitDistance, again) &&
            again.primitive.bits == hit.primitive.bits && again.instance == hit.instance) {
            if (++rehits == 1) {
                std::ostringstream out;
                out.precision(9);
                out << object << ": from (" << leaving_ray.origin.x << ", " << leaving_ray.origin.y << ", "
                    << leaving_ray.origin.z << ") along (" << direction.x << ", " << direction.y << ", " << direction.z
                    << ") hit again at t " << again.t;
                failure = out.str();
            }
        }
    }
    EXPECT_GT(leaving, rays / 4) << object << ": too few hits to say anything";
    return rehits;
}

// A number, or a point or vector as YAML, times `scale`.
std::string scaled(double value, double scale) {
    std::ostringstream out;
    out.precision(17);
    out << value * scale;
    return out.str();
}
std::string scaled(double x, double y, double z, double scale) {
    return "[" + scaled(x, scale) + ", " + scaled(y, scale) + ", " + scaled(z, scale) + "]";
}

struct SurfaceCase {
    std::string object;
    Vec3 center;
    float size;
    bool convex;
};

// The Cornell box's walls, a triangle across it and its rotated box, at its
// own scale and a thousand times larger; spheres from 1e-3 to 1e5; a rotated,
// non-uniformly scaled box, and an ellipsoid (a rotated, non-uniformly scaled
// sphere: an instance).
std::vector<SurfaceCase> surface_cases() {
    std::vector<SurfaceCase> cases = {
        {"{type: sphere, center: [-10, 0.2, -7], radius: 0.2, material: white}", Vec3(-10, 0.2f, -7), 0.2f, true},
        {"{type: sphere, center: [0, -1000, 0], radius: 1000, material: white}", Vec3(0, -1000, 0), 1000, true},
        {"{type: sphere, center: [300, 200, 100], radius: 0.001, material: white}", Vec3(300, 200, 100), 1e-3f, true},
        {"{type: sphere, center: [2e5, 0, 0], radius: 1e5, material: white}", Vec3(2e5f, 0, 0), 1e5f, true},
        {"{type: box, min: [-1, -1, -1], max: [1, 1, 1], material: white, "
         "transform: {scale: [40, 3, 0.5], rotate_x: 30, rotate_z: 50, translate: [700, -300, 90]}}",
         Vec3(700, -300, 90), 3, true},
        {"{type: sphere, center: [0, 0, 0], radius: 1, material: white, "
         "transform: {scale: [40, 3, 0.5], rotate_x: 30, rotate_z: 50, translate: [700, -300, 90]}}",
         Vec3(700, -300, 90), 3, true},
    };
    for (const double scale : {1.0, 1000.0}) {
        const float s = float(scale);
        cases.push_back({"{type: quad, Q: " + scaled(555, 0, 0, scale) + ", u: " + scaled(0, 555, 0, scale) +
                             ", v: " + scaled(0, 0, 555, scale) + ", material: white}",
                         s * Vec3(555, 277, 277), s * 277, false});
        cases.push_back({"{type: quad, Q: " + scaled(0, 0, 555, scale) + ", u: " + scaled(555, 0, 0, scale) +
                             ", v: " + scaled(0, 555, 0, scale) + ", material: white}",
                         s * Vec3(277, 277, 555), s * 277, false});
        cases.push_back({"{type: triangle, vertices: [" + scaled(480, 10, 520, scale) + ", " +
                             scaled(530, 500, 470, scale) + ", " + scaled(20, 300, 510, scale) + "], material: white}",
                         s * Vec3(343, 270, 500), s * 200, false});
        cases.push_back({"{type: box, min: [0, 0, 0], max: " + scaled(165, 330, 165, scale) +
                             ", material: white, transform: {rotate_y: 15, translate: " + scaled(265, 0, 295, scale) +
                             "}}",
                         s * Vec3(347, 165, 400), s * 165, true});
    }
    return cases;
}

TEST(RaySpawning, RaysLeavingASurfaceNeverHitItAgain) {
    for (const SurfaceCase& c : surface_cases()) {
        std::string failure;
        EXPECT_EQ(count_rehits(c.object, c.center, c.size, c.convex, 40000, failure), 0) << failure;
    }
}

// ---- scale ------------------------------------------------------------------

// The Cornell box of tests/data/book_references/cornell_view2.yaml with every
// length multiplied by `scale`, at 48x48.
std::string cornell_box(double scale, uint32_t spp, uint64_t seed) {
    auto vec = [scale](double x, double y, double z) { return scaled(x, y, z, scale); };
    std::ostringstream yaml;
    yaml << "image: {width: 48, height: 48, output: unused.pfm}\n"
         << "sampling: {spp: " << spp << ", max_depth: 50, seed: " << seed << "}\n"
         << "camera: {lookfrom: " << vec(100, 400, -600) << ", lookat: " << vec(278, 200, 278)
         << ", vup: [0, 1, 0], vfov: 50}\n"
         << "background: {color: [0, 0, 0]}\n"
         << "materials:\n"
         << "  red: {type: lambertian, albedo: [0.65, 0.05, 0.05]}\n"
         << "  white: {type: lambertian, albedo: [0.73, 0.73, 0.73]}\n"
         << "  green: {type: lambertian, albedo: [0.12, 0.45, 0.15]}\n"
         << "  light: {type: emissive, color: [15, 15, 15]}\n"
         << "objects:\n"
         << "  - {type: quad, Q: " << vec(555, 0, 0) << ", u: " << vec(0, 555, 0) << ", v: " << vec(0, 0, 555)
         << ", material: green}\n"
         << "  - {type: quad, Q: " << vec(0, 0, 0) << ", u: " << vec(0, 555, 0) << ", v: " << vec(0, 0, 555)
         << ", material: red}\n"
         << "  - {type: quad, Q: " << vec(343, 554, 332) << ", u: " << vec(-130, 0, 0) << ", v: " << vec(0, 0, -105)
         << ", material: light}\n"
         << "  - {type: quad, Q: " << vec(0, 0, 0) << ", u: " << vec(555, 0, 0) << ", v: " << vec(0, 0, 555)
         << ", material: white}\n"
         << "  - {type: quad, Q: " << vec(555, 555, 555) << ", u: " << vec(-555, 0, 0) << ", v: " << vec(0, 0, -555)
         << ", material: white}\n"
         << "  - {type: quad, Q: " << vec(0, 0, 555) << ", u: " << vec(555, 0, 0) << ", v: " << vec(0, 555, 0)
         << ", material: white}\n"
         << "  - {type: box, min: [0, 0, 0], max: " << vec(165, 330, 165)
         << ", material: white, transform: {rotate_y: 15, translate: " << vec(265, 0, 295) << "}}\n"
         << "  - {type: box, min: [0, 0, 0], max: " << vec(165, 165, 165)
         << ", material: white, transform: {rotate_y: -18, translate: " << vec(130, 0, 65) << "}}\n";
    return yaml.str();
}

std::vector<float> render_text(const std::string& yaml) {
    SceneDescription description = load_scene_text(yaml, "scaled Cornell box", ".");
    description.scene.build_acceleration();
    const FrameSettings frame = frame_settings_for(description, 0);
    std::vector<float> sums(size_t(frame.width) * frame.height * 3, 0.0f);
    RendererOptions options;
    options.backend = "cpu";
    make_band_renderer(description.scene, options)
        ->render(frame, RowRange{0, frame.height}, SampleRange{0, description.settings.spp}, sums.data(), nullptr);
    return resolve_pixels(sums, description.settings.spp);
}

// RMS difference of 4x4-pixel block means (48x48 images).
double block_rms_difference(const std::vector<float>& a, const std::vector<float>& b) {
    constexpr int kSize = 48, kBlock = 4, kBlocks = kSize / kBlock;
    std::vector<double> difference(kBlocks * kBlocks * 3, 0.0);
    for (int y = 0; y < kSize; ++y) {
        for (int x = 0; x < kSize; ++x) {
            for (int c = 0; c < 3; ++c) {
                const size_t pixel = (size_t(y) * kSize + x) * 3 + c;
                difference[((y / kBlock) * kBlocks + x / kBlock) * 3 + c] += (a[pixel] - b[pixel]) / 16.0;
            }
        }
    }
    double sum = 0;
    for (double d : difference) sum += d * d;
    return std::sqrt(sum / double(difference.size()));
}

double mean_of(const std::vector<float>& image) {
    double sum = 0;
    for (float v : image) sum += v;
    return sum / double(image.size());
}

TEST(RaySpawning, CornellBoxRendersTheSameAtAnyScale) {
    // Same seed at every scale: the paths are the same up to rounding, so the
    // scaled images must differ from the unscaled one by much less than an
    // independent render (another seed) does.
    constexpr uint32_t kSpp = 256;
    const std::vector<float> unscaled = render_text(cornell_box(1.0, kSpp, 3));
    const double noise = block_rms_difference(unscaled, render_text(cornell_box(1.0, kSpp, 4)));
    for (const double scale : {1000.0, 0.001}) {
        const std::vector<float> scaled = render_text(cornell_box(scale, kSpp, 3));
        const double difference = block_rms_difference(unscaled, scaled);
        std::printf("scale %g: mean %.5f (unscaled %.5f), block difference %.5f, another seed's %.5f\n", scale,
                    mean_of(scaled), mean_of(unscaled), difference, noise);
        EXPECT_LT(difference, 0.5 * noise) << "scale " << scale;
        EXPECT_NEAR(mean_of(scaled) / mean_of(unscaled), 1.0, 0.01) << "scale " << scale;
    }
}

}  // namespace
}  // namespace farmrt
