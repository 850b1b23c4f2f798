// Arbitrary output variables (AOVs): what the camera ray of a sample meets
// first, besides the light it brings back. Compositors use depth and normals;
// denoisers (Open Image Denoise, OptiX) take albedo and normal as guides.
// Written once here like the rest of the physics: the features of sample s of
// a pixel come from the same camera ray as that sample's path (the same
// sampler dimensions), so they are a pure function of (seed, frame, pixel,
// sample) and the same bytes whoever computes them.
#pragma once

#include <cmath>

#include "core/integrator.h"

namespace farmrt {

enum class Aov : uint32_t {
    Albedo = 0,    // the surface's reflectance (albedo.R, .G, .B)
    Normal = 1,    // the shading normal, facing the camera (N.X, .Y, .Z), world space
    Depth = 2,     // distance along the camera's viewing axis (Z); the nearest sample's
    Samples = 3,   // samples taken by the pixel (samples)
    Variance = 4,  // variance of the pixel's mean luminance (variance; core/pixel_record.h)
};

// The depth written where every sample of a pixel left the scene: finite, so
// that compositing arithmetic (a depth of field, a fog, Z-combining) stays
// finite, and far beyond any scene (coordinates are at most 1e9), as Cycles
// writes 1e10. Inside the render it is +inf.
constexpr float kEscapedDepth = 1e10f;

struct FirstHitFeatures {
    Color albedo{0.0f};
    Vec3 normal{0.0f};
    float depth = INFINITY;  // +inf where the ray leaves the scene
};

FARMRT_CPU_GPU FARMRT_INLINE Color clamp_unit(const Color& c) {
    return Color(clamp_float(c.x, 0.0f, 1.0f), clamp_float(c.y, 0.0f, 1.0f), clamp_float(c.z, 0.0f, 1.0f));
}

// The reflectance a denoiser should see: the texture's colour for diffuse,
// metal and principled surfaces, white for glass (it passes light on
// unchanged), and for lights their colour up to 1, as Open Image Denoise
// asks for emitters and the sky.
FARMRT_CPU_GPU FARMRT_INLINE Color surface_albedo(const SceneView& scene, const Material& material,
                                                  const SurfaceInteraction& si) {
    switch (material.type) {
    case MaterialType::Dielectric: return Color(1.0f);
    case MaterialType::Emissive:
        return clamp_unit(evaluate_texture(scene.textures, scene.texture_pixels, material.emission_texture, si));
    default: return clamp_unit(base_color_at(material, scene.textures, scene.texture_pixels, si));
    }
}

// The camera's viewing axis: pixel_delta_u points right and pixel_delta_v
// down, so their cross product points into the scene.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 camera_forward(const Camera& camera) {
    return unit_vector(cross(camera.pixel_delta_u, camera.pixel_delta_v));
}

template <class Query, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE FirstHitFeatures first_hit_features(const SceneView& scene, const FrameSettings& frame,
                                                                 uint32_t x, uint32_t y, Sampler& sampler,
                                                                 const Query& query) {
    const Ray ray = frame.camera_ray(x, y, sampler);
    FirstHitFeatures features;
    Hit hit;
    if (!query(scene, ray, kMinHitDistance, hit)) {
        features.albedo =
            clamp_unit(background_radiance(scene.background, scene.textures, scene.texture_pixels, ray.direction));
        return features;
    }
    const SurfaceInteraction si = surface_at(scene, ray, hit, material_reads_uv(scene, hit_material(scene, hit)));
    features.albedo = surface_albedo(scene, scene.materials[si.material], si);
    features.normal = si.normal;
    // Depth along the view axis; an equirectangular camera has none, so its
    // depth is the distance from the camera.
    features.depth = frame.camera.projection == Projection::Equirectangular
                         ? length(si.point - frame.camera.center)
                         : dot(si.point - frame.camera.center, camera_forward(frame.camera));
    return features;
}

// A pixel's AOV features over its samples [0, samples): the mean albedo and
// normal (3 floats each) and the nearest depth. One function for the CPU
// (render/aov_pass.cpp) and the GPU (cuda/path_kernel_exact.cu), so that
// both write the same floats.
template <class Query>
FARMRT_CPU_GPU FARMRT_INLINE void pixel_first_hit_features(const SceneView& scene, const FrameSettings& frame,
                                                           uint32_t x, uint32_t y, uint32_t samples, const Query& query,
                                                           float* albedo, float* normal, float* depth) {
    Color albedo_sum(0.0f);
    Vec3 normal_sum(0.0f);
    float nearest = INFINITY;
    for (uint32_t s = 0; s < samples; ++s) {
        PixelSampler sampler(frame.key, frame.pixel_index(x, y), s);
        const FirstHitFeatures f = first_hit_features(scene, frame, x, y, sampler, query);
        albedo_sum += f.albedo;
        normal_sum += f.normal;
        nearest = min_float(nearest, f.depth);
    }
    const float scale = 1.0f / float(samples);
    for (int c = 0; c < 3; ++c) {
        albedo[c] = albedo_sum[c] * scale;
        normal[c] = normal_sum[c] * scale;
    }
    *depth = nearest;
}

}  // namespace farmrt
