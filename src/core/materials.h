// Materials and textures as tagged structs, and the scattering laws of
// "Ray Tracing in One Weekend" (v4), shared by every tracer.
#pragma once

#include <cstddef>

#include "core/principled.h"
#include "core/ray.h"
#include "core/ray_spawn.h"
#include "core/sampler.h"
#include "core/trigonometry.h"

namespace farmrt {

enum class TextureType : uint32_t { Constant = 0, Checker = 1, Image = 2 };

struct Texture {
    TextureType type = TextureType::Constant;
    Color color;      // Constant
    Color even, odd;  // Checker
    float inverse_scale = 1.0f;
    // Image: linear RGB texels, top row first, at texture_pixels[3 * image_offset].
    uint32_t image_offset = 0;
    uint32_t image_width = 0, image_height = 0;
    // Image: (u, v) outside [0, 1] repeat the image (glTF's default) instead
    // of clamping to its edge (the book's).
    uint32_t repeat = 0;
    // Image: (u, v) mapped by an affine transform before the lookup (glTF's
    // KHR_texture_transform): u' = m[0] u + m[1] v + m[4], v' = m[2] u + m[3] v + m[5].
    uint32_t transformed = 0;
    float uv_transform[6] = {1, 0, 0, 1, 0, 0};
};

// No texture: a Principled material's emission_texture when it does not emit.
constexpr uint32_t kNoTexture = 0xFFFFFFFFu;

enum class MaterialType : uint32_t { Lambertian = 0, Metal = 1, Dielectric = 2, Emissive = 3, Principled = 4 };

// A set of material types, bit 1 << type each: the materials a piece of
// shading code is compiled for (the GPU's split kernels shade each surface
// type in a kernel of its own, so that no type pays for another's registers).
using MaterialTypes = uint32_t;
constexpr MaterialTypes kAllMaterialTypes = 0x1Fu;
constexpr uint32_t kMaterialTypeCount = 5;
// "Ray Tracing in One Weekend"'s types and its emitters: all but Principled.
constexpr MaterialTypes kBookMaterialTypes = 0x0Fu;

FARMRT_CPU_GPU constexpr MaterialTypes material_type_bit(MaterialType type) { return 1u << uint32_t(type); }
// More than one type in the set.
FARMRT_CPU_GPU constexpr bool several_material_types(MaterialTypes types) { return (types & (types - 1)) != 0; }
FARMRT_CPU_GPU constexpr MaterialType lowest_material_type(MaterialTypes types) {
    uint32_t type = 0;
    while (type + 1 < kMaterialTypeCount && ((types >> type) & 1u) == 0) ++type;
    return MaterialType(type);
}

// A material's type as code compiled for `kTypes` may see it: one of the
// set's types as a constant (a set of one type: that type), so that the
// compiler drops the branches of every type outside the set. The caller
// passes only materials of a type in the set.
template <MaterialTypes kTypes>
FARMRT_CPU_GPU FARMRT_INLINE MaterialType material_type_within(MaterialType type) {
    static_assert(kTypes != 0 && (kTypes & ~kAllMaterialTypes) == 0, "a set of material types");
    constexpr MaterialType lowest = lowest_material_type(kTypes);
    if constexpr (kTypes == kAllMaterialTypes) {
        return type;
    } else if constexpr (!several_material_types(kTypes)) {
        (void)type;
        return lowest;
    } else {
        return type == lowest ? lowest : material_type_within<kTypes&(kTypes - 1)>(type);
    }
}

// Cut-outs (glTF's alphaMode): Opaque surfaces are everywhere; Mask ones only
// where alpha >= the cutoff (leaves, fences); Blend ones with probability
// alpha (stochastic transparency: the pixel converges to the blend).
enum class AlphaMode : uint32_t { Opaque = 0, Mask = 1, Blend = 2 };

// 16-byte aligned (48 bytes): three 16-byte loads on the GPU.
struct alignas(16) Material {
    MaterialType type = MaterialType::Lambertian;
    uint32_t albedo_texture = 0;  // Lambertian, Metal, Principled (base colour): index into the texture array
    float fuzz = 0;               // Metal
    float ior = 1.5f;             // Dielectric, Principled
    // Emissive, Principled (kNoTexture: none): index into the texture array.
    uint32_t emission_texture = 0;
    // The mean luminance of the emission texture, which weighs the light in
    // light selection (Scene::build_lights fills it in).
    float emission_luminance = 0.0f;
    // Principled: roughness in green, metallic in blue (glTF's layout).
    uint32_t metallic_roughness_texture = 0;
    float transmission = 0.0f;  // Principled
    // Any type (kNoTexture: none): a tangent-space normal map, its texels the
    // decoded normal (x and y already multiplied by the file's scale); it
    // bends the shading normal of triangles that carry tangents (surface_at).
    uint32_t normal_texture = kNoTexture;
    // Triangles only (surface_kept in closest_hit.h): the cut-out, its alpha in
    // the x channel of alpha_texture, and the Mask mode's cutoff.
    AlphaMode alpha_mode = AlphaMode::Opaque;
    uint32_t alpha_texture = kNoTexture;
    float alpha_cutoff = 0.5f;
};

// Whether surfaces of this material emit light.
FARMRT_CPU_GPU FARMRT_INLINE bool material_emits(const Material& m) {
    return m.type == MaterialType::Emissive || (m.type == MaterialType::Principled && m.emission_texture != kNoTexture);
}

// The luminance of a linear Rec. 709 colour.
FARMRT_CPU_GPU FARMRT_INLINE float luminance(const Color& c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }

// Where a ray met a surface, after traversal.
struct SurfaceInteraction {
    Vec3 point;
    Vec3 normal;  // unit, facing against the incoming ray
    // From the point to where rays leaving it start, on the geometric
    // normal's outward side (ray_spawn.h); spawn_origin picks the side.
    Vec3 spawn_offset;
    bool front_face = true;
    float u = 0, v = 0;  // texture coordinates
    uint32_t material = 0;
    Color vertex_color = Color(1.0f);  // the mesh's colour here, multiplying the base colour
};

// Bilinear lookup in an image texture at (u, v): u runs left to right, v bottom
// to top, both clamped to [0, 1] as in the book's image_texture; texel centres
// sit at half-integer positions and the edges are clamped.
FARMRT_CPU_GPU FARMRT_INLINE Color lookup_image(const Texture& texture, const float* texture_pixels, float u, float v) {
    const int width = static_cast<int>(texture.image_width);
    const int height = static_cast<int>(texture.image_height);
    if (texture.repeat != 0) {
        u = u - floorf(u);
        v = v - floorf(v);
    }
    const float x = clamp_float(u, 0.0f, 1.0f) * static_cast<float>(width) - 0.5f;
    const float y = (1.0f - clamp_float(v, 0.0f, 1.0f)) * static_cast<float>(height) - 0.5f;
    const float x_floor = floorf(x), y_floor = floorf(y);
    const float fx = x - x_floor, fy = y - y_floor;
    const int x0 = static_cast<int>(x_floor), y0 = static_cast<int>(y_floor);
    const int xa = x0 < 0 ? 0 : x0, xb = x0 + 1 > width - 1 ? width - 1 : x0 + 1;
    const int ya = y0 < 0 ? 0 : y0, yb = y0 + 1 > height - 1 ? height - 1 : y0 + 1;
    const float* base = texture_pixels + 3 * static_cast<size_t>(texture.image_offset);
    const float* p00 = base + 3 * (static_cast<size_t>(ya) * width + xa);
    const float* p10 = base + 3 * (static_cast<size_t>(ya) * width + xb);
    const float* p01 = base + 3 * (static_cast<size_t>(yb) * width + xa);
    const float* p11 = base + 3 * (static_cast<size_t>(yb) * width + xb);
    Color c;
    for (int k = 0; k < 3; ++k) {
        const float top = (1.0f - fx) * p00[k] + fx * p10[k];
        const float bottom = (1.0f - fx) * p01[k] + fx * p11[k];
        c[k] = (1.0f - fy) * top + fy * bottom;
    }
    return c;
}

// The parity (0 even, 1 odd) of floor(x), without converting a float that
// may not fit an int (a cell number can exceed 2^31 at a fine scale): every
// float of magnitude 2^24 or more is an even integer; NaN counts as even.
FARMRT_CPU_GPU FARMRT_INLINE int cell_parity(float x) {
    const float cell = floorf(x);
    if (!(fabsf(cell) < 16777216.0f)) return 0;
    return static_cast<int>(static_cast<int32_t>(cell) & 1);
}

FARMRT_CPU_GPU FARMRT_INLINE Color evaluate_texture(const Texture* textures, const float* texture_pixels,
                                                    uint32_t index, const SurfaceInteraction& si) {
    const Texture& texture = textures[index];
    if (texture.type == TextureType::Image) {
        if (texture.transformed == 0) return lookup_image(texture, texture_pixels, si.u, si.v);
        const float* m = texture.uv_transform;
        return lookup_image(texture, texture_pixels, m[0] * si.u + m[1] * si.v + m[4],
                            m[2] * si.u + m[3] * si.v + m[5]);
    }
    if (texture.type == TextureType::Checker) {
        // The book's solid 3-D checker: even where the sum of the three cell
        // numbers is even, i.e. where their parities cancel.
        const int parity = cell_parity(texture.inverse_scale * si.point.x) ^
                           cell_parity(texture.inverse_scale * si.point.y) ^
                           cell_parity(texture.inverse_scale * si.point.z);
        return parity == 0 ? texture.even : texture.odd;
    }
    return texture.color;
}

// The material's base colour (albedo) at a surface point: its texture times
// the mesh's vertex colour.
FARMRT_CPU_GPU FARMRT_INLINE Color base_color_at(const Material& material, const Texture* textures,
                                                 const float* texture_pixels, const SurfaceInteraction& si) {
    return evaluate_texture(textures, texture_pixels, material.albedo_texture, si) * si.vertex_color;
}

// A uniformly distributed unit vector from two random numbers.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 unit_vector_from(float u1, float u2) {
    const float z = 1.0f - 2.0f * u1;
    const float r = sqrtf(max_float(0.0f, 1.0f - z * z));
    float sine, cosine;
    sin_cos_turns(u2, sine, cosine);  // angle 2 pi u2
    return Vec3(r * cosine, r * sine, z);
}

