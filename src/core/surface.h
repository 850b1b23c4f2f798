// The surface a hit lands on, rebuilt from the hit: point, facing and
// shading normals (smooth normals, normal maps), (u, v), vertex colour and
// material, in world space through instances; shared by every tracer.
#pragma once

#include "core/closest_hit.h"

namespace farmrt {

// The surface point of a sphere hit, recomputed in double and projected onto
// the sphere, so that it lies within float rounding of the surface whatever
// the sphere's size and distance (origin + t d in float would be off it by
// the rounding of t times the ray's length). `outward`: the unit normal
// pointing away from the centre for r > 0 and towards it for r < 0 (the
// book's hollow glass sphere), as (p - centre) / r.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 sphere_surface_point(const Vec3& center, float radius, const Ray& ray, float t,
                                                       Vec3& outward) {
    const double vx = (double(ray.origin.x) + double(t) * double(ray.direction.x)) - double(center.x);
    const double vy = (double(ray.origin.y) + double(t) * double(ray.direction.y)) - double(center.y);
    const double vz = (double(ray.origin.z) + double(t) * double(ray.direction.z)) - double(center.z);
    const double inverse_length = 1.0 / sqrt((vx * vx + vy * vy) + vz * vz);
    const double normal_scale = radius < 0.0f ? -inverse_length : inverse_length;
    outward = Vec3(float(vx * normal_scale), float(vy * normal_scale), float(vz * normal_scale));
    const double to_surface = fabs(double(radius)) * inverse_length;
    return Vec3(float(double(center.x) + vx * to_surface), float(double(center.y) + vy * to_surface),
                float(double(center.z) + vz * to_surface));
}

// geometry_surface() of a sphere's hit.
FARMRT_CPU_GPU FARMRT_INLINE SurfaceInteraction sphere_surface(const SceneView& scene, const Ray& ray, const Hit& hit,
                                                               Vec3& outward, Vec3& geometric, float& error_magnitude,
                                                               bool sphere_uv) {
    SurfaceInteraction si;
    const Sphere& s = scene.spheres[hit.primitive.index()];
    const Vec3 center = s.center_at(ray.time);
    si.point = sphere_surface_point(center, s.radius, ray, hit.t, outward);
    geometric = outward;
    // The double projection is exact to ~2^-50 of the sphere's own size;
    // rounding the point to float adds half a unit of the point's size.
    error_magnitude =
        max_float(max_abs_component(si.point), kFloatRoundoff * (max_abs_component(center) + fabsf(s.radius)));
    if (sphere_uv) {
        // The book's (u, v): longitude and latitude of the unit-sphere point.
        // trigonometry.h's functions, not acosf/atan2f: the same bits on CPU and GPU.
        const float theta = arc_cosine(clamp_float(-outward.y, -1.0f, 1.0f));
        const float phi = arc_tangent2(-outward.z, outward.x) + kPi;
        si.u = phi / (2.0f * kPi);
        si.v = theta / kPi;
    }
    si.material = s.material;
    return si;
}

