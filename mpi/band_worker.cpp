#include "band_worker.h"

#include <algorithm>
#include <csignal>

#include "errors.h"

namespace farmrt {

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

BandWorker::BandWorker(BandRenderer& renderer, const FrameSettings& frame, uint32_t spp, FailureInjection failure,
                       std::atomic<uint64_t>* samples_done, WakeSignal& wake)
    : renderer_(renderer),
      frame_(frame),
      spp_(spp),
      failure_(failure),
      progress_(samples_done),
      wake_(wake),
      slots_(std::max(1, renderer.bands_in_flight())) {
    thread_ = std::thread([this] { run(); });
}

BandWorker::~BandWorker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    work_ready_.notify_one();
    thread_.join();
}

void BandWorker::push(RowRange rows, float* target) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        Task task;
        task.rows = rows;
        task.target = target;
        queue_.push_back(std::move(task));
        ++unfinished_;
    }
    work_ready_.notify_one();
}

void BandWorker::push(WorkTask work) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        Task task;
        task.rows = work.rows;
        task.is_work_item = true;
        task.frame = work.frame;
        task.samples = work.samples;
        task.sums = std::move(work.sums);
        task.tag = work.tag;
        queue_.push_back(std::move(task));
        ++unfinished_;
    }
    work_ready_.notify_one();
}

size_t BandWorker::queued() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
}

size_t BandWorker::unfinished() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return unfinished_;
}

std::vector<FinishedBand> BandWorker::take_finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<FinishedBand> done;
    done.swap(finished_);
    return done;
}

void BandWorker::rethrow_failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_thrown_) std::rethrow_exception(failure_thrown_);
}

double BandWorker::busy_seconds() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return busy_;
}

uint64_t BandWorker::bands_done() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bands_;
}

uint64_t BandWorker::samples_done() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return samples_;
}

double BandWorker::samples_per_second() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return busy_ > 0 ? double(samples_) / busy_ : 0.0;
}

std::chrono::steady_clock::time_point BandWorker::first_start() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return first_start_;
}

std::chrono::steady_clock::time_point BandWorker::last_end() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_end_;
}

void BandWorker::submit(Task task, std::deque<InFlight>& in_flight, uint64_t& started) {
    ++started;
    if (failure_.enabled() && started == failure_.band) {
        if (failure_.kind == "kill") std::raise(SIGKILL);
        if (failure_.kind == "segv") std::raise(SIGSEGV);
        throw RenderError("injected failure at this rank's band " + std::to_string(started) +
                          " (--inject-failure)");
    }
    const FrameSettings& frame = task.is_work_item ? task.frame : frame_;
    const SampleRange samples = task.is_work_item ? task.samples : SampleRange{0, spp_};
    InFlight band;
    band.finished = FinishedBand{task.rows, {}, task.tag};
    band.sums = task.target;
    if (task.is_work_item) {
        band.finished.sums = std::move(task.sums);
        if (band.finished.sums.empty()) band.finished.sums.assign(size_t(task.rows.count()) * frame.width * 3, 0.0f);
        band.sums = band.finished.sums.data();
    } else if (!band.sums) {
        band.finished.sums.assign(size_t(task.rows.count()) * frame.width * 3, 0.0f);
        band.sums = band.finished.sums.data();
    }
    band.samples = uint64_t(task.rows.count()) * frame.width * samples.count();
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
    renderer_.submit(frame, task.rows, samples, sums, progress_);
}

void BandWorker::run() {
    uint64_t started = 0;
    std::deque<InFlight> in_flight;  // submitted, oldest first
    try {
        for (;;) {
            // Fill the renderer's slots from the queue.
            for (;;) {
                Task task;
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
            // Wait for the oldest band and hand it back at once.
            float* const done = renderer_.complete_oldest();
            if (done != in_flight.front().sums) {
                throw RenderError("the renderer completed a band out of order");
            }
            InFlight band = std::move(in_flight.front());
            in_flight.pop_front();
            const auto end = std::chrono::steady_clock::now();
            {
                std::lock_guard<std::mutex> lock(mutex_);
                // Busy = the union of the bands' time in flight, counted as it goes.
                busy_ += std::chrono::duration<double>(end - busy_since_).count();
                busy_since_ = end;
                last_end_ = end;
                ++bands_;
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
