// The path tracer's per-sample loop ("Ray Tracing in One Weekend" ray_color,
// written as a loop), shared by every backend.
#pragma once

#include <type_traits>

#include "core/camera.h"
#include "core/lights.h"
#include "core/occlusion.h"
#include "core/pixel_record.h"
#include "core/ray_counts.h"
#include "core/render_settings.h"
#include "core/scene.h"

namespace farmrt {

// The closest-hit query of the scalar tracers: the binary BVH of the scene,
// and its any-hit query for shadow rays. Other tracers (the SIMD wide BVH,
// the GPU's) pass their own queries with the same signatures and results;
// shading stays this one code.
// kInstances = false: for scenes without instances (see intersect_primitive).
// Traits: TraversalTraits (closest_hit.h), the GPU's per-scene specialisations.
template <class Traits>
struct TraversalQuery {
    // Every primitive a sphere: shading leaves out what only triangles carry.
    static constexpr bool kSpheresOnly = Traits::kSpheresOnly;
    FARMRT_CPU_GPU FARMRT_INLINE bool operator()(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) const {
        return intersect_closest<Traits>(scene, ray, t_min, hit);
    }
    FARMRT_CPU_GPU FARMRT_INLINE bool occluded(const SceneView& scene, const Ray& ray, float t_max) const {
        return intersect_any(scene, ray, kMinHitDistance, t_max);
    }
};
// The query of every scene, instances included: the scalar tracers' and the
// one tests and tools take by default.
using BvhQuery = TraversalQuery<TraversalTraits<true>>;

// Whether a query's scenes hold spheres alone (its kSpheresOnly, false where
// it has none): their shading leaves vertex colours and normal maps out at
// compile time (surface_at), so that the GPU's sphere kernels keep no
// registers for them.
template <class Query, class = void>
struct SpheresOnlyQuery {
    static constexpr bool value = false;
};
template <class Query>
struct SpheresOnlyQuery<Query, std::void_t<decltype(Query::kSpheresOnly)>> {
    static constexpr bool value = Query::kSpheresOnly;
};

// Russian roulette starts after this many segments.
constexpr int kRouletteDepth = 5;

// One path in flight: what a tracer keeps between path segments. Splitting
// the path loop into steps lets a GPU thread start its next sample as soon as
// a path ends (path regeneration) instead of idling until its whole warp is
// done; every backend runs the same steps in the same order.
struct PathState {
    Ray ray;
    Color throughput{1.0f};
    Color radiance{0.0f};
    // Segments traced so far; 0 again once the path has ended where its
    // camera ray left through a transparent background (left_through_film):
    // the sample's alpha needs no register of its own.
    int depth = 0;
    Integrator integrator = Integrator::NextEvent;
    // NextEvent: the point `ray` left and the solid-angle density of the BSDF
    // sample that chose it; 0 for the camera ray and delta-like scattering,
    // whose emitters count in full.
    Vec3 previous_point;
    float previous_pdf = 0.0f;
};

// filter_weight: the camera sample's weight from the pixel filter
// (Camera::generate_ray), where the path's throughput starts.
FARMRT_CPU_GPU FARMRT_INLINE PathState start_path(const Ray& camera_ray, Integrator integrator = Integrator::NextEvent,
                                                  float filter_weight = 1.0f) {
    PathState path;
    path.ray = camera_ray;
    path.integrator = integrator;
    path.throughput = Color(filter_weight);
    return path;
}

// Firefly control (sampling.clamp): light that reached the camera after at
// most one scattering (direct) or more (indirect) is scaled down, a
// contribution at a time, until its largest component is at most the
// scene's limit; the limits are infinite when off, which changes nothing.
// Biased: clamped light is lost.
FARMRT_CPU_GPU FARMRT_INLINE Color clamped_light(const Color& light, float limit) {
    const float largest = max_float(fabsf(light.x), max_float(fabsf(light.y), fabsf(light.z)));
    return largest > limit ? (limit / largest) * light : light;
}
// `scatterings`: the scattering events between the light and the camera.
FARMRT_CPU_GPU FARMRT_INLINE void add_light_to(const SceneView& scene, Color& radiance, const Color& light,
                                               uint32_t scatterings) {
    radiance += clamped_light(light, scatterings <= 1 ? scene.direct_clamp : scene.indirect_clamp);
}
FARMRT_CPU_GPU FARMRT_INLINE void add_light(const SceneView& scene, PathState& path, const Color& light,
                                            uint32_t scatterings) {
    add_light_to(scene, path.radiance, light, scatterings);
}

// A camera ray (depth 0) that leaves the scene where image.alpha makes the
// background transparent: it brings back no light, and the sample's alpha
// is 0. True when the path ends so; its depth is then 0 again.
FARMRT_CPU_GPU FARMRT_INLINE bool camera_ray_through_film(const SceneView& scene, uint32_t depth, PathState& path) {
    if (depth != 0 || !scene.transparent_background) return false;
    path.depth = 0;
    return true;
}

// Whether an ended path's camera ray left through a transparent background
// (every other path ends after at least one segment).
FARMRT_CPU_GPU FARMRT_INLINE bool left_through_film(const PathState& path) { return path.depth == 0; }

// An ended path's sample as its pixel's record takes it: its alpha is its
// camera sample's filter weight, 0 where it left through the film.
FARMRT_CPU_GPU FARMRT_INLINE PixelSample path_sample(const PathState& path, float filter_weight) {
    return PixelSample{path.radiance, left_through_film(path) ? 0.0f : filter_weight};
}

// The light a surface emits towards the ray, weighted against light sampling
// where the ray was drawn from a BSDF density (previous_pdf > 0).
template <Integrator kIntegrator>
FARMRT_CPU_GPU FARMRT_INLINE Color emitted_towards(const SceneView& scene, const PathState& path, const Hit& hit,
                                                   const SurfaceInteraction& si, const Material& material) {
    const Color emitted = evaluate_texture(scene.textures, scene.texture_pixels, material.emission_texture, si);
    if (kIntegrator == Integrator::Naive || !(path.previous_pdf > 0.0f)) return path.throughput * emitted;
    const float weight =
        power_heuristic(path.previous_pdf, emitter_hit_pdf(scene, path.ray, hit, path.previous_point, si.point));
    return (weight * path.throughput) * emitted;
}

// The book's segment: adds what the ray sees and scatters it.
template <bool kSpheresOnly = false, MaterialTypes kTypes = kAllMaterialTypes, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE bool continue_naive_path(const SceneView& scene, PathState& path, Sampler& sampler,
                                                      uint32_t depth, bool found, const Hit& hit) {
    if (!found) {
        if (camera_ray_through_film(scene, depth, path)) return false;
        add_light(scene, path,
                  path.throughput *
                      background_radiance(scene.background, scene.textures, scene.texture_pixels, path.ray.direction),
                  depth);
        return false;
    }
    const SurfaceInteraction si =
        surface_at<kSpheresOnly>(scene, path.ray, hit, material_reads_uv(scene, hit_material(scene, hit)));
    Material material = scene.materials[si.material];  // a copy: vector loads on the GPU
    material.type = material_type_within<kTypes>(material.type);
    if (material.type == MaterialType::Emissive) {
        // Two-sided, as the book's diffuse_light: either face emits.
        add_light(
            scene, path,
            path.throughput * evaluate_texture(scene.textures, scene.texture_pixels, material.emission_texture, si),
            depth);
        return false;
    }
    if (material_emits(material))
        add_light(scene, path, emitted_towards<Integrator::Naive>(scene, path, hit, si, material), depth);
    const ScatterResult s = scatter(material, scene.textures, scene.texture_pixels, path.ray, si, sampler,
                                    kDimensionFirstBounce + kDimensionsPerBounce * depth + kBsdfSample);
    if (!s.scattered) return false;
    path.throughput *= s.attenuation;
    path.ray = s.ray;
    return true;
}

// How far along a shadow ray (origin + t (target - origin)) counts as in
// front of the light: short of it by more than the light point's rounding.
constexpr float kShadowRayEnd = 1.0f - 1e-4f;

// A light sample at a path vertex before its shadow ray: the light it adds
// if the shadow ray reaches the light.
struct DirectLightSample {
    Color light{0.0f};  // (MIS weight / light density) f cos Le
    Ray shadow_ray;
    float shadow_end = 0.0f;  // the any-hit query's t_max along shadow_ray
    bool traced = false;      // false: the sample adds nothing and has no shadow ray
};

// One light sample at a vertex whose BSDF has a density (Lambertian or
// Principled), weighted against that density for the same direction (the
// power heuristic). The BSDF is evaluated after the light is sampled and
// before the shadow ray, so that none of its state is live across either
// (registers: on the GPU the Principled material's would slow every scene).
template <class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE DirectLightSample sample_direct_light(const SceneView& scene, const SurfaceInteraction& si,
                                                                   const Material& material, const Vec3& incoming,
                                                                   float time, Sampler& sampler, uint32_t dimension) {
    DirectLightSample result;
    float pick;
    const uint32_t chosen = pick_light(scene, sampler.uniform(dimension + kLightPick), si.point, pick);
    if (chosen == kNoLight || !(pick > 0.0f)) return result;
    const Light light = scene.lights[chosen];
    const LightSample sample = sample_light(scene, light, si.point, sampler.uniform(dimension + kLightSample),
                                            sampler.uniform(dimension + kLightSample + 1), time);
    const bool principled = material.type == MaterialType::Principled;
    const float cosine = dot(si.normal, sample.direction);
    if (!(sample.pdf > 0.0f) || (!principled && !(cosine > 0.0f))) return result;
    if (sample.radiance.x == 0.0f && sample.radiance.y == 0.0f && sample.radiance.z == 0.0f) return result;
    const float light_pdf = pick * sample.pdf;
    if (!(light_pdf > 0.0f)) return result;
    // f cos / light_pdf and the BSDF's density, for the power heuristic.
    Color f_cos;
    float bsdf_pdf;
    if (principled) {
        const ShadingFrame frame = shading_frame(si.normal);
        const BsdfValue value =
            evaluate_principled(principled_inputs(material, scene.textures, scene.texture_pixels, si),
                                frame.to_local(-unit_vector(incoming)), frame.to_local(sample.direction));
        if (!(value.pdf > 0.0f)) return result;
        f_cos = value.f_cos;
        bsdf_pdf = value.pdf;
    } else {
        // Lambertian: f = albedo / pi, BSDF density cos / pi.
        f_cos = (cosine * (1.0f / kPi)) * base_color_at(material, scene.textures, scene.texture_pixels, si);
        bsdf_pdf = cosine * (1.0f / kPi);
    }
    const Vec3 origin = spawn_origin(si.point, si.spawn_offset, sample.direction);
    result.shadow_ray =
        sample.infinite ? Ray{origin, sample.direction, time} : Ray{origin, sample.point - origin, time};
    result.shadow_end = sample.infinite ? kInfinity : kShadowRayEnd;
    const float weight = sample.delta ? 1.0f : power_heuristic(light_pdf, bsdf_pdf);
    result.light = (weight / light_pdf) * (f_cos * sample.radiance);
    result.traced = true;
    return result;
}

// The light a sample adds once its shadow ray is traced: none when blocked.
template <class Query>
FARMRT_CPU_GPU FARMRT_INLINE Color unblocked_light(const SceneView& scene, const DirectLightSample& sample,
                                                   const Query& query) {
    if (!sample.traced || query.occluded(scene, sample.shadow_ray, sample.shadow_end)) return Color(0.0f);
    return sample.light;
}

// A shadow ray whose answer comes later (the GPU's split kernels trace every
// path's shadow ray in a kernel of their own): the light sample and the
// path's throughput when it was taken. add_deferred_light then adds what
// the immediate form adds, in the same order along the path.
struct DeferredShadow {
    DirectLightSample sample;
    Color throughput;
    uint32_t scatterings = 0;
};
FARMRT_CPU_GPU FARMRT_INLINE void add_deferred_light(const SceneView& scene, Color& radiance,
                                                     const DeferredShadow& shadow, bool blocked) {
    add_light_to(scene, radiance, shadow.throughput * (blocked ? Color(0.0f) : shadow.sample.light),
                 shadow.scatterings);
}

// What a segment does with its light sample. Immediate: the tracer's
// any-hit query answers at once (every backend but the GPU's split kernels).
template <class Query>
struct ImmediateShadows {
    const Query& query;
    FARMRT_CPU_GPU FARMRT_INLINE void operator()(const SceneView& scene, PathState& path,
                                                 const DirectLightSample& sample, uint32_t scatterings) const {
        add_light(scene, path, path.throughput * unblocked_light(scene, sample, query), scatterings);
    }
};
// Deferred: a sample with a shadow ray is kept for a later kernel (pending
// turns true); one without adds its nothing now, as the immediate form does.
struct DeferredShadows {
    DeferredShadow& shadow;
    bool& pending;
    FARMRT_CPU_GPU FARMRT_INLINE void operator()(const SceneView& scene, PathState& path,
                                                 const DirectLightSample& sample, uint32_t scatterings) const {
        if (!sample.traced) {
            add_light(scene, path, path.throughput * Color(0.0f), scatterings);
            return;
        }
        shadow.sample = sample;
        shadow.throughput = path.throughput;
        shadow.scatterings = scatterings;
        pending = true;
    }
};

// The next-event estimator's segment (Integrator::NextEvent). Shadows:
// ImmediateShadows or DeferredShadows. kSampleLights = false compiles the
// light sample out, for scenes without lights, where it never runs (on the
// GPU its code and registers slow the paths that skip it).
template <bool kSpheresOnly = false, MaterialTypes kTypes = kAllMaterialTypes, bool kSampleLights = true, class Shadows,
          class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE bool continue_next_event_path(const SceneView& scene, PathState& path, Sampler& sampler,
                                                           uint32_t depth, bool found, const Hit& hit,
                                                           const Shadows& shadows) {
    if (!found) {
        if (camera_ray_through_film(scene, depth, path)) return false;
        const Color seen =
            background_radiance(scene.background, scene.textures, scene.texture_pixels, path.ray.direction);
        const float weight = path.previous_pdf > 0.0f
                                 ? power_heuristic(path.previous_pdf, environment_hit_pdf(scene, path.ray.direction))
                                 : 1.0f;
        add_light(scene, path, (weight * path.throughput) * seen, depth);
        return false;
    }
    const SurfaceInteraction si =
        surface_at<kSpheresOnly>(scene, path.ray, hit, material_reads_uv(scene, hit_material(scene, hit)));
    Material material = scene.materials[si.material];
    material.type = material_type_within<kTypes>(material.type);
    if (material_emits(material)) {
        add_light(scene, path, emitted_towards<Integrator::NextEvent>(scene, path, hit, si, material), depth);
        if (material.type == MaterialType::Emissive) return false;
    }
    const uint32_t dimension = kDimensionFirstBounce + kDimensionsPerBounce * depth;
    const bool has_density = material.type == MaterialType::Lambertian || material.type == MaterialType::Principled;
    if (kSampleLights && has_density && scene.light_count > 0) {
        shadows(scene, path,
                sample_direct_light(scene, si, material, path.ray.direction, path.ray.time, sampler, dimension),
                depth + 1);
    }
    const ScatterResult s =
        scatter(material, scene.textures, scene.texture_pixels, path.ray, si, sampler, dimension + kBsdfSample);
    if (!s.scattered) return false;
    path.previous_point = si.point;
    path.previous_pdf = has_density ? s.pdf : 0.0f;
    path.throughput *= s.attenuation;
    path.ray = s.ray;
    if (path.depth >= kRouletteDepth) {
        // Continue with probability q = the largest throughput component (at
        // most 0.95), and weigh survivors by 1 / q.
        const float q = min_float(0.95f, max_float(path.throughput.x, max_float(path.throughput.y, path.throughput.z)));
        if (!(sampler.uniform(dimension + kRoulette) < q)) return false;
        path.throughput = path.throughput / q;
    }
    return true;
}

// The second half of a path segment, once the closest-hit query has run:
// adds what the ray sees and scatters it. Returns false once the path has
// ended (missed everything, hit a light, was absorbed); the caller also ends
// it once `depth` reaches max_depth, which adds black. Tracers that run the
// query their own way call this directly. Sampler: PixelSampler or a type
// with the same uniform() values (Camera::generate_ray). Query: the tracer's
// queries (TraversalQuery), for shadow rays.
template <class Query, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE bool continue_path(const SceneView& scene, PathState& path, Sampler& sampler, bool found,
                                                const Hit& hit, const Query& query) {
    constexpr bool kSpheresOnly = SpheresOnlyQuery<Query>::value;
    const uint32_t depth = static_cast<uint32_t>(path.depth++);
    if (path.integrator == Integrator::Naive) {
        return continue_naive_path<kSpheresOnly>(scene, path, sampler, depth, found, hit);
    }
    return continue_next_event_path<kSpheresOnly>(scene, path, sampler, depth, found, hit,
                                                  ImmediateShadows<Query>{query});
}

// continue_path() with the light sample's shadow ray left for later
// (DeferredShadows): `pending` turns true when `shadow` holds one to trace
// before the path's next segment (add_deferred_light). kTypes: the types the
// hit's material may have (material_type_within); a miss needs none.
template <MaterialTypes kTypes = kAllMaterialTypes, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE bool continue_path_deferring_shadow(const SceneView& scene, PathState& path,
                                                                 Sampler& sampler, bool found, const Hit& hit,
                                                                 DeferredShadow& shadow, bool& pending) {
    const uint32_t depth = static_cast<uint32_t>(path.depth++);
    if (path.integrator == Integrator::Naive) {
        return continue_naive_path<false, kTypes>(scene, path, sampler, depth, found, hit);
    }
    return continue_next_event_path<false, kTypes>(scene, path, sampler, depth, found, hit,
                                                   DeferredShadows{shadow, pending});
}

// Traces one path segment: the closest-hit query, then continue_path().
template <class Query = BvhQuery, class Sampler = PixelSampler>
FARMRT_CPU_GPU FARMRT_INLINE bool extend_path(const SceneView& scene, PathState& path, Sampler& sampler,
                                              const Query& query = Query()) {
    Hit hit;
    const bool found = query(scene, path.ray, kMinHitDistance, hit);
    return continue_path(scene, path, sampler, found, hit, query);
}

// extend_path() for paths of one integrator known at compile time: the GPU
// compiles one kernel per integrator, so that the book's estimator does not
// pay the registers of next-event estimation. kTypes and kSampleLights: as
// for continue_next_event_path (a kernel for the scene's material types, one
// without light sampling for scenes without lights).
template <Integrator kIntegrator, MaterialTypes kTypes = kAllMaterialTypes, bool kSampleLights = true, class Query,
          class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE bool extend_path_with(const SceneView& scene, PathState& path, Sampler& sampler,
                                                   const Query& query) {
    Hit hit;
    const bool found = query(scene, path.ray, kMinHitDistance, hit);
    constexpr bool kSpheresOnly = SpheresOnlyQuery<Query>::value;
    const uint32_t depth = static_cast<uint32_t>(path.depth++);
    if (kIntegrator == Integrator::Naive) {
        return continue_naive_path<kSpheresOnly, kTypes>(scene, path, sampler, depth, found, hit);
    }
    return continue_next_event_path<kSpheresOnly, kTypes, kSampleLights>(scene, path, sampler, depth, found, hit,
                                                                         ImmediateShadows<Query>{query});
}

// One path traced to its end; a path still going after max_depth segments adds black.
template <class Query, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE PathState ended_path(const SceneView& scene, const Ray& ray, Sampler& sampler,
                                                  int max_depth, const Query& query, Integrator integrator,
                                                  float filter_weight) {
    PathState path = start_path(ray, integrator, filter_weight);
    while (path.depth < max_depth && extend_path(scene, path, sampler, query)) {}
    return path;
}

// Radiance along one path (ended_path).
template <class Query = BvhQuery, class Sampler = PixelSampler>
FARMRT_CPU_GPU FARMRT_INLINE Color trace_path(const SceneView& scene, Ray ray, Sampler& sampler, int max_depth,
                                              const Query& query = Query(),
                                              Integrator integrator = Integrator::NextEvent,
                                              float filter_weight = 1.0f) {
    return ended_path(scene, ray, sampler, max_depth, query, integrator, filter_weight).radiance;
}

// ended_path() when the camera ray's closest-hit query has already run
// (tracers that find the first hits of several paths together); max_depth >= 1.
template <class Query, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE PathState ended_path_from_first_hit(const SceneView& scene, const Ray& ray, bool found,
                                                                 const Hit& hit, Sampler& sampler, int max_depth,
                                                                 const Query& query, Integrator integrator,
                                                                 float filter_weight) {
    PathState path = start_path(ray, integrator, filter_weight);
    if (continue_path(scene, path, sampler, found, hit, query)) {
        while (path.depth < max_depth && extend_path(scene, path, sampler, query)) {}
    }
    return path;
}

// What one render call needs besides the scene: the frame's camera and sampling.
struct FrameSettings {
    Camera camera;
    // The image rendered: pixel (x, y) of it is pixel (region_x + x,
    // region_y + y) of the frame the camera sees, film_width wide (the whole
    // frame unless image.region cuts a window from it).
    uint32_t width = 0;
    uint32_t height = 0;
    uint32_t region_x = 0;
    uint32_t region_y = 0;
    uint32_t film_width = 0;
    int max_depth = 50;
    Integrator integrator = Integrator::NextEvent;
    SamplerKey key;
    PixelFilter filter;      // image.filter
    PixelSampling sampling;  // the pixel record's layout, adaptive sampling

