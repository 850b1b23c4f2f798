// The Sobol sampler (core/sampler.h): the Sobol sequence's second dimension
// against its direction numbers; every run of 2^k samples of a pixel from
// the first a (0, k, 2)-net in every pair of dimensions, and stratified in
// every single one; pairs decorrelated from each other and from neighbouring
// pixels; uniform(d) a pure function of the key; and the point of it all, a
// smaller error than independent numbers on a smooth integrand.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/sampler.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

const SamplerKey kSobol{0x5EED5EEDull, 3, SamplerType::Sobol};

// Bratley and Fox's direction numbers for the second Sobol dimension:
// v_1 = 1/2, v_j = v_{j-1} xor v_{j-1} / 2 (Pascal's triangle mod 2).
uint32_t second_dimension_from_directions(uint32_t index) {
    uint32_t result = 0, direction = 0x80000000u;
    for (; index; index >>= 1, direction ^= direction >> 1) {
        if (index & 1u) result ^= direction;
    }
    return result;
}

TEST(SobolSampler, SecondDimensionMatchesItsDirectionNumbers) {
    std::mt19937 rng(4);
    for (uint32_t i = 0; i < 4096; ++i) {
        EXPECT_EQ(reverse_bits(sobol_second_reversed(i)), second_dimension_from_directions(i)) << i;
    }
    for (int i = 0; i < 10000; ++i) {
        const uint32_t index = uint32_t(rng());
        EXPECT_EQ(reverse_bits(sobol_second_reversed(index)), second_dimension_from_directions(index)) << index;
    }
}

TEST(SobolSampler, ReverseBitsAndScramblingAreBijections) {
    for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(reverse_bits(1u << i), 1u << (31 - i));
    // Owen scrambling permutes the 2^k elementary intervals of each level:
    // the first k digits of the result depend on the first k digits only.
    std::vector<bool> seen(256, false);
    for (uint32_t high = 0; high < 256; ++high) {
        const uint32_t scrambled = nested_uniform_scramble(high << 24, 0xABCD1234u) >> 24;
        EXPECT_FALSE(seen[scrambled]);
        seen[scrambled] = true;
        EXPECT_EQ(nested_uniform_scramble((high << 24) | 0x00FFFFFFu, 0xABCD1234u) >> 24, scrambled);
    }
}

// Whether the points form a (0, k, 2)-net: every elementary interval of area
// 2^-k (2^a x 2^(k-a) cells, every a) holds exactly one point.
bool is_net(const std::vector<std::pair<float, float>>& points, int k) {
    for (int a = 0; a <= k; ++a) {
        const uint32_t columns = 1u << a, rows = 1u << (k - a);
        std::vector<int> count(size_t(columns) * rows, 0);
        for (const auto& p : points) {
            const uint32_t cx = uint32_t(double(p.first) * columns), cy = uint32_t(double(p.second) * rows);
            if (++count[cy * columns + cx] > 1) return false;
        }
    }
    return true;
}

TEST(SobolSampler, EveryPowerOfTwoRunOfAPixelIsANetInEveryPairOfDimensions) {
    for (uint32_t pixel : {0u, 1u, 4711u, 1u << 20}) {
        for (int k = 1; k <= 10; ++k) {
            const uint32_t n = 1u << k;
            for (uint32_t start : {0u, n, 5 * n}) {  // the first run and later aligned runs
                for (uint32_t pair = 0; pair < kSobolDimensions / 2; ++pair) {
                    std::vector<std::pair<float, float>> points;
                    for (uint32_t s = start; s < start + n; ++s) {
                        PixelSampler sampler(kSobol, pixel, s);
                        points.emplace_back(sampler.uniform(2 * pair), sampler.uniform(2 * pair + 1));
                    }
                    ASSERT_TRUE(is_net(points, k)) << "pixel " << pixel << ", samples " << start << ".." << start + n
                                                   << ", dimensions " << 2 * pair << ", " << 2 * pair + 1;
                }
            }
        }
    }
}

TEST(SobolSampler, EveryDimensionIsStratifiedOnItsOwn) {
    const uint32_t n = 256;
    for (uint32_t d = 0; d < kSobolDimensions; ++d) {
        std::vector<int> count(n, 0);
        for (uint32_t s = 0; s < n; ++s) count[uint32_t(PixelSampler(kSobol, 77, s).uniform(d) * n)]++;
        for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(count[i], 1) << "dimension " << d << ", stratum " << i;
    }
}

TEST(SobolSampler, PairsAndPixelsAreDecorrelated) {
    // Padded Sobol without the index shuffle gives every pair the same
    // sequence: dimensions 0 and 2 of a pixel would then move together.
    // Over many pixels, |r| of unrelated values is about 1/sqrt(n).
    const int pixels = 4000, samples = 16;
    const double limit = 5.0 / std::sqrt(double(pixels * samples));
    std::vector<double> a, other_pair, other_pair_second, next_pixel, deep;
    for (int p = 0; p < pixels; ++p) {
        for (int s = 0; s < samples; ++s) {
            PixelSampler sampler(kSobol, uint32_t(p), uint32_t(s));
            PixelSampler neighbour(kSobol, uint32_t(p + 1), uint32_t(s));
            a.push_back(sampler.uniform(0));
            other_pair.push_back(sampler.uniform(2));
            other_pair_second.push_back(sampler.uniform(9));
            next_pixel.push_back(neighbour.uniform(0));
            deep.push_back(sampler.uniform(kSobolDimensions));
        }
    }
    EXPECT_LT(std::fabs(testing::correlation(a, other_pair)), limit);
    EXPECT_LT(std::fabs(testing::correlation(a, other_pair_second)), limit);
    EXPECT_LT(std::fabs(testing::correlation(a, next_pixel)), limit);
    EXPECT_LT(std::fabs(testing::correlation(a, deep)), limit);
    // Across pairs, sample by sample within a pixel: the products' mean is
    // that of independent uniforms (1/4), not that of one sequence twice (1/3).
    double product = 0;
    for (size_t i = 0; i < a.size(); ++i) product += a[i] * other_pair[i];
    EXPECT_NEAR(product / double(a.size()), 0.25, 5 * std::sqrt(7.0 / 144 / double(a.size())));
}

