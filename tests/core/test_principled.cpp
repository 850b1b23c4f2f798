// The physically based material (core/principled.h): reciprocity and energy
// conservation of the evaluated BRDF, sampled directions against the density
// the material reports (chi-square over the sphere), the limits of roughness
// and metallic, single-scattering loss against an independent quadrature, and
// white furnaces of whole scenes under both integrators.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/integrator.h"
#include "io/scene_loader.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

PrincipledInputs inputs(float metallic, float roughness, float transmission = 0.0f, float eta = 1.5f,
                        Color base = Color(1.0f)) {
    PrincipledInputs in;
    in.base_color = base;
    in.metallic = metallic;
    in.roughness = roughness;
    in.transmission = transmission;
    in.eta = eta;
    return in;
}

Vec3 direction_at(double cos_theta, double phi) {
    const double sin_theta = std::sqrt(std::max(0.0, 1.0 - cos_theta * cos_theta));
    return Vec3(float(sin_theta * std::cos(phi)), float(sin_theta * std::sin(phi)), float(cos_theta));
}

Vec3 random_upper(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    return direction_at(0.02 + 0.98 * u(rng), 2 * M_PI * u(rng));
}

// The albedo of wo: the mean of f cos / pdf over the material's own samples
// (one channel), and its standard error.
struct Albedo {
    double mean = 0, standard_error = 0;
};
Albedo directional_albedo(const PrincipledInputs& in, const Vec3& wo, int n) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    testing::SampleMean weights;
    for (int i = 0; i < n; ++i) {
        Vec3 wi;
        double weight = 0;
        if (sample_principled_direction(in, wo, u(rng), u(rng), u(rng), wi)) {
            const BsdfValue value = evaluate_principled(in, wo, wi);
            if (value.pdf > 0) weight = value.f_cos.x / value.pdf;
        }
        weights.add(weight);
    }
    return Albedo{weights.mean(), weights.standard_error()};
}

TEST(Principled, ReflectionIsReciprocal) {
    std::mt19937 rng(3);
    for (const PrincipledInputs& in : {inputs(0, 0.5f), inputs(1, 0.3f, 0, 1.5f, Color(0.9f, 0.6f, 0.2f)),
                                       inputs(0.4f, 0.8f, 0, 1.33f), inputs(0, 0.05f, 0, 2.4f), inputs(0.7f, 1.0f)}) {
        for (int i = 0; i < 2000; ++i) {
            const Vec3 a = random_upper(rng), b = random_upper(rng);
            const Color f_ab = evaluate_principled(in, a, b).f_cos / b.z;
            const Color f_ba = evaluate_principled(in, b, a).f_cos / a.z;
            for (int c = 0; c < 3; ++c) {
                ASSERT_NEAR(f_ab[c], f_ba[c], 1e-4f * std::max(1.0f, std::fabs(f_ab[c])))
                    << "metallic " << in.metallic << " roughness " << in.roughness;
            }
        }
    }
}

TEST(Principled, ConservesEnergy) {
    // No direction reflects (and transmits) more than arrives, at any roughness.
    for (float roughness : {0.0f, 0.1f, 0.3f, 0.6f, 1.0f}) {
        for (const PrincipledInputs& in : {inputs(0, roughness), inputs(1, roughness), inputs(0.5f, roughness),
                                           inputs(0, roughness, 1.0f), inputs(0, roughness, 1.0f, 1.0f / 1.5f)}) {
            for (double cos_o : {1.0, 0.7, 0.3, 0.08}) {
                const Albedo a = directional_albedo(in, direction_at(cos_o, 0.4), 20000);
                // Radiance leaving glass is spread back out by eta^2 (1 / eta^2 entering).
                const double bound = in.eta < 1.0f ? 1.0 / (double(in.eta) * in.eta) : 1.0;
                EXPECT_LE(a.mean, bound + 4 * a.standard_error + 1e-3)
                    << "roughness " << roughness << " metallic " << in.metallic << " transmission " << in.transmission
                    << " eta " << in.eta << " cos " << cos_o;
            }
        }
    }
}

