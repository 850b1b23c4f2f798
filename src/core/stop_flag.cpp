#include "core/stop_flag.h"

#include <csignal>

namespace farmrt {
namespace {

// Both are read and written with atomic operations (lock-free on an int, so
// safe in a signal handler): the render, dealer and writer threads poll them
// while a handler or another thread sets them.
volatile std::sig_atomic_t g_signal = 0;
// Signal or request_stop(); what backends poll. Alone on a page, so that the
// GPU backend can map exactly that page into device memory (cudaHostRegister).
alignas(kStopFlagPageBytes) volatile int g_stop_page[kStopFlagPageBytes / sizeof(int)] = {};
volatile int& g_stop = g_stop_page[0];

}  // namespace

void record_stop_signal(int signal) {
    __atomic_store_n(&g_signal, signal, __ATOMIC_RELAXED);
    __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
}

int interrupt_signal() { return __atomic_load_n(&g_signal, __ATOMIC_ACQUIRE); }

void request_stop() { __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE); }

bool stop_requested() { return __atomic_load_n(&g_stop, __ATOMIC_ACQUIRE) != 0; }

void withdraw_stop_request() {
    if (interrupt_signal() == 0) __atomic_store_n(&g_stop, 0, __ATOMIC_RELEASE);
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
