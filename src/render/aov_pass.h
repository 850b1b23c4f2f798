// The auxiliary images of a finished frame (core/aov.h), made on rank 0 as
// the frame is written. Albedo, normal and depth come from the first hits of
// the camera rays of the pixel's first kAovSamples samples (the same rays as
// the beauty's samples, so they line up with it edge for edge): one
// closest-hit query per sample, no shading, a small fraction of a path's
// cost. The samples image is the pixel's sample count (adaptive sampling's
// map), the variance image the variance of its mean luminance.
#pragma once

#include <vector>

#include "core/scene.h"
#include "io/aov_output.h"
#include "render/band_renderer.h"
#include "render/frame_job.h"

namespace farmrt {

// Features are averaged over at most this many samples per pixel (depth is
// their minimum): enough for a denoiser's guide, whatever the beauty's spp.
constexpr uint32_t kAovSamples = 16;

// Albedo, normal and depth of every pixel: what depends on the scene and the
// frame's camera only, not on the beauty's samples, so it can be made while
// the frame renders. Empty vectors for AOVs not asked for; OpenMP over rows.
struct FirstHitImages {
    std::vector<float> albedo, normal, depth;
};
// `device`, when given, makes them if it can (a GPU: BandRenderer::first_hit_features),
// the same floats.
FirstHitImages render_first_hits(const SceneView& scene, const FrameSettings& frame, const std::vector<Aov>& aovs,
                                 uint32_t spp, BandRenderer* device = nullptr);

// The AOVs `aovs`, in that order, of a frame whose first hits are `first_hits`
// and whose sample counts are `accumulator`'s.
std::vector<AovImage> assemble_aovs(const std::vector<Aov>& aovs, FirstHitImages first_hits,
                                    const FrameAccumulator& accumulator);

// Both at once (tests, single frames).
std::vector<AovImage> render_aovs(const SceneView& scene, const FrameSettings& frame, const std::vector<Aov>& aovs,
                                  const FrameAccumulator& accumulator);

}  // namespace farmrt
