// One render from the command line: parse, build, render, write, report.
// The steps are separate functions so that the MPI layer can run them on
// different ranks (rank 0 parses and writes; every rank builds and renders).
#pragma once

#include <vector>

#include "band_renderer.h"
#include "command_line.h"
#include "integrator.h"
#include "run_report.h"
#include "scene_loader.h"

namespace farmrt {

struct PreparedJob {
    SceneDescription description;
    FrameSettings frame;
    PhaseTimes phases;
};

// Loads and validates the scene, checks that the outputs can be written.
SceneDescription load_job_scene(const CommandLine& command_line, PhaseTimes& phases);
// Builds the acceleration structure and the frame's camera.
PreparedJob prepare_job(SceneDescription description, const CommandLine& command_line, PhaseTimes phases);

// The backend options the command line asks for (one place, shared by the
// single-process job and the MPI ranks).
RendererOptions make_renderer_options(const CommandLine& command_line);

FrameSettings make_frame_settings(const RenderSettings& settings, uint32_t frame_number);
// Per-pixel sums over `spp` samples to pixel means.
std::vector<float> resolve_pixels(const std::vector<float>& sums, uint32_t spp);

// Renders the whole job in this process and writes the image; returns the exit code.
int run_render_job(const CommandLine& command_line);

}  // namespace farmrt
