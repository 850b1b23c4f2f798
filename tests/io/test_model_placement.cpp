// Polygons into triangles (io/polygon_triangulation.h), models placed by
// many objects (stored once, instanced), and the framing of a model in
// images of any aspect ratio (io/model_loader.h).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "core/errors.h"
#include "io/model_loader.h"
#include "io/model_scene.h"
#include "io/polygon_triangulation.h"
#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "render/render_job.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

// Twice the signed area in the z = 0 plane (counter-clockwise positive), in double.
double twice_area(const Vec3& a, const Vec3& b, const Vec3& c) {
    return (double(b.x) - a.x) * (double(c.y) - a.y) - (double(b.y) - a.y) * (double(c.x) - a.x);
}

double polygon_twice_area(const std::vector<Vec3>& p) {
    double sum = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        const Vec3& a = p[i];
        const Vec3& b = p[(i + 1) % p.size()];
        sum += double(a.x) * b.y - double(b.x) * a.y;
    }
    return sum;
}

// Every triangle keeps the polygon's winding, no triangle sticks out (their
// areas add up to the polygon's exactly), and every corner is used.
void expect_tiles(const std::vector<Vec3>& polygon, const std::vector<std::array<uint32_t, 3>>& triangles) {
    ASSERT_EQ(triangles.size(), polygon.size() - 2);
    double total = 0;
    std::vector<bool> used(polygon.size(), false);
    for (const auto& t : triangles) {
        const double area = twice_area(polygon[t[0]], polygon[t[1]], polygon[t[2]]);
        EXPECT_GE(area, -1e-9) << "a triangle is wound against the polygon";
        total += std::fabs(area);
        for (uint32_t corner : t) used[corner] = true;
    }
    EXPECT_NEAR(total, polygon_twice_area(polygon), 1e-6 * std::fabs(polygon_twice_area(polygon)));
    for (size_t i = 0; i < used.size(); ++i) EXPECT_TRUE(used[i]) << "corner " << i;
}

TEST(PolygonTriangulation, QuadsSplitAlongTheShorterDiagonal) {
    // Long diagonal 0-2, short 1-3: the split must use 1-3.
    const std::vector<Vec3> kite = {Vec3(0, 0, 0), Vec3(2, -0.5f, 0), Vec3(4, 0, 0), Vec3(2, 0.5f, 0)};
    const auto triangles = triangulate_polygon(kite);
    ASSERT_EQ(triangles.size(), 2u);
    EXPECT_EQ(triangles[0], (std::array<uint32_t, 3>{0, 1, 3}));
    EXPECT_EQ(triangles[1], (std::array<uint32_t, 3>{1, 2, 3}));
}

TEST(PolygonTriangulation, ConcaveOutlinesAreCoveredExactly) {
    // An L, a comb with deep notches and a keyhole ring (outer circle, a
    // bridge, the inner circle the other way round): their areas, not their hulls'.
    const std::vector<Vec3> ell = {Vec3(0, 0, 0), Vec3(3, 0, 0), Vec3(3, 1, 0),
                                   Vec3(1, 1, 0), Vec3(1, 3, 0), Vec3(0, 3, 0)};
    expect_tiles(ell, triangulate_polygon(ell));
    std::vector<Vec3> comb = {Vec3(0, 0, 0), Vec3(10, 0, 0)};
    for (int tooth = 4; tooth >= 0; --tooth) {
        comb.push_back(Vec3(2.0f * tooth + 2, 5, 0));
        comb.push_back(Vec3(2.0f * tooth + 1, 5, 0));
        comb.push_back(Vec3(2.0f * tooth + 1, 1, 0));
        comb.push_back(Vec3(2.0f * tooth, 1, 0));
    }
    comb.pop_back();
    comb.back() = Vec3(0, 5, 0);
    expect_tiles(comb, triangulate_polygon(comb));
    std::vector<Vec3> ring;
    const int n = 48;
    for (int i = 0; i <= n; ++i) ring.push_back(Vec3(std::cos(2 * M_PI * i / n), std::sin(2 * M_PI * i / n), 0));
    for (int i = 0; i <= n; ++i)
        ring.push_back(Vec3(0.5 * std::cos(-2 * M_PI * i / n), 0.5 * std::sin(-2 * M_PI * i / n), 0));
    const auto pieces = triangulate_polygon(ring);
    double covered = 0;
    for (const auto& t : pieces) covered += std::fabs(twice_area(ring[t[0]], ring[t[1]], ring[t[2]]));
    EXPECT_NEAR(covered, polygon_twice_area(ring), 1e-4) << "the ring's hole must stay empty";
}

TEST(PolygonTriangulation, ConvexPolygonsAreFannedInLinearTime) {
    const size_t n = 200000;
    std::vector<Vec3> circle;
    for (size_t i = 0; i < n; ++i) circle.push_back(Vec3(std::cos(2 * M_PI * i / n), std::sin(2 * M_PI * i / n), 0));
    const auto triangles = triangulate_polygon(circle);
    ASSERT_EQ(triangles.size(), n - 2);
    for (size_t i = 0; i < triangles.size(); ++i) EXPECT_EQ(triangles[i][0], 0u);
    // Concave beyond the ear-clipping limit: refused (empty), not quadratic.
    std::vector<Vec3> star;
    for (size_t i = 0; i < kMaxConcavePolygonCorners + 2; ++i) {
        const double r = i % 2 ? 0.5 : 1.0;
        star.push_back(Vec3(r * std::cos(2 * M_PI * i / double(kMaxConcavePolygonCorners + 2)),
                            r * std::sin(2 * M_PI * i / double(kMaxConcavePolygonCorners + 2)), 0));
    }
    EXPECT_TRUE(triangulate_polygon(star).empty());
}

