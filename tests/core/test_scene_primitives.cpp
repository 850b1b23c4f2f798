// Per-primitive intersection: analytic hits and misses, edges, corners and
// grazing rays for quads, boxes, triangles and (moving) spheres, and
// watertightness of triangle meshes and boxes.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "scene_test_helpers.h"

namespace farmrt {
namespace {

using testing::trace;

Ray ray_of(Vec3 o, Vec3 d, float time = 0.0f) { return Ray{o, d, time}; }

// ---- quads ----------------------------------------------------------------------

TEST(Quad, MatchesTheBooksConstruction) {
    const Quad q = make_quad(Vec3(1, 2, 3), Vec3(2, 0, 0), Vec3(0, 4, 0), 7);
    EXPECT_FLOAT_EQ(q.normal.z, 1.0f);  // unit(cross(u, v))
    EXPECT_FLOAT_EQ(q.plane_offset, 3.0f);
    EXPECT_FLOAT_EQ(q.w.z, 1.0f / 8.0f);  // n / dot(n, n), n = (0, 0, 8)
    EXPECT_EQ(q.material, 7u);
    const Aabb b = bounds_of(make_quad(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), 0));
    EXPECT_GT(b.upper.z - b.lower.z, 0.0f);  // padded flat box, as the book pads it
}

TEST(Quad, AnalyticHitGivesDistanceAndPlanarCoordinates) {
    const Quad q = make_quad(Vec3(-1, -1, 0), Vec3(2, 0, 0), Vec3(0, 4, 0), 0);
    float t, a, b;
    ASSERT_TRUE(intersect_quad(q, ray_of(Vec3(0.5f, 0, 5), Vec3(0, 0, -2)), 0.001f, kInfinity, t, a, b));
    EXPECT_FLOAT_EQ(t, 2.5f);
    EXPECT_FLOAT_EQ(a, 0.75f);
    EXPECT_FLOAT_EQ(b, 0.25f);
    // From behind too: a quad is a two-sided surface.
    EXPECT_TRUE(intersect_quad(q, ray_of(Vec3(0.5f, 0, -5), Vec3(0, 0, 1)), 0.001f, kInfinity, t, a, b));
}

TEST(Quad, MissesOutsideBehindAndBeyondTmax) {
    const Quad q = make_quad(Vec3(-1, -1, 0), Vec3(2, 0, 0), Vec3(0, 2, 0), 0);
    float t, a, b;
    EXPECT_FALSE(intersect_quad(q, ray_of(Vec3(1.01f, 0, 5), Vec3(0, 0, -1)), 0.001f, kInfinity, t, a, b));
    EXPECT_FALSE(intersect_quad(q, ray_of(Vec3(0, -1.01f, 5), Vec3(0, 0, -1)), 0.001f, kInfinity, t, a, b));
    EXPECT_FALSE(intersect_quad(q, ray_of(Vec3(0, 0, 5), Vec3(0, 0, 1)), 0.001f, kInfinity, t, a, b));
    EXPECT_FALSE(intersect_quad(q, ray_of(Vec3(0, 0, 5), Vec3(0, 0, -1)), 0.001f, 4.0f, t, a, b));
}

TEST(Quad, EdgesAndCornersAreInside) {
    const Quad q = make_quad(Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 2, 0), 0);
    float t = 0, a = -1, b = -1;  // initialised: newer g++ warns (-Werror) though the hit sets them
    const Vec3 points[] = {Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 2, 0), Vec3(4, 2, 0),   // corners
                           Vec3(2, 0, 0), Vec3(4, 1, 0), Vec3(2, 2, 0), Vec3(0, 1, 0)};  // edge midpoints
    for (const Vec3& p : points) {
        EXPECT_TRUE(intersect_quad(q, ray_of(p + Vec3(0, 0, 3), Vec3(0, 0, -1)), 0.001f, kInfinity, t, a, b))
            << p.x << "," << p.y;
        EXPECT_GE(a, 0.0f);
        EXPECT_LE(a, 1.0f);
        EXPECT_GE(b, 0.0f);
        EXPECT_LE(b, 1.0f);
    }
}

