// The independent sampler (sampling.sampler: independent), the counter-based
// generator under the Sobol sampler's deeper dimensions too: Philox4x32-10 against its published known answers;
// values uniform on [0, 1) (chi-square); every component of the key
// (seed, frame, pixel, sample, dimension) changing the stream, with no
// correlation between neighbours; and uniform(d) a pure function of the key.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/sampler.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

// Upper quantile of the chi-square distribution with k degrees of freedom at
// z standard deviations (Wilson-Hilferty). z = 5: a false alarm about once in
// 3.5 million; the streams are fixed, so a test passes or fails for good.
double chi_square_limit(int k, double z = 5.0) {
    const double a = 2.0 / (9.0 * k);
    return k * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

double chi_square(const std::vector<int>& counts, double expected) {
    double sum = 0;
    for (int c : counts) sum += (c - expected) * (c - expected) / expected;
    return sum;
}

float value(uint64_t seed, uint32_t frame, uint32_t pixel, uint32_t sample, uint32_t dimension) {
    PixelSampler sampler(SamplerKey{seed, frame, SamplerType::Independent}, pixel, sample);
    return sampler.uniform(dimension);
}

TEST(Philox4x32, MatchesRandom123KnownAnswerVectors) {
    // Random123's kat_vectors: counter, key -> output.
    struct Case {
        PhiloxBlock counter;
        uint32_t key0, key1;
        PhiloxBlock expected;
    };
    const Case cases[] = {
        {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}},
        {{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
         0xffffffffu,
         0xffffffffu,
         {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}},
        {{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
         0xa4093822u,
         0x299f31d0u,
         {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}}},
    };
    for (const Case& c : cases) {
        const PhiloxBlock out = philox4x32_10(c.counter, c.key0, c.key1);
        for (int i = 0; i < 4; ++i) EXPECT_EQ(out.v[i], c.expected.v[i]) << "word " << i;
    }
}

TEST(Sampler, BitsMapExactlyOntoTheHalfOpenUnitInterval) {
    EXPECT_EQ(bits_to_unit_float(0u), 0.0f);
    EXPECT_EQ(bits_to_unit_float(0xFFu), 0.0f);  // the low 8 bits are dropped
    EXPECT_EQ(bits_to_unit_float(0x80000000u), 0.5f);
    EXPECT_EQ(bits_to_unit_float(0xFFFFFFFFu), 1.0f - 1.0f / 16777216.0f);
    EXPECT_LT(bits_to_unit_float(0xFFFFFFFFu), 1.0f);
    EXPECT_EQ(bits_to_unit_float(0x00000100u), 1.0f / 16777216.0f);
}

TEST(Sampler, ValuesStayInZeroToOneOverManyKeys) {
    float lo = 1, hi = 0;
    for (uint32_t pixel = 0; pixel < 2000; ++pixel) {
        for (uint32_t sample = 0; sample < 16; ++sample) {
            PixelSampler sampler(SamplerKey{pixel * 7919ull, sample % 3, SamplerType::Independent}, pixel, sample);
            for (uint32_t d = 0; d < 24; ++d) {
                const float u = sampler.uniform(d);
                ASSERT_GE(u, 0.0f);
                ASSERT_LT(u, 1.0f);
                lo = std::min(lo, u);
                hi = std::max(hi, u);
            }
        }
    }
    EXPECT_LT(lo, 1e-4f);
    EXPECT_GT(hi, 1.0f - 1e-4f);
}

TEST(Sampler, UniformOverTheSamplesOfOnePixel) {
    const int bins = 100, n = 200000;
    std::vector<int> counts(bins, 0);
    for (int s = 0; s < n; ++s) counts[int(value(0, 0, 12345, uint32_t(s), 0) * bins)]++;
    EXPECT_LT(chi_square(counts, double(n) / bins), chi_square_limit(bins - 1));
}

TEST(Sampler, UniformOverPixelsInEveryDimension) {
    const int bins = 64, n = 50000;
    for (uint32_t d = 0; d < 40; ++d) {
        std::vector<int> counts(bins, 0);
        for (int p = 0; p < n; ++p) counts[int(value(42, 3, uint32_t(p), 7, d) * bins)]++;
        EXPECT_LT(chi_square(counts, double(n) / bins), chi_square_limit(bins - 1)) << "dimension " << d;
    }
}

TEST(Sampler, UniformOverSeedsAndFrames) {
    const int bins = 64, n = 50000;
    std::vector<int> by_seed(bins, 0), by_frame(bins, 0), by_high_seed(bins, 0);
    for (int i = 0; i < n; ++i) {
        by_seed[int(value(uint64_t(i), 0, 0, 0, 0) * bins)]++;
        by_high_seed[int(value(uint64_t(i) << 32, 0, 0, 0, 0) * bins)]++;
        by_frame[int(value(0, uint32_t(i), 0, 0, 0) * bins)]++;
    }
    EXPECT_LT(chi_square(by_seed, double(n) / bins), chi_square_limit(bins - 1));
    EXPECT_LT(chi_square(by_high_seed, double(n) / bins), chi_square_limit(bins - 1));
    EXPECT_LT(chi_square(by_frame, double(n) / bins), chi_square_limit(bins - 1));
}

TEST(Sampler, PairsOfDimensionsAreUniformInTheSquare) {
    // The pairs the renderer uses together (pixel offset, lens, scatter
    // directions), including a pair straddling two Philox blocks (3, 4).
    const int side = 16, n = 100000;
    const uint32_t pairs[][2] = {{0, 1}, {2, 3}, {3, 4}, {5, 6}, {8, 9}, {17, 18}};
    for (const auto& pair : pairs) {
        std::vector<int> counts(side * side, 0);
        for (int i = 0; i < n; ++i) {
            PixelSampler sampler(SamplerKey{1, 0, SamplerType::Independent}, uint32_t(i % 997), uint32_t(i / 997));
            const int x = int(sampler.uniform(pair[0]) * side);
            const int y = int(sampler.uniform(pair[1]) * side);
            counts[y * side + x]++;
        }
        EXPECT_LT(chi_square(counts, double(n) / (side * side)), chi_square_limit(side * side - 1))
            << "dimensions " << pair[0] << ", " << pair[1];
    }
}

TEST(Sampler, MeanAndVarianceMatchTheUniformDistribution) {
    const int n = 200000;
    double sum = 0, sum_squares = 0;
    for (int i = 0; i < n; ++i) {
        const double u = value(9, 1, uint32_t(i), uint32_t(i % 13), uint32_t(i % 29));
        sum += u;
        sum_squares += u * u;
    }
    const double mean = sum / n, variance = sum_squares / n - mean * mean;
    EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
    EXPECT_NEAR(variance, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));  // standard error sqrt((mu4 - sigma^4) / n)
}

