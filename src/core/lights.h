// Sampling the lights, shared by every backend: picking a light by its
// importance to the point (light_tree.h) or by power (alias table), a point
// or direction on it, and the density with which that
// would have been chosen, which multiple importance sampling (integrator.h)
// also needs for emitters that a BSDF sample hits.
#pragma once

#include "core/scene.h"

namespace farmrt {

// ---- picking a light -------------------------------------------------------------------

// The light an alias table picks with one random number: its slot, and the
// slot's own probability against its alias with what is left of u.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t pick_light_by_power(const SceneView& scene, float u) {
    const float scaled = u * float(scene.light_count);
    uint32_t slot = uint32_t(scaled);
    if (slot >= scene.light_count) slot = scene.light_count - 1;
    const AliasEntry entry = scene.light_alias[slot];
    return scaled - float(slot) < entry.probability ? slot : entry.alias;
}

// ---- the geometry of area lights -----------------------------------------------------------

// An emissive quad or triangle in world space (through its instance, if any).
struct EmitterShape {
    Vec3 corner, edge_u,
        edge_v;  // quad: corner + a edge_u + b edge_v; triangle: vertex0, vertex1 - vertex0, vertex2 - vertex0
    bool triangle = false;
};

FARMRT_CPU_GPU FARMRT_INLINE EmitterShape emitter_shape(const SceneView& scene, LightType type, uint32_t primitive,
                                                        uint32_t instance) {
    EmitterShape shape;
    if (type == LightType::Quad) {
        const Quad& q = scene.quads[primitive];
        shape.corner = q.corner;
        shape.edge_u = q.edge_u;
        shape.edge_v = q.edge_v;
        if (instance != kNoInstance) {
            const Affine& m = scene.instances[instance].world_from_object;
            shape.corner = m.point(q.corner);
            shape.edge_u = m.vector(q.edge_u);
            shape.edge_v = m.vector(q.edge_v);
        }
        return shape;
    }
    const Triangle& t = scene.triangles[primitive];
    Vec3 v0 = t.vertex0, v1 = t.vertex1, v2 = t.vertex2;
    if (instance != kNoInstance) {
        const Affine& m = scene.instances[instance].world_from_object;
        v0 = m.point(v0);
        v1 = m.point(v1);
        v2 = m.point(v2);
    }
    shape.corner = v0;
    shape.edge_u = v1 - v0;
    shape.edge_v = v2 - v0;
    shape.triangle = true;
    return shape;
}

FARMRT_CPU_GPU FARMRT_INLINE float emitter_area(const EmitterShape& shape) {
    const float parallelogram = length(cross(shape.edge_u, shape.edge_v));
    return shape.triangle ? 0.5f * parallelogram : parallelogram;
}

// The material an area light emits with.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t area_light_material(const SceneView& scene, const Light& light) {
    if (light.instance != kNoInstance && scene.instances[light.instance].material != kGeometryMaterial) {
        return scene.instances[light.instance].material;
    }
    if (light.type == LightType::Sphere) return scene.spheres[light.primitive].material;
    if (light.type == LightType::Quad) return scene.quads[light.primitive].material;
    return scene.triangles[light.primitive].material;
}

// ---- power and the density of picking -------------------------------------------------------

// An emissive quad's or triangle's power (luminance), both faces.
FARMRT_CPU_GPU FARMRT_INLINE float area_light_power(const SceneView& scene, const Light& light,
                                                    const EmitterShape& shape) {
    return 2.0f * kPi * emitter_area(shape) * scene.materials[area_light_material(scene, light)].emission_luminance;
}

