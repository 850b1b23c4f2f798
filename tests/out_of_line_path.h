// The core's path loop behind one out-of-line call, for test files that
// trace paths in many places: trace_path and accumulate_pixel are
// force-inlined (FARMRT_INLINE) into every caller, and a test file with ten
// calls compiled ten copies of the integrator (four and a half minutes for
// one file under ASan + UBSan).
#pragma once

#include "core/integrator.h"

namespace farmrt {

[[gnu::noinline]] inline Color trace_path_out_of_line(const SceneView& scene, const Ray& ray, PixelSampler& sampler,
                                                      int max_depth, Integrator integrator = Integrator::NextEvent) {
    return trace_path(scene, ray, sampler, max_depth, BvhQuery(), integrator);
}

[[gnu::noinline]] inline void accumulate_pixel_out_of_line(const SceneView& scene, const FrameSettings& frame,
                                                           uint32_t x, uint32_t y, uint32_t sample_begin,
                                                           uint32_t sample_end, float* sum) {
    accumulate_pixel(scene, frame, x, y, sample_begin, sample_end, sum);
}

}  // namespace farmrt
