#include "io/polygon_triangulation.h"

#include <algorithm>
#include <cmath>

namespace farmrt {
namespace {

struct Point2 {
    double x, y;
};

double cross(const Point2& o, const Point2& a, const Point2& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// The polygon in the plane its Newell normal faces, oriented counter-clockwise.
std::vector<Point2> projected(const std::vector<Vec3>& corners) {
    double normal[3] = {0, 0, 0};
    const size_t n = corners.size();
    for (size_t i = 0; i < n; ++i) {
        const Vec3& a = corners[i];
        const Vec3& b = corners[(i + 1) % n];
        normal[0] += (double(a.y) - b.y) * (double(a.z) + b.z);
        normal[1] += (double(a.z) - b.z) * (double(a.x) + b.x);
        normal[2] += (double(a.x) - b.x) * (double(a.y) + b.y);
    }
    int drop = 0;
    for (int axis = 1; axis < 3; ++axis) {
        if (std::fabs(normal[axis]) > std::fabs(normal[drop])) drop = axis;
    }
    const int u = (drop + 1) % 3, v = (drop + 2) % 3;
    const bool flip = normal[drop] < 0;
    std::vector<Point2> points(n);
    for (size_t i = 0; i < n; ++i) {
        const double pu = corners[i][u], pv = corners[i][v];
        points[i] = flip ? Point2{pv, pu} : Point2{pu, pv};
    }
    return points;
}

// Convex, and winding once: every turn to the left (or straight, within the
// rounding of float corners: a corner within a few float steps of the line
// through its neighbours counts as on it, as on a circle of 200,000 float
// points, whose corners wobble by more than the circle bends), and the turns
// adding up to one full circle (a pentagram turns left five times too).
bool is_convex(const std::vector<Point2>& corners) {
    // Repeated corners (equal in float) turn nowhere: left out.
    std::vector<Point2> p;
    p.reserve(corners.size());
    for (const Point2& corner : corners) {
        if (p.empty() || corner.x != p.back().x || corner.y != p.back().y) p.push_back(corner);
    }
    while (p.size() > 1 && p.front().x == p.back().x && p.front().y == p.back().y) p.pop_back();
    const size_t n = p.size();
    if (n < 3) return false;
    double scale = 0;
    for (const Point2& corner : p) scale = std::max({scale, std::fabs(corner.x), std::fabs(corner.y)});
    const double tolerance = 8 * 0x1p-23 * scale;  // a few float steps at the polygon's size
    double turning = 0;
    for (size_t i = 0; i < n; ++i) {
        const Point2& a = p[(i + n - 1) % n];
        const Point2& b = p[i];
        const Point2& c = p[(i + 1) % n];
        // b's distance from the line a-c, negative on the right.
        if (cross(a, b, c) < -tolerance * std::hypot(c.x - a.x, c.y - a.y)) return false;
        const double in = std::atan2(b.y - a.y, b.x - a.x), out = std::atan2(c.y - b.y, c.x - b.x);
        double turn = out - in;
        while (turn <= -M_PI) turn += 2 * M_PI;
        while (turn > M_PI) turn -= 2 * M_PI;
        turning += turn;
    }
    return std::fabs(turning - 2 * M_PI) < 1e-3;
}

bool inside_triangle(const Point2& p, const Point2& a, const Point2& b, const Point2& c) {
    return cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0;
}

}  // namespace

std::vector<std::array<uint32_t, 3>> triangulate_polygon(const std::vector<Vec3>& corners) {
    const size_t n = corners.size();
    std::vector<std::array<uint32_t, 3>> triangles;
    if (n < 3) return triangles;
    if (n == 3) return {{0, 1, 2}};
    if (n == 4) {
        // The shorter diagonal, in float as tinyobjloader computes it, so
        // that quads split as they always have.
        const Vec3 diagonal02 = corners[2] - corners[0], diagonal13 = corners[3] - corners[1];
        const float squared02 = diagonal02.x * diagonal02.x + diagonal02.y * diagonal02.y + diagonal02.z * diagonal02.z;
        const float squared13 = diagonal13.x * diagonal13.x + diagonal13.y * diagonal13.y + diagonal13.z * diagonal13.z;
        if (squared02 < squared13) return {{0, 1, 2}, {0, 2, 3}};
        return {{0, 1, 3}, {1, 2, 3}};
    }
    const std::vector<Point2> p = projected(corners);
    triangles.reserve(n - 2);
    if (is_convex(p)) {
        for (uint32_t i = 1; i + 1 < n; ++i) triangles.push_back({0, i, i + 1});
        return triangles;
    }
    if (n > kMaxConcavePolygonCorners) return {};
    // Ear clipping over a ring of the corners left: a convex corner whose
    // triangle holds no reflex corner is cut off.
    std::vector<uint32_t> ring(n);
    for (uint32_t i = 0; i < n; ++i) ring[i] = i;
    size_t misses = 0;
    size_t at = 0;
    while (ring.size() > 3 && misses < ring.size()) {
        const size_t m = ring.size();
        const uint32_t a = ring[(at + m - 1) % m], b = ring[at % m], c = ring[(at + 1) % m];
        bool ear = cross(p[a], p[b], p[c]) > 0;
        for (size_t k = 0; ear && k < m; ++k) {
            const uint32_t q = ring[k];
            if (q == a || q == b || q == c) continue;
            const uint32_t before = ring[(k + m - 1) % m], after = ring[(k + 1) % m];
            if (cross(p[before], p[q], p[after]) <= 0 && inside_triangle(p[q], p[a], p[b], p[c])) ear = false;
        }
        if (ear) {
            triangles.push_back({a, b, c});
            ring.erase(ring.begin() + std::ptrdiff_t(at % m));
            at = at % m == 0 ? 0 : at % m - 1;
            misses = 0;
        } else {
            at = (at + 1) % m;
            ++misses;
        }
    }
    for (size_t i = 1; i + 1 < ring.size(); ++i) triangles.push_back({ring[0], ring[i], ring[i + 1]});
    return triangles;
}

}  // namespace farmrt
