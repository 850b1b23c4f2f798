// SIGTERM and SIGUSR1 (what Slurm sends before a time limit with --signal,
// and what mpirun forwards) ask a render to checkpoint and stop. The handler
// only sets a flag. The farm's loops poll it, and so do the backends between
// small pieces of a band (a CPU tile row, a GPU launch), so that a stop
// abandons the band in progress within a fraction of a second instead of
// waiting for it: abandoned bands are rendered again on resume.
#pragma once

namespace farmrt {

// Exit status of a render stopped by a signal after writing its checkpoint
// (EX_TEMPFAIL: "try again later" — rerun with --resume).
constexpr int kExitInterrupted = 75;

void install_interrupt_handlers();
void restore_default_interrupt_handlers();
// The signal that asked to stop, or 0.
int interrupt_signal();
// A stop asked by rank 0's message (a rank that did not get the signal itself).
void request_stop();
// True once a stop signal arrived or request_stop() was called: backends
// abandon the band they render.
bool stop_requested();
// The flag stop_requested() reads, for a backend that must watch it from
// elsewhere (the GPU reads it through mapped host memory between launches).
const volatile int* stop_flag();
// The page-aligned block of kStopFlagPageBytes that holds it.
constexpr unsigned kStopFlagPageBytes = 4096;
void* stop_flag_page();
const char* signal_name(int signal);

}  // namespace farmrt
