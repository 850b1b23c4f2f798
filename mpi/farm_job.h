// One render across every rank of MPI_COMM_WORLD (one rank without mpirun).
//
// Rank 0 reads and validates the scene and broadcasts it as bytes; every rank
// builds the BVH and its own backend (make_band_renderer, so CPU, SIMD and
// CUDA ranks mix in one job). Rows are cut into bands and dealt by the
// schedule; each rank renders on a render thread while its main thread, the
// only one that calls MPI, moves messages: rank 0 answers requests and places
// finished bands straight into the one full image, which only it holds, and
// writes it once. Failures during set-up are agreed on collectively (the
// first failing rank prints, every rank exits with its code); failures while
// rendering print on the failing rank and take the job down (MPI_Abort).
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
