#include "core/stop_flag.h"

#include <csignal>

namespace farmrt {
namespace {

volatile std::sig_atomic_t g_signal = 0;
// Signal or request_stop(); what backends poll. Alone on a page, so that the
// GPU backend can map exactly that page into device memory (cudaHostRegister).
alignas(kStopFlagPageBytes) volatile int g_stop_page[kStopFlagPageBytes / sizeof(int)] = {};
volatile int& g_stop = g_stop_page[0];

}  // namespace

void record_stop_signal(int signal) {
    g_signal = signal;
    g_stop = 1;
}

int interrupt_signal() { return g_signal; }

void request_stop() { g_stop = 1; }

bool stop_requested() { return g_stop != 0; }

void withdraw_stop_request() {
    if (g_signal == 0) g_stop = 0;
}

const volatile int* stop_flag() { return &g_stop; }

void* stop_flag_page() { return const_cast<int*>(g_stop_page); }

const char* signal_name(int signal) {
    switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

}  // namespace farmrt
