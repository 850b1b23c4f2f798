// Object transforms and instances: the transform order, objects hit where the
// transform puts them, normals under non-uniform scale, meshes stored once.
#include <gtest/gtest.h>

#include <cmath>

#include "scene_test_helpers.h"

namespace farmrt {
namespace {

using testing::trace;

void expect_near(const Vec3& a, const Vec3& b, float tolerance = 1e-5f) {
    EXPECT_NEAR(a.x, b.x, tolerance);
    EXPECT_NEAR(a.y, b.y, tolerance);
    EXPECT_NEAR(a.z, b.z, tolerance);
}

TEST(Transform, RotationsAreRightHandedAsInTheBook) {
    // The book's rotate_y: x' = cos x + sin z, z' = -sin x + cos z.
    expect_near(Transform::rotate_y(90).point(Vec3(1, 0, 0)), Vec3(0, 0, -1));
    expect_near(Transform::rotate_x(90).point(Vec3(0, 1, 0)), Vec3(0, 0, 1));
    expect_near(Transform::rotate_z(90).point(Vec3(1, 0, 0)), Vec3(0, 1, 0));
    const float c = std::cos(15.0f * kPi / 180.0f), s = std::sin(15.0f * kPi / 180.0f);
    expect_near(Transform::rotate_y(15).point(Vec3(2, 0, 3)), Vec3(c * 2 + s * 3, 0, -s * 2 + c * 3));
    // Multiples of 90 degrees are exact.
    EXPECT_EQ(Transform::rotate_y(180).point(Vec3(1, 2, 3)).x, -1.0f);
}

TEST(Transform, AppliedInTheOrderScaleRotateTranslate) {
    const Transform t =
        Transform::scale(2, 1, 1).then(Transform::rotate_z(90)).then(Transform::translate(Vec3(10, 0, 0)));
    expect_near(t.point(Vec3(1, 0, 0)), Vec3(10, 2, 0));  // scale to (2,0,0), rotate to (0,2,0), translate
    const Transform inverse = t.inverse();
    expect_near(inverse.point(t.point(Vec3(0.3f, -4, 7))), Vec3(0.3f, -4, 7), 1e-5f);
    EXPECT_NEAR(t.determinant(), 2.0, 1e-12);
}

TEST(Transform, NormalsStayPerpendicularUnderNonUniformScale) {
    const Transform t = Transform::scale(3, 1, 0.5).then(Transform::rotate_x(30));
    // A plane through the origin spanned by e1, e2 and its normal n.
    const Vec3 e1 = unit_vector(Vec3(1, 1, 0)), e2 = unit_vector(Vec3(0, 1, 1));
    const Vec3 n = unit_vector(cross(e1, e2));
    const Vec3 mapped = t.normal(n);
    EXPECT_NEAR(length(mapped), 1.0f, 1e-6f);
    EXPECT_NEAR(dot(mapped, t.vector(e1)), 0.0f, 1e-6f);
    EXPECT_NEAR(dot(mapped, t.vector(e2)), 0.0f, 1e-6f);
    // The float Affine path used by instances agrees.
    const Vec3 through_affine = unit_vector(t.inverse().to_affine().transposed_vector(n));
    expect_near(through_affine, mapped, 1e-6f);
}

SceneDescription load(const std::string& objects) {
    return load_scene_text(testing::scene_yaml(testing::kGrayMaterial, objects), "scene.yaml", ".");
}

TEST(Transform, TransformedQuadAndTriangleAreHitWhereExpected) {
    SceneDescription d = load(
        "  - {type: quad, Q: [0, 0, 0], u: [1, 0, 0], v: [0, 1, 0], material: gray,\n"
        "     transform: {scale: 2, rotate_y: 90, translate: [5, 0, 0]}}\n"
        "  - {type: triangle, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], normals: [[0, 0, 1], [0, 0, 1], [0, 0, "
        "1]],\n"
        "     material: gray, transform: {scale: [1, 1, 4], rotate_x: -90, translate: [0, -3, 0]}}\n");
    // Quad: scaled to 2x2, turned to face +x/-x (plane x = 5), spanning z in [-2, 0].
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    Hit hit;
    ASSERT_TRUE(trace(view, Vec3(0, 1, -1), Vec3(1, 0, 0), hit));
    EXPECT_FLOAT_EQ(hit.t, 5.0f);
    SurfaceInteraction si = surface_at(view, Ray{Vec3(0, 1, -1), Vec3(1, 0, 0), 0}, hit);
    expect_near(si.normal, Vec3(-1, 0, 0));
    Hit miss;
    EXPECT_FALSE(trace(view, Vec3(0, 1, 0.5f), Vec3(1, 0, 0), miss));
    // Triangle: rotate_x(-90) lays it in the plane y = -3 (normal +y) and its
    // shading normals follow.
    ASSERT_TRUE(trace(view, Vec3(0.2f, 5, -0.2f), Vec3(0, -1, 0), hit));
    EXPECT_FLOAT_EQ(hit.t, 8.0f);
    si = surface_at(view, Ray{Vec3(0.2f, 5, -0.2f), Vec3(0, -1, 0), 0}, hit);
    expect_near(si.normal, Vec3(0, 1, 0));
}

TEST(Transform, SphereUnderUniformScaleStaysASphere) {
    SceneDescription d = load(
        "  - {type: sphere, center: [1, 0, 0], center1: [1, 1, 0], radius: 1, material: gray,"
        " transform: {scale: 2, translate: [0, 0, -10]}}\n");
    ASSERT_EQ(d.scene.spheres.size(), 1u);
    EXPECT_EQ(d.scene.instance_count(), 0u);
    const Sphere& s = d.scene.spheres[0];
    expect_near(s.center, Vec3(2, 0, -10));
    expect_near(s.center + s.velocity, Vec3(2, 2, -10));
    EXPECT_FLOAT_EQ(s.radius, 2.0f);
}

// A non-uniformly scaled sphere is an ellipsoid (an instance): hit at the
// scaled extent, with the ellipsoid's normal, not the sphere's.
TEST(Transform, EllipsoidInstanceHasCorrectHitsAndNormals) {
    SceneDescription d =
        load("  - {type: sphere, center: [0, 0, 0], radius: 1, material: gray, transform: {scale: [2, 1, 1]}}\n");
    EXPECT_EQ(d.scene.instance_count(), 1u);
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    Hit hit;
    ASSERT_TRUE(trace(view, Vec3(10, 0, 0), Vec3(-1, 0, 0), hit));
    EXPECT_NEAR(hit.t, 8.0f, 1e-5f);
    EXPECT_EQ(hit.instance, 0u);
    // At (2 cos a, sin a, 0) the ellipsoid x^2/4 + y^2 = 1 has normal ~ (cos a / 2, sin a, 0).
    const float a = 0.7f;
    const Vec3 point(2 * std::cos(a), std::sin(a), 0);
    const Vec3 normal = unit_vector(Vec3(std::cos(a) / 2, std::sin(a), 0));
    const Ray along_normal{point + 3.0f * normal, -normal, 0};
    ASSERT_TRUE(trace(view, along_normal.origin, along_normal.direction, hit));
    EXPECT_NEAR(hit.t, 3.0f, 1e-4f);
    const SurfaceInteraction si = surface_at(view, along_normal, hit);
    expect_near(si.normal, normal, 1e-4f);
    EXPECT_TRUE(si.front_face);
    expect_near(si.point, point, 1e-4f);
}

// A rotated textured sphere turns its (u, v) with it.
TEST(Transform, RotatedSphereTurnsItsTextureCoordinates) {
    SceneDescription d = load(
        "  - {type: sphere, center: [0, 0, 0], radius: 1, material: gray, transform: {rotate_y: 90}}\n"
        "  - {type: sphere, center: [0, 0, -10], radius: 1, material: gray}\n");
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    Hit hit;
    // World point (0, 0, 1) is object point (-1, 0, 0) under rotate_y(90)'s inverse.
    ASSERT_TRUE(trace(view, Vec3(0, 0, 5), Vec3(0, 0, -1), hit));
    const SurfaceInteraction rotated = surface_at(view, Ray{Vec3(0, 0, 5), Vec3(0, 0, -1), 0}, hit);
    // The book's u for object point (-1, 0, 0): phi = atan2(0, -1) + pi = 2 pi -> u = 1 (or 0).
    EXPECT_NEAR(std::fmod(rotated.u, 1.0f), 0.0f, 1e-5f);
    EXPECT_NEAR(rotated.v, 0.5f, 1e-5f);
    // The unrotated sphere at (0, 0, 1) relative to its centre: phi = atan2(-1, 0) + pi = pi/2 -> u = 0.25.
    ASSERT_TRUE(trace(view, Vec3(0, 0, -8), Vec3(0, 0, -1), hit));
    EXPECT_NEAR(surface_at(view, Ray{Vec3(0, 0, -8), Vec3(0, 0, -1), 0}, hit).u, 0.25f, 1e-5f);
}

TEST(Transform, RejectsZeroScaleAndUnknownKeys) {
    std::string error = testing::load_error(testing::scene_yaml(
        testing::kGrayMaterial,
        "  - {type: quad, Q: [0, 0, 0], u: [1, 0, 0], v: [0, 1, 0], material: gray, transform: {scale: [1, 0, 1]}}\n"));
    EXPECT_NE(error.find("scene.yaml:7:"), std::string::npos) << error;
    EXPECT_NE(error.find("objects[0].transform.scale: scale factors must be non-zero"), std::string::npos) << error;
    error = testing::load_error(testing::scene_yaml(
        testing::kGrayMaterial,
        "  - {type: quad, Q: [0, 0, 0], u: [1, 0, 0], v: [0, 1, 0], material: gray, transform: {rotate: 3}}\n"));
    EXPECT_NE(error.find("objects[0].transform.rotate: unknown key"), std::string::npos) << error;
}

// Two mesh objects naming one file share one copy of its triangles and one
// bottom-level BVH; each instance has its own transform and material.
TEST(Instances, MeshUsedTwiceIsStoredOnce) {
    const std::string directory = testing::temporary_directory("instances");
    testing::write_text(directory + "/tetra.obj",
                        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    const std::string text = testing::scene_yaml(
        "  gray: {type: lambertian, albedo: [0.5, 0.5, 0.5]}\n  red: {type: lambertian, albedo: [0.9, 0.1, 0.1]}\n",
        "  - {type: mesh, file: tetra.obj, material: gray}\n"
        "  - {type: mesh, file: tetra.obj, material: red, transform: {scale: [1, 2, 1], translate: [5, 0, 0]}}\n"
        "  - {type: sphere, center: [0, 0, -20], radius: 1, material: gray}\n");
    SceneDescription d = load_scene_text(text, "scene.yaml", directory);
    EXPECT_EQ(d.scene.triangles.size(), 4u);
    EXPECT_EQ(d.scene.instance_count(), 2u);
    EXPECT_EQ(d.scene.primitive_count(), 3u);           // two instances and a sphere at the top level
    EXPECT_EQ(d.scene.rendered_primitive_count(), 9u);  // 4 + 4 + 1
    d.scene.build_acceleration();
    const SceneView view = d.scene.view();
    Hit hit;
    ASSERT_TRUE(trace(view, Vec3(0.2f, 0.2f, 5), Vec3(0, 0, -1), hit));
    EXPECT_EQ(hit.instance, 0u);
    EXPECT_NEAR(hit.t, 5.0f - 0.6f, 1e-5f);  // face x + y + z = 1
    const uint32_t red = d.scene.instances()[1].material;
    ASSERT_TRUE(trace(view, Vec3(5.2f, 0.2f, 5), Vec3(0, 0, -1), hit));
    EXPECT_EQ(hit.instance, 1u);
    EXPECT_NEAR(hit.t, 5.0f - 0.7f, 1e-5f);  // scaled face x + y/2 + z = 1
    const SurfaceInteraction si = surface_at(view, Ray{Vec3(5.2f, 0.2f, 5), Vec3(0, 0, -1), 0}, hit);
    EXPECT_EQ(si.material, red);
    expect_near(si.normal, unit_vector(Vec3(1, 0.5f, 1)), 1e-5f);
    // A single-use mesh is baked into the top level instead.
    const std::string once = testing::scene_yaml(testing::kGrayMaterial,
                                                 "  - {type: mesh, file: tetra.obj, material: gray,"
                                                 " transform: {translate: [0, 0, 1]}}\n");
    const SceneDescription single = load_scene_text(once, "scene.yaml", directory);
    EXPECT_EQ(single.scene.instance_count(), 0u);
    EXPECT_EQ(single.scene.primitive_count(), 4u);
    EXPECT_FLOAT_EQ(single.scene.triangles[3].vertex0.z, 1.0f);
}

// Smooth-shading (vertex) normals under a non-uniform scale go through the
// inverse transpose, baked into the triangle (a triangle, a mesh used once) or
// applied at the hit (a mesh used twice, an instance): stretching x by 4 turns
// the normal (1, 0, 1) to (1/4, 0, 1), not to (4, 0, 1).
TEST(Transform, ShadingNormalsUnderNonUniformScaleBakedAndInstanced) {
    const std::string directory = testing::temporary_directory("shading_normals");
    testing::write_text(directory + "/tilted.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 1 0 1\nf 1//1 2//1 3//1\n");
    const Vec3 expected = unit_vector(Vec3(0.25f, 0, 1));
    const std::string stretch = "transform: {scale: [4, 1, 1]}";
    const std::string scenes[] = {
        // a triangle with normals
        "  - {type: triangle, vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], normals: [[1, 0, 1], [1, 0, 1], [1, 0, 1]],"
        " material: gray, " +
            stretch + "}\n",
        // a mesh used once: baked
        "  - {type: mesh, file: tilted.obj, material: gray, " + stretch + "}\n",
        // a mesh used twice: instances
        "  - {type: mesh, file: tilted.obj, material: gray, " + stretch +
            "}\n"
            "  - {type: mesh, file: tilted.obj, material: gray, transform: {translate: [0, 0, -50]}}\n",
    };
    for (int k = 0; k < 3; ++k) {
        SceneDescription d =
            load_scene_text(testing::scene_yaml(testing::kGrayMaterial, scenes[k]), "scene.yaml", directory);
        EXPECT_EQ(d.scene.instance_count(), k == 2 ? 2u : 0u);
        d.scene.build_acceleration();
        const SceneView view = d.scene.view();
        const Ray ray{Vec3(2.0f, 0.25f, 5), Vec3(0, 0, -1), 0};  // x = 2 exists only after the stretch
        Hit hit;
        ASSERT_TRUE(trace(view, ray.origin, ray.direction, hit)) << k;
        EXPECT_FLOAT_EQ(hit.t, 5.0f) << k;
        const SurfaceInteraction si = surface_at(view, ray, hit);
        EXPECT_TRUE(si.front_face) << k;
        expect_near(si.normal, expected, 1e-5f);
    }
}

}  // namespace
}  // namespace farmrt
