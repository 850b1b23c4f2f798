// The physically based material: glTF 2.0's metallic-roughness model, as
// pbrt-v4, Cycles and Mitsuba write it. A GGX (Trowbridge-Reitz) microfacet
// specular lobe with height-correlated Smith masking-shadowing over a
// Lambertian base; metals tint their reflection with Schlick's Fresnel from
// the base colour, dielectrics reflect by the exact Fresnel equations (which
// also give total internal reflection) and either diffuse or, by
// `transmission`, refract through a rough interface (Walter et al. 2007).
// Directions are sampled from the visible normals (Heitz 2018).
//
// Everything here works in a local frame whose z is the shading normal, on
// the side the light leaves towards (wo.z > 0).
#pragma once

#include "core/trigonometry.h"
#include "core/vector_math.h"

namespace farmrt {

// The material's inputs at one surface point, textures already read.
struct PrincipledInputs {
    Color base_color;
    float metallic = 0.0f;
    float roughness = 0.5f;
    float transmission = 0.0f;
    // The index of refraction behind the surface over the one in front
    // (ior entering, 1 / ior leaving).
    float eta = 1.5f;
};

// GGX alpha = roughness^2, kept above this: roughness 0 is a mirror to within
// a thousandth, and densities stay finite.
constexpr float kMinimumAlpha = 1e-3f;

FARMRT_CPU_GPU FARMRT_INLINE float ggx_alpha(float roughness) {
    return max_float(roughness * roughness, kMinimumAlpha);
}

// An orthonormal basis around a unit normal (Duff et al. 2017).
struct ShadingFrame {
    Vec3 tangent, bitangent, normal;
    FARMRT_CPU_GPU FARMRT_INLINE Vec3 to_local(const Vec3& v) const {
        return Vec3(dot(v, tangent), dot(v, bitangent), dot(v, normal));
    }
    FARMRT_CPU_GPU FARMRT_INLINE Vec3 to_world(const Vec3& v) const {
        return v.x * tangent + v.y * bitangent + v.z * normal;
    }
};

FARMRT_CPU_GPU FARMRT_INLINE ShadingFrame shading_frame(const Vec3& n) {
    const float sign = n.z >= 0.0f ? 1.0f : -1.0f;
    const float a = -1.0f / (sign + n.z);
    const float b = n.x * n.y * a;
    ShadingFrame frame;
    frame.tangent = Vec3(1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x);
    frame.bitangent = Vec3(b, sign + n.y * n.y * a, -n.y);
    frame.normal = n;
    return frame;
}

// ---- the microfacet distribution -----------------------------------------------------------

// D(h): the density of microfacet normals, per projected area.
FARMRT_CPU_GPU FARMRT_INLINE float ggx_distribution(const Vec3& h, float alpha) {
    const float a2 = alpha * alpha;
    const float d = h.z * h.z * (a2 - 1.0f) + 1.0f;
    return a2 / (kPi * d * d);
}

// Smith's Lambda for GGX: G1(w) = 1 / (1 + Lambda(w)).
FARMRT_CPU_GPU FARMRT_INLINE float ggx_lambda(const Vec3& w, float alpha) {
    const float cos2 = w.z * w.z;
    const float tan2 = max_float(0.0f, 1.0f - cos2) / cos2;  // +inf at grazing: G = 0
    return 0.5f * (sqrtf(1.0f + alpha * alpha * tan2) - 1.0f);
}

FARMRT_CPU_GPU FARMRT_INLINE float ggx_masking(const Vec3& w, float alpha) {
    return 1.0f / (1.0f + ggx_lambda(w, alpha));
}

// Height-correlated masking-shadowing.
FARMRT_CPU_GPU FARMRT_INLINE float ggx_masking_shadowing(const Vec3& wo, const Vec3& wi, float alpha) {
    return 1.0f / (1.0f + ggx_lambda(wo, alpha) + ggx_lambda(wi, alpha));
}

// The density of the normals visible from wo (wo.z > 0): D_wo(h).
FARMRT_CPU_GPU FARMRT_INLINE float visible_normal_density(const Vec3& wo, const Vec3& h, float alpha) {
    return ggx_masking(wo, alpha) * max_float(0.0f, dot(wo, h)) * ggx_distribution(h, alpha) / wo.z;
}

// A normal drawn from D_wo (Heitz 2018, "Sampling the GGX Distribution of
// Visible Normals"): stretch to the unit hemisphere, sample the projected
// disc, unstretch.
FARMRT_CPU_GPU FARMRT_INLINE Vec3 sample_visible_normal(const Vec3& wo, float alpha, float u1, float u2) {
    const Vec3 stretched = unit_vector(Vec3(alpha * wo.x, alpha * wo.y, wo.z));
    const float length2 = stretched.x * stretched.x + stretched.y * stretched.y;
    const Vec3 t1 = length2 > 0.0f ? Vec3(-stretched.y, stretched.x, 0.0f) * (1.0f / sqrtf(length2)) : Vec3(1, 0, 0);
    const Vec3 t2 = cross(stretched, t1);
    float sine, cosine;
    sin_cos_turns(u2, sine, cosine);
    const float r = sqrtf(u1);
    const float p1 = r * cosine;
    const float s = 0.5f * (1.0f + stretched.z);
    const float p2 = (1.0f - s) * sqrtf(max_float(0.0f, 1.0f - p1 * p1)) + s * (r * sine);
    const Vec3 normal = p1 * t1 + p2 * t2 + sqrtf(max_float(0.0f, 1.0f - p1 * p1 - p2 * p2)) * stretched;
    return unit_vector(Vec3(alpha * normal.x, alpha * normal.y, max_float(1e-6f, normal.z)));
}

// ---- Fresnel ---------------------------------------------------------------------------------

// Unpolarised reflectance of a dielectric interface, for light arriving at
// cos_i (> 0 on the front) with eta = the far side's index over the near one's.
FARMRT_CPU_GPU FARMRT_INLINE float fresnel_dielectric(float cos_i, float eta) {
    cos_i = clamp_float(cos_i, -1.0f, 1.0f);
    if (cos_i < 0.0f) {
        eta = 1.0f / eta;
        cos_i = -cos_i;
    }
    const float sin2_t = (1.0f - cos_i * cos_i) / (eta * eta);
    if (sin2_t >= 1.0f) return 1.0f;  // total internal reflection
    const float cos_t = sqrtf(max_float(0.0f, 1.0f - sin2_t));
    const float parallel = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    const float perpendicular = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    return 0.5f * (parallel * parallel + perpendicular * perpendicular);
}

// Schlick's approximation with a coloured reflectance at normal incidence (metals).
FARMRT_CPU_GPU FARMRT_INLINE Color fresnel_schlick(const Color& f0, float cosine) {
    const float m = clamp_float(1.0f - cosine, 0.0f, 1.0f);
    const float m5 = (m * m) * (m * m) * m;
    return f0 + (Color(1.0f) - f0) * m5;
}

// ---- the BSDF -----------------------------------------------------------------------------------

struct BsdfValue {
    Color f_cos;       // f(wo, wi) |cos theta_i|
    float pdf = 0.0f;  // the density sample_principled draws wi with (solid angle)
};

// The probability of the diffuse lobe (the rest goes to the microfacet lobe),
// from the macro-surface Fresnel: one choice for every wi, so that pdf()
// and sample() agree.
FARMRT_CPU_GPU FARMRT_INLINE float diffuse_probability(const PrincipledInputs& in, const Vec3& wo) {
    return (1.0f - in.metallic) * (1.0f - in.transmission) * (1.0f - fresnel_dielectric(wo.z, in.eta));
}

// Within the microfacet lobe, for microfacet normal h: the probability of
// refracting rather than reflecting, in proportion to the lobes' weights.
FARMRT_CPU_GPU FARMRT_INLINE float refraction_probability(const PrincipledInputs& in, float fresnel) {
    const float refract = (1.0f - in.metallic) * in.transmission * (1.0f - fresnel);
    const float total = in.metallic + (1.0f - in.metallic) * fresnel + refract;
    return total > 0.0f ? refract / total : 0.0f;
}

// f(wo, wi) |cos theta_i| and the sampling density, in the local frame.
FARMRT_CPU_GPU FARMRT_INLINE BsdfValue evaluate_principled(const PrincipledInputs& in, const Vec3& wo, const Vec3& wi) {
    BsdfValue value;
    value.f_cos = Color(0.0f);
    if (!(wo.z > 0.0f) || wi.z == 0.0f) return value;
    const float alpha = ggx_alpha(in.roughness);
    const float p_diffuse = diffuse_probability(in, wo);
    if (wi.z > 0.0f) {
        const Vec3 h = unit_vector(wo + wi);
        const float wo_h = dot(wo, h);
        const float fresnel = fresnel_dielectric(wo_h, in.eta);
        const float specular = ggx_distribution(h, alpha) * ggx_masking_shadowing(wo, wi, alpha) / (4.0f * wo.z * wi.z);
        const Color metal = fresnel_schlick(in.base_color, wo_h) * specular;
        // The base is entered and left through the interface: it keeps what
        // Fresnel transmits both ways, which is reciprocal and never makes
        // light (the glTF mix by the half vector's Fresnel does, at grazing).
        const float through = (1.0f - fresnel_dielectric(wo.z, in.eta)) * (1.0f - fresnel_dielectric(wi.z, in.eta));
        const Color dielectric =
            Color(fresnel * specular) + ((1.0f - in.transmission) * through * (1.0f / kPi)) * in.base_color;
        value.f_cos = (in.metallic * wi.z) * metal + ((1.0f - in.metallic) * wi.z) * dielectric;
        const float reflect = 1.0f - refraction_probability(in, fresnel);
        value.pdf = (1.0f - p_diffuse) * reflect * visible_normal_density(wo, h, alpha) / (4.0f * wo_h) +
                    p_diffuse * wi.z * (1.0f / kPi);
        return value;
    }
    if (!(in.transmission > 0.0f) || !(in.metallic < 1.0f)) return value;
    // Refraction: the half vector of wo and eta wi, on wo's side.
    Vec3 h = wo + in.eta * wi;
    if (length_squared(h) == 0.0f) return value;
    h = unit_vector(h);
    if (h.z < 0.0f) h = -h;
    const float wo_h = dot(wo, h), wi_h = dot(wi, h);
    if (!(wo_h > 0.0f) || !(wi_h < 0.0f)) return value;  // a microfacet facing away from either
    const float fresnel = fresnel_dielectric(wo_h, in.eta);
    const float denominator = (wi_h + wo_h / in.eta) * (wi_h + wo_h / in.eta);
    const float d = ggx_distribution(h, alpha);
    // Radiance is compressed into the denser medium: 1 / eta^2.
    const float btdf = d * ggx_masking_shadowing(wo, wi, alpha) * (1.0f - fresnel) * fabsf(wi_h * wo_h) /
                       (fabsf(wi.z) * wo.z * denominator * in.eta * in.eta);
    value.f_cos = ((1.0f - in.metallic) * in.transmission * btdf * fabsf(wi.z)) * in.base_color;
    value.pdf = (1.0f - p_diffuse) * refraction_probability(in, fresnel) * visible_normal_density(wo, h, alpha) *
                fabsf(wi_h) / denominator;
    return value;
}

// Draws wi for wo from three uniform numbers. Returns false where the sample
// leaves nothing (a reflection below the surface, a refraction above it).
FARMRT_CPU_GPU FARMRT_INLINE bool sample_principled_direction(const PrincipledInputs& in, const Vec3& wo, float u0,
                                                              float u1, float u2, Vec3& wi) {
    if (!(wo.z > 0.0f)) return false;
    const float p_diffuse = diffuse_probability(in, wo);
    if (u0 < p_diffuse) {
        // Cosine-weighted hemisphere (Malley's method).
        float sine, cosine;
        sin_cos_turns(u2, sine, cosine);
        const float r = sqrtf(u1);
        wi = Vec3(r * cosine, r * sine, sqrtf(max_float(0.0f, 1.0f - u1)));
        return wi.z > 0.0f;
    }
    // The lobe choice's number, reused for reflect-or-refract.
    const float u_lobe = min_float((u0 - p_diffuse) / (1.0f - p_diffuse), 0.99999994f);
    const float alpha = ggx_alpha(in.roughness);
    const Vec3 h = sample_visible_normal(wo, alpha, u1, u2);
    const float wo_h = dot(wo, h);
    const float fresnel = fresnel_dielectric(wo_h, in.eta);
    if (u_lobe < refraction_probability(in, fresnel)) {
        const float sin2_t = max_float(0.0f, 1.0f - wo_h * wo_h) / (in.eta * in.eta);
        if (sin2_t >= 1.0f) return false;
        const float cos_t = sqrtf(1.0f - sin2_t);
        wi = (-1.0f / in.eta) * wo + (wo_h / in.eta - cos_t) * h;
        return wi.z < 0.0f;
    }
    wi = (2.0f * wo_h) * h - wo;
    return wi.z > 0.0f;
}

}  // namespace farmrt