// The surface of a sphere, quad or triangle in the space of `ray` (world space,
// or an instance's object space): point, unit outward normal, (u, v), material.
// `geometric`: the unit geometric normal, and `error_magnitude`: the size of
// the numbers the point and the next ray's test of this surface round at
// (ray_spawn.h). Each point is rebuilt from the surface itself, not as
// origin + t d, so that its error does not grow with the ray's length.
// `sphere_uv` false: a sphere's (u, v) stay 0 (its two arc tangents are a
// tenth of a CPU frame's time, wasted unless an image texture reads them).
// `tangent`, `handedness`: a triangle's interpolated TriangleAttributes
// tangent (left as it is where there is none).
FARMRT_CPU_GPU FARMRT_INLINE SurfaceInteraction geometry_surface(const SceneView& scene, const Ray& ray, const Hit& hit,
                                                                 Vec3& outward, Vec3& geometric, float& error_magnitude,
                                                                 Vec3& tangent, float& handedness,
                                                                 bool sphere_uv = true) {
    SurfaceInteraction si;
    switch (hit.primitive.type()) {
    case PrimitiveType::Sphere: return sphere_surface(scene, ray, hit, outward, geometric, error_magnitude, sphere_uv);
    case PrimitiveType::Quad: {
        const Quad& q = scene.quads[hit.primitive.index()];
        si.point = q.corner + hit.u * q.edge_u + hit.v * q.edge_v;
        error_magnitude = max_abs_component(q.corner) + max_abs_component(q.edge_u) + max_abs_component(q.edge_v);
        outward = q.normal;
        geometric = q.normal;
        si.u = hit.u;
        si.v = hit.v;
        si.material = q.material;
        break;
    }
    case PrimitiveType::Triangle: {
        const Triangle& t = scene.triangles[hit.primitive.index()];
        const float b0 = 1.0f - hit.u - hit.v;
        si.point = b0 * t.vertex0 + hit.u * t.vertex1 + hit.v * t.vertex2;
        error_magnitude = max_float(max_float(max_abs_component(t.vertex0), max_abs_component(t.vertex1)),
                                    max_abs_component(t.vertex2));
        geometric = unit_vector(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0));
        outward = geometric;
        if (length_squared(t.normal0) > 0.0f) {
            const Vec3 shading = unit_vector(b0 * t.normal0 + hit.u * t.normal1 + hit.v * t.normal2);
            // Keep the geometric side; use the interpolated normal for shading.
            outward = dot(shading, outward) < 0.0f ? -shading : shading;
        }
        si.u = b0 * t.uv[0] + hit.u * t.uv[2] + hit.v * t.uv[4];
        si.v = b0 * t.uv[1] + hit.u * t.uv[3] + hit.v * t.uv[5];
        si.material = t.material;
        if (t.attributes != kNoAttributes) {
            const TriangleAttributes& a = scene.triangle_attributes[t.attributes];
            si.vertex_color = b0 * a.color[0] + hit.u * a.color[1] + hit.v * a.color[2];
            tangent = b0 * a.tangent[0] + hit.u * a.tangent[1] + hit.v * a.tangent[2];
            handedness = a.handedness;
        }
        break;
    }
    case PrimitiveType::Instance: break;  // never stored in a Hit
    }
    return si;
}

// The largest row sum of |entries| of an affine map's linear part: how much
// it can enlarge a vector's largest component.
FARMRT_CPU_GPU FARMRT_INLINE float linear_row_norm(const Affine& affine) {
    float norm = 0.0f;
    for (int row = 0; row < 3; ++row) {
        const float* m = affine.m + 4 * row;
        norm = max_float(norm, (fabsf(m[0]) + fabsf(m[1])) + fabsf(m[2]));
    }
    return norm;
}

// The error magnitude of an object-space surface mapped to world space: the
// mapped point's own rounding, and, since the next ray is tested in object
// space again, the round trip's enlargement of errors (the two linear parts'
// norms, 1 for rotations and uniform scales).
FARMRT_CPU_GPU FARMRT_INLINE float instance_error_magnitude(const Instance& instance, float object_magnitude,
                                                            const Vec3& world_point) {
    const float to_world = linear_row_norm(instance.world_from_object);
    const float round_trip = max_float(1.0f, to_world * linear_row_norm(instance.object_from_world));
    const Vec3 translation(instance.world_from_object.m[3], instance.world_from_object.m[7],
                           instance.world_from_object.m[11]);
    return round_trip * (to_world * object_magnitude + max_abs_component(translation) + max_abs_component(world_point));
}

// The shading normal `normal` (unit, on the geometric normal's side) bent by
// the material's normal map, in the frame of the tangent (made orthogonal to
// the normal), the bitangent handedness * cross(normal, tangent) and the
// normal. Unchanged where the material has no map, the tangent is parallel
// to the normal, or the bent normal would leave the geometric side.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 normal_mapped(const SceneView& scene, const SurfaceInteraction& si,
                                                const Vec3& normal, const Vec3& geometric, const Vec3& tangent,
                                                float handedness) {
    const uint32_t map = scene.materials[si.material].normal_texture;
    if (map == kNoTexture) return normal;
    const Vec3 along = tangent - dot(tangent, normal) * normal;
    if (!(length_squared(along) > 0.0f)) return normal;
    const Vec3 unit_tangent = unit_vector(along);
    const Vec3 bitangent = handedness * cross(normal, unit_tangent);
    const Color m = evaluate_texture(scene.textures, scene.texture_pixels, map, si);
    const Vec3 bent = m.x * unit_tangent + m.y * bitangent + m.z * normal;
    if (!(length_squared(bent) > 0.0f)) return normal;
    const Vec3 unit_bent = unit_vector(bent);
    return dot(unit_bent, geometric) > 0.0f ? unit_bent : normal;
}