    // The frame's index of image pixel (x, y): its random numbers' pixel,
    // the same in a window as in the whole frame.
    FARMRT_CPU_GPU FARMRT_INLINE uint32_t pixel_index(uint32_t x, uint32_t y) const {
        return (region_y + y) * film_width + (region_x + x);
    }
    // The camera ray of one sample of image pixel (x, y) (Camera::generate_ray).
    template <class Sampler>
    FARMRT_CPU_GPU FARMRT_INLINE Ray camera_ray(uint32_t x, uint32_t y, Sampler& sampler, float& weight) const {
        return camera.generate_ray(region_x + x, region_y + y, filter, sampler, weight);
    }
    // The filter weight of a sample's camera ray (camera_ray's `weight`).
    template <class Sampler>
    FARMRT_CPU_GPU FARMRT_INLINE float filter_weight(Sampler& sampler) const {
        return camera_sample_weight(filter, sampler);
    }
    template <class Sampler>
    FARMRT_CPU_GPU FARMRT_INLINE Ray camera_ray(uint32_t x, uint32_t y, Sampler& sampler) const {
        float weight;
        return camera_ray(x, y, sampler, weight);
    }
};

// One sample of pixel (x, y), its random numbers from `sampler`.
template <class Query, class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE PixelSample trace_sample(const SceneView& scene, const FrameSettings& frame, uint32_t x,
                                                      uint32_t y, Sampler& sampler, const Query& query) {
    float filter_weight;
    const Ray ray = frame.camera_ray(x, y, sampler, filter_weight);
    return path_sample(ended_path(scene, ray, sampler, frame.max_depth, query, frame.integrator, filter_weight),
                       filter_weight);
}

// The closest-hit queries an ended path made (its camera ray's among them):
// one a segment, and one for a camera ray that left through the film.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t closest_hit_queries(const PathState& path) {
    return path.depth > 0 ? uint32_t(path.depth) : 1u;
}