// A light's emitted power (luminance), which the alias table is built from.
// Quads and triangles emit from both faces, spheres outwards; distant lights
// as a disc of the scene's size.
FARMRT_CPU_GPU FARMRT_INLINE float light_power(const SceneView& scene, const Light& light) {
    switch (light.type) {
    case LightType::Sphere: {
        const Sphere& s = scene.spheres[light.primitive];
        const float area = 4.0f * kPi * s.radius * s.radius;
        return kPi * area * scene.materials[s.material].emission_luminance;
    }
    case LightType::Quad:
    case LightType::Triangle:
        return area_light_power(scene, light, emitter_shape(scene, light.type, light.primitive, light.instance));
    case LightType::Point: return 4.0f * kPi * luminance(light.intensity);
    case LightType::Spot:
        return 2.0f * kPi * luminance(light.intensity) * (1.0f - 0.5f * (light.cos_inner + light.cos_outer));
    case LightType::Directional: return kPi * scene.scene_radius * scene.scene_radius * luminance(light.intensity);
    case LightType::Environment: return scene.environment_power;
    }
    return 0.0f;
}

// The probability that pick_light_by_power() picks `light` (the alias
// table keeps it per light: AliasEntry::pmf).
FARMRT_CPU_GPU FARMRT_INLINE float light_power_probability(const SceneView& scene, const Light& light) {
    return light_power(scene, light) * scene.inverse_light_power;
}

// The light to sample from `point` with one random number, and the
// probability of that choice (`pmf`): with the light tree, the tree with
// the finite lights' share of the power or else an infinite light by power;
// without it, every light by power. kNoLight where none can reach the point.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t pick_light(const SceneView& scene, float u, const Vec3& point, float& pmf) {
    if (!scene.use_light_tree) {
        const uint32_t light = pick_light_by_power(scene, u);
        pmf = scene.light_alias[light].pmf;
        return light;
    }
    if (u < scene.tree_probability) {
        const uint32_t light =
            sample_light_tree(scene.light_tree, point, min_float(u / scene.tree_probability, 0.99999994f), pmf);
        pmf *= scene.tree_probability;
        return light;
    }
    const float v = (u - scene.tree_probability) / (1.0f - scene.tree_probability);
    uint32_t chosen = scene.infinite_light_count - 1;
    for (uint32_t i = 0; i + 1 < scene.infinite_light_count; ++i) {
        if (v < scene.infinite_lights[i].cumulative) {
            chosen = i;
            break;
        }
    }
    const uint32_t light = scene.infinite_lights[chosen].light;
    pmf = scene.light_alias[light].pmf;
    return light;
}

// The probability that pick_light() picks the area light `light` (type,
// primitive and instance as a hit names them) from `point`: the multiple
// importance sampling weight of an emitter that a BSDF sample hits.
FARMRT_CPU_GPU FARMRT_INLINE float light_pick_probability(const SceneView& scene, const Light& light,
                                                          const Vec3& point) {
    if (!scene.use_light_tree) return light_power_probability(scene, light);
    const uint32_t index = find_emitter(scene.emitter_keys, scene.emitter_key_count,
                                        emitter_key(light.type, light.primitive, light.instance));
    if (index == kNoLight) return 0.0f;
    const LightTrail trail = scene.light_trails[index];
    return scene.tree_probability * light_tree_pmf(scene.light_tree, point, trail.bits, trail.depth);
}

// ---- sampling a light from a point -------------------------------------------------------------

struct LightSample {
    Vec3 direction;         // unit, from the shading point towards the light
    Vec3 point;             // on the light (finite lights)
    Color radiance;         // arriving from the light (punctual: intensity / distance^2)
    float pdf = 0.0f;       // solid-angle density; 0: no sample
    bool infinite = false;  // directional and environment: nothing beyond the scene
    bool delta = false;     // punctual: only light sampling can find it
};

// An orthonormal pair perpendicular to unit n (Duff et al. 2017).
FARMRT_CPU_GPU FARMRT_INLINE void orthonormal_basis(const Vec3& n, Vec3& b1, Vec3& b2) {
    const float sign = copysignf(1.0f, n.z);
    const float a = -1.0f / (sign + n.z);
    const float b = n.x * n.y * a;
    b1 = Vec3(1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x);
    b2 = Vec3(b, sign + n.y * n.y * a, -n.y);
}

