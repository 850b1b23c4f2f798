#include "core/camera.h"

#include <cmath>

namespace farmrt {
namespace {

struct Vec3d {
    double x, y, z;
};
Vec3d to_double(const Vec3& v) { return {v.x, v.y, v.z}; }
Vec3 to_float(const Vec3d& v) { return Vec3(float(v.x), float(v.y), float(v.z)); }
Vec3d operator-(const Vec3d& a, const Vec3d& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3d operator+(const Vec3d& a, const Vec3d& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3d operator*(double s, const Vec3d& a) { return {s * a.x, s * a.y, s * a.z}; }
Vec3d cross(const Vec3d& a, const Vec3d& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
Vec3d unit(const Vec3d& a) { return (1.0 / std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z)) * a; }
double radians(double degrees) { return degrees * M_PI / 180.0; }

}  // namespace

Camera make_camera(const CameraSettings& s, uint32_t image_width, uint32_t image_height) {
    const Vec3d center = to_double(s.lookfrom);
    const double h = std::tan(radians(s.vfov) / 2);
    const bool orthographic = s.projection == Projection::Orthographic;
    // Orthographic: the view rectangle lies in the plane through lookfrom.
    const double viewport_height = orthographic ? s.ortho_height : 2 * h * s.focus_dist;
    const double plane_distance = orthographic ? 0.0 : s.focus_dist;
    const double viewport_width = viewport_height * (double(image_width) / image_height);
    const Vec3d w = unit(center - to_double(s.lookat));
    const Vec3d u = unit(cross(to_double(s.vup), w));
    const Vec3d v = cross(w, u);
    const Vec3d viewport_u = viewport_width * u;
    const Vec3d viewport_v = -viewport_height * v;
    const Vec3d delta_u = (1.0 / image_width) * viewport_u;
    const Vec3d delta_v = (1.0 / image_height) * viewport_v;
    const Vec3d upper_left = center - plane_distance * w - 0.5 * viewport_u - 0.5 * viewport_v;
    const double defocus_radius = s.focus_dist * std::tan(radians(s.defocus_angle / 2));

    Camera camera;
    camera.center = to_float(center);
    camera.pixel00 = to_float(upper_left + 0.5 * (delta_u + delta_v));
    camera.pixel_delta_u = to_float(delta_u);
    camera.pixel_delta_v = to_float(delta_v);
    camera.defocus_disk_u = to_float(defocus_radius * u);
    camera.defocus_disk_v = to_float(defocus_radius * v);
    camera.has_defocus = s.projection == Projection::Perspective && s.defocus_angle > 0;
    camera.projection = s.projection;
    camera.forward = to_float(-1.0 * w);
    camera.right = to_float(u);
    camera.up = to_float(v);
    camera.width = float(image_width);
    camera.height = float(image_height);
    return camera;
}

}  // namespace farmrt