// GGX single scattering of a white mirror-like metal at roughness r, written
// here from the textbook formulas in double precision (Walter et al. 2007,
// Heitz 2014), integrated over the hemisphere by the midpoint rule.
double ggx_single_scattering_albedo(double roughness, double cos_o) {
    const double alpha = std::max(roughness * roughness, 1e-3);
    const double a2 = alpha * alpha;
    const auto lambda = [&](double c) {
        const double t2 = (1 - c * c) / (c * c);
        return 0.5 * (std::sqrt(1 + a2 * t2) - 1);
    };
    const double sin_o = std::sqrt(1 - cos_o * cos_o);
    const double wo[3] = {sin_o, 0, cos_o};
    double sum = 0;
    const int n_theta = 800, n_phi = 400;
    for (int i = 0; i < n_theta; ++i) {
        const double cos_i = (i + 0.5) / n_theta;
        const double sin_i = std::sqrt(1 - cos_i * cos_i);
        for (int j = 0; j < n_phi; ++j) {
            const double phi = 2 * M_PI * (j + 0.5) / n_phi;
            const double wi[3] = {sin_i * std::cos(phi), sin_i * std::sin(phi), cos_i};
            double h[3] = {wo[0] + wi[0], wo[1] + wi[1], wo[2] + wi[2]};
            const double len = std::sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
            const double hz = h[2] / len;
            const double denominator = hz * hz * (a2 - 1) + 1;
            const double d = a2 / (M_PI * denominator * denominator);
            const double g = 1 / (1 + lambda(cos_o) + lambda(cos_i));
            sum += d * g / (4 * cos_o * cos_i) * cos_i;
        }
    }
    return sum * (1.0 / n_theta) * (2 * M_PI / n_phi);
}

TEST(Principled, MetalLosesWhatSingleScatteringGgxLoses) {
    for (float roughness : {0.0f, 0.5f, 1.0f}) {
        for (double cos_o : {0.9, 0.5}) {
            const double expected = roughness == 0.0f ? 1.0 : ggx_single_scattering_albedo(roughness, cos_o);
            const Albedo a = directional_albedo(inputs(1, roughness), direction_at(cos_o, 0), 40000);
            EXPECT_NEAR(a.mean, expected, 4.5 * a.standard_error + 2e-3)
                << "roughness " << roughness << " cos " << cos_o;
            if (roughness == 1.0f) {
                EXPECT_LT(a.mean, 0.95);  // single scattering loses energy when rough
            }
        }
    }
}

TEST(Principled, DiffuseLimitIsLambertian) {
    // Metallic 0, no transmission, an index of 1 (no Fresnel reflection): Lambert's law exactly.
    const PrincipledInputs in = inputs(0, 0.5f, 0, 1.0f, Color(0.3f, 0.5f, 0.7f));
    std::mt19937 rng(5);
    for (int i = 0; i < 500; ++i) {
        const Vec3 wo = random_upper(rng), wi = random_upper(rng);
        const BsdfValue value = evaluate_principled(in, wo, wi);
        EXPECT_NEAR(value.pdf, wi.z / M_PI, 1e-6);
        EXPECT_NEAR(value.f_cos.y, 0.5 * wi.z / M_PI, 1e-6);
    }
    EXPECT_NEAR(directional_albedo(in, direction_at(0.3, 1), 1000).mean, 0.3, 1e-5);
}

TEST(Principled, SmoothMetalIsAMirror) {
    const PrincipledInputs in = inputs(1, 0, 0, 1.5f, Color(0.9f, 0.5f, 0.1f));
    const Vec3 wo = direction_at(0.6, 0.3);
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < 200; ++i) {
        Vec3 wi;
        ASSERT_TRUE(sample_principled_direction(in, wo, u(rng), u(rng), u(rng), wi));
        const Vec3 mirror(-wo.x, -wo.y, wo.z);
        EXPECT_GT(dot(wi, mirror), 0.999f);
        const BsdfValue value = evaluate_principled(in, wo, wi);
        const Color expected = fresnel_schlick(in.base_color, wo.z);
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(value.f_cos[c] / value.pdf, expected[c], 0.01f);
    }
}

TEST(Principled, SmoothGlassFollowsSnellAndFresnel) {
    const float eta = 1.5f;
    const PrincipledInputs in = inputs(0, 0, 1, eta);
    const Vec3 wo = direction_at(0.8, 0.0);
    std::mt19937 rng(13);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    int reflected = 0, sharp = 0;
    const int n = 20000;
    const double sin_o = std::sqrt(1 - 0.8 * 0.8);
    for (int i = 0; i < n; ++i) {
        Vec3 wi;
        ASSERT_TRUE(sample_principled_direction(in, wo, u(rng), u(rng), u(rng), wi));
        if (wi.z > 0) {
            ++reflected;
            continue;
        }
        const double sin_i = std::sqrt(std::max(0.0, 1.0 - double(wi.z) * wi.z));
        // Snell's law, to within GGX's long tail at alpha 1e-3.
        if (std::fabs(sin_o - eta * sin_i) < 2e-3) ++sharp;
        EXPECT_LT(wi.x, 0.0f);  // on the far side of the normal
    }
    EXPECT_GT(sharp, 0.95 * (n - reflected));
    const double fresnel = fresnel_dielectric(0.8f, eta);
    const double share = double(reflected) / n;
    EXPECT_NEAR(share, fresnel, 4.5 * std::sqrt(fresnel * (1 - fresnel) / n));
    // Leaving glass beyond the critical angle reflects everything.
    const PrincipledInputs inside = inputs(0, 0, 1, 1.0f / eta);
    for (int i = 0; i < 100; ++i) {
        Vec3 wi;
        if (sample_principled_direction(inside, direction_at(0.3, 0), u(rng), u(rng), u(rng), wi)) {
            EXPECT_GT(wi.z, 0);
        }
    }
}