// The first 64 dimensions of one (key, pixel, sample) stream.
std::vector<float> stream(uint64_t seed, uint32_t frame, uint32_t pixel, uint32_t sample, uint32_t first = 0) {
    PixelSampler sampler(SamplerKey{seed, frame, SamplerType::Independent}, pixel, sample);
    std::vector<float> values;
    for (uint32_t d = first; d < first + 64; ++d) values.push_back(sampler.uniform(d));
    return values;
}

int equal_values(const std::vector<float>& a, const std::vector<float>& b) {
    int equal = 0;
    for (size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i];
    return equal;
}

TEST(Sampler, EveryKeyComponentChangesTheWholeStream) {
    // Two unrelated 24-bit values agree with probability 2^-24: among 64
    // values at most one coincidence is plausible.
    const std::vector<float> base = stream(1000, 5, 777, 33);
    EXPECT_LE(equal_values(base, stream(1001, 5, 777, 33)), 1) << "seed";
    EXPECT_LE(equal_values(base, stream(1000 + (1ull << 32), 5, 777, 33)), 1) << "seed high word";
    EXPECT_LE(equal_values(base, stream(1000, 6, 777, 33)), 1) << "frame";
    EXPECT_LE(equal_values(base, stream(1000, 5, 778, 33)), 1) << "pixel";
    EXPECT_LE(equal_values(base, stream(1000, 5, 777, 34)), 1) << "sample";
    EXPECT_LE(equal_values(base, stream(1000, 5, 777, 33, 64)), 1) << "dimension";
    EXPECT_LE(equal_values(base, stream(1000, 5, 777, 33, 1)), 1) << "dimension shifted by one";
    EXPECT_EQ(equal_values(base, stream(1000, 5, 777, 33)), 64) << "same key";
}

TEST(Sampler, SwappedKeyComponentsGiveDifferentStreams) {
    // A generator that mixed components symmetrically (e.g. pixel ^ sample)
    // would repeat itself here.
    EXPECT_LE(equal_values(stream(0, 0, 3, 5), stream(0, 0, 5, 3)), 1) << "pixel <-> sample";
    EXPECT_LE(equal_values(stream(0, 1, 0, 0), stream(0, 0, 1, 0)), 1) << "frame <-> pixel";
    EXPECT_LE(equal_values(stream(1, 0, 0, 0), stream(0, 1, 0, 0)), 1) << "seed <-> frame";
    EXPECT_LE(equal_values(stream(0, 0, 0, 1), stream(1, 0, 0, 0)), 1) << "sample <-> seed";
    EXPECT_LE(equal_values(stream(0, 0, 0, 4), stream(0, 0, 0, 0, 4)), 1) << "sample <-> dimension block";
}

