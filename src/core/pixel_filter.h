// Pixel reconstruction filters by importance sampling (pbrt-v4's
// FilterSampler): a sample's offset from the pixel centre is drawn in
// proportion to |f|, and its radiance weighted by sign(f) x the integral of
// |f| over that of f, so a pixel's plain mean of samples is the filtered
// image, unbiased, with no splatting into neighbours (and so no exchange
// between tiles, ranks or GPUs). Filters are separable: x and y are drawn
// alike from one table of kFilterBins equal bins over [-radius, radius],
// built on the host, so every backend draws the same offsets bit for bit.
#pragma once

#include "core/common.h"

namespace farmrt {

// Box: constant over the width (1 pixel: the books' filter).
// Gaussian: exp(-x^2 / 2 sigma^2) less its value at the radius, sigma = width / 6.
// BlackmanHarris: the four-term window over the width (Cycles' default, width 1.5).
// Mitchell: Mitchell and Netravali's cubic, B = C = 1/3, over the width (negative lobes).
enum class FilterType : uint32_t { Box = 0, Gaussian = 1, BlackmanHarris = 2, Mitchell = 3 };

constexpr uint32_t kFilterBins = 64;

struct PixelFilter {
    FilterType type = FilterType::Box;
    float radius = 0.5f;  // half the width, pixels
    // Box: unused. Others: cumulative[i] = the share of |f| in bins [0, i);
    // cumulative[kFilterBins] = 1.
    float cumulative[kFilterBins + 1] = {};
    uint64_t negative_bins = 0;  // bit i: f < 0 over bin i
    float weight = 1.0f;         // the integral of |f| over that of f (1 without negative lobes)
};

// The offset along one axis for the number u in [0, 1), and the sample's
// weight along that axis.
FARMRT_CPU_GPU FARMRT_INLINE float sample_filter_offset(const PixelFilter& filter, float u, float& weight) {
    if (filter.type == FilterType::Box) {
        weight = 1.0f;
        return (u - 0.5f) * (2.0f * filter.radius);  // width 1: u - 0.5 exactly
    }
    // The last bin whose cumulative share is at most u.
    uint32_t low = 0, high = kFilterBins;
    while (high - low > 1) {
        const uint32_t middle = (low + high) >> 1;
        if (filter.cumulative[middle] <= u) {
            low = middle;
        } else {
            high = middle;
        }
    }
    const float begin = filter.cumulative[low];
    const float width = filter.cumulative[low + 1] - begin;
    const float within = width > 0.0f ? min_float((u - begin) / width, 0.99999994f) : 0.5f;
    weight = (filter.negative_bins >> low) & 1u ? -filter.weight : filter.weight;
    const float bin_width = (2.0f * filter.radius) / float(kFilterBins);
    return (float(low) + within) * bin_width - filter.radius;
}

// The filter's value at offset x (unnormalised; tests compare the sampled density with it).
double filter_value(FilterType type, double radius, double x);

// The table for a filter of `width` pixels (full width, Cycles' meaning).
PixelFilter make_pixel_filter(FilterType type, float width);

const char* filter_name(FilterType type);  // as the scene file spells it
// The width a filter has unless image.filter_width says otherwise.
float default_filter_width(FilterType type);

}  // namespace farmrt
