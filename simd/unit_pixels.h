// The pixel loop of one work unit, shared by the scalar CPU renderer and every
// SIMD level's kernel (simd/wide_traversal.h compiles it with the level's
// instruction set, shading included). Header only, no state: the kernel
// objects may include it (check_kernel_objects.sh).
#pragma once

#include <cstring>

#include "core/integrator.h"

namespace farmrt {

// A rectangle of pixels [x0, x1) x [y0, y1) that one thread traces.
struct WorkUnit {
    uint32_t x0, y0, x1, y1;
};

// Calls add_pixel_samples(x, y, pixel_index, record) for every pixel of
// `unit` with that pixel's record in `sums` (frame.sampling.record_floats
// floats per pixel; the first row is image row `row_begin`). The record stays
// in this thread's stack while samples are added to it: neighbouring units of
// other threads share cache lines of `sums`.
template <class AddPixelSamples>
FARMRT_INLINE void for_each_unit_pixel(const FrameSettings& frame, const WorkUnit& unit, uint32_t row_begin,
                                       float* sums, const AddPixelSamples& add_pixel_samples) {
    for (uint32_t y = unit.y0; y < unit.y1; ++y) {
        const size_t floats = frame.sampling.record_floats;
        float* row = sums + size_t(y - row_begin) * frame.width * floats;
        for (uint32_t x = unit.x0; x < unit.x1; ++x) {
            float record[kMaxRecordFloats];
            std::memcpy(record, row + size_t(x) * floats, floats * sizeof(float));
            add_pixel_samples(x, y, frame.pixel_index(x, y), record);
            std::memcpy(row + size_t(x) * floats, record, floats * sizeof(float));
        }
    }
}

// Adds samples [sample_begin, sample_end) of every pixel of `unit` to its
// record in `sums`, each pixel's samples in sample order, those that adaptive
// sampling leaves out skipped, as accumulate_pixel().
// `sample_radiance(x, y, pixel_index, sample)` traces one sample.
template <class SampleRadiance>
FARMRT_INLINE void render_unit_pixels(const FrameSettings& frame, const WorkUnit& unit, uint32_t row_begin,
                                      uint32_t sample_begin, uint32_t sample_end, float* sums,
                                      const SampleRadiance& sample_radiance) {
    for_each_unit_pixel(frame, unit, row_begin, sums, [&](uint32_t x, uint32_t y, uint32_t pixel_index, float* record) {
        for_each_sample_run(record, frame.sampling, sample_begin, sample_end, [&](uint32_t begin, uint32_t end) {
            for (uint32_t s = begin; s < end; ++s) {
                add_sample_to_record(record, sample_radiance(x, y, pixel_index, s), frame.sampling.record_floats);
            }
        });
    });
}

}  // namespace farmrt