// A tracer's queries (TraversalQuery and the like) that also count the
// shadow (any-hit) rays they answer in `*shadow`; a path's closest-hit
// queries are counted once it has ended (closest_hit_queries), which costs
// the segment loop nothing. Count: the counter type (a GPU thread keeps a
// 32-bit count in a register). The answers are the wrapped query's, so the
// paths, and every sum, are unchanged.
template <class Query, class Count>
struct ShadowCountingQuery {
    static constexpr bool kSpheresOnly = SpheresOnlyQuery<Query>::value;
    Query query;  // a copy: the queries are a pointer or two
    Count* shadow;
    FARMRT_CPU_GPU FARMRT_INLINE bool operator()(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) const {
        return query(scene, ray, t_min, hit);
    }
    FARMRT_CPU_GPU FARMRT_INLINE bool occluded(const SceneView& scene, const Ray& ray, float t_max) const {
        ++*shadow;
        return query.occluded(scene, ray, t_max);
    }
};

// trace_sample() with its rays counted into `rays`: the same path, its
// shadow rays counted as they are traced, its closest-hit queries once it
// has ended.
template <class Query, class Sampler>
FARMRT_INLINE PixelSample trace_counted_sample(const SceneView& scene, const FrameSettings& frame, uint32_t x,
                                               uint32_t y, Sampler& sampler, const Query& query, RayCounts& rays) {
    float filter_weight;
    const Ray ray = frame.camera_ray(x, y, sampler, filter_weight);
    const PathState path =
        ended_path(scene, ray, sampler, frame.max_depth, ShadowCountingQuery<Query, uint64_t>{query, &rays.shadow},
                   frame.integrator, filter_weight);
    ++rays.camera;
    rays.extension += closest_hit_queries(path) - 1;
    return path_sample(path, filter_weight);
}

// Adds samples [sample_begin, sample_end) of pixel (x, y) to its record (as
// many floats as frame.sampling.record_floats), in sample order, skipping
// those that adaptive sampling leaves out, so that any split into passes
// accumulates the same floats.
template <class Query = BvhQuery>
FARMRT_CPU_GPU FARMRT_INLINE void accumulate_pixel(const SceneView& scene, const FrameSettings& frame, uint32_t x,
                                                   uint32_t y, uint32_t sample_begin, uint32_t sample_end, float* sum,
                                                   const Query& query = Query()) {
    const uint32_t pixel_index = frame.pixel_index(x, y);
    for_each_sample_run(sum, frame.sampling, sample_begin, sample_end, [&](uint32_t begin, uint32_t end) {
        for (uint32_t s = begin; s < end; ++s) {
            PixelSampler sampler(frame.key, pixel_index, s);
            add_sample_to_record(sum, trace_sample(scene, frame, x, y, sampler, query), frame.sampling.record_floats);
        }
    });
}

}  // namespace farmrt
