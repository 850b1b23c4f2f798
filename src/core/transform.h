// Affine transforms of objects: `transform: {scale, rotate_x, rotate_y,
// rotate_z, translate}` in a scene, applied in that order. `Affine` is the
// float 3x4 matrix that tracers apply to rays, points and normals on every
// backend; `Transform` is its double-precision host counterpart, used to
// compose the steps and invert them without accumulating float error.
#pragma once

#include "core/vector_math.h"

namespace farmrt {

// p' = linear * p + translation, stored row-major: m[4 * row + column], with
// the translation in column 3.
struct Affine {
    float m[12];

    FARMRT_CPU_GPU Vec3 point(const Vec3& p) const {
        return {m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3], m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7],
                m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]};
    }
    FARMRT_CPU_GPU Vec3 vector(const Vec3& v) const {
        return {m[0] * v.x + m[1] * v.y + m[2] * v.z, m[4] * v.x + m[5] * v.y + m[6] * v.z,
                m[8] * v.x + m[9] * v.y + m[10] * v.z};
    }
    // The transposed linear part times n. Called on the inverse (object from
    // world) transform it maps an object-space normal to world space, which
    // keeps normals perpendicular to surfaces under non-uniform scale.
    FARMRT_CPU_GPU Vec3 transposed_vector(const Vec3& n) const {
        return {m[0] * n.x + m[4] * n.y + m[8] * n.z, m[1] * n.x + m[5] * n.y + m[9] * n.z,
                m[2] * n.x + m[6] * n.y + m[10] * n.z};
    }
};

// Host-side affine transform in double precision.
struct Transform {
    double m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};

    static Transform identity() { return Transform{}; }
    static Transform scale(double sx, double sy, double sz);
    static Transform rotate_x(double degrees);
    static Transform rotate_y(double degrees);
    static Transform rotate_z(double degrees);
    static Transform translate(const Vec3& offset);

    // `then(next)`: apply this transform first, then `next`.
    Transform then(const Transform& next) const;
    Transform inverse() const;  // the matrix must be invertible
    double determinant() const;

    bool is_identity() const;
    // True when the linear part is s times the identity with s > 0 (no
    // rotation, no shear, no mirroring): such transforms keep a sphere a
    // sphere with the same texture orientation.
    bool is_uniform_positive_scale_and_translation(double& scale_out) const;

    Vec3 point(const Vec3& p) const;
    Vec3 vector(const Vec3& v) const;
    // A normal: the inverse transpose of the linear part times n, unit length.
    Vec3 normal(const Vec3& n) const;

    Affine to_affine() const;
};

}  // namespace farmrt
