// The wiring of backends: the one place that knows the CPU (simd/) and GPU
// (cuda/) tracers and picks one for a rank.
#pragma once

#include <memory>
#include <string>

#include "render/band_renderer.h"

namespace farmrt {

// The scene must outlive the renderer.
std::unique_ptr<BandRenderer> make_band_renderer(const Scene& scene, const RendererOptions& options);
// See Backends::gpu_ranks_on_node.
int gpu_ranks_on_node(const std::string& backend, int ranks_on_node);
// See Backends::start_gpu_driver.
void start_gpu_driver(const std::string& backend);
// All three, for the farm.
Backends available_backends();

}  // namespace farmrt
