// The steps of a job that do not depend on how it is distributed: load and
// check the scene, build its acceleration structure and the frame's camera,
// turn sums into pixels. The farm (mpi/) runs them on the right ranks.
#pragma once

#include <vector>

#include "core/integrator.h"
#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "render/command_line.h"
#include "render/frame_job.h"
#include "render/run_report.h"

namespace farmrt {

struct PreparedJob {
    SceneDescription description;
    FrameSettings frame;
    PhaseTimes phases;
};

// Loads and validates the scene, checks that the outputs can be written.
SceneDescription load_job_scene(const CommandLine& command_line, PhaseTimes& phases);
// The primitive references the BVHs hold, and about what building them (and
// a backend's own BVH) takes on top of the loaded scene: load_job_scene
// refuses a job whose frame and BVHs do not fit the memory available.
uint64_t acceleration_references(const Scene& scene);
uint64_t acceleration_bytes(const Scene& scene);
// The memory this machine has free (MemAvailable), in bytes; 0 when unknown.
uint64_t available_memory_bytes();
// Builds the acceleration structure and the frame's camera.
PreparedJob prepare_job(SceneDescription description, const CommandLine& command_line, PhaseTimes phases);

// The backend options the command line asks for (one place, shared by the
// single-process job and the MPI ranks).
RendererOptions make_renderer_options(const CommandLine& command_line);

// Per-pixel sums over `spp` samples to pixel means.
std::vector<float> resolve_pixels(const std::vector<float>& sums, uint32_t spp);

}  // namespace farmrt