TEST(Quad, GrazingRays) {
    const Quad q = make_quad(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), 0);
    float t, a, b;
    // In the plane: parallel, no hit (the book's |denominator| < 1e-8 rule).
    EXPECT_FALSE(intersect_quad(q, ray_of(Vec3(-1, 0.5f, 0), Vec3(1, 0, 0)), 0.001f, kInfinity, t, a, b));
    // Almost parallel, crossing the plane inside the quad: a hit at the analytic distance.
    const Vec3 d(1, 0, -1e-3f);
    ASSERT_TRUE(intersect_quad(q, ray_of(Vec3(-0.5f, 0.5f, 1e-3f), d), 0.001f, kInfinity, t, a, b));
    EXPECT_NEAR(t, 1.0f, 1e-4f);
    EXPECT_NEAR(a, 0.5f, 1e-4f);
}

// Every hit that intersect_quad accepts, the edge tolerance band included,
// lies inside bounds_of(quad): otherwise a BVH whose leaf box is the quad's
// own culls the hit and tracers with other boxes find it (tiny.yaml's wall,
// hit 1.1e-5 above its top edge, differed between the binary and wide BVHs).
TEST(Quad, BoundsHoldEveryAcceptedHitTheEdgeToleranceIncluded) {
    testing::Random random(11);
    const Quad quads[] = {make_quad(Vec3(-1.5f, 0, -1.2f), Vec3(3, 0, 0), Vec3(0, 1.5f, 0), 0),  // tiny.yaml's wall
                          make_quad(Vec3(0.3f, -2, 5), Vec3(0, 0, 7), Vec3(1, 4, 0), 0),
                          make_quad(Vec3(100, 3, -40), Vec3(-2, 1, 0.5f), Vec3(0.25f, 0.5f, 3), 0)};
    const float beyond = 0.9f * kQuadEdgeTolerance;
    const float coordinates[] = {-beyond, 0.0f, 0.5f, 1.0f, 1.0f + beyond};
    int accepted = 0, outside = 0;
    for (const Quad& q : quads) {
        const Aabb box = bounds_of(q);
        for (float a : coordinates) {
            for (float b : coordinates) {
                const Vec3 target = q.corner + a * q.edge_u + b * q.edge_v;
                for (int k = 0; k < 20; ++k) {
                    const Vec3 origin = target + random.point(10.0f);
                    const Ray ray = ray_of(origin, target - origin);
                    float t, u, v;
                    if (!intersect_quad(q, ray, 0.001f, kInfinity, t, u, v)) continue;
                    ++accepted;
                    // The box is entered at or before the hit.
                    outside += !(RayBoxTester(ray).entry(box, 0.001f, kInfinity) <= t);
                }
            }
        }
    }
    EXPECT_GT(accepted, 1000);
    EXPECT_EQ(outside, 0) << "of " << accepted << " accepted hits";
}

// ---- boxes ------------------------------------------------------------------------

SceneDescription load(const std::string& objects) {
    return load_scene_text(testing::scene_yaml(testing::kGrayMaterial, objects), "scene.yaml", ".");
}

TEST(Box, IsTheBooksSixOutwardQuads) {
    SceneDescription d = load("  - {type: box, min: [1, 2, 3], max: [2, 4, 6], material: gray}\n");
    ASSERT_EQ(d.scene.quads.size(), 6u);
    const Vec3 center(1.5f, 3.0f, 4.5f);
    for (const Quad& q : d.scene.quads) {
        const Vec3 face_center = q.corner + 0.5f * (q.edge_u + q.edge_v);
        EXPECT_GT(dot(q.normal, face_center - center), 0.0f);  // normal points out
    }
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    Hit hit;
    ASSERT_TRUE(trace(view, Vec3(1.5f, 3, -10), Vec3(0, 0, 1), hit));
    EXPECT_FLOAT_EQ(hit.t, 13.0f);
    ASSERT_TRUE(trace(view, Vec3(10, 3, 4), Vec3(-1, 0, 0), hit));
    EXPECT_FLOAT_EQ(hit.t, 8.0f);
    EXPECT_FALSE(trace(view, Vec3(2.01f, 3, -10), Vec3(0, 0, 1), hit));
}

TEST(Box, RejectsMaxNotAboveMin) {
    const std::string error = testing::load_error(testing::scene_yaml(
        testing::kGrayMaterial, "  - {type: box, min: [0, 0, 0], max: [1, 0, 1], material: gray}\n"));
    EXPECT_NE(error.find("scene.yaml:7:"), std::string::npos) << error;
    EXPECT_NE(error.find("objects[0].max: must be greater than min"), std::string::npos) << error;
}