TEST(Sampler, NeighboursAreUncorrelated) {
    // |r| of independent samples is about 1/sqrt(n); allow 5 standard errors.
    const int n = 100000;
    const double limit = 5.0 / std::sqrt(double(n));
    std::vector<double> a(n), next_dimension(n), next_pixel(n), next_sample(n), next_seed(n), next_frame(n),
        next_block(n);
    for (int i = 0; i < n; ++i) {
        const uint32_t pixel = uint32_t(i), sample = 3, d = uint32_t(i % 7);
        a[i] = value(11, 2, pixel, sample, d);
        next_dimension[i] = value(11, 2, pixel, sample, d + 1);
        next_block[i] = value(11, 2, pixel, sample, d + 4);
        next_pixel[i] = value(11, 2, pixel + 1, sample, d);
        next_sample[i] = value(11, 2, pixel, sample + 1, d);
        next_seed[i] = value(12, 2, pixel, sample, d);
        next_frame[i] = value(11, 3, pixel, sample, d);
    }
    EXPECT_LT(std::fabs(testing::correlation(a, next_dimension)), limit) << "dimension d, d+1";
    EXPECT_LT(std::fabs(testing::correlation(a, next_block)), limit) << "dimension d, d+4";
    EXPECT_LT(std::fabs(testing::correlation(a, next_pixel)), limit) << "pixel p, p+1";
    EXPECT_LT(std::fabs(testing::correlation(a, next_sample)), limit) << "sample s, s+1";
    EXPECT_LT(std::fabs(testing::correlation(a, next_seed)), limit) << "seed";
    EXPECT_LT(std::fabs(testing::correlation(a, next_frame)), limit) << "frame";
}

TEST(Sampler, UniformIsAPureFunctionOfTheKeyWhateverTheCallOrder) {
    const SamplerKey key{0xDEADBEEFCAFEull, 4, SamplerType::Independent};
    std::vector<float> ascending(200);
    PixelSampler in_order(key, 99, 7);
    for (uint32_t d = 0; d < 200; ++d) ascending[d] = in_order.uniform(d);

    // Descending, random order, repeated calls, and one fresh sampler per value.
    PixelSampler descending(key, 99, 7);
    for (uint32_t d = 200; d-- > 0;) EXPECT_EQ(descending.uniform(d), ascending[d]) << d;
    std::mt19937 rng(1);
    std::uniform_int_distribution<uint32_t> any(0, 199);
    PixelSampler shuffled(key, 99, 7);
    for (int i = 0; i < 2000; ++i) {
        const uint32_t d = any(rng);
        EXPECT_EQ(shuffled.uniform(d), ascending[d]) << d;
    }
    for (uint32_t d = 0; d < 200; ++d) {
        PixelSampler fresh(key, 99, 7);
        EXPECT_EQ(fresh.uniform(d), ascending[d]) << d;
    }
    // A copy taken mid-stream continues identically.
    PixelSampler original(key, 99, 7);
    original.uniform(13);
    PixelSampler copy = original;
    for (uint32_t d = 0; d < 200; ++d) EXPECT_EQ(copy.uniform(d), ascending[d]);
}

TEST(Sampler, FourDimensionsComeFromOnePhiloxBlock) {
    // The layout the CUDA and SIMD backends rely on: dimension d is word d % 4
    // of Philox(counter = {pixel, sample, d / 4, frame}, key = seed).
    const uint64_t seed = 0x0123456789ABCDEFull;
    for (uint32_t d = 0; d < 16; ++d) {
        const PhiloxBlock block = philox4x32_10(PhiloxBlock{{5, 6, d / 4, 7}}, uint32_t(seed), uint32_t(seed >> 32));
        EXPECT_EQ(value(seed, 7, 5, 6, d), bits_to_unit_float(block.v[d % 4]));
    }
}

TEST(Sampler, HighDimensionsOfLongPathsStayUniform) {
    // A path of max_depth 10000 reads dimensions up to ~30000.
    const int bins = 32, n = 30000;
    std::vector<int> counts(bins, 0);
    PixelSampler sampler(SamplerKey{5, 0, SamplerType::Independent}, 1, 2);
    for (uint32_t d = 0; d < uint32_t(n); ++d) counts[int(sampler.uniform(d) * bins)]++;
    EXPECT_LT(chi_square(counts, double(n) / bins), chi_square_limit(bins - 1));
}

}  // namespace
}  // namespace farmrt
