// trigonometry.h: the shared sine, cosine, arc tangent and arc cosine that
// every backend computes alike.
#include <gtest/gtest.h>

#include <cmath>

#include "core/trigonometry.h"

namespace farmrt {
namespace {

// Every value the sampler can produce (multiples of 2^-24 in [0, 1)),
// against double precision: within 2e-7 (libm's sinf(2 pi u in float) is off
// by up to 4e-7 here, from rounding 2 pi u).
TEST(Trigonometry, SinCosTurnsIsAccurateForEverySamplerValue) {
    double worst = 0;
    for (uint32_t k = 0; k < (1u << 24); ++k) {
        const float t = float(k) * (1.0f / 16777216.0f);
        float sine, cosine;
        sin_cos_turns(t, sine, cosine);
        const double angle = 2.0 * 3.14159265358979323846 * double(t);
        worst = std::fmax(worst, std::fabs(double(sine) - std::sin(angle)));
        worst = std::fmax(worst, std::fabs(double(cosine) - std::cos(angle)));
    }
    EXPECT_LT(worst, 2e-7);
}

TEST(Trigonometry, SinCosTurnsQuadrantsAndSymmetry) {
    const float turns[] = {0.0f, 0.25f, 0.5f, 0.75f, 0.125f, 0.625f, -0.3f, 3.7f};
    for (const float t : turns) {
        float sine, cosine;
        sin_cos_turns(t, sine, cosine);
        const double angle = 2.0 * 3.14159265358979323846 * double(t);
        EXPECT_NEAR(sine, std::sin(angle), 4e-7) << t;
        EXPECT_NEAR(cosine, std::cos(angle), 4e-7) << t;
    }
    float sine, cosine;
    sin_cos_turns(0.25f, sine, cosine);
    EXPECT_EQ(sine, 1.0f);
    EXPECT_EQ(std::fabs(cosine), 0.0f);
}

// arc_tangent2 and arc_cosine (sphere texture coordinates) against double
// precision over random arguments, small ones included, and atan2's signs.
TEST(Trigonometry, ArcTangentAndArcCosineAreAccurate) {
    uint32_t state = 1;
    auto next_unit = [&]() {
        state = state * 1664525u + 1013904223u;
        return float(state >> 8) * (1.0f / 16777216.0f);
    };
    double worst_atan = 0, worst_acos = 0;
    for (int i = 0; i < 2000000; ++i) {
        float y = 2.0f * next_unit() - 1.0f;
        const float x = 2.0f * next_unit() - 1.0f;
        if (i % 3 == 0) y *= 1e-3f;
        worst_atan = std::fmax(worst_atan, std::fabs(double(arc_tangent2(y, x)) - std::atan2(double(y), double(x))));
        worst_acos = std::fmax(worst_acos, std::fabs(double(arc_cosine(x)) - std::acos(double(x))));
    }
    EXPECT_LT(worst_atan, 5e-7);
    EXPECT_LT(worst_acos, 5e-7);
    EXPECT_EQ(arc_tangent2(0.0f, 0.0f), 0.0f);
    EXPECT_FLOAT_EQ(arc_tangent2(0.0f, -1.0f), 3.14159265f);
    EXPECT_FLOAT_EQ(arc_tangent2(-0.0f, -1.0f), -3.14159265f);
    EXPECT_FLOAT_EQ(arc_tangent2(1.0f, 0.0f), 1.57079633f);
    EXPECT_FLOAT_EQ(arc_cosine(-1.0f), 3.14159265f);
    EXPECT_EQ(arc_cosine(1.0f), 0.0f);
}

}  // namespace
}  // namespace farmrt
