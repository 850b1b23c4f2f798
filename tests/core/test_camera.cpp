// The thin-lens camera: the image centre looks at lookat, the image edges span
// vfov (and the matching horizontal angle), pixel samples stay inside their
// pixel, and lens samples fill a disk of radius focus_dist * tan(angle / 2).
// The orthographic camera's rays are parallel and start on a rectangle of
// ortho_height; the equirectangular camera's directions, turned back into
// longitude and latitude in double precision, land in their own pixel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/camera.h"

namespace farmrt {
namespace {

// The angle between two directions, in double and by atan2 (acos of a dot
// product loses half its digits near 0 degrees).
double angle_degrees(const Vec3& a, const Vec3& b) {
    const double ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z;
    const double cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
    return std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz), ax * bx + ay * by + az * bz) * 180.0 / M_PI;
}

CameraSettings book_camera() {  // the final scene of "Ray Tracing in One Weekend"
    CameraSettings s;
    s.lookfrom = Vec3(13, 2, 3);
    s.lookat = Vec3(0, 0, 0);
    s.vup = Vec3(0, 1, 0);
    s.vfov = 20;
    s.defocus_angle = 0.6;
    s.focus_dist = 10;
    return s;
}

CameraSettings tilted_pinhole() {
    CameraSettings s;
    s.lookfrom = Vec3(-2, 3, 1);
    s.lookat = Vec3(1, -1, -4);
    s.vup = Vec3(0.3f, 1, 0.1f);
    s.vfov = 65;
    s.focus_dist = 3.5;
    return s;
}

// Where a point of the focus plane lies in pixel units relative to pixel (x, y)'s centre.
void pixel_coordinates(const Camera& camera, uint32_t x, uint32_t y, const Vec3& point, double& px, double& py) {
    const Vec3 centre = camera.pixel00 + float(x) * camera.pixel_delta_u + float(y) * camera.pixel_delta_v;
    const Vec3 offset = point - centre;
    px = double(dot(offset, camera.pixel_delta_u)) / double(length_squared(camera.pixel_delta_u));
    py = double(dot(offset, camera.pixel_delta_v)) / double(length_squared(camera.pixel_delta_v));
}

TEST(Camera, ImageCentreLooksAtLookat) {
    for (const CameraSettings& s : {book_camera(), tilted_pinhole()}) {
        for (const auto& size : {std::pair<uint32_t, uint32_t>{1200, 675}, {101, 51}, {64, 64}}) {
            const Camera camera = make_camera(s, size.first, size.second);
            const Vec3 image_centre = camera.pixel00 + (0.5f * float(size.first - 1)) * camera.pixel_delta_u +
                                      (0.5f * float(size.second - 1)) * camera.pixel_delta_v;
            EXPECT_LT(angle_degrees(image_centre - camera.center, s.lookat - s.lookfrom), 1e-3);
        }
    }
}

TEST(Camera, CentrePixelRaysPointAtLookatWithinHalfAPixel) {
    const CameraSettings s = tilted_pinhole();
    const uint32_t width = 101, height = 51;
    const Camera camera = make_camera(s, width, height);
    // Half a pixel diagonal, seen from the camera at the image centre.
    const double pixel_size = 2 * std::tan(s.vfov * M_PI / 360) / height;  // per unit distance
    const double half_pixel = std::atan(0.5 * std::sqrt(2.0) * pixel_size) * 180 / M_PI * 1.001;
    for (uint32_t sample = 0; sample < 200; ++sample) {
        PixelSampler sampler(SamplerKey{3, 0}, 0, sample);
        const Ray ray = camera.generate_ray(width / 2, height / 2, PixelFilter{}, sampler);
        EXPECT_LT(angle_degrees(ray.direction, s.lookat - s.lookfrom), half_pixel);
    }
}

TEST(Camera, ImageEdgesSpanTheVerticalAndHorizontalFieldOfView) {
    for (const CameraSettings& s : {book_camera(), tilted_pinhole()}) {
        const uint32_t width = 320, height = 180;
        const Camera camera = make_camera(s, width, height);
        const Vec3 upper_left = camera.pixel00 - 0.5f * (camera.pixel_delta_u + camera.pixel_delta_v);
        const Vec3 full_u = float(width) * camera.pixel_delta_u, full_v = float(height) * camera.pixel_delta_v;
        const Vec3 top = upper_left + 0.5f * full_u, bottom = top + full_v;
        const Vec3 left = upper_left + 0.5f * full_v, right = left + full_u;
        EXPECT_NEAR(angle_degrees(top - camera.center, bottom - camera.center), s.vfov, 1e-3);
        const double horizontal = 2 * std::atan(std::tan(s.vfov * M_PI / 360) * width / height) * 180 / M_PI;
        EXPECT_NEAR(angle_degrees(left - camera.center, right - camera.center), horizontal, 1e-3);
        // Corner pixel centres lie half a pixel inside the corners.
        const Vec3 lower_right_centre =
            camera.pixel00 + float(width - 1) * camera.pixel_delta_u + float(height - 1) * camera.pixel_delta_v;
        const Vec3 lower_right_corner = upper_left + full_u + full_v;
        const Vec3 half_pixel = 0.5f * (camera.pixel_delta_u + camera.pixel_delta_v);
        EXPECT_LT(length(lower_right_centre + half_pixel - lower_right_corner), 1e-4f * length(full_u));
    }
}

