#include "io/tangent_space.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace farmrt {
namespace {

using Vector = std::array<double, 3>;

Vector at(const std::vector<double>& values, size_t vertex) {
    return {values[3 * vertex], values[3 * vertex + 1], values[3 * vertex + 2]};
}
Vector minus(const Vector& a, const Vector& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vector scaled(double s, const Vector& a) { return {s * a[0], s * a[1], s * a[2]}; }
double dot(const Vector& a, const Vector& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// `v` made unit; false (and `v` unchanged) when it has no length.
bool normalize(Vector& v) {
    const double length = std::sqrt(dot(v, v));
    if (!(length > 0) || !std::isfinite(length)) return false;
    v = scaled(1.0 / length, v);
    return true;
}

// `v` less its part along the unit normal `n`.
Vector in_plane(const Vector& v, const Vector& n) { return minus(v, scaled(dot(n, v), n)); }

// One id per distinct (position, normal, (u, v)) of the vertices.
std::vector<uint32_t> welded_vertices(const std::vector<double>& positions, const std::vector<double>& normals,
                                      const std::vector<double>& uvs) {
    const size_t count = positions.size() / 3;
    std::map<std::array<double, 8>, uint32_t> ids;
    std::vector<uint32_t> welded(count);
    for (size_t v = 0; v < count; ++v) {
        const std::array<double, 8> key = {positions[3 * v], positions[3 * v + 1], positions[3 * v + 2],
                                           normals[3 * v],   normals[3 * v + 1],   normals[3 * v + 2],
                                           uvs[2 * v],       uvs[2 * v + 1]};
        welded[v] = ids.emplace(key, uint32_t(ids.size())).first->second;
    }
    return welded;
}

}  // namespace

std::vector<double> tangent_space(const std::vector<double>& positions, const std::vector<double>& normals,
                                  const std::vector<double>& uvs, const std::vector<uint32_t>& corners) {
    const size_t triangles = corners.size() / 3;
    const std::vector<uint32_t> welded = welded_vertices(positions, normals, uvs);
    const uint32_t* const vertex = corners.data();
    // Each triangle's unit direction of increasing u and the orientation of
    // its (u, v): +1, -1, or 0 where they give none.
    std::vector<Vector> along_u(triangles, Vector{0, 0, 0});
    std::vector<int> orientation(triangles, 0);
    for (size_t t = 0; t < triangles; ++t) {
        const size_t a = vertex[3 * t], b = vertex[3 * t + 1], c = vertex[3 * t + 2];
        const Vector d1 = minus(at(positions, b), at(positions, a)), d2 = minus(at(positions, c), at(positions, a));
        const double du1 = uvs[2 * b] - uvs[2 * a], dv1 = uvs[2 * b + 1] - uvs[2 * a + 1];
        const double du2 = uvs[2 * c] - uvs[2 * a], dv2 = uvs[2 * c + 1] - uvs[2 * a + 1];
        const double area = du1 * dv2 - du2 * dv1;  // twice the signed area in (u, v)
        if (!(std::fabs(area) > 0) || !std::isfinite(area)) continue;
        // dP/du times the area; its sign taken out by the normalisation.
        Vector u = minus(scaled(dv2, d1), scaled(dv1, d2));
        if (!normalize(u)) continue;
        along_u[t] = scaled(area > 0 ? 1.0 : -1.0, u);
        orientation[t] = area > 0 ? 1 : -1;
    }
    // MikkTSpace's groups: a vertex's corners in triangles of one
    // orientation joined across the edges they share (a triangle's neighbour
    // across edge a -> b holds b -> a), so that a fan of mirrored and
    // unmirrored triangles, or two surfaces meeting at a point, stay apart.
    const size_t corner_count = 3 * triangles;
    std::vector<size_t> parent(corner_count);
    for (size_t c = 0; c < corner_count; ++c) parent[c] = c;
    const auto root = [&](size_t c) {
        while (parent[c] != c) c = parent[c] = parent[parent[c]];
        return c;
    };
    std::map<std::pair<uint32_t, uint32_t>, size_t> edges;  // welded a -> b: the corner at a
    for (size_t c = 0; c < corner_count; ++c) {
        if (orientation[c / 3] == 0) continue;
        const size_t next = c / 3 * 3 + (c + 1) % 3;
        edges.emplace(std::make_pair(welded[vertex[c]], welded[vertex[next]]), c);
    }
    for (size_t c = 0; c < corner_count; ++c) {
        if (orientation[c / 3] == 0) continue;
        const size_t next = c / 3 * 3 + (c + 1) % 3;
        const auto twin = edges.find(std::make_pair(welded[vertex[next]], welded[vertex[c]]));
        if (twin == edges.end() || orientation[twin->second / 3] != orientation[c / 3]) continue;
        // The twin's corner at `next`'s vertex, and the corner after it at c's.
        const size_t twin_next = twin->second / 3 * 3 + (twin->second + 1) % 3;
        parent[root(twin->second)] = root(next);
        parent[root(twin_next)] = root(c);
    }
    // Per corner of a usable triangle, its angle-weighted share, summed in its group.
    std::vector<Vector> sums(corner_count, Vector{0, 0, 0});
    std::map<std::pair<uint32_t, int>, size_t> any_group;  // (welded vertex, orientation) -> a group there
    for (size_t t = 0; t < triangles; ++t) {
        if (orientation[t] == 0) continue;
        for (size_t k = 0; k < 3; ++k) {
            const size_t v = vertex[3 * t + k];
            Vector n = at(normals, v);
            if (!normalize(n)) continue;
            Vector tangent = in_plane(along_u[t], n);
            if (!normalize(tangent)) continue;
            // The corner's angle between its two edges, in the normal's plane.
            Vector edge1 = in_plane(minus(at(positions, vertex[3 * t + (k + 1) % 3]), at(positions, v)), n);
            Vector edge2 = in_plane(minus(at(positions, vertex[3 * t + (k + 2) % 3]), at(positions, v)), n);
            double angle = 0;
            if (normalize(edge1) && normalize(edge2)) angle = std::acos(std::clamp(dot(edge1, edge2), -1.0, 1.0));
            const size_t group = root(3 * t + k);
            for (size_t i = 0; i < 3; ++i) sums[group][i] += angle * tangent[i];
            any_group.emplace(std::make_pair(welded[v], orientation[t]), group);
        }
    }
    std::vector<double> tangents(4 * corner_count, 0.0);
    for (size_t c = 0; c < corner_count; ++c) {
        // A triangle without usable (u, v) takes a group of its vertex, an
        // unmirrored one first.
        int side = orientation[c / 3];
        size_t group = root(c);
        if (side == 0) {
            const uint32_t id = welded[vertex[c]];
            side = any_group.count({id, 1}) ? 1 : -1;
            const auto found = any_group.find({id, side});
            if (found == any_group.end()) continue;
            group = found->second;
        }
        Vector tangent = sums[group];
        if (!normalize(tangent)) continue;
        for (size_t i = 0; i < 3; ++i) tangents[4 * c + i] = tangent[i];
        tangents[4 * c + 3] = double(side);
    }
    return tangents;
}

}  // namespace farmrt
