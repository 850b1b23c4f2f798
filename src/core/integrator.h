// The path tracer's per-sample loop ("Ray Tracing in One Weekend" ray_color,
// written as a loop), shared by every backend.
#pragma once

#include "core/camera.h"
#include "core/scene.h"

namespace farmrt {

// The closest-hit query of the scalar tracers: the binary BVH of the scene.
// Other tracers (the SIMD wide BVH) pass their own query with the same
// signature and results; shading stays this one code.
// kInstances = false: for scenes without instances (see intersect_primitive).
// Traits: TraversalTraits (scene.h), the GPU's per-scene specialisations.
template <class Traits>
struct TraversalQuery {
    FARMRT_CPU_GPU FARMRT_INLINE bool operator()(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) const {
        return intersect_closest<Traits>(scene, ray, t_min, hit);
    }
};
template <bool kInstances>
using BvhQuery = TraversalQuery<TraversalTraits<kInstances>>;
using BvhClosestHit = BvhQuery<true>;

// One path in flight: what a tracer keeps between path segments. Splitting
// the path loop into steps lets a GPU thread start its next sample as soon as
// a path ends (path regeneration) instead of idling until its whole warp is
// done; every backend runs the same steps in the same order.
struct PathState {
    Ray ray;
    Color throughput{1.0f};
    Color radiance{0.0f};
    int depth = 0;  // segments traced so far
};

FARMRT_CPU_GPU FARMRT_INLINE PathState start_path(const Ray& camera_ray) {
    PathState path;
    path.ray = camera_ray;
    return path;
}

// The second half of a path segment, once the closest-hit query has run:
// adds what the ray sees and scatters it. Returns false once the path has
// ended (missed everything, hit a light, was absorbed); the caller also ends
// it once `depth` reaches max_depth, which adds black. Tracers that run the
// query their own way call this directly. Sampler: PixelSampler or a type
// with the same uniform() values (Camera::generate_ray).
template <class Sampler = PixelSampler>
FARMRT_CPU_GPU FARMRT_INLINE bool continue_path(const SceneView& scene, PathState& path, Sampler& sampler,
                                                bool found, const Hit& hit) {
    const uint32_t depth = static_cast<uint32_t>(path.depth++);
    if (!found) {
        path.radiance += path.throughput * scene.background.radiance(path.ray);
        return false;
    }
    const SurfaceInteraction si = surface_at(scene, path.ray, hit, material_reads_uv(scene, hit_material(scene, hit)));
    const Material material = scene.materials[si.material];  // a copy: vector loads on the GPU
    if (material.type == MaterialType::Emissive) {
        // Two-sided, as the book's diffuse_light: either face emits.
        path.radiance +=
            path.throughput * evaluate_texture(scene.textures, scene.texture_pixels, material.emission_texture, si);
        return false;
    }
    const ScatterResult s = scatter(material, scene.textures, scene.texture_pixels, path.ray, si, sampler,
                                    kDimensionFirstBounce + kDimensionsPerBounce * depth);
    if (!s.scattered) return false;
    path.throughput *= s.attenuation;
    path.ray = s.ray;
    return true;
}

// Traces one path segment: the closest-hit query, then continue_path().
template <class ClosestHit = BvhClosestHit, class Sampler = PixelSampler>
FARMRT_CPU_GPU FARMRT_INLINE bool extend_path(const SceneView& scene, PathState& path, Sampler& sampler,
                                              const ClosestHit& closest_hit = ClosestHit()) {
    Hit hit;
    const bool found = closest_hit(scene, path.ray, kMinHitDistance, hit);
    return continue_path(scene, path, sampler, found, hit);
}

// Radiance along one path; a path still going after max_depth segments adds black.
template <class ClosestHit = BvhClosestHit, class Sampler = PixelSampler>
FARMRT_CPU_GPU FARMRT_INLINE Color trace_path(const SceneView& scene, Ray ray, Sampler& sampler, int max_depth,
                                              const ClosestHit& closest_hit = ClosestHit()) {
    PathState path = start_path(ray);
    while (path.depth < max_depth && extend_path(scene, path, sampler, closest_hit)) {
    }
    return path.radiance;
}

// trace_path() when the camera ray's closest-hit query has already run
// (tracers that find the first hits of several paths together); max_depth >= 1.
template <class ClosestHit, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE Color trace_path_from_first_hit(const SceneView& scene, const Ray& ray, bool found,
                                                             const Hit& hit, Sampler& sampler, int max_depth,
                                                             const ClosestHit& closest_hit) {
    PathState path = start_path(ray);
    if (continue_path(scene, path, sampler, found, hit)) {
        while (path.depth < max_depth && extend_path(scene, path, sampler, closest_hit)) {
        }
    }
    return path.radiance;
}

// Adds one sample's radiance to a pixel sum. A NaN from a degenerate path
// would poison the whole pixel: drop it.
FARMRT_CPU_GPU FARMRT_INLINE void add_sample(float* sum, const Color& c) {
    sum[0] += c.x == c.x ? c.x : 0.0f;
    sum[1] += c.y == c.y ? c.y : 0.0f;
    sum[2] += c.z == c.z ? c.z : 0.0f;
}

// What one render call needs besides the scene: the frame's camera and sampling.
struct FrameSettings {
    Camera camera;
    uint32_t width = 0;
    uint32_t height = 0;
    int max_depth = 50;
    SamplerKey key;
};

// The radiance of one sample of pixel (x, y), its random numbers from `sampler`.
template <class ClosestHit, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE Color trace_sample(const SceneView& scene, const FrameSettings& frame, uint32_t x,
                                                uint32_t y, Sampler& sampler, const ClosestHit& closest_hit) {
    const Ray ray = frame.camera.generate_ray(x, y, sampler);
    return trace_path(scene, ray, sampler, frame.max_depth, closest_hit);
}

// Adds samples [sample_begin, sample_end) of pixel (x, y) to `sum`, in sample
// order, so that any split into passes accumulates the same float sums.
template <class ClosestHit = BvhClosestHit>
FARMRT_CPU_GPU FARMRT_INLINE void accumulate_pixel(const SceneView& scene, const FrameSettings& frame, uint32_t x,
                                                   uint32_t y, uint32_t sample_begin, uint32_t sample_end,
                                                   float* sum, const ClosestHit& closest_hit = ClosestHit()) {
    const uint32_t pixel_index = y * frame.width + x;
    for (uint32_t s = sample_begin; s < sample_end; ++s) {
        PixelSampler sampler(frame.key, pixel_index, s);
        add_sample(sum, trace_sample(scene, frame, x, y, sampler, closest_hit));
    }
}

}  // namespace farmrt
