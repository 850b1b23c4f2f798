// SIGTERM, SIGINT (Ctrl-C), SIGHUP (a closed terminal) and SIGUSR1 (what
// Slurm sends before a time limit with --signal, and what mpirun forwards)
// ask a render to checkpoint and stop. The handler only sets the stop flag
// (core/stop_flag.h). The farm's loops poll it, and so do the backends between
// small pieces of a band (a CPU tile row, a GPU launch), so that a stop
// abandons the band in progress within a fraction of a second instead of
// waiting for it: abandoned bands are rendered again on resume.
#pragma once

#include "core/stop_flag.h"

namespace farmrt {

// Exit status of a render stopped by a signal (EX_TEMPFAIL: "try again
// later" — rerun with --resume).
constexpr int kExitInterrupted = 75;

void install_interrupt_handlers();
void restore_default_interrupt_handlers();

}  // namespace farmrt
