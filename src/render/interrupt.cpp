#include "render/interrupt.h"

#include <csignal>

namespace farmrt {
namespace {

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};

extern "C" void on_interrupt_signal(int signal) { record_stop_signal(signal); }

}  // namespace

void install_interrupt_handlers() {
    struct sigaction action {};
    action.sa_handler = on_interrupt_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // I/O in flight is not cut short: the loop checks the flag
    for (int number : kStopSignals) sigaction(number, &action, nullptr);
}

void restore_default_interrupt_handlers() {
    for (int number : kStopSignals) std::signal(number, SIG_DFL);
}

}  // namespace farmrt
