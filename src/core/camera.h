// The cameras: the thin-lens perspective camera of "Ray Tracing in One
// Weekend" (v4), an orthographic camera (parallel rays from a rectangle of
// the plane through lookfrom) and an equirectangular one (the whole sphere of
// directions around lookfrom: longitude across the image, latitude down it).
#pragma once

#include "core/pixel_filter.h"
#include "core/ray.h"
#include "core/sampler.h"
#include "core/trigonometry.h"

namespace farmrt {

enum class Projection : uint32_t { Perspective = 0, Orthographic = 1, Equirectangular = 2 };

struct CameraSettings {
    Projection projection = Projection::Perspective;
    double ortho_height = 2;  // orthographic: the view's height in scene units (its width follows the image's aspect)
    Vec3 lookfrom{0, 0, 0};
    Vec3 lookat{0, 0, -1};
    Vec3 vup{0, 1, 0};
    double vfov = 90;          // vertical field of view, degrees
    double defocus_angle = 0;  // degrees; 0 = pinhole
    double focus_dist = 10;
};

// Precomputed on the host (in double), used on every backend.
struct Camera {
    Vec3 center;
    Vec3 pixel00;         // centre of the top-left pixel (perspective, orthographic)
    Vec3 pixel_delta_u;   // one pixel to the right
    Vec3 pixel_delta_v;   // one pixel down
    Vec3 defocus_disk_u;  // lens radius along the camera's u and v
    Vec3 defocus_disk_v;
    bool has_defocus = false;
    Projection projection = Projection::Perspective;
    // Orthographic and equirectangular: the unit view direction; equirectangular
    // also the unit right and up directions and the image's size.
    Vec3 forward, right, up;
    float width = 1, height = 1;

    // The ray through pixel (x, y) for one sample, its offset in the pixel
    // drawn from the pixel filter; `weight`: the sample's filter weight
    // (core/pixel_filter.h), which multiplies its radiance. Sampler:
    // PixelSampler, or any type whose uniform(dimension) returns the same
    // values (the SIMD tracer's, with Philox blocks computed several at a time).
    template <class Sampler>
    FARMRT_CPU_GPU Ray generate_ray(uint32_t x, uint32_t y, const PixelFilter& filter, Sampler& sampler,
                                    float& weight) const {
        float weight_x, weight_y;
        const float offset_x = sample_filter_offset(filter, sampler.uniform(kDimensionPixelX), weight_x);
        const float offset_y = sample_filter_offset(filter, sampler.uniform(kDimensionPixelY), weight_y);
        weight = weight_x * weight_y;
        if (projection == Projection::Equirectangular) {
            // Longitude from -pi at the left edge to pi at the right, the
            // view direction at the centre; latitude from pi/2 at the top.
            float sin_longitude, cos_longitude, sin_latitude, cos_latitude;
            sin_cos_turns((static_cast<float>(x) + offset_x + 0.5f) / width - 0.5f, sin_longitude, cos_longitude);
            sin_cos_turns(0.5f * (0.5f - (static_cast<float>(y) + offset_y + 0.5f) / height), sin_latitude,
                          cos_latitude);
            const Vec3 direction =
                (cos_latitude * sin_longitude) * right + sin_latitude * up + (cos_latitude * cos_longitude) * forward;
            return Ray{center, direction, sampler.uniform(kDimensionTime)};
        }
        const Vec3 pixel_sample = pixel00 + (static_cast<float>(x) + offset_x) * pixel_delta_u +
                                  (static_cast<float>(y) + offset_y) * pixel_delta_v;
        if (projection == Projection::Orthographic) return Ray{pixel_sample, forward, sampler.uniform(kDimensionTime)};
        Vec3 origin = center;
        if (has_defocus) {
            // Uniform on the lens disk: radius sqrt(u), angle 2 pi v.
            const float radius = sqrtf(sampler.uniform(kDimensionLensU));
            float sine, cosine;
            sin_cos_turns(sampler.uniform(kDimensionLensV), sine, cosine);
            origin = center + (radius * cosine) * defocus_disk_u + (radius * sine) * defocus_disk_v;
        }
        return Ray{origin, pixel_sample - origin, sampler.uniform(kDimensionTime)};
    }
    // The same ray, for uses that take no radiance (first-hit AOVs).
    template <class Sampler>
    FARMRT_CPU_GPU Ray generate_ray(uint32_t x, uint32_t y, const PixelFilter& filter, Sampler& sampler) const {
        float weight;
        return generate_ray(x, y, filter, sampler, weight);
    }
};

// The filter weight Camera::generate_ray gives a sample, from the same two
// dimensions, without the ray (the sample's alpha: core/pixel_record.h).
template <class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE float camera_sample_weight(const PixelFilter& filter, Sampler& sampler) {
    float weight_x, weight_y;
    sample_filter_offset(filter, sampler.uniform(kDimensionPixelX), weight_x);
    sample_filter_offset(filter, sampler.uniform(kDimensionPixelY), weight_y);
    return weight_x * weight_y;
}

Camera make_camera(const CameraSettings& settings, uint32_t image_width, uint32_t image_height);

}  // namespace farmrt
