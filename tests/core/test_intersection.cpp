// Ray/primitive intersection and the surface rebuilt from a hit: hit, miss,
// tangent, origin inside, the (t_min, t_max) bounds, grazing rays, normals,
// front_face and texture coordinates.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/scene.h"

namespace farmrt {
namespace {

constexpr float kNoLimit = kInfinity;

Sphere make_sphere(Vec3 center, float radius) {
    Sphere s{};
    s.center = center;
    s.radius = radius;
    return s;
}

Triangle make_triangle(Vec3 a, Vec3 b, Vec3 c) {
    Triangle t{};
    t.vertex0 = a;
    t.vertex1 = b;
    t.vertex2 = c;
    const float uvs[6] = {0, 0, 1, 0, 0, 1};
    for (int i = 0; i < 6; ++i) t.uv[i] = uvs[i];
    return t;
}

// A scene with one primitive of each kind, for surface_at.
struct OnePrimitiveScene {
    Scene scene;
    explicit OnePrimitiveScene(const Sphere& s) {
        scene.spheres.push_back(s);
        finish();
    }
    explicit OnePrimitiveScene(const Quad& q) {
        scene.quads.push_back(q);
        finish();
    }
    explicit OnePrimitiveScene(const Triangle& t) {
        scene.triangles.push_back(t);
        finish();
    }
    void finish() {
        scene.materials.push_back(Material{});
        scene.textures.push_back(Texture{});
        scene.build_acceleration();
    }
    // The closest hit and its surface; fails the test on a miss.
    SurfaceInteraction surface(const Ray& ray, Hit* hit_out = nullptr) const {
        const SceneView view = scene.view();
        Hit hit;
        EXPECT_TRUE(intersect_closest(view, ray, kMinHitDistance, hit));
        if (hit_out) *hit_out = hit;
        return surface_at(view, ray, hit);
    }
};

void expect_vec_near(const Vec3& actual, const Vec3& expected, float tolerance) {
    EXPECT_NEAR(actual.x, expected.x, tolerance);
    EXPECT_NEAR(actual.y, expected.y, tolerance);
    EXPECT_NEAR(actual.z, expected.z, tolerance);
}

// ---- spheres ------------------------------------------------------------------------

TEST(SphereIntersection, RayThroughCentreHitsNearSide) {
    const Sphere s = make_sphere({0, 0, -5}, 1);
    float t = 0;
    ASSERT_TRUE(intersect_sphere(s, Ray{{0, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t));
    EXPECT_FLOAT_EQ(t, 4.0f);
}

TEST(SphereIntersection, DistanceIsInUnitsOfTheUnnormalisedDirection) {
    const Sphere s = make_sphere({0, 0, -5}, 1);
    float t = 0;
    ASSERT_TRUE(intersect_sphere(s, Ray{{0, 0, 0}, {0, 0, -2}}, kMinHitDistance, kNoLimit, t));
    EXPECT_FLOAT_EQ(t, 2.0f);
}

TEST(SphereIntersection, MissesWhenRayPassesBeside) {
    const Sphere s = make_sphere({0, 0, -5}, 1);
    float t = 0;
    EXPECT_FALSE(intersect_sphere(s, Ray{{1.01f, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t));
    EXPECT_FALSE(intersect_sphere(s, Ray{{0, 0, 0}, {0, 1, 0}}, kMinHitDistance, kNoLimit, t));
}

TEST(SphereIntersection, MissesSphereBehindTheRay) {
    const Sphere s = make_sphere({0, 0, 5}, 1);
    float t = 0;
    EXPECT_FALSE(intersect_sphere(s, Ray{{0, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t));
}

TEST(SphereIntersection, TangentRayTouchesAtOnePoint) {
    // Discriminant exactly zero: the ray touches the sphere at (1, 0, -5).
    const Sphere s = make_sphere({0, 0, -5}, 1);
    float t = 0;
    ASSERT_TRUE(intersect_sphere(s, Ray{{1, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t));
    EXPECT_FLOAT_EQ(t, 5.0f);
    EXPECT_FALSE(intersect_sphere(s, Ray{{1.0001f, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t));
}

TEST(SphereIntersection, OriginInsideHitsTheFarSideFromWithin) {
    const OnePrimitiveScene one(make_sphere({1, 2, 3}, 2));
    const Ray ray{{1, 2, 3}, {0, 0, 1}};
    Hit hit;
    const SurfaceInteraction si = one.surface(ray, &hit);
    EXPECT_FLOAT_EQ(hit.t, 2.0f);
    EXPECT_FALSE(si.front_face);
    expect_vec_near(si.normal, {0, 0, -1}, 1e-6f);  // faces against the ray: inward
    expect_vec_near(si.point, {1, 2, 5}, 1e-6f);
}

TEST(SphereIntersection, HitsAtOrBeyondTmaxAreRejected) {
    const Sphere s = make_sphere({0, 0, -5}, 1);  // roots at t = 4 and t = 6
    const Ray ray{{0, 0, 0}, {0, 0, -1}};
    float t = 0;
    EXPECT_FALSE(intersect_sphere(s, ray, kMinHitDistance, 4.0f, t));  // t_max is exclusive
    ASSERT_TRUE(intersect_sphere(s, ray, kMinHitDistance, 4.001f, t));
    EXPECT_FLOAT_EQ(t, 4.0f);
}

TEST(SphereIntersection, HitsAtOrBeforeTminFallBackToTheFarRoot) {
    const Sphere s = make_sphere({0, 0, -5}, 1);
    const Ray ray{{0, 0, 0}, {0, 0, -1}};
    float t = 0;
    ASSERT_TRUE(intersect_sphere(s, ray, 4.0f, kNoLimit, t));  // t_min is exclusive
    EXPECT_FLOAT_EQ(t, 6.0f);
    ASSERT_TRUE(intersect_sphere(s, ray, 5.0f, kNoLimit, t));
    EXPECT_FLOAT_EQ(t, 6.0f);
    EXPECT_FALSE(intersect_sphere(s, ray, 6.0f, kNoLimit, t));
    EXPECT_FALSE(intersect_sphere(s, ray, 4.5f, 5.5f, t));  // both roots outside (t_min, t_max)
}

TEST(SphereIntersection, SelfHitBelowMinimumDistanceIsIgnored) {
    // A ray leaving the surface must not hit it again at t ~ 0 (shadow acne).
    const Sphere s = make_sphere({0, 0, 0}, 1);
    float t = 0;
    EXPECT_FALSE(intersect_sphere(s, Ray{{0, 0, 1}, {0, 0.3f, 1}}, kMinHitDistance, kNoLimit, t));
}

TEST(SphereIntersection, MovingSphereIsHitWhereItIsAtTheRayTime) {
    Sphere s = make_sphere({0, 0, -5}, 1);
    s.velocity = Vec3(4, 0, 0);  // at time 1 the centre is (4, 0, -5)
    float t = 0;
    EXPECT_TRUE(intersect_sphere(s, Ray{{0, 0, 0}, {0, 0, -1}, 0.0f}, kMinHitDistance, kNoLimit, t));
    EXPECT_FALSE(intersect_sphere(s, Ray{{0, 0, 0}, {0, 0, -1}, 1.0f}, kMinHitDistance, kNoLimit, t));
    ASSERT_TRUE(intersect_sphere(s, Ray{{4, 0, 0}, {0, 0, -1}, 1.0f}, kMinHitDistance, kNoLimit, t));
    EXPECT_FLOAT_EQ(t, 4.0f);
    const Aabb box = bounds_of(s);  // the bounds cover the whole motion
    expect_vec_near(box.lower, {-1, -1, -6}, 0);
    expect_vec_near(box.upper, {5, 1, -4}, 0);
}

TEST(SphereIntersection, GrazingRaysHitOnTheSurfaceOrMissJustOutside) {
    // Rays whose distance from the centre sweeps across the radius: inside the
    // radius they hit at a point on the sphere, outside they miss.
    const Sphere s = make_sphere({0.5f, -0.25f, -7}, 1.5f);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> angle(0, 2 * kPi);
    for (int i = 0; i < 2000; ++i) {
        const float offset = 1.5f * (0.999f + 0.002f * float(i) / 2000.0f);  // 0.999 r .. 1.001 r
        const float a = angle(rng);
        const Vec3 origin = s.center + Vec3(offset * std::cos(a), offset * std::sin(a), 10.0f);
        float t = 0;
        const bool hit = intersect_sphere(s, Ray{origin, {0, 0, -1}}, kMinHitDistance, kNoLimit, t);
        if (offset < 1.5f * 0.9999f) {
            ASSERT_TRUE(hit) << "offset " << offset;
        } else if (offset > 1.5f * 1.0001f) {
            ASSERT_FALSE(hit) << "offset " << offset;
        }
        if (hit) {
            EXPECT_NEAR(length(Vec3(origin.x, origin.y, origin.z - t) - s.center), 1.5f, 1e-4f);
        }
    }
}

TEST(SphereSurface, OutsideHitHasOutwardNormalAndFrontFace) {
    const OnePrimitiveScene one(make_sphere({0, 0, -5}, 2));
    const SurfaceInteraction si = one.surface(Ray{{0, 0, 0}, {0, 0, -1}});
    EXPECT_TRUE(si.front_face);
    expect_vec_near(si.normal, {0, 0, 1}, 1e-6f);
    expect_vec_near(si.point, {0, 0, -3}, 1e-6f);
    EXPECT_NEAR(length(si.normal), 1.0f, 1e-6f);
}

TEST(SphereSurface, TextureCoordinatesFollowTheBook) {
    // "Ray Tracing: The Next Week": <1 0 0> -> (0.5, 0.5), <0 1 0> -> (0.5, 1),
    // <0 0 1> -> (0.25, 0.5), <0 0 -1> -> (0.75, 0.5), <0 -1 0> -> (0.5, 0).
    const OnePrimitiveScene one(make_sphere({0, 0, 0}, 1));
    struct Case {
        Vec3 outward;
        float u, v;
    };
    const Case cases[] = {{{1, 0, 0}, 0.5f, 0.5f},
                          {{0, 0, 1}, 0.25f, 0.5f},
                          {{0, 0, -1}, 0.75f, 0.5f},
                          {{0, 1, 0}, -1, 1.0f},
                          {{0, -1, 0}, -1, 0.0f}};
    for (const Case& c : cases) {
        const SurfaceInteraction si = one.surface(Ray{c.outward * 3.0f, -c.outward});
        if (c.u >= 0) {
            EXPECT_NEAR(si.u, c.u, 1e-5f);
        }
        EXPECT_NEAR(si.v, c.v, 1e-5f);
        expect_vec_near(si.normal, c.outward, 1e-6f);
    }
}

TEST(SphereSurface, NormalIsUnitForManyRandomHits) {
    const OnePrimitiveScene one(make_sphere({3, -1, 2}, 0.75f));
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> unit(-1, 1);
    for (int i = 0; i < 500; ++i) {
        const Vec3 target = Vec3(3, -1, 2) + Vec3(unit(rng), unit(rng), unit(rng)) * 0.4f;
        const Vec3 origin(unit(rng) * 10, unit(rng) * 10, 10);
        const SurfaceInteraction si = one.surface(Ray{origin, target - origin});
        // (point - centre) / radius: float rounding of a point ~15 units away.
        EXPECT_NEAR(length(si.normal), 1.0f, 1e-4f);
        EXPECT_LT(dot(si.normal, target - origin), 0.0f);
        EXPECT_NEAR(length(si.point - Vec3(3, -1, 2)), 0.75f, 1e-4f);
        EXPECT_GE(si.u, 0.0f);
        EXPECT_LE(si.u, 1.0f);
        EXPECT_GE(si.v, 0.0f);
        EXPECT_LE(si.v, 1.0f);
    }
}

// ---- quads --------------------------------------------------------------------------

const Quad kUnitQuad = make_quad({-1, -1, -3}, {2, 0, 0}, {0, 2, 0}, 0);  // normal +z

TEST(QuadIntersection, HitsInsideWithPlanarCoordinates) {
    float t = 0, a = 0, b = 0;
    ASSERT_TRUE(intersect_quad(kUnitQuad, Ray{{0, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, a, b));
    EXPECT_FLOAT_EQ(t, 3.0f);
    EXPECT_FLOAT_EQ(a, 0.5f);
    EXPECT_FLOAT_EQ(b, 0.5f);
    ASSERT_TRUE(intersect_quad(kUnitQuad, Ray{{0.5f, -0.5f, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, a, b));
    EXPECT_FLOAT_EQ(a, 0.75f);
    EXPECT_FLOAT_EQ(b, 0.25f);
}

TEST(QuadIntersection, MissesOutsideTheParallelogram) {
    float t = 0, a = 0, b = 0;
    EXPECT_FALSE(intersect_quad(kUnitQuad, Ray{{1.01f, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, a, b));
    EXPECT_FALSE(intersect_quad(kUnitQuad, Ray{{0, -1.01f, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, a, b));
    EXPECT_FALSE(intersect_quad(kUnitQuad, Ray{{0, 0, 0}, {0, 0, 1}}, kMinHitDistance, kNoLimit, t, a, b));
}

TEST(QuadIntersection, EdgesAndCornersAreInside) {
    float t = 0, a = 0, b = 0;
    EXPECT_TRUE(intersect_quad(kUnitQuad, Ray{{1, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, a, b));
    EXPECT_FLOAT_EQ(a, 1.0f);
    EXPECT_TRUE(intersect_quad(kUnitQuad, Ray{{-1, -1, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, a, b));
    EXPECT_FLOAT_EQ(a, 0.0f);
    EXPECT_FLOAT_EQ(b, 0.0f);
}

TEST(QuadIntersection, RayParallelToThePlaneMisses) {
    float t = 0, a = 0, b = 0;
    EXPECT_FALSE(intersect_quad(kUnitQuad, Ray{{0, 0, -3}, {1, 0, 0}}, kMinHitDistance, kNoLimit, t, a, b));
    EXPECT_FALSE(intersect_quad(kUnitQuad, Ray{{-5, 0, 0}, {1, 0, 0}}, kMinHitDistance, kNoLimit, t, a, b));
}

TEST(QuadIntersection, GrazingRayAtShallowAngleHitsTheRightPoint) {
    // 1e-3 radians above the plane: still a hit, at the exact planar point.
    const Vec3 direction(1, 0, -1e-3f);
    float t = 0, a = 0, b = 0;
    ASSERT_TRUE(intersect_quad(kUnitQuad, Ray{{-1000, 0.5f, -2}, direction}, kMinHitDistance, kNoLimit, t, a, b));
    EXPECT_NEAR(t, 1000.0f, 0.05f);
    EXPECT_NEAR(a, 0.5f, 1e-3f);
    EXPECT_NEAR(b, 0.75f, 1e-5f);
}

TEST(QuadIntersection, TminAndTmaxBoundTheHit) {
    float t = 0, a = 0, b = 0;
    const Ray ray{{0, 0, 0}, {0, 0, -1}};
    EXPECT_FALSE(intersect_quad(kUnitQuad, ray, kMinHitDistance, 3.0f, t, a, b));
    EXPECT_TRUE(intersect_quad(kUnitQuad, ray, kMinHitDistance, 3.001f, t, a, b));
    EXPECT_FALSE(intersect_quad(kUnitQuad, ray, 3.0f, kNoLimit, t, a, b));
    EXPECT_TRUE(intersect_quad(kUnitQuad, ray, 2.999f, kNoLimit, t, a, b));
}

TEST(QuadSurface, FrontAndBackFacesFlipTheNormalAgainstTheRay) {
    const OnePrimitiveScene one(kUnitQuad);
    const SurfaceInteraction front = one.surface(Ray{{0.5f, 0.5f, 0}, {0, 0, -1}});
    EXPECT_TRUE(front.front_face);
    expect_vec_near(front.normal, {0, 0, 1}, 0);
    EXPECT_FLOAT_EQ(front.u, 0.75f);
    EXPECT_FLOAT_EQ(front.v, 0.75f);
    const SurfaceInteraction back = one.surface(Ray{{0.5f, 0.5f, -6}, {0, 0, 1}});
    EXPECT_FALSE(back.front_face);
    expect_vec_near(back.normal, {0, 0, -1}, 0);
    expect_vec_near(back.point, {0.5f, 0.5f, -3}, 1e-6f);
}

TEST(QuadSurface, SkewedQuadNormalIsUnitCrossOfEdges) {
    const Quad q = make_quad({0, 0, 0}, {2, 1, 0}, {0, 1, 3}, 0);
    const Vec3 expected = unit_vector(cross(Vec3(2, 1, 0), Vec3(0, 1, 3)));
    expect_vec_near(q.normal, expected, 1e-6f);
    const OnePrimitiveScene one(q);
    const Vec3 target = q.corner + 0.3f * q.edge_u + 0.6f * q.edge_v;
    const Vec3 origin = target + 5.0f * expected + Vec3(0.2f, -0.1f, 0.3f);
    const SurfaceInteraction si = one.surface(Ray{origin, target - origin});
    EXPECT_TRUE(si.front_face);
    expect_vec_near(si.normal, expected, 1e-6f);
    EXPECT_NEAR(si.u, 0.3f, 1e-5f);
    EXPECT_NEAR(si.v, 0.6f, 1e-5f);
}

// ---- triangles ----------------------------------------------------------------------

const Triangle kTriangle = make_triangle({0, 0, -2}, {1, 0, -2}, {0, 1, -2});  // normal +z

TEST(TriangleIntersection, HitsInsideWithBarycentrics) {
    float t = 0, b1 = 0, b2 = 0;
    ASSERT_TRUE(intersect_triangle(kTriangle, Ray{{0.25f, 0.5f, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
    EXPECT_FLOAT_EQ(t, 2.0f);
    EXPECT_FLOAT_EQ(b1, 0.25f);
    EXPECT_FLOAT_EQ(b2, 0.5f);
}

TEST(TriangleIntersection, MissesOutsideEachEdge) {
    float t = 0, b1 = 0, b2 = 0;
    EXPECT_FALSE(intersect_triangle(kTriangle, Ray{{0.6f, 0.6f, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
    EXPECT_FALSE(
        intersect_triangle(kTriangle, Ray{{-0.01f, 0.5f, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
    EXPECT_FALSE(
        intersect_triangle(kTriangle, Ray{{0.5f, -0.01f, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
    EXPECT_FALSE(
        intersect_triangle(kTriangle, Ray{{0.25f, 0.25f, -3}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
}

TEST(TriangleIntersection, RayInThePlaneMisses) {
    float t = 0, b1 = 0, b2 = 0;
    EXPECT_FALSE(intersect_triangle(kTriangle, Ray{{-1, 0.25f, -2}, {1, 0, 0}}, kMinHitDistance, kNoLimit, t, b1, b2));
}

TEST(TriangleIntersection, BackFacesAreHitToo) {
    float t = 0, b1 = 0, b2 = 0;
    ASSERT_TRUE(intersect_triangle(kTriangle, Ray{{0.2f, 0.2f, -5}, {0, 0, 1}}, kMinHitDistance, kNoLimit, t, b1, b2));
    EXPECT_FLOAT_EQ(t, 3.0f);
}

TEST(TriangleIntersection, TminAndTmaxBoundTheHit) {
    float t = 0, b1 = 0, b2 = 0;
    const Ray ray{{0.2f, 0.2f, 0}, {0, 0, -1}};
    EXPECT_FALSE(intersect_triangle(kTriangle, ray, kMinHitDistance, 2.0f, t, b1, b2));
    EXPECT_TRUE(intersect_triangle(kTriangle, ray, kMinHitDistance, 2.001f, t, b1, b2));
    EXPECT_FALSE(intersect_triangle(kTriangle, ray, 2.0f, kNoLimit, t, b1, b2));
}

TEST(TriangleIntersection, VerticesAndEdgesAreInside) {
    float t = 0, b1 = 0, b2 = 0;
    EXPECT_TRUE(intersect_triangle(kTriangle, Ray{{0, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
    EXPECT_TRUE(intersect_triangle(kTriangle, Ray{{0.5f, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
    EXPECT_TRUE(intersect_triangle(kTriangle, Ray{{0.5f, 0.5f, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
}

// Moller-Trumbore let about 4% of rays aimed at a shared edge, and 8% of rays
// aimed at a closed mesh's edges and vertices, through; the watertight test does not.
TEST(TriangleIntersection, SharedEdgeOfTwoTrianglesLeavesNoGapForGrazingRays) {
    // A quad split along its diagonal: rays aimed at points on the diagonal
    // must hit at least one of the two triangles.
    const Vec3 p0(-1.3f, -0.7f, -4.1f), p1(1.7f, -0.9f, -3.7f), p2(-1.1f, 1.2f, -4.4f), p3(1.9f, 1.1f, -3.9f);
    const Triangle first = make_triangle(p0, p1, p2);
    const Triangle second = make_triangle(p1, p3, p2);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> along(0, 1), jitter(-1, 1);
    int gaps = 0;
    for (int i = 0; i < 20000; ++i) {
        const Vec3 target = p1 + along(rng) * (p2 - p1);
        const Vec3 origin(jitter(rng) * 3, jitter(rng) * 3, 2);
        const Ray ray{origin, target - origin};
        float t = 0, b1 = 0, b2 = 0;
        if (!intersect_triangle(first, ray, kMinHitDistance, kNoLimit, t, b1, b2) &&
            !intersect_triangle(second, ray, kMinHitDistance, kNoLimit, t, b1, b2)) {
            ++gaps;
        }
    }
    EXPECT_EQ(gaps, 0);
}

// Moller-Trumbore let about 4% of rays aimed at a shared edge, and 8% of rays
// aimed at a closed mesh's edges and vertices, through; the watertight test does not.
TEST(TriangleIntersection, ClosedTriangleMeshHasNoHolesAtEdgesAndVertices) {
    // An irregular closed octahedron: a ray from inside must hit some face,
    // including rays aimed exactly at its edges and vertices.
    const Vec3 v[6] = {{1.3f, 0.1f, 0.05f},  {-0.9f, -0.07f, 0.1f},  {0.02f, 1.1f, -0.03f},
                       {0.1f, -1.2f, 0.04f}, {-0.05f, 0.03f, 0.95f}, {0.07f, -0.02f, -1.05f}};
    const int faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    std::vector<Triangle> mesh;
    for (const auto& f : faces) mesh.push_back(make_triangle(v[f[0]], v[f[1]], v[f[2]]));
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> inside(-0.2f, 0.2f), fraction(0, 1);
    std::uniform_int_distribution<int> vertex(0, 5), face(0, 7);
    int holes = 0;
    for (int i = 0; i < 30000; ++i) {
        const Vec3 origin(inside(rng), inside(rng), inside(rng));
        Vec3 target;
        if (i % 3 == 0) {
            target = v[vertex(rng)];
        } else {
            const int* f = faces[face(rng)];
            const Vec3 a = v[f[0]], b = v[f[(i % 3)]];
            target = a + fraction(rng) * (b - a);  // a point on an edge
        }
        const Ray ray{origin, target - origin};
        bool hit = false;
        for (const Triangle& tri : mesh) {
            float t = 0, b1 = 0, b2 = 0;
            hit |= intersect_triangle(tri, ray, kMinHitDistance, kNoLimit, t, b1, b2);
        }
        holes += !hit;
    }
    EXPECT_EQ(holes, 0);
}

TEST(TriangleIntersection, ZeroDirectionAndDegenerateTrianglesNeverHit) {
    float t = 0, b1 = 0, b2 = 0;
    EXPECT_FALSE(intersect_triangle(kTriangle, Ray{{0.2f, 0.2f, 0}, {0, 0, 0}}, kMinHitDistance, kNoLimit, t, b1, b2));
    const Triangle line = make_triangle({0, 0, -2}, {1, 0, -2}, {2, 0, -2});
    EXPECT_FALSE(intersect_triangle(line, Ray{{0.5f, 0, 0}, {0, 0, -1}}, kMinHitDistance, kNoLimit, t, b1, b2));
}

// The frame whose 1 / dz is the box tester's (the GPU's per-triangle form)
// is the frame that divides, bit for bit, for directions of every sign,
// magnitude and zero component, subnormals included.
TEST(TriangleIntersection, FrameFromTheTestersInverseEqualsTheDividingOne) {
    std::mt19937 rng(31);
    std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-140, 100), special(0, 9);
    const auto component = [&] {
        switch (special(rng)) {
        case 0: return 0.0f;
        case 1: return -0.0f;
        case 2: return std::ldexp(mantissa(rng), -140);  // subnormal
        default: return std::ldexp(mantissa(rng), exponent(rng));
        }
    };
    for (int i = 0; i < 100000; ++i) {
        const Vec3 d(component(), component(), component());
        const RayBoxTester tester(Ray{Vec3(0.0f), d});
        const TriangleRayFrame divided = triangle_ray_frame(d);
        const TriangleRayFrame from_tester = triangle_ray_frame(d, tester.inverse_direction);
        ASSERT_EQ(divided.valid, from_tester.valid);
        ASSERT_EQ(divided.kx, from_tester.kx);
        ASSERT_EQ(divided.ky, from_tester.ky);
        ASSERT_EQ(divided.kz, from_tester.kz);
        ASSERT_EQ(float_bits(divided.shear_x), float_bits(from_tester.shear_x)) << d.x << " " << d.y << " " << d.z;
        ASSERT_EQ(float_bits(divided.shear_y), float_bits(from_tester.shear_y));
        ASSERT_EQ(float_bits(divided.shear_z), float_bits(from_tester.shear_z));
    }
}

TEST(TriangleSurface, FlatNormalAndInterpolatedTextureCoordinates) {
    Triangle tri = kTriangle;
    const float uvs[6] = {0.1f, 0.2f, 0.9f, 0.2f, 0.1f, 0.8f};
    for (int i = 0; i < 6; ++i) tri.uv[i] = uvs[i];
    const OnePrimitiveScene one(tri);
    Hit hit;
    const SurfaceInteraction si = one.surface(Ray{{0.25f, 0.5f, 0}, {0, 0, -1}}, &hit);
    EXPECT_TRUE(si.front_face);
    expect_vec_near(si.normal, {0, 0, 1}, 1e-6f);
    EXPECT_FLOAT_EQ(hit.u, 0.25f);
    EXPECT_FLOAT_EQ(hit.v, 0.5f);
    // b0 = 0.25: u = 0.25*0.1 + 0.25*0.9 + 0.5*0.1, v = 0.25*0.2 + 0.25*0.2 + 0.5*0.8
    EXPECT_NEAR(si.u, 0.3f, 1e-6f);
    EXPECT_NEAR(si.v, 0.5f, 1e-6f);
    const SurfaceInteraction back = one.surface(Ray{{0.25f, 0.5f, -4}, {0, 0, 1}});
    EXPECT_FALSE(back.front_face);
    expect_vec_near(back.normal, {0, 0, -1}, 1e-6f);
}

TEST(TriangleSurface, ShadingNormalsAreInterpolatedAndKeepTheGeometricSide) {
    Triangle tri = kTriangle;
    tri.normal0 = unit_vector(Vec3(-1, 0, 1));
    tri.normal1 = unit_vector(Vec3(1, 0, 1));
    tri.normal2 = Vec3(0, 0, 1);
    const OnePrimitiveScene one(tri);
    // At vertex 0 the shading normal is normal0; halfway along edge 0-1 it is +z.
    const SurfaceInteraction at0 = one.surface(Ray{{0, 0, 0}, {0, 0, -1}});
    expect_vec_near(at0.normal, tri.normal0, 1e-5f);
    const SurfaceInteraction mid = one.surface(Ray{{0.5f, 0, 0}, {0, 0, -1}});
    expect_vec_near(mid.normal, {0, 0, 1}, 1e-5f);
    // Shading normals given on the other side are flipped to the geometric side.
    Triangle flipped = tri;
    flipped.normal0 = -tri.normal0;
    flipped.normal1 = -tri.normal1;
    flipped.normal2 = -tri.normal2;
    const OnePrimitiveScene other(flipped);
    const SurfaceInteraction si = other.surface(Ray{{0.2f, 0.2f, 0}, {0, 0, -1}});
    EXPECT_TRUE(si.front_face);
    EXPECT_GT(si.normal.z, 0.0f);
    EXPECT_NEAR(length(si.normal), 1.0f, 1e-5f);
}

// ---- boxes --------------------------------------------------------------------------

TEST(BoxSlabTest, EntersBoxesAndMissesBesideThem) {
    Aabb box;
    box.expand(Vec3(-1, -1, -1));
    box.expand(Vec3(1, 1, 1));
    const RayBoxTester hit(Ray{{0, 0, -5}, {0, 0, 1}});
    EXPECT_FLOAT_EQ(hit.entry(box, kMinHitDistance, kNoLimit), 4.0f);
    EXPECT_EQ(hit.entry(box, kMinHitDistance, 3.9f), kInfinity);  // box beyond t_max
    const RayBoxTester inside(Ray{{0, 0, 0}, {1, 2, 3}});
    EXPECT_FLOAT_EQ(inside.entry(box, kMinHitDistance, kNoLimit), kMinHitDistance);
    const RayBoxTester beside(Ray{{2, 0, -5}, {0, 0, 1}});
    EXPECT_EQ(beside.entry(box, kMinHitDistance, kNoLimit), kInfinity);
    const RayBoxTester away(Ray{{0, 0, -5}, {0, 0, -1}});
    EXPECT_EQ(away.entry(box, kMinHitDistance, kNoLimit), kInfinity);
}

TEST(BoxSlabTest, RayInsideABoundaryPlaneWithZeroDirectionComponentEnters) {
    // 0 * inf = NaN in the slab test: a ray lying in the box's face plane must
    // still count as entering (conservative), never as a miss.
    Aabb box;
    box.expand(Vec3(-1, -1, -1));
    box.expand(Vec3(1, 1, 1));
    for (const Vec3& origin : {Vec3(1, 0, -5), Vec3(-1, 0, -5), Vec3(0, 1, -5), Vec3(1, -1, -5)}) {
        const RayBoxTester tester(Ray{origin, {0, 0, 1}});
        EXPECT_NE(tester.entry(box, kMinHitDistance, kNoLimit), kInfinity) << origin.x << " " << origin.y;
    }
    for (const Vec3& direction : {Vec3(0, 0, -1), Vec3(-0.0f, 0, 1)}) {
        const RayBoxTester tester(Ray{{1, 0, direction.z > 0 ? -5.0f : 5.0f}, direction});
        EXPECT_NE(tester.entry(box, kMinHitDistance, kNoLimit), kInfinity);
    }
}

// A NaN plane distance (a ray in a slab's plane) bounds nothing on its axis,
// and the other axes still bound: the entry is the largest of the others.
TEST(BoxSlabTest, InPlaneAxisLeavesTheOtherAxesBounds) {
    Aabb box;
    box.expand(Vec3(-1, -1, -1));
    box.expand(Vec3(1, 1, 1));
    // In the plane y = -1, moving along +x and slightly +z: enters x at t = 3
    // (from x = -4), z at t = 2 (from z = -1.2 at dz = 0.1); the entry is x's.
    const RayBoxTester in_plane(Ray{{-4, -1, -1.2f}, {1, 0, 0.1f}});
    EXPECT_FLOAT_EQ(in_plane.entry(box, kMinHitDistance, kNoLimit), 3.0f);
    // Each axis in turn in either face's plane, the ray along another axis
    // from -6 at speed 2 (entry 2.5, exit 3.5, cut by t_max = 3.25).
    for (int axis = 0; axis < 3; ++axis) {
        for (int along = 0; along < 3; ++along) {
            if (along == axis) continue;
            for (const float face : {-1.0f, 1.0f}) {
                float origin[3] = {0, 0, 0}, direction[3] = {0, 0, 0};
                origin[axis] = face;
                origin[along] = -6.0f;
                direction[along] = 2.0f;
                const RayBoxTester tester(
                    Ray{{origin[0], origin[1], origin[2]}, {direction[0], direction[1], direction[2]}});
                EXPECT_FLOAT_EQ(tester.entry(box, kMinHitDistance, kNoLimit), 2.5f)
                    << "axis " << axis << " along " << along << " face " << face;
                EXPECT_FLOAT_EQ(tester.entry(box, kMinHitDistance, 3.25f), 2.5f);
                EXPECT_EQ(tester.entry(box, kMinHitDistance, 2.4f), kInfinity);
            }
        }
    }
}

// The GPU's slab test takes fmaxf and fminf (IEEE maxNum and minNum), the
// CPU's max_float and min_float: with a second operand that is never NaN
// (slab_overlap's chain), they pick the same value, but for the sign of a zero.
TEST(BoxSlabTest, CpuAndGpuMinMaxAgreeWhereTheSecondOperandIsANumber) {
    const float nan = std::nanf(""), inf = kInfinity * 2.0f;
    std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 1e-38f, -1e-45f, 3e38f, kInfinity, inf, -inf, nan};
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
    for (int i = 0; i < 200; ++i) values.push_back(uniform(random));
    for (float a : values) {
        for (float b : values) {
            if (std::isnan(b)) continue;
            const float cpu_max = max_float(a, b), gpu_max = std::fmax(a, b);
            const float cpu_min = min_float(a, b), gpu_min = std::fmin(a, b);
            EXPECT_TRUE(cpu_max == gpu_max) << a << " " << b;  // +0 == -0
            EXPECT_TRUE(cpu_min == gpu_min) << a << " " << b;
            EXPECT_FALSE(std::isnan(cpu_max) || std::isnan(cpu_min)) << a << " " << b;
        }
    }
}

TEST(BoxSlabTest, EmptyBoxIsNeverEntered) {
    const Aabb empty;
    for (const Vec3& direction : {Vec3(1, 1, 1), Vec3(-1, 0, 0), Vec3(0, 0, 1), Vec3(-0.0f, 0.0f, -1)}) {
        const RayBoxTester tester(Ray{{0, 0, 0}, direction});
        EXPECT_EQ(tester.entry(empty, kMinHitDistance, kNoLimit), kInfinity);
    }
}

}  // namespace
}  // namespace farmrt
