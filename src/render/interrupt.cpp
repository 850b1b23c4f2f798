#include "render/interrupt.h"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace farmrt {
namespace {

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};

// 0: a stop only sets the flag; 1: it ends the process at once; 2: the same,
// with one line saying so (read by the handler, so plain words, not objects).
volatile std::sig_atomic_t g_exit_at_once = 0;

void write_text(const char* text) {
    ssize_t ignored = write(2, text, std::strlen(text));
    (void)ignored;
}

extern "C" void on_interrupt_signal(int signal) {
    record_stop_signal(signal);
    const int mode = g_exit_at_once;
    if (mode == 0) return;
    if (mode == 2) {
        write_text("farmrt: stopped by ");
        write_text(signal_name(signal));
        write_text(" while loading the scene: nothing was rendered, no image or checkpoint written\n");
    }
    _exit(kExitInterrupted);
}

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

ExitAtStopWhileLoading::ExitAtStopWhileLoading(bool report) {
    g_exit_at_once = report ? 2 : 1;
    // A signal that came just before is left to the loaders' polls: it
    // already set the flag, and they throw StoppedBeforeRendering.
}

ExitAtStopWhileLoading::~ExitAtStopWhileLoading() { g_exit_at_once = 0; }

}  // namespace farmrt
