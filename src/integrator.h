// The path tracer's per-sample loop ("Ray Tracing in One Weekend" ray_color,
// written as a loop), shared by every backend.
#pragma once

#include "camera.h"
#include "scene.h"

namespace farmrt {

// The closest-hit query of the scalar tracers: the binary BVH of the scene.
// Other tracers (the SIMD wide BVH) pass their own query with the same
// signature and results; shading stays this one code.
struct BvhClosestHit {
    FARMRT_CPU_GPU FARMRT_INLINE bool operator()(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) const {
        return intersect_closest(scene, ray, t_min, hit);
    }
};

// Radiance along one path; a path still going after max_depth segments adds black.
template <class ClosestHit = BvhClosestHit>
FARMRT_CPU_GPU FARMRT_INLINE Color trace_path(const SceneView& scene, Ray ray, PixelSampler& sampler, int max_depth,
                                              const ClosestHit& closest_hit = ClosestHit()) {
    Color throughput(1.0f);
    Color radiance(0.0f);
    for (int depth = 0; depth < max_depth; ++depth) {
        Hit hit;
        if (!closest_hit(scene, ray, kMinHitDistance, hit)) {
            radiance += throughput * scene.background.radiance(ray);
            break;
        }
        const SurfaceInteraction si = surface_at(scene, ray, hit);
        const Material& material = scene.materials[si.material];
        if (material.type == MaterialType::Emissive) {
            // Two-sided, as the book's diffuse_light: either face emits.
            radiance += throughput * evaluate_texture(scene.textures, scene.texture_pixels, material.emission_texture, si);
            break;
        }
        const ScatterResult s = scatter(material, scene.textures, scene.texture_pixels, ray, si, sampler,
                                        kDimensionFirstBounce + kDimensionsPerBounce * static_cast<uint32_t>(depth));
        if (!s.scattered) break;
        throughput *= s.attenuation;
        ray = s.ray;
    }
    return radiance;
}

// What one render call needs besides the scene: the frame's camera and sampling.
struct FrameSettings {
    Camera camera;
    uint32_t width = 0;
    uint32_t height = 0;
    int max_depth = 50;
    SamplerKey key;
};

// Adds samples [sample_begin, sample_end) of pixel (x, y) to `sum`, in sample
// order, so that any split into passes accumulates the same float sums.
template <class ClosestHit = BvhClosestHit>
FARMRT_CPU_GPU FARMRT_INLINE void accumulate_pixel(const SceneView& scene, const FrameSettings& frame, uint32_t x,
                                                   uint32_t y, uint32_t sample_begin, uint32_t sample_end,
                                                   float* sum, const ClosestHit& closest_hit = ClosestHit()) {
    const uint32_t pixel_index = y * frame.width + x;
    for (uint32_t s = sample_begin; s < sample_end; ++s) {
        PixelSampler sampler(frame.key, pixel_index, s);
        const Ray ray = frame.camera.generate_ray(x, y, sampler);
        const Color c = trace_path(scene, ray, sampler, frame.max_depth, closest_hit);
        // A NaN from a degenerate path would poison the whole pixel: drop it.
        sum[0] += c.x == c.x ? c.x : 0.0f;
        sum[1] += c.y == c.y ? c.y : 0.0f;
        sum[2] += c.z == c.z ? c.z : 0.0f;
    }
}

}  // namespace farmrt
