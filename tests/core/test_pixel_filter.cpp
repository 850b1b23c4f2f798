// Pixel filters by importance sampling (core/pixel_filter.h): the sampled
// offsets' density, weighted, equals each filter's formula normalised; the
// weights average to 1 (an unbiased pixel mean); the box of width 1 is the
// books' uniform offset bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/pixel_filter.h"

namespace farmrt {
namespace {

TEST(PixelFilter, BoxOfWidthOneIsTheUniformOffsetExactly) {
    const PixelFilter box = make_pixel_filter(FilterType::Box, 1.0f);
    for (uint32_t i = 0; i < (1u << 24); i += 4099) {
        const float u = float(i) / 16777216.0f;
        float weight = 0;
        EXPECT_EQ(sample_filter_offset(box, u, weight), u - 0.5f);
        EXPECT_EQ(weight, 1.0f);
    }
}

// The weighted histogram of offsets drawn at evenly spaced u (the exact
// expectation, up to 1/n per bin), against the filter's integral per bin
// over its whole integral, both from the formula (filter_value).
void expect_density_matches_formula(FilterType type, float width) {
    const PixelFilter filter = make_pixel_filter(type, width);
    const double radius = 0.5 * width;
    const int bins = 32, n = 1 << 18;
    std::vector<double> measured(bins, 0.0);
    double weight_sum = 0;
    for (int i = 0; i < n; ++i) {
        float weight = 0;
        const float offset = sample_filter_offset(filter, (float(i) + 0.5f) / float(n), weight);
        ASSERT_GE(offset, -radius);
        ASSERT_LE(offset, radius);
        int bin = int((offset + radius) / (2 * radius) * bins);
        bin = std::min(bin, bins - 1);
        measured[size_t(bin)] += weight / n;
        weight_sum += weight;
    }
    EXPECT_NEAR(weight_sum / n, 1.0, 1e-4) << filter_name(type) << ": the weights' mean";
    std::vector<double> expected(bins, 0.0);
    double total = 0;
    const int points = 4000;
    for (int b = 0; b < bins; ++b) {
        for (int k = 0; k < points; ++k) {
            const double x = -radius + (b + (k + 0.5) / points) * (2 * radius / bins);
            expected[size_t(b)] += filter_value(type, radius, x);
        }
        total += expected[size_t(b)];
    }
    for (int b = 0; b < bins; ++b) {
        EXPECT_NEAR(measured[size_t(b)], expected[size_t(b)] / total, 2e-4)
            << filter_name(type) << " width " << width << ", bin " << b;
    }
}

TEST(PixelFilter, SampledDensityIsTheFilterNormalised) {
    expect_density_matches_formula(FilterType::Box, 1.0f);
    expect_density_matches_formula(FilterType::Box, 2.5f);
    expect_density_matches_formula(FilterType::Gaussian, 3.0f);
    expect_density_matches_formula(FilterType::Gaussian, 1.0f);
    expect_density_matches_formula(FilterType::BlackmanHarris, 1.5f);
    expect_density_matches_formula(FilterType::BlackmanHarris, 4.0f);
    expect_density_matches_formula(FilterType::Mitchell, 4.0f);
    expect_density_matches_formula(FilterType::Mitchell, 2.0f);
}

TEST(PixelFilter, OnlyMitchellHasNegativeLobesWhereItsFormulaIsNegative) {
    EXPECT_EQ(make_pixel_filter(FilterType::Gaussian, 3.0f).negative_bins, 0u);
    EXPECT_EQ(make_pixel_filter(FilterType::BlackmanHarris, 1.5f).negative_bins, 0u);
    const PixelFilter mitchell = make_pixel_filter(FilterType::Mitchell, 4.0f);
    EXPECT_GT(mitchell.weight, 1.0f);
    int negative = 0;
    for (uint32_t i = 0; i < kFilterBins; ++i) {
        const double begin = -2.0 + 4.0 * i / kFilterBins, end = begin + 4.0 / kFilterBins;
        const double a = filter_value(FilterType::Mitchell, 2.0, begin + 1e-9);
        const double b = filter_value(FilterType::Mitchell, 2.0, end - 1e-9);
        const bool set = ((mitchell.negative_bins >> i) & 1u) != 0;
        if (a < 0 && b < 0) {
            EXPECT_TRUE(set) << "bin " << i;
        }
        if (a > 0 && b > 0) {
            EXPECT_FALSE(set) << "bin " << i;
        }
        negative += set;
    }
    EXPECT_GT(negative, 16);  // both lobes beyond |x| = 1, out to 2
}

TEST(PixelFilter, FormulasHaveTheirKnownShapes) {
    // Gaussian and Blackman-Harris peak at the centre and vanish at the edge.
    EXPECT_NEAR(filter_value(FilterType::Gaussian, 1.5, 1.5), 0.0, 1e-12);
    EXPECT_NEAR(filter_value(FilterType::BlackmanHarris, 0.75, 0.75), 0.35875 - 0.48829 + 0.14128 - 0.01168, 1e-12);
    EXPECT_NEAR(filter_value(FilterType::BlackmanHarris, 0.75, 0.0), 1.0, 1e-12);
    // Mitchell (B = C = 1/3): 8/9 at the centre, 1/18 at half the radius.
    EXPECT_NEAR(filter_value(FilterType::Mitchell, 2.0, 0.0), 16.0 / 18.0, 1e-12);
    EXPECT_NEAR(filter_value(FilterType::Mitchell, 2.0, 1.0), 1.0 / 18.0, 1e-12);
    EXPECT_EQ(filter_value(FilterType::Mitchell, 2.0, 2.5), 0.0);
}

}  // namespace
}  // namespace farmrt
