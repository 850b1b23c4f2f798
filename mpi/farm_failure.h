// How the farm ends when something fails: during set-up the ranks agree
// (the first failing rank prints, every rank exits with its code); while
// rendering the failing rank prints and takes the job down at once.
#pragma once

#include <exception>

#include "mpi/mpi_session.h"

namespace farmrt {

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
