// sin_cos_turns, the shared sine/cosine that every backend computes alike.
#include <gtest/gtest.h>

#include <cmath>

#include "trigonometry.h"

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

}  // namespace
}  // namespace farmrt