TEST(Camera, ViewportIsAnUprightRectangleAtTheFocusDistance) {
    const CameraSettings s = book_camera();
    const Camera camera = make_camera(s, 1200, 675);
    const Vec3 forward = unit_vector(s.lookat - s.lookfrom);
    EXPECT_NEAR(dot(camera.pixel_delta_u, camera.pixel_delta_v), 0.0f, 1e-9f);
    EXPECT_NEAR(dot(camera.pixel_delta_u, forward), 0.0f, 1e-7f);
    EXPECT_NEAR(dot(camera.pixel_delta_v, forward), 0.0f, 1e-7f);
    EXPECT_NEAR(length(camera.pixel_delta_u), length(camera.pixel_delta_v), 1e-7f);  // square pixels
    EXPECT_LT(dot(camera.pixel_delta_v, s.vup), 0.0f);                               // rows run down
    EXPECT_GT(dot(cross(forward, s.vup), camera.pixel_delta_u), 0.0f);               // columns run right
    EXPECT_NEAR(dot(camera.pixel00 - camera.center, forward), float(s.focus_dist), 1e-4f);
    EXPECT_EQ(camera.center.x, s.lookfrom.x);
}

TEST(Camera, PinholeSamplesStayInsideTheirPixelAndCoverIt) {
    const Camera camera = make_camera(tilted_pinhole(), 40, 30);
    for (const auto& pixel : {std::pair<uint32_t, uint32_t>{0, 0}, {39, 29}, {17, 11}, {39, 0}}) {
        double lo_x = 1, hi_x = -1, lo_y = 1, hi_y = -1, mean_x = 0, mean_y = 0;
        const int n = 4000;
        for (int sample = 0; sample < n; ++sample) {
            PixelSampler sampler(SamplerKey{8, 0}, pixel.second * 40 + pixel.first, uint32_t(sample));
            const Ray ray = camera.generate_ray(pixel.first, pixel.second, PixelFilter{}, sampler);
            ASSERT_EQ(ray.origin.x, camera.center.x);
            ASSERT_EQ(ray.origin.z, camera.center.z);
            double px, py;
            pixel_coordinates(camera, pixel.first, pixel.second, ray.origin + ray.direction, px, py);
            ASSERT_GE(px, -0.5 - 1e-4);
            ASSERT_LT(px, 0.5 + 1e-4);
            ASSERT_GE(py, -0.5 - 1e-4);
            ASSERT_LT(py, 0.5 + 1e-4);
            lo_x = std::min(lo_x, px), hi_x = std::max(hi_x, px), lo_y = std::min(lo_y, py), hi_y = std::max(hi_y, py);
            mean_x += px / n;
            mean_y += py / n;
            // The offset is exactly the pixel dimensions' uniform values minus 0.5.
            PixelSampler again(SamplerKey{8, 0}, pixel.second * 40 + pixel.first, uint32_t(sample));
            EXPECT_NEAR(px, again.uniform(kDimensionPixelX) - 0.5, 1e-4);
            EXPECT_NEAR(py, again.uniform(kDimensionPixelY) - 0.5, 1e-4);
            EXPECT_EQ(ray.time, again.uniform(kDimensionTime));
        }
        EXPECT_LT(lo_x, -0.49);
        EXPECT_GT(hi_x, 0.49);
        EXPECT_LT(lo_y, -0.49);
        EXPECT_GT(hi_y, 0.49);
        const double standard_error = std::sqrt(1.0 / 12 / n);
        EXPECT_NEAR(mean_x, 0.0, 5 * standard_error);
        EXPECT_NEAR(mean_y, 0.0, 5 * standard_error);
    }
}

TEST(Camera, PinholeHasNoLensAndEveryRayStartsAtLookfrom) {
    const CameraSettings s = tilted_pinhole();
    const Camera camera = make_camera(s, 16, 16);
    EXPECT_FALSE(camera.has_defocus);
    for (uint32_t sample = 0; sample < 100; ++sample) {
        PixelSampler sampler(SamplerKey{0, 0}, sample, sample);
        const Ray ray = camera.generate_ray(sample % 16, sample / 16 % 16, PixelFilter{}, sampler);
        EXPECT_EQ(ray.origin.x, s.lookfrom.x);
        EXPECT_EQ(ray.origin.y, s.lookfrom.y);
        EXPECT_EQ(ray.origin.z, s.lookfrom.z);
    }
}