TEST(ModelPlacement, AModelPlacedManyTimesIsStoredOnceAndRendersLikeCopies) {
    testing::TemporaryDirectory directory;
    // Two meshes (one placed twice by the OBJ's own groups is not possible:
    // OBJ has one placement), so a model of 12 triangles.
    std::string obj;
    for (int k = 0; k < 2; ++k) {
        const float x = 2.0f * float(k);
        obj += "v " + std::to_string(x) + " 0 0\nv " + std::to_string(x + 1) + " 0 0\nv " + std::to_string(x + 1) +
               " 1 0\nv " + std::to_string(x) + " 1 0\nf " + std::to_string(4 * k + 1) + " " +
               std::to_string(4 * k + 2) + " " + std::to_string(4 * k + 3) + " " + std::to_string(4 * k + 4) + "\n";
    }
    testing::write_text(directory.file("piece.obj"), obj);
    const auto scene_with = [&](int placements) {
        std::string text =
            "image: {width: 32, height: 32, output: o.ppm}\nsampling: {spp: 4, max_depth: 3}\n"
            "camera: {lookfrom: [2, 1, 12], lookat: [2, 1, 0], vfov: 60}\nbackground: {color: [1, 1, 1]}\nobjects:\n";
        for (int i = 0; i < placements; ++i) {
            text +=
                "  - {type: model, file: piece.obj, transform: {translate: [0, " + std::to_string(1.5 * i) + ", 0]}}\n";
        }
        return load_scene_text(text, "placed.yaml", directory.path().string());
    };
    SceneDescription one = scene_with(1), many = scene_with(200);
    EXPECT_EQ(one.scene.triangles.size(), 4u);
    EXPECT_EQ(many.scene.triangles.size(), 4u) << "the model's triangles are stored once";
    EXPECT_EQ(many.scene.instance_count(), 200u);
    EXPECT_EQ(many.scene.materials.size(), one.scene.materials.size()) << "its materials too";
    // The shared copy renders what separate copies render: the bounds agree.
    EXPECT_NEAR(many.model_bounds.upper.y, 1.0f + 1.5f * 199, 1e-3f);
}

TEST(ModelFraming, TheBoundingSphereFitsAcrossTheNarrowerSide) {
    Aabb bounds;
    bounds.expand(Vec3(-1, -1, -1));
    bounds.expand(Vec3(1, 1, 1));
    const double radius = std::sqrt(3.0);
    for (double aspect : {16.0 / 9.0, 1.0, 135.0 / 240.0, 0.25}) {
        const CameraSettings camera = framing_camera(bounds, 40.0, aspect);
        const double distance = double(length(camera.lookfrom - camera.lookat));
        const double half_vertical = 20.0 * M_PI / 180.0;
        const double half_horizontal = std::atan(std::tan(half_vertical) * aspect);
        // The sphere's angular radius seen from the camera fits both half-angles.
        const double angular = std::asin(radius / distance);
        EXPECT_LE(angular, half_vertical + 1e-9) << "aspect " << aspect;
        EXPECT_LE(angular, half_horizontal + 1e-9) << "aspect " << aspect;
        EXPECT_GT(angular, 0.8 * std::min(half_vertical, half_horizontal))
            << "aspect " << aspect << ": framed, not lost";
    }
}

// A model file's frame: the side the options leave out follows the aspect
// ratio (16:9 without a model camera), and a window (--crop) is checked
// against that frame, not the 960x540 default.
TEST(ModelFraming, TheSideLeftOutFollowsTheAspectAndWindowsFitThatFrame) {
    const testing::TemporaryDirectory directory;
    const std::string model = directory.file("triangle.obj");
    testing::write_text(model, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    const auto load = [&](const std::vector<std::string>& assignments) {
        std::vector<SceneOverride> overrides;
        for (const std::string& a : assignments) overrides.push_back(SceneOverride{a, ""});
        return load_model_scene(model, overrides).settings;
    };
    const RenderSettings plain = load({});
    EXPECT_EQ(plain.film_width, 960u);
    EXPECT_EQ(plain.film_height, 540u);
    EXPECT_EQ(plain.height, 540u);
    const RenderSettings tall = load({"image.height=2000", "image.region=[3000, 3500, 10, 20]"});
    EXPECT_EQ(tall.film_width, 3556u);  // 2000 x 16 / 9
    EXPECT_EQ(tall.film_height, 2000u);
    EXPECT_EQ(tall.width, 500u);
    EXPECT_EQ(tall.region_x, 3000u);
    const RenderSettings wide = load({"image.width=4000", "image.region=[0, 10, 2000, 2010]"});
    EXPECT_EQ(wide.film_height, 2250u);
    EXPECT_EQ(wide.region_y, 2000u);
    const RenderSettings narrow = load({"image.width=320"});
    EXPECT_EQ(narrow.width, 320u);
    EXPECT_EQ(narrow.height, 180u);
    try {
        load({"image.height=100", "image.region=[0, 200, 0, 10]"});
        ADD_FAILURE() << "a window wider than the frame loaded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("image.region: [0, 200, 0, 10] is not within the 178x100 frame"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace farmrt