// Rays from inside a closed box toward its edges and corners never escape
// (faces meeting at an edge are computed from different corners: see
// intersect_quad's edge tolerance).
TEST(Box, RaysThroughEdgesAndCornersFromInsideAlwaysHit) {
    SceneDescription d = load(
        "  - {type: box, min: [0, 0, 0], max: [165, 330, 165], material: gray,"
        " transform: {rotate_y: 15, translate: [265, 0, 295]}}\n");
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    const Transform placement = Transform::rotate_y(15).then(Transform::translate(Vec3(265, 0, 295)));
    const Vec3 inside = placement.point(Vec3(82.5f, 165, 82.5f));
    int checked = 0;
    for (int x = 0; x <= 2; ++x) {
        for (int y = 0; y <= 2; ++y) {
            for (int z = 0; z <= 2; ++z) {
                if (x == 1 && y == 1 && z == 1) continue;
                const Vec3 target = placement.point(Vec3(82.5f * x, 165.0f * y, 82.5f * z));
                Hit hit;
                EXPECT_TRUE(trace(view, inside, target - inside, hit)) << x << y << z;
                EXPECT_NEAR(hit.t, 1.0f, 1e-4f);
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, 26);
}

// Rays skimming a box face: in the face's plane the face itself is parallel
// (no hit) but the edge of the face it enters through holds (edges are
// inside); just above the face nothing is hit, just below the side face is;
// at a shallow angle the top face is hit at the analytic point.
TEST(Box, GrazingRaysAlongAFace) {
    SceneDescription d = load("  - {type: box, min: [0, 0, 0], max: [1, 1, 1], material: gray}\n");
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    Hit hit;
    ASSERT_TRUE(trace(view, Vec3(-1, 0.5f, 1), Vec3(1, 0, 0), hit));  // in the plane z = max
    EXPECT_FLOAT_EQ(hit.t, 1.0f);
    EXPECT_FALSE(trace(view, Vec3(-1, 0.5f, 1.0001f), Vec3(1, 0, 0), hit));
    ASSERT_TRUE(trace(view, Vec3(-1, 0.5f, 0.9999f), Vec3(1, 0, 0), hit));
    EXPECT_FLOAT_EQ(hit.t, 1.0f);
    // Descending 1e-3 per unit: crosses z = 1 at x = 0.5, on the top face.
    ASSERT_TRUE(trace(view, Vec3(-1, 0.5f, 1.0015f), Vec3(1, 0, -1e-3f), hit));
    EXPECT_NEAR(hit.t, 1.5f, 1e-3f);
    const SurfaceInteraction si = surface_at(view, Ray{Vec3(-1, 0.5f, 1.0015f), Vec3(1, 0, -1e-3f), 0}, hit);
    EXPECT_NEAR(si.point.z, 1.0f, 1e-6f);
    EXPECT_NEAR(si.normal.z, 1.0f, 1e-6f);
}

// ---- triangles ----------------------------------------------------------------------

Triangle triangle(Vec3 a, Vec3 b, Vec3 c) {
    Triangle t{};
    t.vertex0 = a;
    t.vertex1 = b;
    t.vertex2 = c;
    return t;
}

TEST(Triangle, AnalyticHitAndBarycentrics) {
    const Triangle tri = triangle(Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 4, 0));
    float t, b1, b2;
    ASSERT_TRUE(intersect_triangle(tri, ray_of(Vec3(1, 2, 3), Vec3(0, 0, -0.5f)), 0.001f, kInfinity, t, b1, b2));
    EXPECT_FLOAT_EQ(t, 6.0f);
    EXPECT_FLOAT_EQ(b1, 0.25f);  // weight of vertex1 = x / 4
    EXPECT_FLOAT_EQ(b2, 0.5f);   // weight of vertex2 = y / 4
    // Both windings, both sides.
    const Triangle flipped = triangle(Vec3(0, 0, 0), Vec3(0, 4, 0), Vec3(4, 0, 0));
    EXPECT_TRUE(intersect_triangle(flipped, ray_of(Vec3(1, 2, 3), Vec3(0, 0, -1)), 0.001f, kInfinity, t, b1, b2));
    EXPECT_TRUE(intersect_triangle(tri, ray_of(Vec3(1, 2, -3), Vec3(0, 0, 1)), 0.001f, kInfinity, t, b1, b2));
}

TEST(Triangle, MissesOutsideBehindAndOutsideTheInterval) {
    const Triangle tri = triangle(Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 4, 0));
    float t, b1, b2;
    EXPECT_FALSE(intersect_triangle(tri, ray_of(Vec3(2.1f, 2.1f, 3), Vec3(0, 0, -1)), 0.001f, kInfinity, t, b1, b2));
    EXPECT_FALSE(intersect_triangle(tri, ray_of(Vec3(-0.1f, 1, 3), Vec3(0, 0, -1)), 0.001f, kInfinity, t, b1, b2));
    EXPECT_FALSE(intersect_triangle(tri, ray_of(Vec3(1, 1, 3), Vec3(0, 0, 1)), 0.001f, kInfinity, t, b1, b2));
    EXPECT_FALSE(intersect_triangle(tri, ray_of(Vec3(1, 1, 3), Vec3(0, 0, -1)), 0.001f, 2.9f, t, b1, b2));
    EXPECT_FALSE(intersect_triangle(tri, ray_of(Vec3(1, 1, 0.0005f), Vec3(0, 0, -1)), 0.001f, kInfinity, t, b1, b2));
}