TEST(Camera, DefocusDiskHasTheRadiusOfTheDefocusAngle) {
    const CameraSettings s = book_camera();
    const Camera camera = make_camera(s, 1200, 675);
    ASSERT_TRUE(camera.has_defocus);
    const float radius = float(s.focus_dist * std::tan(s.defocus_angle * M_PI / 360));
    EXPECT_NEAR(length(camera.defocus_disk_u), radius, 1e-6f);
    EXPECT_NEAR(length(camera.defocus_disk_v), radius, 1e-6f);
    EXPECT_NEAR(dot(camera.defocus_disk_u, camera.defocus_disk_v), 0.0f, 1e-9f);
    const Vec3 forward = unit_vector(s.lookat - s.lookfrom);
    EXPECT_NEAR(dot(camera.defocus_disk_u, forward), 0.0f, 1e-7f);
    EXPECT_NEAR(dot(camera.defocus_disk_v, forward), 0.0f, 1e-7f);
}

TEST(Camera, LensSamplesAreUniformOnTheDiskAndFocusInsideThePixel) {
    const CameraSettings s = book_camera();
    const Camera camera = make_camera(s, 120, 68);
    const double radius = s.focus_dist * std::tan(s.defocus_angle * M_PI / 360);
    const Vec3 forward = unit_vector(s.lookat - s.lookfrom);
    const int n = 20000;
    int inner = 0;
    double max_distance = 0, mean_square = 0;
    for (int sample = 0; sample < n; ++sample) {
        PixelSampler sampler(SamplerKey{2, 0}, 77, uint32_t(sample));
        const Ray ray = camera.generate_ray(60, 30, PixelFilter{}, sampler);
        const Vec3 offset = ray.origin - camera.center;
        const double distance = length(offset);
        ASSERT_LE(distance, radius * (1 + 1e-5));
        EXPECT_NEAR(dot(offset, forward), 0.0f, 1e-6f);  // in the lens plane
        max_distance = std::max(max_distance, distance);
        mean_square += distance * distance / n;
        inner += distance < radius / 2;
        // Every lens sample's ray passes through the pixel on the focus plane.
        double px, py;
        pixel_coordinates(camera, 60, 30, ray.at(1.0f), px, py);
        ASSERT_GE(px, -0.5 - 1e-3);
        ASSERT_LT(px, 0.5 + 1e-3);
        ASSERT_GE(py, -0.5 - 1e-3);
        ASSERT_LT(py, 0.5 + 1e-3);
    }
    EXPECT_GT(max_distance, 0.99 * radius);
    // Uniform on a disk: E[r^2] = R^2 / 2 (sd of r^2 is R^2 / sqrt(12)); P(r < R/2) = 1/4.
    EXPECT_NEAR(mean_square, radius * radius / 2, 5 * radius * radius / std::sqrt(12.0 * n));
    EXPECT_NEAR(double(inner) / n, 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
}

TEST(Camera, SameKeyGivesTheSameRayBitForBit) {
    const Camera camera = make_camera(book_camera(), 64, 36);
    for (uint32_t sample = 0; sample < 50; ++sample) {
        PixelSampler a(SamplerKey{5, 1}, 100, sample), b(SamplerKey{5, 1}, 100, sample);
        const Ray ra = camera.generate_ray(4, 1, PixelFilter{}, a), rb = camera.generate_ray(4, 1, PixelFilter{}, b);
        EXPECT_EQ(0, std::memcmp(&ra, &rb, sizeof(Ray)));
    }
}

TEST(Camera, NarrowAndWideFieldsOfView) {
    CameraSettings s = tilted_pinhole();
    for (double vfov : {0.01, 1.0, 90.0, 170.0}) {
        s.vfov = vfov;
        const Camera camera = make_camera(s, 200, 100);
        const Vec3 upper_left = camera.pixel00 - 0.5f * (camera.pixel_delta_u + camera.pixel_delta_v);
        const Vec3 top = upper_left + 100.0f * camera.pixel_delta_u;
        const Vec3 bottom = top + 100.0f * camera.pixel_delta_v;
        EXPECT_NEAR(angle_degrees(top - camera.center, bottom - camera.center), vfov, 1e-3 * std::max(1.0, vfov / 10));
    }
}

// The camera frame of a settings (double precision): right, up, forward.
void camera_frame(const CameraSettings& s, double right[3], double up[3], double forward[3]) {
    const double f[3] = {double(s.lookat.x) - s.lookfrom.x, double(s.lookat.y) - s.lookfrom.y,
                         double(s.lookat.z) - s.lookfrom.z};
    const double fl = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int i = 0; i < 3; ++i) forward[i] = f[i] / fl;
    const double vup[3] = {s.vup.x, s.vup.y, s.vup.z};
    // right = forward x vup, normalised; up = right x forward.
    double r[3] = {forward[1] * vup[2] - forward[2] * vup[1], forward[2] * vup[0] - forward[0] * vup[2],
                   forward[0] * vup[1] - forward[1] * vup[0]};
    const double rl = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (int i = 0; i < 3; ++i) right[i] = r[i] / rl;
    up[0] = right[1] * forward[2] - right[2] * forward[1];
    up[1] = right[2] * forward[0] - right[0] * forward[2];
    up[2] = right[0] * forward[1] - right[1] * forward[0];
}

