// One job across every rank of MPI_COMM_WORLD (one rank without a launcher,
// then without MPI at all).
//
// Rank 0 reads and validates the scene, plans the frames (and the
// checkpoints they resume from) and broadcasts the scene as bytes; every rank
// builds the BVH and its own backend (through the Backends the command layer
// hands in, so CPU, SIMD and CUDA ranks mix in one job). Then rank 0 runs the
// root loop (mpi/farm_root.h: dealing, frames, checkpoints, stops) and the
// others the worker loop (mpi/farm_worker.h), for every schedule. Failures
// during set-up are agreed on collectively (mpi/farm_failure.h); failures
// while rendering print on the failing rank and take the job down.
#pragma once

#include <exception>
#include <string>

#include "mpi/farm_failure.h"
#include "mpi/mpi_session.h"
#include "render/band_renderer.h"
#include "render/command_line.h"

namespace farmrt {

// Runs the job; returns the exit code. Throws on set-up failures (see agree_on_failure).
int run_farm_job(const CommandLine& command_line, const Backends& backends, const MpiSession& mpi, MpiClock& clock);

}  // namespace farmrt