// The solid angle density of an area sample at `light_point` with unit
// normal `light_normal` and area `area`, seen from `point`.
FARMRT_CPU_GPU FARMRT_INLINE float area_to_solid_angle(const Vec3& point, const Vec3& light_point,
                                                       const Vec3& light_normal, float area) {
    const Vec3 to_light = light_point - point;
    const float distance_squared = length_squared(to_light);
    const float cosine = fabsf(dot(light_normal, to_light)) / sqrtf(distance_squared);
    return cosine > 0.0f && area > 0.0f ? distance_squared / (area * cosine) : 0.0f;
}

// sin^2 of the half-angle below which the cone of a sphere seen from outside
// is sampled with the small-angle form (pbrt-v4: 1 - cos loses all digits).
constexpr float kSmallCone = 0.00068523f;

// 1 - cos(theta_max) of the cone a sphere of radius r subtends at distance^2 d2 > r^2.
FARMRT_CPU_GPU FARMRT_INLINE float sphere_cone_width(float r2, float d2) {
    const float sin2_max = r2 / d2;
    if (sin2_max < kSmallCone) return 0.5f * sin2_max;
    return 1.0f - sqrtf(max_float(0.0f, 1.0f - sin2_max));
}

// The solid-angle density of sampling sphere `s` from `point` at
// `light_point` (used from inside the sphere only, where samples are by area).
FARMRT_CPU_GPU FARMRT_INLINE float sphere_light_pdf(const Sphere& s, float time, const Vec3& point,
                                                    const Vec3& light_point) {
    const Vec3 center = s.center_at(time);
    const float r2 = s.radius * s.radius, d2 = length_squared(center - point);
    if (d2 > r2) return 1.0f / (2.0f * kPi * sphere_cone_width(r2, d2));
    return area_to_solid_angle(point, light_point, unit_vector(light_point - center), 4.0f * kPi * r2);
}

// A point on sphere `s`: uniformly in the cone it subtends from `point`
// (pbrt-v4's Sphere::Sample), or by area from inside it.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 sample_sphere_point(const Sphere& s, float time, const Vec3& point, float u0,
                                                      float u1, Vec3& outward) {
    const Vec3 center = s.center_at(time);
    const float radius = fabsf(s.radius), r2 = radius * radius;
    const Vec3 to_center = center - point;
    const float d2 = length_squared(to_center);
    if (!(d2 > r2)) {
        outward = unit_vector_from(u0, u1);
        return center + radius * outward;
    }
    const float sin2_max = r2 / d2, sin_max = sqrtf(sin2_max);
    const float cos_max = sqrtf(max_float(0.0f, 1.0f - sin2_max));
    float cos_theta = (cos_max - 1.0f) * u0 + 1.0f;
    float sin2_theta = 1.0f - cos_theta * cos_theta;
    if (sin2_max < kSmallCone) {
        sin2_theta = sin2_max * u0;
        cos_theta = sqrtf(1.0f - sin2_theta);
    }
    // The angle at the centre between the direction back to `point` and the sampled point.
    const float cos_alpha = sin2_theta / sin_max + cos_theta * sqrtf(max_float(0.0f, 1.0f - sin2_theta / sin2_max));
    const float sin_alpha = sqrtf(max_float(0.0f, 1.0f - cos_alpha * cos_alpha));
    float sin_phi, cos_phi;
    sin_cos_turns(u1, sin_phi, cos_phi);
    const Vec3 back = -(to_center / sqrtf(d2));
    Vec3 b1, b2;
    orthonormal_basis(back, b1, b2);
    outward = (sin_alpha * cos_phi) * b1 + (sin_alpha * sin_phi) * b2 + cos_alpha * back;
    return center + radius * outward;
}