TEST(Triangle, VerticesAndEdgesAreInside) {
    const Triangle tri = triangle(Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 4, 0));
    float t, b1, b2;
    for (const Vec3 p : {Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 4, 0), Vec3(2, 0, 0), Vec3(0, 2, 0), Vec3(2, 2, 0)}) {
        EXPECT_TRUE(intersect_triangle(tri, ray_of(p + Vec3(0, 0, 1), Vec3(0, 0, -1)), 0.001f, kInfinity, t, b1, b2))
            << p.x << "," << p.y;
    }
}

TEST(Triangle, GrazingRaysInThePlaneMiss) {
    const Triangle tri = triangle(Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 4, 0));
    float t, b1, b2;
    EXPECT_FALSE(intersect_triangle(tri, ray_of(Vec3(-1, 1, 0), Vec3(1, 0, 0)), 0.001f, kInfinity, t, b1, b2));
    // Nearly in the plane: hits where the line crosses z = 0.
    ASSERT_TRUE(intersect_triangle(tri, ray_of(Vec3(-1, 1, 1e-3f), Vec3(1, 0, -1e-3f)), 0.001f, kInfinity, t, b1, b2));
    EXPECT_NEAR(t, 1.0f, 1e-4f);
}

TEST(Triangle, ShadingNormalsAndUvsInterpolate) {
    Scene scene;
    Triangle tri = triangle(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0));
    tri.normal0 = Vec3(0, 0, 1);
    tri.normal1 = unit_vector(Vec3(1, 0, 1));
    tri.normal2 = unit_vector(Vec3(0, 1, 1));
    const float uvs[6] = {0.1f, 0.2f, 0.9f, 0.2f, 0.1f, 0.8f};
    for (int i = 0; i < 6; ++i) tri.uv[i] = uvs[i];
    scene.triangles.push_back(tri);
    scene.materials.push_back(Material{});
    scene.textures.push_back(Texture{});
    scene.build_acceleration();
    const SceneView view = scene.view();
    Hit hit;
    ASSERT_TRUE(trace(view, Vec3(0.25f, 0.25f, 2), Vec3(0, 0, -1), hit));
    const SurfaceInteraction si = surface_at(view, Ray{Vec3(0.25f, 0.25f, 2), Vec3(0, 0, -1), 0}, hit);
    EXPECT_NEAR(si.u, 0.5f * 0.1f + 0.25f * 0.9f + 0.25f * 0.1f, 1e-6f);
    EXPECT_NEAR(si.v, 0.5f * 0.2f + 0.25f * 0.2f + 0.25f * 0.8f, 1e-6f);
    const Vec3 expected = unit_vector(0.5f * tri.normal0 + 0.25f * tri.normal1 + 0.25f * tri.normal2);
    EXPECT_NEAR(si.normal.x, expected.x, 1e-6f);
    EXPECT_NEAR(si.normal.z, expected.z, 1e-6f);
    EXPECT_TRUE(si.front_face);
}

