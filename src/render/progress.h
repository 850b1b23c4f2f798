// Progress on stderr: a bar with ETA on a terminal, a line every few seconds
// otherwise (batch logs), polled from a counter the renderers advance.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace farmrt {

class ProgressReporter {
public:
    // Starts reporting unless `quiet`; `total` is the number of samples to do.
    ProgressReporter(uint64_t total, bool quiet);
    ~ProgressReporter();
    ProgressReporter(const ProgressReporter&) = delete;
    ProgressReporter& operator=(const ProgressReporter&) = delete;

    std::atomic<uint64_t>& counter() { return done_; }
    // Stops the reporter and clears the bar.
    void finish();

private:
    void run();
    void print(double elapsed, bool final_line);

    uint64_t total_;
    bool terminal_;
    std::atomic<uint64_t> done_{0};
    bool stop_ = false;  // guarded by mutex_; finish() wakes the thread at once
    std::mutex mutex_;
    std::condition_variable wake_;
    std::thread thread_;
};

// "1m 23s", "4.2s"
std::string format_duration(double seconds);

}  // namespace farmrt
