// A pixel's running record, and adaptive sampling's decisions over it.
//
// Every backend adds a pixel's samples to its record in sample order. The
// record is the RGB sum, and, where the render keeps statistics (adaptive
// sampling, the variance AOV), also the sum of the squared deviations of the
// samples' luminance from their mean (Welford's update: a sum of squares
// less the squared sum would cancel in float where the noise is small) and
// the number of samples taken: 3 or 5 floats (FrameSettings::sampling).
// With image.alpha the record ends with one more float, the sum of the
// samples' alpha (PixelSample): 4 or 6 floats, so that the count alone
// tells the layout.
//
// Adaptive sampling (sampling.noise_threshold) stops a pixel once its own
// samples say that its mean is precise enough. The decisions fall at fixed
// sample positions (min_spp, then every kDecisionInterval samples) and read
// only the record, so a pixel takes the same samples, and ends with the same
// floats, however its work is split across passes, threads, tiles, ranks or
// devices: a pass that starts at a decision position makes the decision the
// uninterrupted render made there. A stopped pixel's count stays behind the
// sample position of its row, which is how later passes know to skip it.
#pragma once

#include "core/materials.h"

namespace farmrt {

constexpr uint32_t kColorFloats = 3;          // RGB sum
constexpr uint32_t kStatisticsFloats = 5;     // RGB sum, luminance deviations, samples taken
constexpr uint32_t kLuminanceDeviations = 3;  // record index: sum of squared deviations from the mean
constexpr uint32_t kSamplesTaken = 4;         // record index (a float: exact up to 2^24 = kMaxSamplesPerPixel)
constexpr uint32_t kMaxRecordFloats = kStatisticsFloats + 1;  // with the alpha sum
// Samples between two decisions of adaptive sampling.
constexpr uint32_t kDecisionInterval = 16;
// Luminance below which adaptive sampling's error is measured as at this
// level (the error is relative to the square root of the mean).
constexpr double kDarkLuminance = 1e-4;

// The record's layout by its size: RGB (3), RGB and alpha (4), RGB and
// statistics (5), RGB, statistics and alpha (6); the alpha sum comes last.
FARMRT_CPU_GPU FARMRT_INLINE constexpr bool record_has_statistics(uint32_t floats) {
    return floats >= kStatisticsFloats;
}
FARMRT_CPU_GPU FARMRT_INLINE constexpr bool record_has_alpha(uint32_t floats) {
    return floats == kColorFloats + 1 || floats == kStatisticsFloats + 1;
}
FARMRT_CPU_GPU FARMRT_INLINE constexpr uint32_t record_floats_of(bool statistics, bool alpha) {
    return (statistics ? kStatisticsFloats : kColorFloats) + (alpha ? 1u : 0u);
}

struct PixelSampling {
    uint32_t record_floats = kColorFloats;  // record_floats_of(statistics, alpha)
    float noise_threshold = 0.0f;           // 0: every pixel takes every sample
    uint32_t min_samples = 0;               // before the first decision (>= 2 when adaptive)

