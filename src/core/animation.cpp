#include "core/animation.h"

#include <algorithm>
#include <cmath>

namespace farmrt {
namespace {

struct Vec3d {
    double x = 0, y = 0, z = 0;
};
Vec3d to_double(const Vec3& v) { return {v.x, v.y, v.z}; }
Vec3 to_float(const Vec3d& v) { return Vec3(float(v.x), float(v.y), float(v.z)); }

// Cubic Hermite basis on s in [0, 1].
struct HermiteWeights {
    double p0, m0, p1, m1;
};
HermiteWeights hermite(double s) {
    const double s2 = s * s, s3 = s2 * s;
    return {2 * s3 - 3 * s2 + 1, s3 - 2 * s2 + s, -2 * s3 + 3 * s2, s3 - s2};
}

// Catmull-Rom tangent (per frame) at key k of values v over times t.
double catmull_rom_tangent(const std::vector<double>& t, const std::vector<double>& v, size_t k) {
    const size_t n = t.size();
    const size_t before = k == 0 ? 0 : k - 1;
    const size_t after = k + 1 == n ? k : k + 1;
    return (v[after] - v[before]) / (t[after] - t[before]);
}

// Fritsch-Carlson monotone tangents: zero at local extrema, limited elsewhere
// so that the curve never leaves the range of the two keys around it.
std::vector<double> monotone_tangents(const std::vector<double>& t, const std::vector<double>& v) {
    const size_t n = t.size();
    std::vector<double> slope(n - 1), m(n);
    for (size_t k = 0; k + 1 < n; ++k) slope[k] = (v[k + 1] - v[k]) / (t[k + 1] - t[k]);
    m[0] = slope[0];
    m[n - 1] = slope[n - 2];
    for (size_t k = 1; k + 1 < n; ++k) m[k] = slope[k - 1] * slope[k] <= 0 ? 0.0 : 0.5 * (slope[k - 1] + slope[k]);
    for (size_t k = 0; k + 1 < n; ++k) {
        if (slope[k] == 0) {
            m[k] = m[k + 1] = 0;
            continue;
        }
        const double a = m[k] / slope[k], b = m[k + 1] / slope[k];
        const double r = a * a + b * b;
        if (r > 9) {
            const double tau = 3 / std::sqrt(r);
            m[k] = tau * a * slope[k];
            m[k + 1] = tau * b * slope[k];
        }
    }
    return m;
}

// One scalar track evaluated at frame f inside segment k (t[k] <= f <= t[k+1]).
double evaluate(const std::vector<double>& t, const std::vector<double>& v, const std::vector<double>& m, size_t k,
                double f) {
    const double h = t[k + 1] - t[k];
    const HermiteWeights w = hermite((f - t[k]) / h);
    return w.p0 * v[k] + w.m0 * h * m[k] + w.p1 * v[k + 1] + w.m1 * h * m[k + 1];
}

}  // namespace

CameraSettings camera_at_frame(const CameraSettings& base, const Animation& animation, uint32_t frame) {
    const std::vector<CameraKeyframe>& keys = animation.keyframes;
    if (keys.empty()) return base;
    if (frame <= keys.front().frame) return keys.front().camera;
    if (frame >= keys.back().frame) return keys.back().camera;
    const size_t n = keys.size();
    size_t k = 0;
    while (keys[k + 1].frame < frame) ++k;
    if (keys[k + 1].frame == frame) return keys[k + 1].camera;

    std::vector<double> t(n);
    for (size_t i = 0; i < n; ++i) t[i] = keys[i].frame;
    const double f = frame;
    auto track = [&](auto get, bool monotone) {
        std::vector<double> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = get(keys[i].camera);
        std::vector<double> m(n);
        if (monotone) {
            m = monotone_tangents(t, v);
        } else {
            for (size_t i = 0; i < n; ++i) m[i] = catmull_rom_tangent(t, v, i);
        }
        return evaluate(t, v, m, k, f);
    };
    CameraSettings c = keys[k].camera;  // vup comes from the scene camera
    Vec3d from, at;
    from.x = track([](const CameraSettings& s) { return to_double(s.lookfrom).x; }, false);
    from.y = track([](const CameraSettings& s) { return to_double(s.lookfrom).y; }, false);
    from.z = track([](const CameraSettings& s) { return to_double(s.lookfrom).z; }, false);
    at.x = track([](const CameraSettings& s) { return to_double(s.lookat).x; }, false);
    at.y = track([](const CameraSettings& s) { return to_double(s.lookat).y; }, false);
    at.z = track([](const CameraSettings& s) { return to_double(s.lookat).z; }, false);
    c.lookfrom = to_float(from);
    c.lookat = to_float(at);
    c.vfov = track([](const CameraSettings& s) { return s.vfov; }, true);
    c.focus_dist = track([](const CameraSettings& s) { return s.focus_dist; }, true);
    c.defocus_angle = track([](const CameraSettings& s) { return s.defocus_angle; }, true);
    return c;
}

std::string camera_problem(const CameraSettings& c) {
    const Vec3 view = c.lookfrom - c.lookat;
    if (!(length_squared(view) > 0)) return "lookfrom equals lookat";
    if (!(length_squared(cross(c.vup, view)) > 1e-12f * length_squared(view) * length_squared(c.vup))) {
        return "vup is parallel to the view direction";
    }
    if (!(c.vfov > 0 && c.vfov < 180)) return "vfov must be in (0, 180)";
    if (!(c.focus_dist > 0)) return "focus_dist must be > 0";
    if (!(c.defocus_angle >= 0 && c.defocus_angle < 180)) return "defocus_angle must be in [0, 180)";
    return "";
}

}  // namespace farmrt