// Rebuilds the surface (point, facing normal, texture coordinates) from a hit.
// Through an instance: the surface in object space, its point mapped to world
// space and its normals back by the inverse transpose (right under
// non-uniform scale), the instance's material.
// `sphere_uv`: as geometry_surface (false only where nothing reads them:
// material_reads_uv below). kSpheresOnly: a scene of spheres alone (no
// instances, no vertex colours, no tangents for a normal map), known at
// compile time (SpheresOnlyQuery, integrator.h).
template <bool kSpheresOnly = false>
FARMRT_CPU_GPU FARMRT_INLINE SurfaceInteraction surface_at(const SceneView& scene, const Ray& ray, const Hit& hit,
                                                           bool sphere_uv = true) {
    SurfaceInteraction si;
    Vec3 outward, geometric, tangent(0.0f);
    float error_magnitude = 0.0f, handedness = 1.0f;
    if constexpr (kSpheresOnly) {
        si = sphere_surface(scene, ray, hit, outward, geometric, error_magnitude, sphere_uv);
    } else if (hit.instance == kNoInstance) {
        si = geometry_surface(scene, ray, hit, outward, geometric, error_magnitude, tangent, handedness, sphere_uv);
    } else {
        const Instance& instance = scene.instances[hit.instance];
        si = geometry_surface(scene, object_ray(instance, ray), hit, outward, geometric, error_magnitude, tangent,
                              handedness, sphere_uv);
        si.point = instance.world_from_object.point(si.point);
        error_magnitude = instance_error_magnitude(instance, error_magnitude, si.point);
        outward = unit_vector(instance.object_from_world.transposed_vector(outward));
        geometric = unit_vector(instance.object_from_world.transposed_vector(geometric));
        tangent = instance.world_from_object.vector(tangent);  // along the surface: maps as a vector
        if (instance.material != kGeometryMaterial) si.material = instance.material;
    }
    if (!kSpheresOnly && length_squared(tangent) > 0.0f) {
        outward = normal_mapped(scene, si, outward, geometric, tangent, handedness);
    }
    si.spawn_offset = spawn_offset(geometric, error_magnitude);
    si.front_face = dot(ray.direction, outward) < 0.0f;
    si.normal = si.front_face ? outward : -outward;
    return si;
}

// The material a hit shades with (an instance's own material overrides its geometry's).
FARMRT_CPU_GPU FARMRT_INLINE uint32_t hit_material(const SceneView& scene, const Hit& hit) {
    if (hit.instance != kNoInstance && scene.instances[hit.instance].material != kGeometryMaterial) {
        return scene.instances[hit.instance].material;
    }
    switch (hit.primitive.type()) {
    case PrimitiveType::Sphere: return scene.spheres[hit.primitive.index()].material;
    case PrimitiveType::Quad: return scene.quads[hit.primitive.index()].material;
    case PrimitiveType::Triangle: return scene.triangles[hit.primitive.index()].material;
    case PrimitiveType::Instance: break;  // never stored in a Hit
    }
    return 0;
}

// Whether shading with `material` reads the surface's (u, v): only image
// textures do (evaluate_texture).
FARMRT_CPU_GPU FARMRT_INLINE bool material_reads_uv(const SceneView& scene, uint32_t material) {
    const Material& m = scene.materials[material];
    switch (m.type) {
    case MaterialType::Lambertian:
    case MaterialType::Metal: return scene.textures[m.albedo_texture].type == TextureType::Image;
    case MaterialType::Emissive: return scene.textures[m.emission_texture].type == TextureType::Image;
    case MaterialType::Dielectric: return false;
    case MaterialType::Principled:
        return scene.textures[m.albedo_texture].type == TextureType::Image ||
               scene.textures[m.metallic_roughness_texture].type == TextureType::Image ||
               (m.emission_texture != kNoTexture && scene.textures[m.emission_texture].type == TextureType::Image);
    }
    return true;
}

}  // namespace farmrt