// Pearson's chi-square of sampled directions against the density the
// material reports, on a (cos theta, phi) grid over the whole sphere; cells
// with few expected samples are pooled. The critical value at p = 0.001 by
// the Wilson-Hilferty approximation.
// Under AddressSanitizer (CI's second pass, 30x slower) with fewer draws and
// a coarser integral: the same test at lower power; the Release pass runs it whole.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kChiSquareDraws = 100000, kCellSubdivisions = 16;
#else
constexpr int kChiSquareDraws = 400000, kCellSubdivisions = 32;
#endif

void expect_sampling_matches_density(const PrincipledInputs& in, const Vec3& wo, const std::string& what) {
    const int n_cos = 20, n_phi = 40, n = kChiSquareDraws;
    std::vector<double> observed(n_cos * n_phi, 0.0), expected(n_cos * n_phi, 0.0);
    const auto cell_of = [&](const Vec3& w) {
        const int i = std::min(n_cos - 1, int((w.z + 1.0f) * 0.5f * n_cos));
        double phi = std::atan2(w.y, w.x);
        if (phi < 0) phi += 2 * M_PI;
        const int j = std::min(n_phi - 1, int(phi / (2 * M_PI) * n_phi));
        return i * n_phi + j;
    };
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    int drawn = 0;
    for (int s = 0; s < n; ++s) {
        Vec3 wi;
        if (sample_principled_direction(in, wo, u(rng), u(rng), u(rng), wi)) {
            observed[cell_of(wi)] += 1;
            ++drawn;
        }
    }
    // The density integrated over each cell (midpoint rule, 32 x 32 per cell),
    // scaled by every draw, including those that returned no direction.
    const int sub = kCellSubdivisions;
    double total_density = 0;
    for (int i = 0; i < n_cos; ++i) {
        for (int j = 0; j < n_phi; ++j) {
            double mass = 0;
            for (int a = 0; a < sub; ++a) {
                for (int b = 0; b < sub; ++b) {
                    const double c = -1 + 2.0 * (i + (a + 0.5) / sub) / n_cos;
                    const double phi = 2 * M_PI * (j + (b + 0.5) / sub) / n_phi;
                    mass += evaluate_principled(in, wo, direction_at(c, phi)).pdf;
                }
            }
            mass *= (2.0 / n_cos) * (2 * M_PI / n_phi) / (sub * sub);
            expected[i * n_phi + j] = mass * n;
            total_density += mass;
        }
    }
    EXPECT_NEAR(total_density, double(drawn) / n, 0.02) << what << ": the density integrates to the share of draws";
    double chi_square = 0, pooled_observed = 0, pooled_expected = 0;
    int cells = 0;
    for (size_t k = 0; k < observed.size(); ++k) {
        if (expected[k] < 5) {
            pooled_observed += observed[k];
            pooled_expected += expected[k];
            continue;
        }
        chi_square += (observed[k] - expected[k]) * (observed[k] - expected[k]) / expected[k];
        ++cells;
    }
    if (pooled_expected >= 5) {
        chi_square += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
        ++cells;
    }
    const double dof = std::max(1, cells - 1);
    const double z = 3.090;  // the standard normal's 0.999 quantile
    const double critical = dof * std::pow(1 - 2 / (9 * dof) + z * std::sqrt(2 / (9 * dof)), 3);
    EXPECT_LT(chi_square, critical) << what << " (" << cells << " cells)";
}

TEST(Principled, SampledDirectionsHaveTheReportedDensity) {
    const Vec3 steep = direction_at(0.85, 0.5), grazing = direction_at(0.25, 2.0);
    for (const Vec3& wo : {steep, grazing}) {
        expect_sampling_matches_density(inputs(0, 0.5f), wo, "plastic");
        expect_sampling_matches_density(inputs(1, 0.3f), wo, "metal");
        expect_sampling_matches_density(inputs(0.5f, 0.8f), wo, "half metal");
        expect_sampling_matches_density(inputs(0, 0.4f, 1.0f, 1.5f), wo, "rough glass entering");
        expect_sampling_matches_density(inputs(0, 0.4f, 1.0f, 1.0f / 1.5f), wo, "rough glass leaving");
        expect_sampling_matches_density(inputs(0.2f, 0.6f, 0.5f, 1.33f), wo, "mixed");
    }
}

