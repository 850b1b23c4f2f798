// SIGTERM, SIGINT (Ctrl-C), SIGHUP (a closed terminal) and SIGUSR1 (what
// Slurm sends before a time limit with --signal, and what mpirun forwards)
// ask a render to checkpoint and stop. While rendering, the handler only
// sets the stop flag (core/stop_flag.h); before it, see
// ExitAtStopWhileLoading. The farm's loops poll it, and so do the backends between
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

// While a job reads its scene, builds the BVH and sets up its backend it has
// nothing to keep, and it may sit for seconds inside one library call that
// never polls the flag (yaml-cpp's or tinygltf's parse of one large file). In
// that phase a stop signal ends the process from the handler itself: exit
// 75 within milliseconds, with one line when `report` (the rank that speaks
// for the job), and nothing written, since nothing is written before
// rendering starts. Outside it a stop only sets the flag.
class ExitAtStopWhileLoading {
public:
    explicit ExitAtStopWhileLoading(bool report);
    ~ExitAtStopWhileLoading();
    ExitAtStopWhileLoading(const ExitAtStopWhileLoading&) = delete;
    ExitAtStopWhileLoading& operator=(const ExitAtStopWhileLoading&) = delete;
};

}  // namespace farmrt