// Schlick's approximation of Fresnel reflectance.
FARMRT_CPU_GPU FARMRT_INLINE float schlick_reflectance(float cosine, float eta_ratio) {
    float r0 = (1.0f - eta_ratio) / (1.0f + eta_ratio);
    r0 = r0 * r0;
    const float m = 1.0f - cosine;
    return r0 + (1.0f - r0) * (m * m * m * m * m);
}

struct ScatterResult {
    bool scattered = false;
    Color attenuation;
    Ray ray;
    // The solid-angle density the direction was drawn with; 0 for the
    // book's dielectric and fuzzy metal, whose directions have none in
    // closed form (next-event estimation counts what they hit in full).
    float pdf = 0.0f;
};

// The Principled material's inputs at a surface point.
FARMRT_CPU_GPU FARMRT_INLINE PrincipledInputs principled_inputs(const Material& material, const Texture* textures,
                                                                const float* texture_pixels,
                                                                const SurfaceInteraction& si) {
    PrincipledInputs in;
    in.base_color = base_color_at(material, textures, texture_pixels, si);
    const Color metallic_roughness =
        evaluate_texture(textures, texture_pixels, material.metallic_roughness_texture, si);
    in.roughness = clamp_float(metallic_roughness.y, 0.0f, 1.0f);
    in.metallic = clamp_float(metallic_roughness.z, 0.0f, 1.0f);
    in.transmission = material.transmission;
    in.eta = si.front_face ? material.ior : 1.0f / material.ior;
    return in;
}

