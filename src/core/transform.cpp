#include "core/transform.h"

#include <cmath>

namespace farmrt {
namespace {

constexpr double kPiDouble = 3.14159265358979323846;

// Sine and cosine of an angle in degrees, exact at multiples of 90 degrees so
// that `rotate_y: 90` maps axes onto axes without a 6e-17 residue.
void sine_cosine_degrees(double degrees, double& sine, double& cosine) {
    const double quarter_turns = degrees / 90.0;
    if (quarter_turns == std::floor(quarter_turns) && std::fabs(quarter_turns) < 1e9) {
        const long long k = static_cast<long long>(quarter_turns);
        const int phase = static_cast<int>(((k % 4) + 4) % 4);
        const double sines[4] = {0, 1, 0, -1};
        sine = sines[phase];
        cosine = sines[(phase + 1) % 4];
        return;
    }
    const double radians = degrees * kPiDouble / 180.0;
    sine = std::sin(radians);
    cosine = std::cos(radians);
}

// A rotation by `degrees` in the plane of axes `from` and `to`, turning `from`
// towards `to`: from' = cos from - sin to, to' = sin from + cos to.
Transform plane_rotation(int from, int to, double degrees) {
    double s, c;
    sine_cosine_degrees(degrees, s, c);
    Transform t;
    t.m[from][from] = c;
    t.m[from][to] = -s;
    t.m[to][from] = s;
    t.m[to][to] = c;
    return t;
}

}  // namespace

Transform Transform::scale(double sx, double sy, double sz) {
    Transform t;
    t.m[0][0] = sx;
    t.m[1][1] = sy;
    t.m[2][2] = sz;
    return t;
}

// Right-handed rotations, as the book's rotate_y: x' = cos x + sin z, z' = -sin x + cos z.
Transform Transform::rotate_x(double degrees) { return plane_rotation(1, 2, degrees); }
Transform Transform::rotate_y(double degrees) { return plane_rotation(2, 0, degrees); }
Transform Transform::rotate_z(double degrees) { return plane_rotation(0, 1, degrees); }

Transform Transform::translate(const Vec3& offset) {
    Transform t;
    t.m[0][3] = offset.x;
    t.m[1][3] = offset.y;
    t.m[2][3] = offset.z;
    return t;
}

Transform Transform::then(const Transform& next) const {
    // result = next * this (as 4x4 matrices with the implicit last row 0 0 0 1).
    Transform r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
            double sum = j == 3 ? next.m[i][3] : 0.0;
            for (int k = 0; k < 3; ++k) sum += next.m[i][k] * m[k][j];
            r.m[i][j] = sum;
        }
    }
    return r;
}

double Transform::determinant() const {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

Transform Transform::inverse() const {
    const double inverse_determinant = 1.0 / determinant();
    Transform r;
    r.m[0][0] = (m[1][1] * m[2][2] - m[1][2] * m[2][1]) * inverse_determinant;
    r.m[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * inverse_determinant;
    r.m[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * inverse_determinant;
    r.m[1][0] = (m[1][2] * m[2][0] - m[1][0] * m[2][2]) * inverse_determinant;
    r.m[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * inverse_determinant;
    r.m[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * inverse_determinant;
    r.m[2][0] = (m[1][0] * m[2][1] - m[1][1] * m[2][0]) * inverse_determinant;
    r.m[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * inverse_determinant;
    r.m[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * inverse_determinant;
    for (int i = 0; i < 3; ++i) {
        r.m[i][3] = -(r.m[i][0] * m[0][3] + r.m[i][1] * m[1][3] + r.m[i][2] * m[2][3]);
    }
    return r;
}

bool Transform::is_identity() const {
    const Transform identity_matrix;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
            if (m[i][j] != identity_matrix.m[i][j]) return false;
        }
    }
    return true;
}

bool Transform::is_uniform_positive_scale_and_translation(double& scale_out) const {
    const double s = m[0][0];
    if (!(s > 0) || m[1][1] != s || m[2][2] != s) return false;
    if (m[0][1] != 0 || m[0][2] != 0 || m[1][0] != 0 || m[1][2] != 0 || m[2][0] != 0 || m[2][1] != 0) return false;
    scale_out = s;
    return true;
}

Vec3 Transform::point(const Vec3& p) const {
    Vec3 r;
    for (int i = 0; i < 3; ++i) r[i] = float(m[i][0] * p.x + m[i][1] * p.y + m[i][2] * p.z + m[i][3]);
    return r;
}

Vec3 Transform::vector(const Vec3& v) const {
    Vec3 r;
    for (int i = 0; i < 3; ++i) r[i] = float(m[i][0] * v.x + m[i][1] * v.y + m[i][2] * v.z);
    return r;
}

Vec3 Transform::normal(const Vec3& n) const {
    const Transform inv = inverse();
    double r[3];
    for (int i = 0; i < 3; ++i) r[i] = inv.m[0][i] * n.x + inv.m[1][i] * n.y + inv.m[2][i] * n.z;
    const double length_value = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    return Vec3(float(r[0] / length_value), float(r[1] / length_value), float(r[2] / length_value));
}

Affine Transform::to_affine() const {
    Affine a;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) a.m[4 * i + j] = float(m[i][j]);
    }
    return a;
}

}  // namespace farmrt
