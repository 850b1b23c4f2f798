// The process's one stop flag: set by a stop signal (render/interrupt.h
// installs the handlers) or by rank 0's message, polled by every phase that
// can take long: scene and model loading (io/), the backends between small
// pieces of a band, the farm's loops, and the writers. Kept in core so that
// the loaders, which may not see render/, stop as promptly as the renderers.
#pragma once

#include <stdexcept>
#include <string>

namespace farmrt {

// Set by the signal handler; 0 when no signal arrived.
void record_stop_signal(int signal);
// The signal that asked to stop, or 0.
int interrupt_signal();
// A stop asked by rank 0's message (a rank that did not get the signal itself).
void request_stop();
// True once a stop signal arrived or request_stop() was called.
bool stop_requested();
// Clears a stop that request_stop() asked for, for a process that renders
// again after it (tests); a job never takes a stop back.
void withdraw_stop_request();
// The flag stop_requested() reads, for a backend that must watch it from
// elsewhere (the GPU reads it through mapped host memory between launches).
const volatile int* stop_flag();
// The page-aligned block of kStopFlagPageBytes that holds it.
constexpr unsigned kStopFlagPageBytes = 4096;
void* stop_flag_page();
const char* signal_name(int signal);

// Thrown where a stop arrives before any sample was rendered (while the
// scene or a model loads): nothing to keep, nothing written. `phase` says
// what was interrupted ("loading the scene").
class StoppedBeforeRendering : public std::runtime_error {
public:
    explicit StoppedBeforeRendering(const std::string& phase)
        : std::runtime_error(std::string("stopped by ") + signal_name(interrupt_signal()) + " while " + phase +
                             ": nothing was rendered, no image or checkpoint written") {}
};

// For loaders' loops: throws StoppedBeforeRendering once a stop was asked.
inline void stop_if_requested(const char* phase) {
    if (stop_requested()) throw StoppedBeforeRendering(phase);
}

}  // namespace farmrt