// The Principled material's scattering: the direction in the shading frame,
// weighed by f cos / pdf over every lobe that could have drawn it.
FARMRT_CPU_GPU FARMRT_INLINE void scatter_principled(const PrincipledInputs& in, const Ray& incoming,
                                                     const SurfaceInteraction& si, float u0, float u1, float u2,
                                                     ScatterResult& result) {
    const ShadingFrame frame = shading_frame(si.normal);
    const Vec3 wo = frame.to_local(-unit_vector(incoming.direction));
    Vec3 wi;
    if (!sample_principled_direction(in, wo, u0, u1, u2, wi)) return;
    const BsdfValue value = evaluate_principled(in, wo, wi);
    if (!(value.pdf > 0.0f)) return;
    const Vec3 direction = frame.to_world(wi);
    result.scattered = true;
    result.attenuation = value.f_cos / value.pdf;
    result.pdf = value.pdf;
    result.ray = Ray{spawn_origin(si.point, si.spawn_offset, direction), direction, incoming.time};
}

// Scatter an incoming ray at a surface. `dimension` is the first of its
// three random dimensions (core/sampler.h kBsdfSample): a pair for the
// direction, then one for a choice (lobe, reflect or refract).
// Sampler: as Camera::generate_ray.
template <class Sampler>
FARMRT_CPU_GPU FARMRT_INLINE ScatterResult scatter(const Material& material, const Texture* textures,
                                                   const float* texture_pixels, const Ray& incoming,
                                                   const SurfaceInteraction& si, Sampler& sampler, uint32_t dimension) {
    // The segment's random numbers, drawn before the material switch. A value
    // depends only on its dimension, so this changes no result; on a GPU the
    // lanes of a warp then draw them together instead of once per branch.
    const float random0 = sampler.uniform(dimension);
    const float random1 = sampler.uniform(dimension + 1);
    const float random2 = sampler.uniform(dimension + 2);
    ScatterResult result;
    switch (material.type) {
    case MaterialType::Lambertian: {
        Vec3 direction = si.normal + unit_vector_from(random0, random1);
        if (near_zero(direction)) direction = si.normal;
        result.scattered = true;
        result.attenuation = base_color_at(material, textures, texture_pixels, si);
        result.ray = Ray{spawn_origin(si.point, si.spawn_offset, direction), direction, incoming.time};
        result.pdf = max_float(0.0f, dot(si.normal, unit_vector(direction))) * (1.0f / kPi);
        break;
    }
    case MaterialType::Principled:
        // The lobe's number third: the direction takes the dimension pair.
        scatter_principled(principled_inputs(material, textures, texture_pixels, si), incoming, si, random2, random0,
                           random1, result);
        break;
    case MaterialType::Metal: {
        Vec3 reflected = unit_vector(reflect(incoming.direction, si.normal));
        reflected += material.fuzz * unit_vector_from(random0, random1);
        result.scattered = dot(reflected, si.normal) > 0;
        result.attenuation = base_color_at(material, textures, texture_pixels, si);
        result.ray = Ray{spawn_origin(si.point, si.spawn_offset, reflected), reflected, incoming.time};
        break;
    }
    case MaterialType::Dielectric: {
        const float eta_ratio = si.front_face ? (1.0f / material.ior) : material.ior;
        const Vec3 unit_direction = unit_vector(incoming.direction);
        const float cos_theta = min_float(dot(-unit_direction, si.normal), 1.0f);
        const float sin_theta = sqrtf(max_float(0.0f, 1.0f - cos_theta * cos_theta));
        const bool cannot_refract = eta_ratio * sin_theta > 1.0f;
        const bool reflects = cannot_refract || schlick_reflectance(cos_theta, eta_ratio) > random2;
        const Vec3 direction =
            reflects ? reflect(unit_direction, si.normal) : refract(unit_direction, si.normal, eta_ratio);
        result.scattered = true;
        result.attenuation = Color(1.0f);
        result.ray = Ray{spawn_origin(si.point, si.spawn_offset, direction), direction, incoming.time};
        break;
    }
    case MaterialType::Emissive: break;
    }
    return result;
}

}  // namespace farmrt