TEST(SobolSampler, UniformIsAPureFunctionOfTheKeyWhateverTheCallOrder) {
    std::vector<float> ascending(100);
    PixelSampler in_order(kSobol, 99, 7);
    for (uint32_t d = 0; d < 100; ++d) ascending[d] = in_order.uniform(d);
    PixelSampler descending(kSobol, 99, 7);
    for (uint32_t d = 100; d-- > 0;) EXPECT_EQ(descending.uniform(d), ascending[d]) << d;
    std::mt19937 rng(1);
    PixelSampler shuffled(kSobol, 99, 7);
    for (int i = 0; i < 1000; ++i) {
        const uint32_t d = rng() % 100;
        EXPECT_EQ(shuffled.uniform(d), ascending[d]) << d;
    }
    // Every key component changes the values.
    // (The dimensions beyond kSobolDimensions are the independent sampler's.)
    auto differs = [&](const SamplerKey& key, uint32_t pixel, uint32_t sample) {
        PixelSampler other(key, pixel, sample);
        int equal = 0;
        for (uint32_t d = 0; d < kSobolDimensions; ++d) equal += other.uniform(d) == ascending[d];
        return equal <= 1;
    };
    EXPECT_TRUE(differs(SamplerKey{kSobol.seed + 1, kSobol.frame, SamplerType::Sobol}, 99, 7)) << "seed";
    EXPECT_TRUE(differs(SamplerKey{kSobol.seed + (1ull << 32), kSobol.frame, SamplerType::Sobol}, 99, 7))
        << "seed high";
    EXPECT_TRUE(differs(SamplerKey{kSobol.seed, kSobol.frame + 1, SamplerType::Sobol}, 99, 7)) << "frame";
    EXPECT_TRUE(differs(kSobol, 100, 7)) << "pixel";
    EXPECT_TRUE(differs(kSobol, 99, 8)) << "sample";
    EXPECT_TRUE(differs(SamplerKey{kSobol.seed, kSobol.frame, SamplerType::Independent}, 99, 7)) << "sampler";
}

TEST(SobolSampler, UniformOverPixelsInEveryDimension) {
    const int bins = 64, n = 50000;
    for (uint32_t d = 0; d < kSobolDimensions + 8; ++d) {
        std::vector<int> counts(bins, 0);
        for (int p = 0; p < n; ++p) counts[int(PixelSampler(kSobol, uint32_t(p), 5).uniform(d) * bins)]++;
        double chi = 0;
        for (int c : counts) chi += (c - double(n) / bins) * (c - double(n) / bins) / (double(n) / bins);
        // chi-square, 63 degrees of freedom, 5 standard deviations (Wilson-Hilferty)
        const double a = 2.0 / (9.0 * (bins - 1));
        EXPECT_LT(chi, (bins - 1) * std::pow(1.0 - a + 5 * std::sqrt(a), 3.0)) << "dimension " << d;
    }
}

// The error of a pixel's estimate of a smooth integral over a pair of
// dimensions, the root mean square over many pixels.
double integration_error(SamplerType type, uint32_t samples, uint32_t pair) {
    const double exact = (1 - std::cos(1.0)) * (std::exp(1.0) - 1);  // of sin(x) e^y over the unit square
    const SamplerKey key{42, 0, type};
    double sum_squares = 0;
    const int pixels = 400;
    for (int p = 0; p < pixels; ++p) {
        double sum = 0;
        for (uint32_t s = 0; s < samples; ++s) {
            PixelSampler sampler(key, uint32_t(p), s);
            sum += std::sin(double(sampler.uniform(2 * pair))) * std::exp(double(sampler.uniform(2 * pair + 1)));
        }
        sum_squares += (sum / samples - exact) * (sum / samples - exact);
    }
    return std::sqrt(sum_squares / pixels);
}

TEST(SobolSampler, ConvergesFasterThanIndependentNumbersOnASmoothIntegrand) {
    // Independent: error ~ N^-1/2; scrambled Sobol on a smooth integrand ~ N^-3/2.
    for (uint32_t pair : {0u, 5u}) {
        const double independent_64 = integration_error(SamplerType::Independent, 64, pair);
        const double sobol_64 = integration_error(SamplerType::Sobol, 64, pair);
        const double sobol_256 = integration_error(SamplerType::Sobol, 256, pair);
        EXPECT_LT(sobol_64, 0.1 * independent_64) << "pair " << pair;
        // Four times the samples: a quarter of the error or better (independent: a half).
        EXPECT_LT(sobol_256, 0.3 * sobol_64) << "pair " << pair;
    }
}

}  // namespace
}  // namespace farmrt
