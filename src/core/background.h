// What a ray that leaves the scene sees: the book's sky gradient, a constant
// colour, or an equirectangular environment image; and the tabulated density
// over directions by which next-event estimation samples it (lights.h).
#pragma once

#include "core/materials.h"

namespace farmrt {

enum class BackgroundType : uint32_t { Sky = 0, Constant = 1, Image = 2 };

// Whether next-event estimation samples the background as a light.
//   Auto: environment images yes; the sky gradient and constant colours no:
//     for them cosine-weighted BSDF samples are already nearly ideal, and a
//     shadow ray per vertex bought no less noise on the book's sky-lit final
//     scene at 1.1-1.9 times the time (results/light_transport.md).
//   Light: always (where it sends light). Bsdf: never (BSDF samples only).
enum class BackgroundSampling : uint32_t { Auto = 0, Light = 1, Bsdf = 2 };

// Directions map to the equirectangular (s, t) in [0, 1)^2: s is the
// longitude, 0.5 looking down -z and growing towards +x; t is the angle from
// +y over pi (t = 0 straight up). Images put s left to right and t top to
// bottom, as every latitude-longitude map does.
struct Background {
    BackgroundType type = BackgroundType::Sky;
    BackgroundSampling sampling = BackgroundSampling::Auto;
    Color horizon{1, 1, 1};          // Sky
    Color zenith{0.5f, 0.7f, 1.0f};  // Sky
    Color color{0, 0, 0};            // Constant
    uint32_t texture = 0;            // Image: the latitude-longitude map in the texture array
    float intensity = 1.0f;          // Image: scale of its texels
    // Image: the map turned about +y (world = turn * map), as cosine and sine.
    float rotation_cosine = 1.0f, rotation_sine = 0.0f;
    // The sampling density (lights.cpp builds it): a piecewise-constant
    // function over columns x rows cells of (s, t) in
    // SceneView::environment_distribution; 0 columns: not sampled.
    uint32_t distribution_columns = 0, distribution_rows = 0;
    float distribution_integral = 0.0f;  // mean of the cell weights
};

// The map's frame from the world's, and back (turns about +y).
FARMRT_CPU_GPU FARMRT_INLINE Vec3 environment_from_world(const Background& b, const Vec3& d) {
    return Vec3(b.rotation_cosine * d.x - b.rotation_sine * d.z, d.y, b.rotation_sine * d.x + b.rotation_cosine * d.z);
}
FARMRT_CPU_GPU FARMRT_INLINE Vec3 world_from_environment(const Background& b, const Vec3& d) {
    return Vec3(b.rotation_cosine * d.x + b.rotation_sine * d.z, d.y, -b.rotation_sine * d.x + b.rotation_cosine * d.z);
}

// (s, t) of a unit direction in the map's frame.
FARMRT_CPU_GPU FARMRT_INLINE void equirectangular_coordinates(const Vec3& unit_direction, float& s, float& t) {
    s = 0.5f + arc_tangent2(unit_direction.x, -unit_direction.z) * (0.5f / kPi);
    t = arc_cosine(clamp_float(unit_direction.y, -1.0f, 1.0f)) * (1.0f / kPi);
}

// The unit direction (map frame) of (s, t), and sin(theta) for densities.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 equirectangular_direction(float s, float t, float& sin_theta) {
    float cos_theta, sin_phi, cos_phi;
    sin_cos_turns(0.5f * t, sin_theta, cos_theta);
    sin_cos_turns(s - 0.5f, sin_phi, cos_phi);
    return Vec3(sin_theta * sin_phi, cos_theta, -sin_theta * cos_phi);
}

// Radiance arriving along -direction from the background (direction need not be unit).
FARMRT_CPU_GPU FARMRT_INLINE Color background_radiance(const Background& b, const Texture* textures,
                                                       const float* texture_pixels, const Vec3& direction) {
    if (b.type == BackgroundType::Constant) return b.color;
    const Vec3 unit_direction = unit_vector(direction);
    if (b.type == BackgroundType::Sky) {
        const float a = 0.5f * (unit_direction.y + 1.0f);
        return (1.0f - a) * b.horizon + a * b.zenith;
    }
    float s, t;
    equirectangular_coordinates(environment_from_world(b, unit_direction), s, t);
    return b.intensity * lookup_image(textures[b.texture], texture_pixels, s, 1.0f - t);
}

