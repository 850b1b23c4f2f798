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

#include "command_line.h"
#include "mpi_session.h"

namespace farmrt {

// Runs the job; returns the exit code. Throws on set-up failures (see agree_on_failure).
int run_farm_job(const CommandLine& command_line, const MpiSession& mpi, MpiClock& clock);

// Thrown on the ranks that stop because another rank failed during set-up;
// that rank prints the reason, these exit quietly with its exit code.
struct JobAbandoned {
    int exit_code;
};

// 2 for InputError (bad input), 1 for anything else.
int exit_code_for(std::exception_ptr error);
// "farmrt: error: rank 3 (host): what" (no rank in a one-rank job), printed on stderr.
void print_error(const MpiSession& mpi, std::exception_ptr error);

// Collective: every rank reports whether its step failed. Returns when none
// did; otherwise the lowest failing rank rethrows its error (the caller prints
// it) and every other rank throws JobAbandoned with that rank's exit code.
void agree_on_failure(const MpiSession& mpi, MpiClock& clock, std::exception_ptr local_error);

// Prints the error and ends the whole job at once (MPI_Abort; in a one-rank
// job, exits). For failures while other ranks may be rendering.
[[noreturn]] void end_job_after_failure(const MpiSession& mpi, std::exception_ptr error);

}  // namespace farmrt