double dot3(const double a[3], const Vec3& b) { return a[0] * b.x + a[1] * b.y + a[2] * b.z; }

TEST(Camera, OrthographicRaysAreParallelAndStartOnTheViewRectangle) {
    CameraSettings s = tilted_pinhole();
    s.projection = Projection::Orthographic;
    s.ortho_height = 3.0;
    const uint32_t width = 40, height = 30;
    const Camera camera = make_camera(s, width, height);
    EXPECT_FALSE(camera.has_defocus);
    double right[3], up[3], forward[3];
    camera_frame(s, right, up, forward);
    for (const auto& pixel : {std::pair<uint32_t, uint32_t>{0, 0}, {39, 29}, {17, 11}, {39, 0}}) {
        for (uint32_t sample = 0; sample < 500; ++sample) {
            PixelSampler sampler(SamplerKey{3, 0}, pixel.second * width + pixel.first, sample);
            const Ray ray = camera.generate_ray(pixel.first, pixel.second, PixelFilter{}, sampler);
            ASSERT_LT(angle_degrees(ray.direction, Vec3(float(forward[0]), float(forward[1]), float(forward[2]))),
                      1e-3);
            // The origin in the view plane's coordinates: inside its pixel of a
            // 3 x 4 rectangle centred on lookfrom, in the plane through it.
            const Vec3 offset = ray.origin - s.lookfrom;
            ASSERT_NEAR(dot3(forward, offset), 0.0, 1e-5);
            const double h = 3.0, w = h * width / height;
            const double px = (dot3(right, offset) + 0.5 * w) / w * width;
            const double py = (0.5 * h - dot3(up, offset)) / h * height;
            ASSERT_GE(px, pixel.first - 1e-4);
            ASSERT_LE(px, pixel.first + 1 + 1e-4);
            ASSERT_GE(py, pixel.second - 1e-4);
            ASSERT_LE(py, pixel.second + 1 + 1e-4);
        }
    }
}

TEST(Camera, EquirectangularDirectionsLandInTheirPixel) {
    CameraSettings s = tilted_pinhole();
    s.projection = Projection::Equirectangular;
    const uint32_t width = 64, height = 32;
    const Camera camera = make_camera(s, width, height);
    double right[3], up[3], forward[3];
    camera_frame(s, right, up, forward);
    for (const auto& pixel : {std::pair<uint32_t, uint32_t>{0, 0}, {63, 31}, {31, 15}, {32, 16}, {16, 8}, {48, 0}}) {
        for (uint32_t sample = 0; sample < 500; ++sample) {
            PixelSampler sampler(SamplerKey{5, 0}, pixel.second * width + pixel.first, sample);
            const Ray ray = camera.generate_ray(pixel.first, pixel.second, PixelFilter{}, sampler);
            ASSERT_EQ(ray.origin.x, camera.center.x);
            ASSERT_EQ(ray.origin.y, camera.center.y);
            ASSERT_EQ(ray.origin.z, camera.center.z);
            ASSERT_NEAR(double(length(ray.direction)), 1.0, 1e-5);
            const double x = dot3(right, ray.direction), y = dot3(up, ray.direction), z = dot3(forward, ray.direction);
            const double longitude = std::atan2(x, z), latitude = std::atan2(y, std::sqrt(x * x + z * z));
            const double px = (longitude / (2 * M_PI) + 0.5) * width;
            const double py = (0.5 - latitude / M_PI) * height;
            // Within the pixel (the longitude wraps at the image's left and right edges).
            const double wrapped = pixel.first == 0 && px > width - 1 ? px - width : px;
            ASSERT_GE(wrapped, pixel.first - 1e-3) << pixel.first << "," << pixel.second;
            ASSERT_LE(wrapped, pixel.first + 1 + 1e-3) << pixel.first << "," << pixel.second;
            ASSERT_GE(py, pixel.second - 1e-3);
            ASSERT_LE(py, pixel.second + 1 + 1e-3);
        }
    }
}

}  // namespace
}  // namespace farmrt
