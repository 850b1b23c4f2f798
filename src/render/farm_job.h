// One job across every process of a Cluster (one process alone, or the
// ranks of an MPI launch).
//
// Process 0 reads and validates the scene, plans the frames (and the
// checkpoints they resume from) and shares the scene with the others; every
// process builds the BVH and its own backend (through the Backends the
// command layer hands in, so CPU, SIMD and CUDA processes mix in one job).
// Then process 0 runs the farm engine (render/farm_engine.h: dealing, frames,
// checkpoints, stops) and the others serve it (Cluster::serve), for every
// schedule. Failures during set-up are agreed on collectively
// (Cluster::agree_on_failure); failures while rendering print on the failing
// process and take the job down.
#pragma once

#include <cstdint>
#include <string>

#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "render/cluster.h"
#include "render/command_line.h"

namespace farmrt {

// Options that must agree on every process, so they come from process 0's command line.
struct FarmOptions {
    std::string schedule = "dynamic";
    uint32_t band_rows = 0;  // 0: automatic
    bool linear_list = false;
};

// What process 0 shares after it has read and validated the scene. The
// others never open the scene file (on a cluster only the submitting node
// may see it, and mesh or texture files with it); each builds the same BVH
// from the same arrays.
struct JobMessage {
    SceneDescription description;
    FarmOptions options;
};

// Runs the job; returns the exit code. Throws on set-up failures (see Cluster::agree_on_failure).
int run_farm_job(const CommandLine& command_line, const Backends& backends, Cluster& cluster);

}  // namespace farmrt