    FARMRT_CPU_GPU bool adaptive() const { return noise_threshold > 0.0f; }
};

// What one sample adds to its pixel: the light its path brought back, and
// its alpha: the camera sample's filter weight where the camera ray met a
// surface, 0 where it left the scene and image.alpha makes the background
// transparent (the path then brings back no light either, so the colour sum
// stays premultiplied by alpha, as compositors expect).
struct PixelSample {
    Color radiance;
    float alpha = 1.0f;
};

// A sample's radiance as the sums take it: a NaN from a degenerate path
// would poison the whole pixel, so its channels count as 0.
FARMRT_CPU_GPU FARMRT_INLINE Color without_nan(const Color& c) {
    return Color(c.x == c.x ? c.x : 0.0f, c.y == c.y ? c.y : 0.0f, c.z == c.z ? c.z : 0.0f);
}

// Adds one sample's radiance to a pixel sum.
FARMRT_CPU_GPU FARMRT_INLINE void add_sample(float* sum, const Color& c) {
    const Color finite = without_nan(c);
    sum[0] += finite.x;
    sum[1] += finite.y;
    sum[2] += finite.z;
}

// The mean luminance of the record's samples.
FARMRT_CPU_GPU FARMRT_INLINE float record_mean_luminance(const float* record, float samples) {
    return samples > 0.0f ? luminance(Color(record[0], record[1], record[2])) / samples : 0.0f;
}

// add_sample, with statistics Welford's update of the luminance deviations
// and the count, and with alpha the alpha sum.
FARMRT_CPU_GPU FARMRT_INLINE void add_sample_to_record(float* record, const PixelSample& sample,
                                                       uint32_t record_floats) {
    const Color finite = without_nan(sample.radiance);
    if (record_has_statistics(record_floats)) {
        const float taken = record[kSamplesTaken];
        const float mean_before = record_mean_luminance(record, taken);
        add_sample(record, finite);
        const float mean_after = record_mean_luminance(record, taken + 1.0f);
        const float y = luminance(finite);
        record[kLuminanceDeviations] += (y - mean_before) * (y - mean_after);
        record[kSamplesTaken] = taken + 1.0f;
    } else {
        add_sample(record, finite);
    }
    if (record_has_alpha(record_floats)) record[record_floats - 1] += sample.alpha;
}

// The mean luminance of a record with statistics and the variance of that
// mean (the sample variance over the count); 0 with fewer than 2 samples.
struct LuminanceEstimate {
    double mean = 0.0, variance_of_mean = 0.0;
};
FARMRT_CPU_GPU FARMRT_INLINE LuminanceEstimate luminance_estimate(const float* record) {
    LuminanceEstimate e;
    const double n = record[kSamplesTaken];
    if (n < 1.0) return e;
    const double sum = 0.2126 * double(record[0]) + 0.7152 * double(record[1]) + 0.0722 * double(record[2]);
    e.mean = sum / n;
    if (n < 2.0) return e;
    const double deviations = record[kLuminanceDeviations];
    e.variance_of_mean = deviations > 0.0 ? deviations / (n - 1.0) / n : 0.0;
    return e;
}

// Converged: the standard error of the pixel's mean luminance is at most
// `threshold` times the square root of that mean (Cycles' normalisation: a
// dark pixel is not held to a relative error its few photons cannot reach).
// A pixel none of whose samples has found light is not: its variance of 0
// says nothing when light reaches it by rare paths (a room lit through a
// door), and a truly black pixel only costs what uniform sampling costs.
FARMRT_CPU_GPU FARMRT_INLINE bool pixel_converged(const float* record, float threshold) {
    if (record[0] == 0.0f && record[1] == 0.0f && record[2] == 0.0f) return false;
    const LuminanceEstimate e = luminance_estimate(record);
    const double t = threshold;
    return e.variance_of_mean <= t * t * (e.mean > kDarkLuminance ? e.mean : kDarkLuminance);
}

// The first decision position after `sample` (adaptive sampling only).
FARMRT_CPU_GPU FARMRT_INLINE uint32_t next_decision(const PixelSampling& sampling, uint32_t sample) {
    const uint32_t first = sampling.min_samples;
    if (sample < first) return first;
    return sample + (kDecisionInterval - (sample - first) % kDecisionInterval);
}

// The samples [sample, run_end) that the pixel whose record this is takes
// next without another decision, within [sample, sample_end): run_end ==
// sample when it takes none (it has converged, now or at an earlier
// decision). Without adaptive sampling, every sample.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t adaptive_run_end(const float* record, const PixelSampling& sampling,
                                                       uint32_t sample, uint32_t sample_end) {
    if (!sampling.adaptive() || sample >= sample_end) return sample_end;
    if (record[kSamplesTaken] != float(sample)) return sample;  // stopped at an earlier decision
    const uint32_t first = sampling.min_samples;
    const bool deciding = sample >= first && (sample - first) % kDecisionInterval == 0;
    if (deciding && pixel_converged(record, sampling.noise_threshold)) return sample;
    const uint32_t next = next_decision(sampling, sample);
    return next < sample_end ? next : sample_end;
}

// `run_end` moved on to the furthest later decision (or `end`) at most
// `samples` past `begin`. speculative_run_end bounds it by the lookahead; a
// GPU launch whose pixels are too few to fill the device by the samples that
// fill it, which cost it little (its paths run side by side) and spare it the
// next launch's tail.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t run_end_within(const PixelSampling& sampling, uint32_t begin, uint32_t end,
                                                     uint32_t run_end, uint64_t samples) {
    while (run_end < end) {
        uint32_t next = next_decision(sampling, run_end);
        if (next > end) next = end;
        if (next - begin > samples) break;
        run_end = next;
    }
    return run_end;
}

// The end of a run of sample positions [begin, end) traced at once for
// every pixel still sampling at `begin` (a GPU launch): the next decision
// after `begin` (or `end`), then the furthest later decision (or `end`) at
// most `lookahead_percent` percent of `begin` samples past `begin`. Samples past a
// decision are speculative: a pixel that stops there leaves them out of its
// record (for_each_sample_run), so the bytes never change, and the share
// bounds what they can waste against what the pixel has already taken.
FARMRT_CPU_GPU FARMRT_INLINE uint32_t speculative_run_end(const PixelSampling& sampling, uint32_t begin, uint32_t end,
                                                          uint32_t lookahead_percent) {
    const uint64_t reach = uint64_t(begin) * lookahead_percent / 100;
    const uint32_t run_end = run_end_within(sampling, begin, end, next_decision(sampling, begin), reach);
    return run_end < end ? run_end : end;
}

// Calls add_run(begin, end) for each run of the samples in [sample_begin,
// sample_end) that adaptive sampling leaves the pixel, in order; add_run adds
// them to `record`, which the next decision reads.
template <class AddRun>
FARMRT_CPU_GPU FARMRT_INLINE void for_each_sample_run(float* record, const PixelSampling& sampling,
                                                      uint32_t sample_begin, uint32_t sample_end,
                                                      const AddRun& add_run) {
    uint32_t sample = sample_begin;
    while (sample < sample_end) {
        const uint32_t run_end = adaptive_run_end(record, sampling, sample, sample_end);
        if (run_end == sample) return;
        add_run(sample, run_end);
        sample = run_end;
    }
}

// The samples a pixel has taken: its record's count, or its row's.
FARMRT_CPU_GPU FARMRT_INLINE float samples_taken(const float* record, uint32_t record_floats, uint32_t row_samples) {
    return record_has_statistics(record_floats) ? record[kSamplesTaken] : float(row_samples);
}

}  // namespace farmrt