// The emission an area light's material gives at a point with texture coordinates (u, v).
FARMRT_CPU_GPU FARMRT_INLINE Color area_emission(const SceneView& scene, uint32_t material, const Vec3& point, float u,
                                                 float v) {
    SurfaceInteraction si;
    si.point = point;
    si.u = u;
    si.v = v;
    return evaluate_texture(scene.textures, scene.texture_pixels, scene.materials[material].emission_texture, si);
}

// An area light sampled from `point`: a point on it, as seen from there.
FARMRT_CPU_GPU FARMRT_INLINE LightSample sample_area_light(const SceneView& scene, const Light& light,
                                                           const Vec3& point, float u0, float u1, float time) {
    LightSample sample;
    const uint32_t material = area_light_material(scene, light);
    float u = 0.0f, v = 0.0f, b1 = 0.0f, b2 = 0.0f;
    if (light.type == LightType::Sphere) {
        const Sphere s = scene.spheres[light.primitive];
        Vec3 outward;
        sample.point = sample_sphere_point(s, time, point, u0, u1, outward);
        sample.pdf = sphere_light_pdf(s, time, point, sample.point);
        if (material_reads_uv(scene, material)) {
            u = (arc_tangent2(-outward.z, outward.x) + kPi) / (2.0f * kPi);
            v = arc_cosine(clamp_float(-outward.y, -1.0f, 1.0f)) / kPi;
        }
    } else {
        const EmitterShape shape = emitter_shape(scene, light.type, light.primitive, light.instance);
        if (shape.triangle) {
            // Uniform barycentrics (b0, b1, b2) from the square root warp.
            const float root = sqrtf(u0);
            b1 = 1.0f - root;  // weights of vertex1 and vertex2
            b2 = u1 * root;
            sample.point = shape.corner + b1 * shape.edge_u + b2 * shape.edge_v;
            const Triangle& t = scene.triangles[light.primitive];
            const float b0 = 1.0f - b1 - b2;
            u = b0 * t.uv[0] + b1 * t.uv[2] + b2 * t.uv[4];
            v = b0 * t.uv[1] + b1 * t.uv[3] + b2 * t.uv[5];
        } else {
            sample.point = shape.corner + u0 * shape.edge_u + u1 * shape.edge_v;
            u = u0;
            v = u1;
        }
        const Vec3 normal = unit_vector(cross(shape.edge_u, shape.edge_v));
        sample.pdf = area_to_solid_angle(point, sample.point, normal, emitter_area(shape));
    }
    const Vec3 to_light = sample.point - point;
    const float distance = length(to_light);
    if (!(distance > 0.0f) || !(sample.pdf > 0.0f)) {
        sample.pdf = 0.0f;
        return sample;
    }
    sample.direction = to_light / distance;
    sample.radiance = area_emission(scene, material, sample.point, u, v);
    if (scene.has_cutouts && light.type == LightType::Triangle) {
        // A cut-out lamp emits only where rays meet it (surface_kept).
        const Triangle& t = scene.triangles[light.primitive];
        const float b0 = 1.0f - b1 - b2;
        const Vec3 on_triangle = b0 * t.vertex0 + b1 * t.vertex1 + b2 * t.vertex2;  // its own space, as rays see it
        sample.radiance *= surface_coverage(scene, t, on_triangle, b1, b2);
    }
    return sample;
}

// Smooth falloff between a spot light's cones (pbrt-v4's smoothstep).
FARMRT_CPU_GPU FARMRT_INLINE float spot_falloff(const Light& light, float cosine) {
    if (cosine >= light.cos_inner) return 1.0f;
    if (cosine <= light.cos_outer) return 0.0f;
    const float x = (cosine - light.cos_outer) / (light.cos_inner - light.cos_outer);
    return x * x * (3.0f - 2.0f * x);
}

