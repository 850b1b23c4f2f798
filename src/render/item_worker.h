// A rank's render thread. The main thread (the only one that calls MPI)
// queues work items (ItemToRender: a frame's band of rows for some samples);
// this thread keeps up to the renderer's bands_in_flight() of them submitted
// (BandRenderer::submit: a GPU renders one band while the last one's sums
// come back, on two streams) and hands each back as a RenderedItem as soon as
// it completes, oldest first. Keeping the renderer off the main thread is
// what lets rank 0 answer requests, and every rank move its messages, while
// its cores (or its GPU) trace rays.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/integrator.h"
#include "render/band_renderer.h"
#include "render/command_line.h"

namespace farmrt {

// Wakes the main thread early from its poll sleep when the render thread has news.
class WakeSignal {
public:
    void notify();
    // Returns at the next notify() or after `timeout`, whichever comes first.
    void wait_for(std::chrono::microseconds timeout);

private:
    std::mutex mutex_;
    std::condition_variable condition_;
    bool pending_ = false;
};

// Sleep between polls: short right after activity, doubling up to a cap while idle.
class PollBackoff {
public:
    void reset() { sleep_ = kShortest; }
    std::chrono::microseconds next(std::chrono::microseconds longest = std::chrono::microseconds(2000)) {
        const std::chrono::microseconds current = std::min(sleep_, longest);
        sleep_ = std::min(longest, sleep_ * 2);
        return current;
    }

private:
    static constexpr std::chrono::microseconds kShortest{50};
    std::chrono::microseconds sleep_ = kShortest;
};

// A work item back from the render thread: its rows' sums, or what an abandoned one kept.
struct RenderedItem {
    RowRange rows;
    std::vector<float> sums;  // rows x width x record floats; when abandoned, those of the rows kept
    uint64_t tag = 0;         // the caller's label for the work item
    bool abandoned = false;   // a stop came before it completed: its sums are not whole
    uint32_t rows_kept = 0;   // abandoned: its leading rows whose samples are whole (their sums kept)
    // Abandoned: the leading samples that the other rows have whole (a GPU's
    // sample passes); when nonzero, `sums` holds every row's.
    uint32_t samples_kept = 0;
};

// One work item of a frame sequence (frame_queue.h WorkItem) as a render
// thread takes it: any frame, any samples, starting from `sums` (rows x
// width x record floats; empty = zeros).
struct ItemToRender {
    FrameSettings frame;
    RowRange rows;
    SampleRange samples;
    std::vector<float> sums;
    uint64_t tag = 0;
};

class ItemWorker {
public:
    // `failure`, when enabled, is this rank's injected failure (tests).
    ItemWorker(BandRenderer& renderer, FailureInjection failure, std::atomic<uint64_t>* samples_done, WakeSignal& wake);
    ~ItemWorker();
    ItemWorker(const ItemWorker&) = delete;
    ItemWorker& operator=(const ItemWorker&) = delete;

    // Queues a work item; its finished sums come back through take_finished.
    void push(ItemToRender task);
    size_t queued() const;      // pushed, not started
    size_t unfinished() const;  // pushed, not finished
    // Bands the renderer works on at once: the main thread keeps this many
    // unfinished (plus one queued) before the end of the job.
    int slots() const { return slots_; }
    std::vector<RenderedItem> take_finished();
    // Rethrows what the render thread threw, if it did.
    void rethrow_failure();

    double busy_seconds() const;  // with at least one band submitted and not complete
    uint64_t bands_done() const;
    uint64_t samples_done() const;
    double samples_per_second() const;  // measured so far; 0 before the first band
    // When the first band started and the last one ended (epoch if none).
    std::chrono::steady_clock::time_point first_start() const;
    std::chrono::steady_clock::time_point last_end() const;

private:
    // A submitted band: what to hand back once the renderer completes it.
    struct InFlight {
        FrameSettings frame;
        SampleRange samples_range;
        RenderedItem finished;
        float* sums = nullptr;
        uint64_t samples = 0;
    };
    void run();
    // Takes the next task, prepares its sums and submits it (render thread).
    void submit(ItemToRender task, std::deque<InFlight>& in_flight, uint64_t& started);

    BandRenderer& renderer_;
    FailureInjection failure_;
    std::atomic<uint64_t>* progress_;
    WakeSignal& wake_;
    int slots_ = 1;

    mutable std::mutex mutex_;
    std::condition_variable work_ready_;
    std::deque<ItemToRender> queue_;
    std::vector<RenderedItem> finished_;
    size_t unfinished_ = 0;
    bool stop_ = false;
    std::exception_ptr failure_thrown_;
    double busy_ = 0;
    std::chrono::steady_clock::time_point first_start_{}, last_end_{};
    std::chrono::steady_clock::time_point busy_since_{};  // the first band of the current busy stretch
    uint64_t bands_ = 0, samples_ = 0;
    std::thread thread_;
};

}  // namespace farmrt
