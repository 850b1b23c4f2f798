#include "io/vertex_tangents.h"

#include <array>
#include <cmath>

namespace farmrt {
namespace {

using Vector = std::array<double, 3>;

Vector at(const std::vector<double>& values, size_t vertex) {
    return {values[3 * vertex], values[3 * vertex + 1], values[3 * vertex + 2]};
}

double dot(const Vector& a, const Vector& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

Vector cross(const Vector& a, const Vector& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

}  // namespace

std::vector<double> vertex_tangents(const std::vector<double>& positions, const std::vector<double>& normals,
                                    const std::vector<double>& uvs, const std::vector<uint32_t>& corners) {
    const size_t vertex_count = positions.size() / 3;
    std::vector<Vector> along_u(vertex_count, Vector{0, 0, 0}), along_v(vertex_count, Vector{0, 0, 0});
    for (size_t i = 0; i + 2 < corners.size(); i += 3) {
        const size_t a = corners[i], b = corners[i + 1], c = corners[i + 2];
        const Vector p0 = at(positions, a), p1 = at(positions, b), p2 = at(positions, c);
        const Vector e1 = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        const Vector e2 = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        const double du1 = uvs[2 * b] - uvs[2 * a], dv1 = uvs[2 * b + 1] - uvs[2 * a + 1];
        const double du2 = uvs[2 * c] - uvs[2 * a], dv2 = uvs[2 * c + 1] - uvs[2 * a + 1];
        // dP/du and dP/dv times the triangle's (u, v) determinant, whose sign
        // is taken out so that the weight is its (u, v) area.
        const double determinant = du1 * dv2 - du2 * dv1;
        if (!(std::fabs(determinant) > 0) || !std::isfinite(determinant)) continue;
        const double sign = determinant > 0 ? 1.0 : -1.0;
        for (int k = 0; k < 3; ++k) {
            const double u_direction = sign * (dv2 * e1[size_t(k)] - dv1 * e2[size_t(k)]);
            const double v_direction = sign * (du1 * e2[size_t(k)] - du2 * e1[size_t(k)]);
            for (size_t vertex : {a, b, c}) {
                along_u[vertex][size_t(k)] += u_direction;
                along_v[vertex][size_t(k)] += v_direction;
            }
        }
    }
    std::vector<double> tangents(4 * vertex_count, 0.0);
    for (size_t vertex = 0; vertex < vertex_count; ++vertex) {
        const Vector n = at(normals, vertex);
        const double n_length = std::sqrt(dot(n, n));
        if (!(n_length > 0)) continue;
        const Vector unit_n = {n[0] / n_length, n[1] / n_length, n[2] / n_length};
        const Vector& u = along_u[vertex];
        const double projection = dot(u, unit_n);
        const Vector t = {u[0] - projection * unit_n[0], u[1] - projection * unit_n[1], u[2] - projection * unit_n[2]};
        const double length = std::sqrt(dot(t, t));
        if (!(length > 0) || !std::isfinite(length)) continue;
        for (size_t k = 0; k < 3; ++k) tangents[4 * vertex + k] = t[k] / length;
        tangents[4 * vertex + 3] = dot(cross(unit_n, t), along_v[vertex]) < 0 ? -1.0 : 1.0;
    }
    return tangents;
}

}  // namespace farmrt