// A closed mesh: an octahedron subdivided and pushed onto the unit sphere, with
// shared vertices stored once and copied bit for bit into each triangle.
std::vector<Triangle> closed_sphere_mesh(int subdivisions) {
    std::vector<std::array<Vec3, 3>> faces;
    const Vec3 px(1, 0, 0), nx(-1, 0, 0), py(0, 1, 0), ny(0, -1, 0), pz(0, 0, 1), nz(0, 0, -1);
    faces = {{px, py, pz}, {py, nx, pz}, {nx, ny, pz}, {ny, px, pz},
             {py, px, nz}, {nx, py, nz}, {ny, nx, nz}, {px, ny, nz}};
    auto midpoint = [](const Vec3& a, const Vec3& b) {
        // Deterministic in (a, b) order-independent form so neighbours agree exactly.
        const bool a_first = a.x < b.x || (a.x == b.x && (a.y < b.y || (a.y == b.y && a.z < b.z)));
        const Vec3 lo = a_first ? a : b;
        const Vec3 hi = a_first ? b : a;
        return unit_vector(0.5f * (lo + hi));
    };
    for (int s = 0; s < subdivisions; ++s) {
        std::vector<std::array<Vec3, 3>> next;
        for (const auto& f : faces) {
            const Vec3 ab = midpoint(f[0], f[1]), bc = midpoint(f[1], f[2]), ca = midpoint(f[2], f[0]);
            next.push_back({f[0], ab, ca});
            next.push_back({ab, f[1], bc});
            next.push_back({ca, bc, f[2]});
            next.push_back({ab, bc, ca});
        }
        faces = next;
    }
    std::vector<Triangle> triangles;
    for (const auto& f : faces) triangles.push_back(triangle(f[0], f[1], f[2]));
    return triangles;
}

// Rays from inside a closed mesh aimed exactly at its vertices and edge
// midpoints must hit: watertight intersection never lets them slip between
// neighbouring triangles (through the BVH, whose boxes are widened too).
TEST(Triangle, WatertightThroughSharedVerticesAndEdges) {
    Scene scene;
    scene.triangles = closed_sphere_mesh(4);  // 2048 triangles
    scene.materials.push_back(Material{});
    scene.textures.push_back(Texture{});
    scene.build_acceleration();
    const SceneView view = scene.view();
    std::mt19937 random(7);
    std::uniform_real_distribution<float> jitter(-0.05f, 0.05f);
    int misses = 0, rays = 0;
    for (const Triangle& t : scene.triangles) {
        const Vec3 targets[] = {t.vertex0, 0.5f * (t.vertex0 + t.vertex1), 0.5f * (t.vertex1 + t.vertex2)};
        for (const Vec3& target : targets) {
            for (int k = 0; k < 3; ++k) {
                // Origins off-centre too, so the rays cross edges at many angles.
                const Vec3 origin = k == 0 ? Vec3(0, 0, 0) : Vec3(jitter(random), jitter(random), jitter(random));
                Hit hit;
                misses += !trace(view, origin, target - origin, hit);
                ++rays;
            }
        }
    }
    EXPECT_EQ(misses, 0) << "of " << rays << " rays";
}

// The same on a flat, unevenly spaced grid of triangles: rays from above at
// several angles through every vertex and edge midpoint. (The grid is exactly
// planar: on a folded surface a midpoint rounded off the edge may lie just
// above a ridge, and a grazing ray past it would rightly miss.)
TEST(Triangle, WatertightOnAGridAtAnAngle) {
    Scene scene;
    const int n = 24;
    auto vertex = [](int i, int j) {
        return Vec3(0.1f * i - 1.2f + 0.013f * float((i * 7 + j * 3) % 5), 0.13f * j - 1.5f, 0.0f);
    };
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            scene.triangles.push_back(triangle(vertex(i, j), vertex(i + 1, j), vertex(i + 1, j + 1)));
            scene.triangles.push_back(triangle(vertex(i, j), vertex(i + 1, j + 1), vertex(i, j + 1)));
        }
    }
    scene.materials.push_back(Material{});
    scene.textures.push_back(Texture{});
    scene.build_acceleration();
    const SceneView view = scene.view();
    int misses = 0;
    int rays = 0;
    for (int i = 1; i < n; ++i) {
        for (int j = 1; j < n; ++j) {
            for (const Vec3& target :
                 {vertex(i, j), 0.5f * (vertex(i, j) + vertex(i + 1, j)), 0.5f * (vertex(i, j) + vertex(i, j + 1)),
                  0.5f * (vertex(i, j) + vertex(i + 1, j + 1))}) {
                for (const Vec3& origin :
                     {Vec3(0.3f, 0.7f, 3.0f), Vec3(-2.0f, 1.1f, 0.9f), Vec3(0.01f, -0.02f, 5.0f)}) {
                    Hit hit;
                    const bool found = trace(view, origin, target - origin, hit);
                    misses += !found;
                    ++rays;
                    if (!found) {
                        Hit brute;
                        const bool brute_found = intersect_closest_brute_force(view, Ray{origin, target - origin, 0},
                                                                               kMinHitDistance, brute);
                        ADD_FAILURE() << "miss at " << i << "," << j << " target " << target.x << " " << target.y << " "
                                      << target.z << " brute force " << brute_found;
                    }
                }
            }
        }
    }
    EXPECT_EQ(misses, 0) << "of " << rays << " rays";
}

