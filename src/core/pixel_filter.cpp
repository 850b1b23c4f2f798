#include "core/pixel_filter.h"

#include <algorithm>
#include <cmath>

namespace farmrt {
namespace {

double mitchell_1d(double x) {  // on [-2, 2], B = C = 1/3
    const double b = 1.0 / 3.0, c = 1.0 / 3.0;
    x = std::fabs(x);
    if (x <= 1.0) {
        return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6.0;
    }
    if (x <= 2.0) {
        return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6.0;
    }
    return 0.0;
}

}  // namespace

double filter_value(FilterType type, double radius, double x) {
    if (std::fabs(x) > radius) return 0.0;
    switch (type) {
    case FilterType::Box: return 1.0;
    case FilterType::Gaussian: {
        const double sigma = radius / 3.0;
        const double g = std::exp(-x * x / (2 * sigma * sigma));
        return std::max(0.0, g - std::exp(-radius * radius / (2 * sigma * sigma)));
    }
    case FilterType::BlackmanHarris: {
        const double v = 2 * M_PI * (x / (2 * radius) + 0.5);
        return 0.35875 - 0.48829 * std::cos(v) + 0.14128 * std::cos(2 * v) - 0.01168 * std::cos(3 * v);
    }
    case FilterType::Mitchell: return mitchell_1d(2 * x / radius);
    }
    return 0.0;
}

PixelFilter make_pixel_filter(FilterType type, float width) {
    PixelFilter filter;
    filter.type = type;
    filter.radius = 0.5f * width;
    if (type == FilterType::Box) return filter;
    // Each bin's integral by the midpoint rule on 64 points; a bin's sign is
    // its integral's (one bin on each side straddles Mitchell's zero).
    const double radius = filter.radius;
    const double bin_width = 2 * radius / kFilterBins;
    double integral[kFilterBins];
    double absolute_total = 0, signed_total = 0;
    for (uint32_t i = 0; i < kFilterBins; ++i) {
        double sum = 0;
        constexpr int kPoints = 64;
        for (int k = 0; k < kPoints; ++k) {
            sum += filter_value(type, radius, -radius + (i + (k + 0.5) / kPoints) * bin_width);
        }
        integral[i] = sum * bin_width / kPoints;
        absolute_total += std::fabs(integral[i]);
        signed_total += integral[i];
        if (integral[i] < 0) filter.negative_bins |= uint64_t(1) << i;
    }
    double running = 0;
    for (uint32_t i = 0; i < kFilterBins; ++i) {
        filter.cumulative[i] = float(running / absolute_total);
        running += std::fabs(integral[i]);
    }
    filter.cumulative[kFilterBins] = 1.0f;
    filter.weight = filter.negative_bins ? float(absolute_total / signed_total) : 1.0f;
    return filter;
}

const char* filter_name(FilterType type) {
    switch (type) {
    case FilterType::Box: return "box";
    case FilterType::Gaussian: return "gaussian";
    case FilterType::BlackmanHarris: return "blackman-harris";
    case FilterType::Mitchell: return "mitchell";
    }
    return "?";
}

float default_filter_width(FilterType type) {
    switch (type) {
    case FilterType::Box: return 1.0f;
    case FilterType::Gaussian: return 3.0f;  // pbrt-v4's: radius 1.5, sigma 0.5
    case FilterType::BlackmanHarris: return 1.5f;
    case FilterType::Mitchell: return 4.0f;  // pbrt-v4's: radius 2
    }
    return 1.0f;
}

}  // namespace farmrt
