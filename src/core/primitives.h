// Geometric primitives: bounds, ray intersection and surface data, one small
// function of each per type, shared by every tracer. Primitives are stored in
// flat arrays per type; a PrimitiveRef tags (type, index) so that BVH leaves mix
// types without virtual calls.
#pragma once

#include "core/aabb.h"
#include "core/transform.h"

namespace farmrt {

// Instance: a transformed copy of a bottom-level BVH over other primitives
// (one level only: an instance never contains instances).
enum class PrimitiveType : uint32_t { Sphere = 0, Quad = 1, Triangle = 2, Instance = 3 };

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
// 32 bytes, 16-byte aligned: two 16-byte loads on the GPU.
struct alignas(16) Sphere {
    Vec3 center;
    float radius;
    Vec3 velocity;
    uint32_t material;

    FARMRT_CPU_GPU FARMRT_INLINE Vec3 center_at(float time) const { return center + time * velocity; }
};

// The parallelogram corner + a*edge_u + b*edge_v, a, b in [0, 1] ("The Next Week").
struct Quad {
    Vec3 corner;
    Vec3 edge_u;
    Vec3 edge_v;
    Vec3 normal;         // unit plane normal
    Vec3 w;              // n / dot(n, n) for the planar coordinates, n = cross(u, v)
    float plane_offset;  // dot(normal, corner)
    uint32_t material;
};

// The (u, v) of a triangle's three corners where its file gives none.
constexpr float kDefaultTriangleUvs[6] = {0, 0, 1, 0, 0, 1};

// A triangle's vertex attributes beyond normals and (u, v), stored apart
// (Scene::triangle_attributes) since most meshes have none.
struct TriangleAttributes {
    // Linear RGB per corner, multiplying the material's base colour (glTF
    // COLOR_0, PLY and OBJ vertex colours); white where the file gives none.
    Color color[3] = {Color(1.0f), Color(1.0f), Color(1.0f)};
    // Per corner, the direction of increasing u along the surface, for a
    // material's normal map; zero where the mesh has none. The bitangent is
    // handedness * cross(normal, tangent), as in glTF's TANGENT.w.
    Vec3 tangent[3] = {Vec3(0.0f), Vec3(0.0f), Vec3(0.0f)};
    float handedness = 1.0f;
};

// No TriangleAttributes: a triangle shaded by its material alone.
constexpr uint32_t kNoAttributes = 0xFFFFFFFFu;

// A triangle with optional per-vertex shading normals and texture coordinates.
struct Triangle {
    Vec3 vertex0, vertex1, vertex2;
    Vec3 normal0, normal1, normal2;  // shading normals; all zero = flat shading
    float uv[6];                     // (u, v) per vertex
    uint32_t material;
    uint32_t attributes = kNoAttributes;  // index into the scene's TriangleAttributes
};

// A placed copy of shared geometry (a mesh used several times, a rotated or
// non-uniformly scaled sphere). Its primitives live in the scene's ordinary
// arrays; their refs and bottom-level BVH live in SceneView::instance_primitives
// and SceneView::instance_nodes, shared by every instance of the same geometry.
struct Instance {
    Affine object_from_world;   // rays go into object space
    Affine world_from_object;   // points come back to world space
    uint32_t root_node;         // bottom-level BVH root in instance_nodes
    uint32_t primitive_offset;  // the geometry's refs in instance_primitives
    uint32_t primitive_count;
    uint32_t material;  // every hit on the instance uses this material, unless kGeometryMaterial
};

constexpr uint32_t kNoInstance = 0xFFFFFFFFu;
// An instance's material that leaves each primitive its own (an imported
// model's materials, per face group).
constexpr uint32_t kGeometryMaterial = 0xFFFFFFFFu;

// What traversal returns: enough to rebuild the surface afterwards.
struct Hit {
    float t = kInfinity;
    PrimitiveRef primitive{0};        // never an Instance: the primitive inside it
    float u = 0, v = 0;               // surface parameters (quad a, b; triangle barycentrics)
    uint32_t instance = kNoInstance;  // the instance the primitive was hit through
};

// ---- bounds -----------------------------------------------------------------

// The box over the whole motion: the boxes at shutter open and close joined
// (c - r <= c + r, so two min/max per axis suffice; hit_within_bounds builds
// it for every accepted hit).
FARMRT_CPU_GPU FARMRT_INLINE Aabb bounds_of(const Sphere& s) {
    const Vec3 r(fabsf(s.radius));
    const Vec3 end = s.center + s.velocity;
    Aabb box;
    box.lower = min_vec(s.center - r, end - r);
    box.upper = max_vec(s.center + r, end + r);
    return box;
}

// intersect_quad accepts planar coordinates up to kQuadEdgeTolerance beyond
// [0, 1] (declared below): the box covers that band, and as much again for
// the rounding of the planar coordinates. A box of the bare parallelogram
// missed rays that the quad test accepts just beyond an edge: the binary BVH
// culled them where a wider BVH's box (SIMD, or brute force) did not, so the
// tracers disagreed (tiny.yaml: one pixel in 120x80 at 16 spp).
constexpr float kQuadBoundsMargin = 2e-5f;

FARMRT_CPU_GPU FARMRT_INLINE Aabb bounds_of(const Quad& q) {
    Aabb box;
    const Vec3 u_margin = kQuadBoundsMargin * q.edge_u, v_margin = kQuadBoundsMargin * q.edge_v;
    const Vec3 low = q.corner - u_margin - v_margin;
    const Vec3 edge_u = q.edge_u + 2.0f * u_margin, edge_v = q.edge_v + 2.0f * v_margin;
    box.expand(low);
    box.expand(low + edge_u);
    box.expand(low + edge_v);
    box.expand(low + edge_u + edge_v);
    // A flat box still needs a thickness for the slab test to be well defined.
    for (int axis = 0; axis < 3; ++axis) {
        if (box.upper[axis] - box.lower[axis] < 1e-4f) {
            box.lower[axis] -= 5e-5f;
            box.upper[axis] += 5e-5f;
        }
    }
    return box;
}

// A triangle's corners alone, in three 16-byte rows: what a traversal reads
// to test a triangle. The GPU keeps a copy of every triangle's
// (SceneView::triangle_corners) and reads one with three vector loads, where
// the corners of the 104-byte Triangle take nine scalar loads and often two
// cache lines.
struct alignas(16) TriangleCorners {
    Vec3 vertex0;
    float unused0;
    Vec3 vertex1;
    float unused1;
    Vec3 vertex2;
    float unused2;
};
static_assert(sizeof(TriangleCorners) == 48, "TriangleCorners must stay three 16-byte rows");

FARMRT_CPU_GPU FARMRT_INLINE TriangleCorners corners_of(const Triangle& t) {
    return TriangleCorners{t.vertex0, 0.0f, t.vertex1, 0.0f, t.vertex2, 0.0f};
}

FARMRT_CPU_GPU FARMRT_INLINE Aabb bounds_of(const TriangleCorners& c) {
    Aabb box;
    box.expand(c.vertex0);
    box.expand(c.vertex1);
    box.expand(c.vertex2);
    return box;
}

FARMRT_CPU_GPU FARMRT_INLINE Aabb bounds_of(const Triangle& t) { return bounds_of(corners_of(t)); }

// Whether the ray, as the traversal's slab test sees it (`tester`, widening
// included), is inside the primitive's own box somewhere in [t_min, t]: every
// tracer accepts a primitive's hit at t only then. Rounding can put a hit
// just outside the box (a grazing ray far from a sphere, where |oc|^2 - r^2
// cancels), and whether a tracer reached it would otherwise depend on its
// tree: a wide ancestor box lets the ray in, the binary BVH's tight one culls
// it (many_spheres.yaml: one pixel in 300x169 at 512 spp differed between the
// scalar and the AVX-512 path). Every ancestor box contains this box, and the
// slab test is monotone in the planes, so a hit that passes here is reached
// by every tree: the binary BVH, each SIMD width, the GPU's.
FARMRT_CPU_GPU FARMRT_INLINE bool hit_within_bounds(const RayBoxTester& tester, const Aabb& box, float t_min, float t) {
    return tester.entry(box, t_min, t) != kInfinity;
}

Quad make_quad(const Vec3& corner, const Vec3& edge_u, const Vec3& edge_v, uint32_t material);

// ---- intersection: each returns true and fills hit when closer than t_max ----

// ---- spheres: a float filter, then the roots in double --------------------
//
// The book's test in float, c = |oc|^2 - r^2 and h^2 - a c, cancels: for a
// small sphere seen from across the scene it keeps a few bits of the
// discriminant, and for the r = 1000 ground sphere it cannot even tell on
// which side of the surface a point near it lies. Such rounding is bias, not
// noise (silhouettes, grazing bounces and the horizon all shift), so the
// roots are computed in double, where these cancellations leave more than 30
// correct bits. The float test before it is a filter: it only rejects rays
// that miss by far more than its rounding (the bound below), so the double
// test alone decides every hit, and every tracer (scalar, SIMD lanes, GPU)
// runs both in the same order and gets the same bits.

// The filter's tolerance, relative to a (|oc|^2 + r^2): each term of
// h^2 - a c is within about 25 units of float rounding (2^-24) of its exact
// value, so 1e-5 (168 units) keeps every ray the exact test could accept.
constexpr float kSphereFilterTolerance = 1e-5f;

// The filter, from the float values every tracer computes the same way:
// a = |d|^2, h = d . oc, oc_squared = |oc|^2, oc = centre - origin. Real is
// float, or a SIMD batch of floats (the SIMD kernels' lanes, one sphere or
// one ray each): the same operations in the same order, so the same answer.
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE auto sphere_filter_passes(const Real& a, const Real& h, const Real& oc_squared,
                                                       const Real& radius) {
    const Real radius_squared = radius * radius;
    const Real discriminant = h * h - a * (oc_squared - radius_squared);
    return discriminant >= -(Real(kSphereFilterTolerance) * (a * (oc_squared + radius_squared)));
}

// The roots of |origin + t d - centre|^2 = r^2 in double, as float distances
// tested against (t_min, t_max) in float like every other primitive. The
// discriminant from the closest-approach vector l = oc - (h / a) d (Haines et
// al., "Precision Improvements for Ray/Sphere Intersection", Ray Tracing
// Gems, 2019): a (r^2 - |l|^2) does not subtract two near-equal squares of
// the distance to the centre. The near root as c / q, not (h - sqrt) / a,
// keeps its digits when it is close to 0 (a ray leaving the surface).
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_sphere_exact(const Vec3& center, float radius, const Ray& ray, float t_min,
                                                         float t_max, float& t_out) {
    const double ocx = double(center.x) - double(ray.origin.x);
    const double ocy = double(center.y) - double(ray.origin.y);
    const double ocz = double(center.z) - double(ray.origin.z);
    const double dx = ray.direction.x, dy = ray.direction.y, dz = ray.direction.z;
    const double a = (dx * dx + dy * dy) + dz * dz;
    const double h = (dx * ocx + dy * ocy) + dz * ocz;
    const double r = radius;
    const double c = ((ocx * ocx + ocy * ocy) + ocz * ocz) - r * r;
    const double inverse_a = 1.0 / a;
    const double along = h * inverse_a;
    const double lx = ocx - along * dx, ly = ocy - along * dy, lz = ocz - along * dz;
    const double discriminant = a * (r * r - ((lx * lx + ly * ly) + lz * lz));
    if (!(discriminant >= 0.0)) return false;
    const double q = h >= 0.0 ? h + sqrt(discriminant) : h - sqrt(discriminant);
    if (q == 0.0) return false;  // tangent at the origin itself
    const double first = q * inverse_a, second = c / q;
    const float near_root = float(first < second ? first : second);
    const float far_root = float(first < second ? second : first);
    if (near_root > t_min && near_root < t_max) {
        t_out = near_root;
        return true;
    }
    if (far_root > t_min && far_root < t_max) {
        t_out = far_root;
        return true;
    }
    return false;
}

// The centre at `time` (center_at, lane-wise) and the filter from it and the
// ray: oc = centre - origin, a = |d|^2 (given: a ray's own constant).
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<Real> sphere_center_at(const LaneVec3<Real>& center,
                                                             const LaneVec3<Real>& velocity, const Real& time) {
    return center + velocity * time;
}
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE auto sphere_filter(const LaneVec3<Real>& center, const Real& radius,
                                                const LaneVec3<Real>& origin, const LaneVec3<Real>& direction,
                                                const Real& direction_length_squared) {
    const LaneVec3<Real> oc = center - origin;
    return sphere_filter_passes(direction_length_squared, dot(direction, oc), dot(oc, oc), radius);
}

FARMRT_CPU_GPU FARMRT_INLINE bool intersect_sphere(const Sphere& s, const Ray& ray, float t_min, float t_max,
                                                   float& t_out) {
    const Vec3 center = s.center_at(ray.time);
    if (!sphere_filter(lanes_of(center), s.radius, lanes_of(ray.origin), lanes_of(ray.direction),
                       length_squared(ray.direction))) {
        return false;
    }
    return intersect_sphere_exact(center, s.radius, ray, t_min, t_max, t_out);
}

// The book tests a, b in [0, 1] exactly. Faces that share an edge (a box) get
// a and b from different corners, and rounding can put a ray through the
// shared edge outside both: a tolerance of 1e-5 of the edge closes such gaps
// (the quads overlap by that much instead), invisibly.
constexpr float kQuadEdgeTolerance = 1e-5f;
static_assert(kQuadBoundsMargin >= 2.0f * kQuadEdgeTolerance, "bounds_of(Quad) must cover the accepted band");

// The quad test over lanes. `QuadSource` gives the quad's vectors as lanes
// (normal(), plane_offset(), corner(), edge_u(), edge_v(), w()), read only
// when needed: one quad (scalar tracers, the GPU) or a packet of them (SIMD,
// one quad per lane). Fills t, alpha, beta in the accepted lanes.
template <class Real, class QuadSource>
FARMRT_CPU_GPU FARMRT_INLINE LaneMask<Real> quad_hit(const QuadSource& quad, const LaneVec3<Real>& origin,
                                                     const LaneVec3<Real>& direction, const Real& t_min,
                                                     const Real& t_max, Real& t, Real& alpha, Real& beta) {
    using Ops = LaneOps<Real>;
    const LaneVec3<Real> normal = quad.normal();
    const Real denominator = dot(normal, direction);
    LaneMask<Real> accept = Ops::negate(Ops::abs(denominator) < Real(1e-8f));  // not parallel to the plane
    if (Ops::none(accept)) return accept;
    t = (quad.plane_offset() - dot(normal, origin)) / denominator;
    accept = accept && Ops::negate(t <= t_min || t_max <= t);
    if (Ops::none(accept)) return accept;
    const LaneVec3<Real> planar = (origin + direction * t) - quad.corner();
    const LaneVec3<Real> w = quad.w();
    alpha = dot(w, cross(planar, quad.edge_v()));
    beta = dot(w, cross(quad.edge_u(), planar));
    const Real low(-kQuadEdgeTolerance), high(1.0f + kQuadEdgeTolerance);
    return accept && alpha >= low && alpha <= high && beta >= low && beta <= high;
}

// One quad as a QuadSource.
struct QuadLanes {
    const Quad& quad;
    FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<float> normal() const { return lanes_of(quad.normal); }
    FARMRT_CPU_GPU FARMRT_INLINE float plane_offset() const { return quad.plane_offset; }
    FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<float> corner() const { return lanes_of(quad.corner); }
    FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<float> edge_u() const { return lanes_of(quad.edge_u); }
    FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<float> edge_v() const { return lanes_of(quad.edge_v); }
    FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<float> w() const { return lanes_of(quad.w); }
};

FARMRT_CPU_GPU FARMRT_INLINE bool intersect_quad(const Quad& q, const Ray& ray, float t_min, float t_max, float& t_out,
                                                 float& a_out, float& b_out) {
    float t, alpha, beta;
    if (!quad_hit(QuadLanes{q}, lanes_of(ray.origin), lanes_of(ray.direction), t_min, t_max, t, alpha, beta)) {
        return false;
    }
    t_out = t;
    a_out = alpha;
    b_out = beta;
    return true;
}

// Watertight ray/triangle intersection (Woop, Benthin and Wald, "Watertight
// Ray/Triangle Intersection", JCGT 2013, as in pbrt-v4): the vertices are
// moved into a frame where the ray runs along +z from the origin, and the hit
// is decided by the signs of 2-D edge functions. A shared edge yields exactly
// negated edge functions in its two triangles, so a ray through an edge or a
// vertex of a closed mesh always hits at least one triangle (Möller-Trumbore
// can let such rays slip between neighbours).
// Per ray: the axis where the direction is largest becomes z, x and y follow
// cyclically (keeping the frame's handedness), and the shear that turns the
// direction into +z. Shared with the SIMD kernels, which compute it once per ray.
struct TriangleRayFrame {
    int kx, ky, kz;
    float shear_x, shear_y, shear_z;
    bool valid;  // false for a zero direction
};

// `inverse_direction`: 1 / the direction, per axis (RayBoxTester's, the same
// correctly rounded divisions), so that a tracer that tests each triangle on
// its own (the GPU's) builds the frame per triangle without a division of its
// own, where an exact division costs a dozen instructions.
template <class InverseOfAxis>
FARMRT_CPU_GPU FARMRT_INLINE TriangleRayFrame triangle_ray_frame_with(const Vec3& direction,
                                                                      const InverseOfAxis& inverse_of_axis) {
    TriangleRayFrame f;
    const float ax = fabsf(direction.x), ay = fabsf(direction.y), az = fabsf(direction.z);
    f.kz = (ax > ay) ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
    f.kx = f.kz == 2 ? 0 : f.kz + 1;
    f.ky = f.kx == 2 ? 0 : f.kx + 1;
    const float dx = direction[f.kx], dy = direction[f.ky], dz = direction[f.kz];
    f.valid = dz != 0.0f;
    // One division: the shears scale by 1 / dz (any shear that is the same
    // for every triangle the ray meets keeps the test watertight).
    f.shear_z = f.valid ? inverse_of_axis(f.kz, dz) : 0.0f;
    f.shear_x = -dx * f.shear_z;
    f.shear_y = -dy * f.shear_z;
    return f;
}

FARMRT_CPU_GPU FARMRT_INLINE TriangleRayFrame triangle_ray_frame(const Vec3& direction) {
    return triangle_ray_frame_with(direction, [](int, float d) { return 1.0f / d; });
}

FARMRT_CPU_GPU FARMRT_INLINE TriangleRayFrame triangle_ray_frame(const Vec3& direction, const Vec3& inverse_direction) {
    return triangle_ray_frame_with(direction, [&](int axis, float) { return inverse_direction[axis]; });
}

// The watertight test over lanes, in two steps, so that a tracer can redecide
// the lanes whose edge functions are exactly 0 in float (below: in double).
// First the vertices relative to the origin in the ray's frame: permuted by
// the frame (`vertex(i)` of a TriangleSource gives vertex i's (kx, ky, kz)
// components as lanes; `origin` is permuted alike) and sheared in x and y.
template <class Real>
struct TriangleInRayFrame {
    LaneVec3<Real> p0, p1, p2;
    Real e0, e1, e2;  // the edge functions
};

template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<Real> sheared_into_ray_frame(const LaneVec3<Real>& vertex,
                                                                   const LaneVec3<Real>& origin, const Real& shear_x,
                                                                   const Real& shear_y) {
    const LaneVec3<Real> a = vertex - origin;
    return {a.x + shear_x * a.z, a.y + shear_y * a.z, a.z};
}

template <class Real, class TriangleSource>
FARMRT_CPU_GPU FARMRT_INLINE TriangleInRayFrame<Real> triangle_in_ray_frame(const TriangleSource& triangle,
                                                                            const LaneVec3<Real>& origin,
                                                                            const Real& shear_x, const Real& shear_y) {
    using Ops = LaneOps<Real>;
    TriangleInRayFrame<Real> f;
    f.p0 = sheared_into_ray_frame(triangle.vertex(0), origin, shear_x, shear_y);
    f.p1 = sheared_into_ray_frame(triangle.vertex(1), origin, shear_x, shear_y);
    f.p2 = sheared_into_ray_frame(triangle.vertex(2), origin, shear_x, shear_y);
    f.e0 = Ops::difference_of_products(f.p1.x, f.p2.y, f.p1.y, f.p2.x);
    f.e1 = Ops::difference_of_products(f.p2.x, f.p0.y, f.p2.y, f.p0.x);
    f.e2 = Ops::difference_of_products(f.p0.x, f.p1.y, f.p0.y, f.p1.x);
    return f;
}

// Lanes with an edge function exactly 0 in float.
template <class Real>
FARMRT_CPU_GPU FARMRT_INLINE LaneMask<Real> on_triangle_edge(const TriangleInRayFrame<Real>& f) {
    const Real zero(0.0f);
    return f.e0 == zero || f.e1 == zero || f.e2 == zero;
}

// Then the decision, within the lanes of `accept`: the edge functions share a
// sign and t is in (t_min, t_max). `t_max()` gives the bound, asked only for
// lanes that pass the edge test (most packets of a leaf do not, and the
// SIMD tracer's bound costs a load and a compare). The barycentrics are e1 and
// e2 times the `inverse_determinant` it fills.
template <class Real, class Bound>
FARMRT_CPU_GPU FARMRT_INLINE LaneMask<Real> triangle_hit(const TriangleInRayFrame<Real>& f, LaneMask<Real> accept,
                                                         const Real& shear_z, const Real& t_min, const Bound& t_max,
                                                         Real& t, Real& inverse_determinant) {
    using Ops = LaneOps<Real>;
    const Real zero(0.0f);
    const LaneMask<Real> mixed_signs =
        (f.e0 < zero || f.e1 < zero || f.e2 < zero) && (f.e0 > zero || f.e1 > zero || f.e2 > zero);
    const Real determinant = f.e0 + f.e1 + f.e2;
    accept = accept && Ops::negate(mixed_signs) && determinant != zero;
    if (Ops::none(accept)) return accept;
    const Real scaled_t = f.e0 * (shear_z * f.p0.z) + f.e1 * (shear_z * f.p1.z) + f.e2 * (shear_z * f.p2.z);
    inverse_determinant = Real(1.0f) / determinant;
    t = scaled_t * inverse_determinant;
    return accept && t > t_min && t < t_max();
}

// A bound known beforehand, as triangle_hit's `t_max`.
template <class Real>
struct FixedBound {
    Real t;
    FARMRT_CPU_GPU FARMRT_INLINE Real operator()() const { return t; }
};

// One triangle's corners as a TriangleSource.
struct TriangleLanes {
    const TriangleCorners& corners;
    const TriangleRayFrame& frame;
    FARMRT_CPU_GPU FARMRT_INLINE LaneVec3<float> vertex(int i) const {
        // A copy, permuted in registers (indexing the triangle's memory by
        // axis made the GPU's triangle test 22% slower).
        const Vec3 v = i == 0 ? corners.vertex0 : (i == 1 ? corners.vertex1 : corners.vertex2);
        return {v[frame.kx], v[frame.ky], v[frame.kz]};
    }
};

// `frame`: the ray's (triangle_ray_frame).
FARMRT_CPU_GPU FARMRT_INLINE bool intersect_triangle(const TriangleCorners& corners, const Ray& ray,
                                                     const TriangleRayFrame& frame, float t_min, float t_max,
                                                     float& t_out, float& b1_out, float& b2_out) {
    if (!frame.valid) return false;
    const Vec3 o = ray.origin;
    const LaneVec3<float> origin{o[frame.kx], o[frame.ky], o[frame.kz]};
    TriangleInRayFrame<float> f =
        triangle_in_ray_frame(TriangleLanes{corners, frame}, origin, frame.shear_x, frame.shear_y);
    // Exactly on an edge in float: decide in double, as the paper does.
    if (on_triangle_edge(f)) {
        f.e0 = float(double(f.p1.x) * double(f.p2.y) - double(f.p1.y) * double(f.p2.x));
        f.e1 = float(double(f.p2.x) * double(f.p0.y) - double(f.p2.y) * double(f.p0.x));
        f.e2 = float(double(f.p0.x) * double(f.p1.y) - double(f.p0.y) * double(f.p1.x));
    }
    float t, inverse_determinant;
    if (!triangle_hit(f, true, frame.shear_z, t_min, FixedBound<float>{t_max}, t, inverse_determinant)) return false;
    t_out = t;
    b1_out = f.e1 * inverse_determinant;
    b2_out = f.e2 * inverse_determinant;
    return true;
}

FARMRT_CPU_GPU FARMRT_INLINE bool intersect_triangle(const Triangle& tri, const Ray& ray, float t_min, float t_max,
                                                     float& t_out, float& b1_out, float& b2_out) {
    return intersect_triangle(corners_of(tri), ray, triangle_ray_frame(ray.direction), t_min, t_max, t_out, b1_out,
                              b2_out);
}

}  // namespace farmrt