// The index i in [0, count - 2] with cdf[i] <= u < cdf[i + 1] (cdf
// non-decreasing from 0 to 1, `count` entries).
FARMRT_CPU_GPU FARMRT_INLINE uint32_t find_interval(const float* cdf, uint32_t count, float u) {
    uint32_t low = 0, high = count - 2;
    while (low < high) {
        const uint32_t middle = (low + high + 1) / 2;
        if (cdf[middle] <= u) {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    return low;
}

// The distribution's arrays: one conditional CDF per row (columns + 1
// entries each), the rows' marginal CDF (rows + 1), the cell weights.
FARMRT_CPU_GPU FARMRT_INLINE const float* environment_row_cdf(const Background& b, const float* distribution,
                                                              uint32_t row) {
    return distribution + size_t(row) * (b.distribution_columns + 1);
}
FARMRT_CPU_GPU FARMRT_INLINE const float* environment_marginal_cdf(const Background& b, const float* distribution) {
    return distribution + size_t(b.distribution_rows) * (b.distribution_columns + 1);
}
FARMRT_CPU_GPU FARMRT_INLINE const float* environment_weights(const Background& b, const float* distribution) {
    return environment_marginal_cdf(b, distribution) + b.distribution_rows + 1;
}

// Where inverse-CDF sampling of one CDF interval puts u: the interval, and the offset in it.
FARMRT_CPU_GPU FARMRT_INLINE float continuous_position(const float* cdf, uint32_t count, float u, uint32_t& index) {
    index = find_interval(cdf, count, u);
    const float width = cdf[index + 1] - cdf[index];
    const float offset = width > 0.0f ? (u - cdf[index]) / width : 0.0f;
    return (float(index) + min_float(offset, 0.99999994f)) / float(count - 1);
}

// The cell of x in [0, 1] among `count` (outside: the nearest).
FARMRT_CPU_GPU FARMRT_INLINE uint32_t cell_of(float x, uint32_t count) {
    if (!(x > 0.0f)) return 0;  // NaN too: never converted
    const uint32_t cell = uint32_t(min_float(x, 1.0f) * float(count));
    return cell < count ? cell : count - 1;
}

// Solid-angle density of sampling world direction `unit_direction`.
FARMRT_CPU_GPU FARMRT_INLINE float environment_pdf(const Background& b, const float* distribution,
                                                   const Vec3& unit_direction) {
    if (b.distribution_columns == 0 || !(b.distribution_integral > 0.0f)) return 0.0f;
    const Vec3 local = environment_from_world(b, unit_direction);
    const float sin_theta = sqrtf(max_float(0.0f, 1.0f - local.y * local.y));
    if (!(sin_theta > 0.0f)) return 0.0f;
    float s, t;
    equirectangular_coordinates(local, s, t);
    const uint32_t column = cell_of(s, b.distribution_columns), row = cell_of(t, b.distribution_rows);
    const float weight = environment_weights(b, distribution)[size_t(row) * b.distribution_columns + column];
    return weight / b.distribution_integral / (2.0f * kPi * kPi * sin_theta);
}

// A world direction drawn from the distribution with two random numbers, and its solid-angle density.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 sample_environment(const Background& b, const float* distribution, float u0, float u1,
                                                     float& pdf) {
    uint32_t row, column;
    const float t = continuous_position(environment_marginal_cdf(b, distribution), b.distribution_rows + 1, u1, row);
    const float s =
        continuous_position(environment_row_cdf(b, distribution, row), b.distribution_columns + 1, u0, column);
    float sin_theta;
    const Vec3 local = equirectangular_direction(s, t, sin_theta);
    const float weight = environment_weights(b, distribution)[size_t(row) * b.distribution_columns + column];
    pdf = sin_theta > 0.0f ? weight / b.distribution_integral / (2.0f * kPi * kPi * sin_theta) : 0.0f;
    return world_from_environment(b, local);
}

}  // namespace farmrt