// ---- whole scenes -----------------------------------------------------------------------------------

Scene sphere_under_white_sky(const std::string& material) {
    const std::string text =
        "image: {width: 8, height: 8, output: out.ppm}\n"
        "sampling: {spp: 1}\n"
        "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0]}\n"
        "background: {color: [1, 1, 1], sampling: light}\n"
        "objects:\n"
        "  - {type: sphere, center: [0, 0, 0], radius: 1, material: " +
        material + "}\n";
    SceneDescription description = load_scene_text(text, "scene.yaml", "/");
    description.scene.build_acceleration();
    return std::move(description.scene);
}

double mean_radiance(const Scene& scene, const Ray& ray, Integrator integrator, uint32_t n, double& standard_error) {
    const SceneView view = scene.view();
    testing::SampleMean radiance;
    for (uint32_t s = 0; s < n; ++s) {
        PixelSampler sampler(SamplerKey{1, 0}, 3, s);
        radiance.add(trace_path(view, ray, sampler, 64, BvhQuery(), integrator).y);
    }
    standard_error = radiance.standard_error();
    return radiance.mean();
}

TEST(Principled, WhiteFurnaceScenes) {
    const Ray ray{Vec3(0, 0, 5), Vec3(0.3f, 0.4f, 0) - Vec3(0, 0, 5), 0.0f};
    for (Integrator integrator : {Integrator::Naive, Integrator::NextEvent}) {
        double error = 0;
        // The diffuse limit returns the background.
        const Scene diffuse = sphere_under_white_sky("{type: principled, base_color: [1, 1, 1], ior: 1}");
        const double diffuse_mean = mean_radiance(diffuse, ray, integrator, 4000, error);
        EXPECT_NEAR(diffuse_mean, 1.0, 4.5 * error + 1e-4);
        // Smooth glass: every path gets out again.
        const Scene glass =
            sphere_under_white_sky("{type: principled, base_color: [1, 1, 1], roughness: 0, transmission: 1}");
        const double glass_mean = mean_radiance(glass, ray, integrator, 4000, error);
        EXPECT_NEAR(glass_mean, 1.0, 4.5 * error + 2e-3);
        // A rough metal loses what single scattering loses, never gains.
        const Scene metal =
            sphere_under_white_sky("{type: principled, base_color: [1, 1, 1], metallic: 1, roughness: 1}");
        const double rough = mean_radiance(metal, ray, integrator, 8000, error);
        EXPECT_LT(rough, 1.0);
        EXPECT_GT(rough, 0.25);
    }
}

TEST(Principled, IntegratorsAgreeUnderASmallLight) {
    // A rough plastic and a rough metal under a small sphere light: next-event
    // estimation with MIS against the naive estimator at more samples.
    for (const std::string& material :
         {std::string("{type: principled, base_color: [0.8, 0.3, 0.2], roughness: 0.4}"),
          std::string("{type: principled, base_color: [0.9, 0.8, 0.5], metallic: 1, roughness: 0.3}")}) {
        const std::string text =
            "image: {width: 8, height: 8, output: out.ppm}\n"
            "sampling: {spp: 1}\n"
            "camera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0]}\n"
            "background: {color: [0, 0, 0]}\n"
            "objects:\n"
            "  - {type: quad, Q: [-5, -1, -5], u: [10, 0, 0], v: [0, 0, 10], material: " +
            material +
            "}\n"
            "  - {type: sphere, center: [0.5, 2, 1], radius: 0.5, material: {type: emissive, color: [8, 8, 8]}}\n";
        SceneDescription description = load_scene_text(text, "scene.yaml", "/");
        description.scene.build_acceleration();
        for (const Vec3& target : {Vec3(0, -1, 0), Vec3(0.4f, -1, 1.2f)}) {
            const Ray ray{Vec3(0, 0, 5), target - Vec3(0, 0, 5), 0.0f};
            double error_nee = 0, error_naive = 0;
            const double nee = mean_radiance(description.scene, ray, Integrator::NextEvent, 20000, error_nee);
            const double naive = mean_radiance(description.scene, ray, Integrator::Naive, 200000, error_naive);
            EXPECT_NEAR(nee, naive, 4.5 * std::hypot(error_nee, error_naive)) << material;
            EXPECT_LT(error_nee, error_naive * 3.16) << material;  // at a tenth of the samples
        }
    }
}

}  // namespace
}  // namespace farmrt
