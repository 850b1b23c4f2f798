// SIGTERM and SIGUSR1 (what Slurm sends before a time limit with --signal,
// and what mpirun forwards) ask a render to checkpoint and stop. The handler
// only sets a flag; the render loop polls it between passes.
#pragma once

namespace farmrt {

// Exit status of a render stopped by a signal after writing its checkpoint
// (EX_TEMPFAIL: "try again later" — rerun with --resume).
constexpr int kExitInterrupted = 75;

void install_interrupt_handlers();
void restore_default_interrupt_handlers();
// The signal that asked to stop, or 0.
int interrupt_signal();
const char* signal_name(int signal);

}  // namespace farmrt
