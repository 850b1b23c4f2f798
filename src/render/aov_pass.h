// The auxiliary images of a finished frame (core/aov.h), made on rank 0 as
// the frame is written. Albedo, normal and depth come from the first hits of
// the camera rays of the pixel's first kAovSamples samples (the same rays as
// the beauty's samples, so they line up with it edge for edge): one
// closest-hit query per sample, no shading, a small fraction of a path's
// cost. The samples image is the pixel's sample count.
#pragma once

#include <vector>

#include "core/scene.h"
#include "io/aov_output.h"
#include "render/frame_job.h"

namespace farmrt {

// Features are averaged over at most this many samples per pixel (depth is
// their minimum): enough for a denoiser's guide, whatever the beauty's spp.
constexpr uint32_t kAovSamples = 16;

// The AOVs `aovs` of the frame `frame`, whose sums are in `accumulator`,
// in the same order; OpenMP over rows.
std::vector<AovImage> render_aovs(const SceneView& scene, const FrameSettings& frame, const std::vector<Aov>& aovs,
                                  const FrameAccumulator& accumulator);

}  // namespace farmrt
