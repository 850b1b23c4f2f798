// Geometric primitives: bounds, ray intersection and surface data, one small
// function of each per type, shared by every tracer. Primitives are stored in
// flat arrays per type; a PrimitiveRef tags (type, index) so that BVH leaves mix
// types without virtual calls.
#pragma once

#include "aabb.h"

namespace farmrt {

enum class PrimitiveType : uint32_t { Sphere = 0, Quad = 1, Triangle = 2 };

// Packed (type, index): the type in the top 4 bits.
struct PrimitiveRef {
    uint32_t bits;

    FARMRT_CPU_GPU static PrimitiveRef make(PrimitiveType type, uint32_t index) {
        return PrimitiveRef{(static_cast<uint32_t>(type) << 28) | index};
    }
    FARMRT_CPU_GPU PrimitiveType type() const { return static_cast<PrimitiveType>(bits >> 28); }
    FARMRT_CPU_GPU uint32_t index() const { return bits & 0x0FFFFFFFu; }
};
constexpr uint32_t kMaxPrimitivesPerType = 1u << 28;

// A sphere; `velocity` = center at shutter close - center at open (motion blur).
struct Sphere {
    Vec3 center;
    float radius;
    Vec3 velocity;
    uint32_t material;

    FARMRT_CPU_GPU Vec3 center_at(float time) const { return center + time * velocity; }
};

// The parallelogram corner + a*edge_u + b*edge_v, a, b in [0, 1] ("The Next Week").
struct Quad {
    Vec3 corner;
    Vec3 edge_u;
    Vec3 edge_v;
    Vec3 normal;      // unit plane normal
    Vec3 w;           // n / dot(n, n) for the planar coordinates, n = cross(u, v)
    float plane_offset;  // dot(normal, corner)
    uint32_t material;
};

// A triangle with optional per-vertex shading normals and texture coordinates.
struct Triangle {
    Vec3 vertex0, vertex1, vertex2;
    Vec3 normal0, normal1, normal2;  // shading normals; all zero = flat shading
    float uv[6];                     // (u, v) per vertex
    uint32_t material;
};

// What traversal returns: enough to rebuild the surface afterwards.
struct Hit {
    float t = kInfinity;
    PrimitiveRef primitive{0};
    float u = 0, v = 0;  // surface parameters (quad a, b; triangle barycentrics)
};

// ---- bounds -----------------------------------------------------------------

inline Aabb bounds_of(const Sphere& s) {
    Aabb box;
    const Vec3 r(fabsf(s.radius));
    box.expand(s.center - r);
    box.expand(s.center + r);
    box.expand(s.center + s.velocity - r);
    box.expand(s.center + s.velocity + r);
    return box;
}

inline Aabb bounds_of(const Quad& q) {
    Aabb box;
    box.expand(q.corner);
    box.expand(q.corner + q.edge_u);
    box.expand(q.corner + q.edge_v);
    box.expand(q.corner + q.edge_u + q.edge_v);
    // A flat box still needs a thickness for the slab test to be well defined.
    for (int axis = 0; axis < 3; ++axis) {
        if (box.upper[axis] - box.lower[axis] < 1e-4f) {
            box.lower[axis] -= 5e-5f;
            box.upper[axis] += 5e-5f;
        }
    }
    return box;
}

inline Aabb bounds_of(const Triangle& t) {
    Aabb box;
    box.expand(t.vertex0);
    box.expand(t.vertex1);
    box.expand(t.vertex2);
    return box;
}

Quad make_quad(const Vec3& corner, const Vec3& edge_u, const Vec3& edge_v, uint32_t material);

// ---- intersection: each returns true and fills hit when closer than t_max ----

FARMRT_CPU_GPU FARMRT_INLINE bool intersect_sphere(const Sphere& s, const Ray& ray, float t_min, float t_max,
                                                   float& t_out) {
    const Vec3 center = s.center_at(ray.time);
    const Vec3 oc = center - ray.origin;
    const float a = length_squared(ray.direction);
    const float h = dot(ray.direction, oc);
    const float c = length_squared(oc) - s.radius * s.radius;
    const float discriminant = h * h - a * c;
    if (discriminant < 0) return false;
    const float root_d = sqrtf(discriminant);
    float root = (h - root_d) / a;
    if (root <= t_min || t_max <= root) {
        root = (h + root_d) / a;
        if (root <= t_min || t_max <= root) return false;
    }
    t_out = root;
    return true;
}

FARMRT_CPU_GPU FARMRT_INLINE bool intersect_quad(const Quad& q, const Ray& ray, float t_min, float t_max,
                                                 float& t_out, float& a_out, float& b_out) {
    const float denominator = dot(q.normal, ray.direction);
    if (fabsf(denominator) < 1e-8f) return false;  // parallel to the plane
    const float t = (q.plane_offset - dot(q.normal, ray.origin)) / denominator;
    if (t <= t_min || t_max <= t) return false;
    const Vec3 planar = ray.at(t) - q.corner;
    const float alpha = dot(q.w, cross(planar, q.edge_v));
    const float beta = dot(q.w, cross(q.edge_u, planar));
    if (!(alpha >= 0.0f && alpha <= 1.0f && beta >= 0.0f && beta <= 1.0f)) return false;
    t_out = t;
    a_out = alpha;
    b_out = beta;
    return true;
}

// Möller-Trumbore, with edges that share vertices computed from the same
// vertex values so that a ray through a shared edge hits one of the two triangles.
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_triangle(const Triangle& tri, const Ray& ray, float t_min, float t_max,
                                                     float& t_out, float& b1_out, float& b2_out) {
    const Vec3 edge1 = tri.vertex1 - tri.vertex0;
    const Vec3 edge2 = tri.vertex2 - tri.vertex0;
    const Vec3 p = cross(ray.direction, edge2);
    const float determinant = dot(edge1, p);
    if (determinant == 0.0f) return false;
    const float inverse_determinant = 1.0f / determinant;
    const Vec3 to_origin = ray.origin - tri.vertex0;
    const float b1 = dot(to_origin, p) * inverse_determinant;
    if (b1 < 0.0f || b1 > 1.0f) return false;
    const Vec3 q = cross(to_origin, edge1);
    const float b2 = dot(ray.direction, q) * inverse_determinant;
    if (b2 < 0.0f || b1 + b2 > 1.0f) return false;
    const float t = dot(edge2, q) * inverse_determinant;
    if (t <= t_min || t_max <= t) return false;
    t_out = t;
    b1_out = b1;
    b2_out = b2;
    return true;
}

}  // namespace farmrt
