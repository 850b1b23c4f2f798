#include "render/item_worker.h"

#include <algorithm>
#include <csignal>
#include <exception>

#include "core/errors.h"
#include "render/interrupt.h"

namespace farmrt {
namespace {

// How often a render thread with a free slot looks whether its oldest band is
// done while it waits for a task: a band is tens of milliseconds of GPU work.
constexpr std::chrono::microseconds kReadyPoll{50};

}  // namespace

void WakeSignal::notify() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_ = true;
    }
    condition_.notify_one();
}

void WakeSignal::wait_for(std::chrono::microseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    condition_.wait_for(lock, timeout, [&] { return pending_; });
    pending_ = false;
}

ItemWorker::ItemWorker(BandRenderer& renderer, FailureInjection failure, std::atomic<uint64_t>* samples_done,
                       WakeSignal& wake)
    : renderer_(renderer),
      failure_(failure),
      progress_(samples_done),
      wake_(wake),
      slots_(std::max(1, renderer.bands_in_flight())) {
    thread_ = std::thread([this] { run(); });
}

ItemWorker::~ItemWorker() {
    // Unwinding after a failure: the band in progress is not waited for (the
    // job is ending; a long band could hold the exit for minutes).
    if (std::uncaught_exceptions() > 0) request_stop();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    work_ready_.notify_one();
    thread_.join();
}

void ItemWorker::push(ItemToRender work) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(work));
        ++unfinished_;
    }
    work_ready_.notify_one();
}

size_t ItemWorker::queued() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
}

size_t ItemWorker::unfinished() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return unfinished_;
}

std::vector<RenderedItem> ItemWorker::take_finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<RenderedItem> done;
    done.swap(finished_);
    return done;
}

void ItemWorker::rethrow_failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_thrown_) std::rethrow_exception(failure_thrown_);
}

double ItemWorker::busy_seconds() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return busy_;
}

uint64_t ItemWorker::bands_done() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bands_;
}

uint64_t ItemWorker::samples_done() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return samples_;
}

double ItemWorker::samples_per_second() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return busy_ > 0 ? double(samples_) / busy_ : 0.0;
}

std::chrono::steady_clock::time_point ItemWorker::first_start() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return first_start_;
}

std::chrono::steady_clock::time_point ItemWorker::last_end() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_end_;
}

void ItemWorker::submit(ItemToRender task, std::deque<InFlight>& in_flight, uint64_t& started) {
    ++started;
    if (failure_.enabled() && started == failure_.band) {
        if (failure_.kind == "kill") std::raise(SIGKILL);
        if (failure_.kind == "segv") std::raise(SIGSEGV);
        throw RenderError("injected failure at this rank's band " + std::to_string(started) + " (--inject-failure)");
    }
    InFlight band;
    band.frame = task.frame;
    band.samples_range = task.samples;
    band.finished = RenderedItem{task.rows, std::move(task.sums), task.tag};
    if (band.finished.sums.empty())
        band.finished.sums.assign(size_t(task.rows.count()) * task.frame.width * task.frame.sampling.record_floats,
                                  0.0f);
    band.sums = band.finished.sums.data();
    band.samples = uint64_t(task.rows.count()) * task.frame.width * task.samples.count();
    // The vector's buffer moves with it, so `sums` stays valid in the deque.
    float* sums = band.sums;
    const bool was_idle = in_flight.empty();
    in_flight.push_back(std::move(band));
    if (was_idle) {
        const auto now = std::chrono::steady_clock::now();
        std::lock_guard<std::mutex> lock(mutex_);
        busy_since_ = now;
        if (bands_ == 0 && started == 1) first_start_ = now;
    }
    const InFlight& submitted = in_flight.back();
    renderer_.submit(submitted.frame, submitted.finished.rows, submitted.samples_range, sums, progress_);
}

void ItemWorker::run() {
    uint64_t started = 0;
    std::deque<InFlight> in_flight;  // submitted, oldest first
    try {
        for (;;) {
            // Fill the renderer's slots from the queue.
            for (;;) {
                ItemToRender task;
                {
                    std::unique_lock<std::mutex> lock(mutex_);
                    if (in_flight.empty()) work_ready_.wait(lock, [&] { return stop_ || !queue_.empty(); });
                    if (stop_) return;
                    if (queue_.empty() || in_flight.size() >= size_t(slots_)) break;
                    task = std::move(queue_.front());
                    queue_.pop_front();
                }
                wake_.notify();  // the queue shrank: the main thread may ask for more
                submit(std::move(task), in_flight, started);
            }
            // Wait for the oldest band and hand it back at once; while a slot
            // is free, a task that arrives meanwhile is submitted first, so
            // that the renderer never runs out of queued work while this
            // thread waits (a GPU's next band is then queued behind its last).
            if (in_flight.size() < size_t(slots_) && !renderer_.oldest_ready()) {
                bool task = false;
                {
                    std::unique_lock<std::mutex> lock(mutex_);
                    task = work_ready_.wait_for(lock, kReadyPoll, [&] { return stop_ || !queue_.empty(); });
                }
                if (task || !renderer_.oldest_ready()) continue;
            }
            float* const done = renderer_.complete_oldest();
            if (done != in_flight.front().sums) {
                throw RenderError("the renderer completed a band out of order");
            }
            InFlight band = std::move(in_flight.front());
            in_flight.pop_front();
            // A stop abandons work: renderers skip what is left of a band
            // once asked to stop, so a band that completes after the request
            // may hold only part of its samples. It goes back marked, with
            // the sums of what the renderer finished: its leading rows (the
            // CPU), or its first samples of every row (the GPU's passes).
            // Those are kept and checkpointed; the rest is rendered again on
            // resume.
            if (stop_requested()) {
                const uint32_t rows = band.finished.rows.count();
                const uint32_t samples = band.samples_range.count();
                const uint32_t kept = std::min(renderer_.rows_finished_at_stop(), rows);
                const uint32_t samples_kept = std::min(renderer_.samples_finished_at_stop(), samples);
                if (kept < rows && samples_kept < samples) {
                    band.finished.abandoned = true;
                    band.finished.rows_kept = kept;
                    band.finished.samples_kept = samples_kept;
                    const uint64_t row_pixels = samples > 0 ? band.samples / (uint64_t(rows) * samples) : 0;
                    band.samples = row_pixels * (uint64_t(kept) * samples + uint64_t(rows - kept) * samples_kept);
                    if (samples_kept == 0) {
                        band.finished.sums.resize(band.finished.sums.size() / rows * kept);
                        band.finished.sums.shrink_to_fit();
                    }
                }
            }
            const auto end = std::chrono::steady_clock::now();
            {
                std::lock_guard<std::mutex> lock(mutex_);
                // Busy = the union of the bands' time in flight, counted as it goes.
                busy_ += std::chrono::duration<double>(end - busy_since_).count();
                busy_since_ = end;
                last_end_ = end;
                if (!band.finished.abandoned) ++bands_;
                samples_ += band.samples;
                --unfinished_;
                finished_.push_back(std::move(band.finished));
            }
            wake_.notify();
        }
    } catch (...) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            failure_thrown_ = std::current_exception();
        }
        wake_.notify();
    }
}

}  // namespace farmrt