// Any light sampled from `point` with two random numbers.
FARMRT_CPU_GPU FARMRT_INLINE LightSample sample_light(const SceneView& scene, const Light& light, const Vec3& point,
                                                      float u0, float u1, float time) {
    LightSample sample;
    switch (light.type) {
    case LightType::Sphere:
    case LightType::Quad:
    case LightType::Triangle: return sample_area_light(scene, light, point, u0, u1, time);
    case LightType::Point:
    case LightType::Spot: {
        const Vec3 to_light = light.position - point;
        const float distance_squared = length_squared(to_light);
        if (!(distance_squared > 0.0f)) return sample;
        sample.point = light.position;
        sample.direction = to_light / sqrtf(distance_squared);
        const float falloff =
            light.type == LightType::Spot ? spot_falloff(light, -dot(sample.direction, light.direction)) : 1.0f;
        sample.radiance = (falloff / distance_squared) * light.intensity;
        sample.pdf = 1.0f;
        sample.delta = true;
        return sample;
    }
    case LightType::Directional:
        sample.direction = -light.direction;
        sample.radiance = light.intensity;
        sample.pdf = 1.0f;
        sample.delta = true;
        sample.infinite = true;
        return sample;
    case LightType::Environment: {
        const Background& b = scene.background;
        sample.direction = sample_environment(b, scene.environment_distribution, u0, u1, sample.pdf);
        sample.radiance = background_radiance(b, scene.textures, scene.texture_pixels, sample.direction);
        sample.infinite = true;
        return sample;
    }
    }
    return sample;
}

// ---- emitters found by BSDF samples ------------------------------------------------------------

// The density with which light sampling from `from` would have produced the
// emitter hit `hit` (picking included), for the MIS weight of a BSDF sample
// that found it; 0 where light sampling never finds it (spheres placed by
// instances are not in the light list).
FARMRT_CPU_GPU FARMRT_INLINE float emitter_hit_pdf(const SceneView& scene, const Ray& ray, const Hit& hit,
                                                   const Vec3& from, const Vec3& point) {
    Light light;
    light.primitive = hit.primitive.index();
    light.instance = hit.instance;
    switch (hit.primitive.type()) {
    case PrimitiveType::Sphere: {
        if (hit.instance != kNoInstance) return 0.0f;
        light.type = LightType::Sphere;
        const float pick = light_pick_probability(scene, light, from);
        return pick > 0.0f ? pick * sphere_light_pdf(scene.spheres[light.primitive], ray.time, from, point) : 0.0f;
    }
    case PrimitiveType::Quad: light.type = LightType::Quad; break;
    case PrimitiveType::Triangle: light.type = LightType::Triangle; break;
    case PrimitiveType::Instance: return 0.0f;
    }
    const EmitterShape shape = emitter_shape(scene, light.type, light.primitive, light.instance);
    // By power: from the shape at hand rather than light_pick_probability()'s
    // second emitter_shape() (the same bits).
    const float pick = scene.use_light_tree ? light_pick_probability(scene, light, from)
                                            : area_light_power(scene, light, shape) * scene.inverse_light_power;
    if (!(pick > 0.0f)) return 0.0f;
    return pick * area_to_solid_angle(from, point, unit_vector(cross(shape.edge_u, shape.edge_v)), emitter_area(shape));
}

// The density with which light sampling would have produced direction
// `direction` towards the background, picking included.
FARMRT_CPU_GPU FARMRT_INLINE float environment_hit_pdf(const SceneView& scene, const Vec3& direction) {
    if (!(scene.environment_power > 0.0f)) return 0.0f;
    return scene.environment_power * scene.inverse_light_power *
           environment_pdf(scene.background, scene.environment_distribution, unit_vector(direction));
}

// Veach's power heuristic (beta = 2) for a sample of density `chosen` against `other`.
FARMRT_CPU_GPU FARMRT_INLINE float power_heuristic(float chosen, float other) {
    if (!(chosen < kInfinity)) return 1.0f;
    const float a = chosen * chosen, b = other * other;
    return a + b > 0.0f ? a / (a + b) : 0.0f;
}

}  // namespace farmrt