// ---- spheres ----------------------------------------------------------------------------

TEST(Sphere, AnalyticHitsFromOutsideAndInside) {
    Sphere s{Vec3(0, 0, -5), 2.0f, Vec3(0.0f), 0};
    float t;
    ASSERT_TRUE(intersect_sphere(s, ray_of(Vec3(0, 0, 0), Vec3(0, 0, -1)), 0.001f, kInfinity, t));
    EXPECT_FLOAT_EQ(t, 3.0f);
    ASSERT_TRUE(intersect_sphere(s, ray_of(Vec3(0, 0, -5), Vec3(0, 0, 1)), 0.001f, kInfinity, t));
    EXPECT_FLOAT_EQ(t, 2.0f);  // from the centre: the far root
    EXPECT_FALSE(intersect_sphere(s, ray_of(Vec3(0, 2.01f, 0), Vec3(0, 0, -1)), 0.001f, kInfinity, t));
    EXPECT_FALSE(intersect_sphere(s, ray_of(Vec3(0, 0, 0), Vec3(0, 0, 1)), 0.001f, kInfinity, t));
    // Grazing: tangent at y = 2 (discriminant 0 up to rounding) hits at the tangent point if at all.
    if (intersect_sphere(s, ray_of(Vec3(0, 2, 0), Vec3(0, 0, -1)), 0.001f, kInfinity, t)) {
        EXPECT_NEAR(t, 5.0f, 0.01f);
    }
}

TEST(Sphere, MotionBlurMovesTheCenterLinearlyOverTheShutter) {
    SceneDescription d =
        load("  - {type: sphere, center: [0, 0, 0], center1: [0, 2, 0], radius: 0.5, material: gray}\n");
    const Sphere& s = d.scene.spheres[0];
    EXPECT_FLOAT_EQ(s.center_at(0.5f).y, 1.0f);
    const Aabb b = bounds_of(s);
    EXPECT_FLOAT_EQ(b.lower.y, -0.5f);  // bounds cover the whole sweep
    EXPECT_FLOAT_EQ(b.upper.y, 2.5f);
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    Hit hit;
    EXPECT_TRUE(trace(view, Vec3(0, 0, 5), Vec3(0, 0, -1), hit, 0.0f));
    EXPECT_FALSE(trace(view, Vec3(0, 0, 5), Vec3(0, 0, -1), hit, 0.9f));
    ASSERT_TRUE(trace(view, Vec3(0, 1.8f, 5), Vec3(0, 0, -1), hit, 0.9f));
    EXPECT_NEAR(hit.t, 4.5f, 1e-5f);
    const SurfaceInteraction si = surface_at(view, Ray{Vec3(0, 1.8f, 5), Vec3(0, 0, -1), 0.9f}, hit);
    EXPECT_NEAR(si.normal.z, 1.0f, 1e-5f);  // normal from the centre at that time
}

TEST(Sphere, CameraDrawsShutterTimesFromTheirOwnDimension) {
    // Time is the sampler's dimension kDimensionTime: uniform in [0, 1), and
    // independent of the pixel offsets (different dimensions of one stream).
    double sum = 0;
    const int n = 4096;
    Camera camera{};
    for (int i = 0; i < n; ++i) {
        PixelSampler sampler(SamplerKey{1, 0}, uint32_t(i), 0);
        const float time = camera.generate_ray(0, 0, PixelFilter{}, sampler).time;
        ASSERT_GE(time, 0.0f);
        ASSERT_LT(time, 1.0f);
        EXPECT_EQ(time, PixelSampler(SamplerKey{1, 0}, uint32_t(i), 0).uniform(kDimensionTime));
        sum += time;
    }
    EXPECT_NEAR(sum / n, 0.5, 0.02);
}

}  // namespace
}  // namespace farmrt
