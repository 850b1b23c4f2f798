#include "render/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace farmrt {

std::string format_duration(double seconds) {
    char text[64];
    if (seconds < 60) {
        std::snprintf(text, sizeof text, "%.1fs", seconds);
    } else if (seconds < 3600) {
        std::snprintf(text, sizeof text, "%dm %02ds", int(seconds) / 60, int(seconds) % 60);
    } else {
        std::snprintf(text, sizeof text, "%dh %02dm", int(seconds) / 3600, (int(seconds) / 60) % 60);
    }
    return text;
}

ProgressReporter::ProgressReporter(uint64_t total, bool quiet) : total_(total), terminal_(isatty(2) != 0) {
    if (!quiet && total_ > 0) thread_ = std::thread([this] { run(); });
}

ProgressReporter::~ProgressReporter() { finish(); }

void ProgressReporter::finish() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
        if (terminal_) std::fprintf(stderr, "\r\033[K");
    }
}

void ProgressReporter::print(double elapsed, bool final_line) {
    const uint64_t done = done_.load(std::memory_order_relaxed);
    const double fraction = total_ ? double(done) / double(total_) : 1.0;
    const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    if (terminal_) {
        const int width = 30;
        const int filled = int(fraction * width);
        std::string bar(size_t(filled), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r[%s] %5.1f%%  elapsed %s  eta %s\033[K", bar.c_str(), 100 * fraction,
                     format_duration(elapsed).c_str(), format_duration(eta).c_str());
    } else if (!final_line) {
        std::fprintf(stderr, "farmrt: %5.1f%% done, elapsed %s, eta %s\n", 100 * fraction,
                     format_duration(elapsed).c_str(), format_duration(eta).c_str());
    }
    std::fflush(stderr);
}

void ProgressReporter::run() {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    auto last_line = start;
    const auto interval = terminal_ ? std::chrono::milliseconds(250) : std::chrono::seconds(5);
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            if (wake_.wait_for(lock, std::chrono::milliseconds(50), [&] { return stop_; })) break;
        }
        const auto now = clock::now();
        if (now - last_line >= interval) {
            print(std::chrono::duration<double>(now - start).count(), false);
            last_line = now;
        }
    }
}

}  // namespace farmrt
