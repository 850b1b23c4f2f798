#include "render/frame_queue.h"

#include <algorithm>
#include <cstring>

#include "core/errors.h"

namespace farmrt {

struct FrameQueue::OpenFrame {
    uint32_t slot = 0;
    PlannedFrame task;
    std::unique_ptr<FrameAccumulator> accumulator;
    std::vector<uint32_t> scheduled;           // per row: samples once its item out (if any) is back
    std::vector<uint8_t> out;                  // per row: an item is out
    uint32_t round_target = 0;                 // samples every row has after this round
    std::unique_ptr<DynamicScheduler> dealer;  // the round's rows, guided
    std::deque<RowRange> pending;              // dealt, not yet handed out (rows still out, or split)
    bool complete_reported = false;
    std::chrono::steady_clock::time_point opened, completed;
};

size_t open_frame_limit(size_t frame_bytes, int workers, uint64_t available_bytes) {
    constexpr uint64_t kBudget = uint64_t(1) << 30, kPerWorker = uint64_t(16) << 20;
    uint64_t budget = std::max(kBudget, std::min(kPerWorker * uint64_t(std::max(workers, 1)), available_bytes / 4));
    return std::clamp<size_t>(size_t(budget / std::max<size_t>(frame_bytes, 1)), 2, size_t(std::max(workers, 2)) + 1);
}

FrameQueue::FrameQueue(const FrameQueueOptions& options, std::vector<PlannedFrame> frames, Opener open)
    : options_(options),
      tasks_(std::move(frames)),
      open_(std::move(open)),
      abilities_(size_t(std::max(options.ranks, 1))),
      speeds_(size_t(std::max(options.ranks, 1)), 0.0) {
    options_.max_open_frames = std::max<size_t>(options_.max_open_frames, 1);
}

FrameQueue::~FrameQueue() = default;

void FrameQueue::report_speed(int rank, int threads, double samples_per_second) {
    if (rank < 0 || size_t(rank) >= abilities_.size()) return;
    abilities_[size_t(rank)].threads = std::max(threads, 1);
    if (samples_per_second > 0) speeds_[size_t(rank)] = samples_per_second;
    for (auto& frame : open_frames_) {
        if (frame->dealer) frame->dealer->report_speed(rank, threads, samples_per_second);
    }
}

void FrameQueue::describe_rank(int rank, const RankAbility& ability) {
    if (rank < 0 || size_t(rank) >= abilities_.size()) return;
    abilities_[size_t(rank)] = ability;
    abilities_[size_t(rank)].threads = std::max(ability.threads, 1);
    abilities_[size_t(rank)].slots = std::max(ability.slots, 1);
    for (auto& frame : open_frames_) {
        if (frame->dealer) frame->dealer->describe_rank(rank, ability);
    }
}

bool FrameQueue::has_free_slot(int rank, int unfinished) const {
    if (rank < 0 || size_t(rank) >= abilities_.size()) return unfinished <= 0;
    return unfinished < abilities_[size_t(rank)].slots;
}

uint32_t FrameQueue::pass_samples() const {
    if (options_.pass_samples > 0) return options_.pass_samples;
    // A time limit needs pass boundaries to end at, whatever the schedule,
    // and a first pass short enough to end within it on any machine.
    const bool limited = options_.time_limit_seconds > 0;
    if (options_.schedule != Schedule::Dynamic && !limited) return options_.spp;
    if (limited && (!clock_started_ || samples_finished_ == 0)) return 1;
    // The first round measures the speed. A sixteenth of the samples, not one:
    // a GPU given one-sample bands spends its time in launch tails (a 1024-spp
    // still ran at 0.95 G samples/s against the kernel's 1.56 on the H200).
    if (!clock_started_ || samples_finished_ == 0) return std::max(1u, options_.spp / 16);
    const double elapsed = std::chrono::duration<double>(now_() - first_item_time_).count();
    if (elapsed <= 0) return 1;
    const double samples_per_second = double(samples_finished_) / elapsed;
    const double pixels = double(options_.width) * options_.height;
    const double samples = samples_per_second * options_.round_seconds / pixels;
    return uint32_t(std::clamp(samples, 1.0, double(options_.spp)));
}

uint32_t FrameQueue::tail_samples() const {
    // Only the job's end needs small items: while frames remain to open,
    // their rows fill the end of a frame.
    if (options_.pass_samples > 0 || options_.ranks <= 1 || next_task_ < tasks_.size() ||
        options_.schedule != Schedule::Dynamic) {
        return 0;
    }
    if (options_.tail_samples >= 0) return uint32_t(options_.tail_samples);
    return std::max(1u, options_.spp / 8);
}

// A frame past its time limit starts no new round: once its rows are all
// scheduled to one count (the round in progress), that count is its end.
// Rows at several counts (a checkpoint of a stopped round) are first brought
// up to the highest.
bool FrameQueue::end_when_out_of_time(OpenFrame& frame, uint32_t lowest, uint32_t highest) {
    if (options_.time_limit_seconds <= 0 || lowest == 0 || lowest != highest) return false;
    const double elapsed = std::chrono::duration<double>(now_() - frame.opened).count();
    if (elapsed < options_.time_limit_seconds) return false;
    frame.accumulator->end_at(lowest);
    if (!frame.complete_reported && frame.accumulator->done()) {
        frame.complete_reported = true;
        frame.completed = now_();
        completed_.push_back(frame.slot);
    }
    return true;
}

bool FrameQueue::start_round(OpenFrame& frame) {
    const auto [low, high] = std::minmax_element(frame.scheduled.begin(), frame.scheduled.end());
    const uint32_t lowest = *low;
    if (lowest >= frame.accumulator->target() || end_when_out_of_time(frame, lowest, *high)) return false;
    const uint32_t remaining = options_.spp - lowest;
    uint32_t pass = pass_samples();
    // Keep the tail for a round of its own.
    const uint32_t tail = tail_samples();
    if (tail > 0 && remaining > tail) pass = std::min(pass, remaining - tail);
    frame.round_target = lowest + std::min(pass, remaining);
    if (options_.time_limit_seconds > 0 && *high > lowest) frame.round_target = *high;
    frame.dealer =
        std::make_unique<DynamicScheduler>(options_.height, options_.width, options_.ranks, options_.band_rows);
    frame.dealer->set_weighting(options_.weighting);
    frame.dealer->set_band_divisor(options_.band_divisor);
    frame.dealer->set_min_band_seconds(options_.min_band_seconds);
    frame.dealer->set_endgame(options_.endgame_every_round || frame.round_target == options_.spp);
    frame.dealer->set_band_samples(frame.round_target - lowest);
    frame.dealer->set_band_seconds(options_.band_seconds);
    if (options_.schedule != Schedule::Dynamic) frame.dealer->deal_predetermined(options_.schedule, options_.band_rows);
    for (size_t rank = 0; rank < abilities_.size(); ++rank) {
        frame.dealer->describe_rank(int(rank), abilities_[rank]);
        frame.dealer->report_speed(int(rank), abilities_[rank].threads, speeds_[rank]);
    }
    ++rounds_;
    return true;
}

// Hands out the first run of rows in `pending` that needs samples for this
// round, shares one starting count, and has no item out, at most the band
// the dealer would give `rank` now (pending rows were dealt for whichever
// rank asked first; a GPU's band must not go whole to a CPU rank, nor a
// start-of-round band to the end of the round). Rows already at the target
// are dropped; rows still out, and the rest of a capped run, stay pending.
bool FrameQueue::hand_out_pending(OpenFrame& frame, int rank, WorkItem& item) {
    const uint32_t target = frame.round_target;
    uint32_t limit = UINT32_MAX;
    if (frame.dealer) {
        uint64_t rows_left = frame.dealer->rows_left();
        for (const RowRange& range : frame.pending) rows_left += range.count();
        limit = std::max(1u, frame.dealer->band_rows(rank, rows_left));
    }
    for (size_t p = 0; p < frame.pending.size(); ++p) {
        const RowRange range = frame.pending[p];
        std::vector<RowRange> keep;
        bool found = false;
        for (uint32_t row = range.begin; row < range.end;) {
            const uint32_t count = frame.scheduled[row];
            const uint8_t out = frame.out[row];
            uint32_t end = row + 1;
            while (end < range.end && frame.scheduled[end] == count && frame.out[end] == out) ++end;
            if (count >= target && !out) {
                // done for this round
            } else if (out || found) {
                keep.push_back(RowRange{row, end});
            } else {
                found = true;
                const uint32_t taken = end - row > limit ? row + limit : end;
                item.slot = frame.slot;
                item.frame = frame.task.frame;
                item.rows = RowRange{row, taken};
                item.samples = SampleRange{count, target};
                if (taken < end) keep.push_back(RowRange{taken, end});
            }
            row = end;
        }
        // Replace pending[p] by what is left of it.
        frame.pending.erase(frame.pending.begin() + ptrdiff_t(p));
        frame.pending.insert(frame.pending.begin() + ptrdiff_t(p), keep.begin(), keep.end());
        if (found) return true;
        p += keep.size();
        --p;
    }
    return false;
}

// The rows that `frame`'s round has still to deal (DynamicScheduler::set_work_beside).
uint64_t FrameQueue::undealt_rows(const OpenFrame& frame) {
    uint64_t rows = frame.dealer ? frame.dealer->rows_left() : 0;
    for (const RowRange& range : frame.pending) rows += range.count();
    return rows;
}

FrameQueue::Try FrameQueue::try_frame(OpenFrame& frame, int rank, int in_flight, WorkItem& item, uint64_t rows_beside) {
    const uint64_t window = uint64_t(options_.max_open_frames) * options_.height;
    if (frame.dealer) frame.dealer->set_work_beside(rows_beside, window);
    for (;;) {
        if (hand_out_pending(frame, rank, item)) return Try::Work;
        if (!frame.dealer) {
            if (!start_round(frame)) return Try::Exhausted;
            frame.dealer->set_work_beside(rows_beside, window);
        }
        RowRange band;
        const DealAnswer answer = frame.dealer->next(rank, in_flight, band);
        if (answer == DealAnswer::Work) {
            frame.pending.push_back(band);
            continue;
        }
        if (answer == DealAnswer::NotNow) return Try::NotNow;
        // The round's rows are all dealt; those still pending wait for their items.
        if (!frame.pending.empty()) return Try::NotNow;
        frame.dealer.reset();
    }
}

DealAnswer FrameQueue::next(int rank, int in_flight, WorkItem& item) {
    if (stopped_) return DealAnswer::Done;
    bool waiting = false;
    // The job's rows still to deal: the open frames' (each one's kept in
    // `undealt`, updated after it is tried) and those of the frames not yet
    // opened. A frame's work beside is this less its own.
    uint64_t job_rows = uint64_t(tasks_.size() - next_task_) * options_.height;
    std::vector<uint64_t> undealt;
    for (const auto& open : open_frames_) {
        undealt.push_back(undealt_rows(*open));
        job_rows += undealt.back();
    }
    for (size_t i = 0;; ++i) {
        if (i == open_frames_.size()) {
            if (open_frames_.size() >= options_.max_open_frames || next_task_ >= tasks_.size()) break;
            job_rows -= options_.height;  // no longer a frame to open; it has no round yet
            undealt.push_back(0);
            auto frame = std::make_unique<OpenFrame>();
            frame->slot = uint32_t(next_task_);
            frame->task = tasks_[next_task_++];
            frame->accumulator = open_(frame->task);
            frame->opened = now_();
            frame->out.assign(options_.height, 0);
            frame->scheduled.resize(options_.height);
            for (uint32_t row = 0; row < options_.height; ++row)
                frame->scheduled[row] = frame->accumulator->row_count(row);
            const bool already_done = frame->accumulator->done();
            open_frames_.push_back(std::move(frame));
            if (already_done) {  // a checkpoint of a finished frame: just write it
                open_frames_.back()->complete_reported = true;
                open_frames_.back()->completed = open_frames_.back()->opened;
                completed_.push_back(open_frames_.back()->slot);
                continue;
            }
        }
        OpenFrame& frame = *open_frames_[i];
        const Try outcome = try_frame(frame, rank, in_flight, item, job_rows - undealt[i]);
        if (outcome == Try::Work) {
            for (uint32_t row = item.rows.begin; row < item.rows.end; ++row) {
                frame.out[row] = 1;
                frame.scheduled[row] = item.samples.end;
            }
            ++items_out_;
            if (!clock_started_) {
                clock_started_ = true;
                first_item_time_ = now_();
            }
            return DealAnswer::Work;
        }
        if (outcome == Try::NotNow) waiting = true;
        const uint64_t rows = undealt_rows(frame);
        job_rows = job_rows - undealt[i] + rows;
        undealt[i] = rows;
    }
    // Nothing to start now: wait while work remains (items out, rounds to come).
    if (waiting || items_out_ > 0 || next_task_ < tasks_.size()) return DealAnswer::NotNow;
    return DealAnswer::Done;
}

FrameQueue::OpenFrame& FrameQueue::open_frame(uint32_t slot) {
    for (auto& frame : open_frames_) {
        if (frame->slot == slot) return *frame;
    }
    throw RenderError("frame queue: no open frame " + std::to_string(slot));
}

const FrameQueue::OpenFrame& FrameQueue::open_frame(uint32_t slot) const {
    return const_cast<FrameQueue*>(this)->open_frame(slot);
}

const float* FrameQueue::starting_sums(const WorkItem& item) const {
    const FrameAccumulator& accumulator = *open_frame(item.slot).accumulator;
    return accumulator.row_sums(item.rows.begin);
}

void FrameQueue::complete(const WorkItem& item, const float* sums) {
    OpenFrame& frame = open_frame(item.slot);
    FrameAccumulator& accumulator = *frame.accumulator;
    std::memcpy(accumulator.row_sums(item.rows.begin), sums,
                size_t(item.rows.count()) * options_.width * accumulator.record_floats() * sizeof(float));
    accumulator.complete(Band{item.rows, item.samples});
    for (uint32_t row = item.rows.begin; row < item.rows.end; ++row) frame.out[row] = 0;
    --items_out_;
    samples_finished_ += uint64_t(item.rows.count()) * options_.width * item.samples.count();
    if (!frame.complete_reported && accumulator.done()) {
        frame.complete_reported = true;
        frame.completed = now_();
        completed_.push_back(frame.slot);
    }
}

void FrameQueue::abandon(const WorkItem& item) {
    OpenFrame& frame = open_frame(item.slot);
    for (uint32_t row = item.rows.begin; row < item.rows.end; ++row) {
        frame.out[row] = 0;
        frame.scheduled[row] = frame.accumulator->row_count(row);
    }
    --items_out_;
}

void FrameQueue::complete_part(const WorkItem& item, uint32_t rows_done, uint32_t samples_done, const float* sums) {
    rows_done = std::min(rows_done, item.rows.count());
    samples_done = std::min(samples_done, item.samples.count());
    WorkItem done = item, rest = item;
    done.rows.end = rest.rows.begin = item.rows.begin + rows_done;
    if (rows_done == item.rows.count() || samples_done == item.samples.count()) return complete(item, sums);
    if (rows_done > 0) {
        complete(done, sums);
        ++items_out_;  // one item came back: abandon() below counts it
    }
    if (samples_done > 0) {
        WorkItem part = rest;
        part.samples.end = part.samples.begin + samples_done;
        complete(part, sums + size_t(rows_done) * options_.width * open_frame(item.slot).accumulator->record_floats());
        ++items_out_;
    }
    abandon(rest);
}

std::vector<uint32_t> FrameQueue::take_completed() {
    std::vector<uint32_t> done;
    done.swap(completed_);
    return done;
}

const PlannedFrame& FrameQueue::task(uint32_t slot) const { return open_frame(slot).task; }

const FrameAccumulator& FrameQueue::accumulator(uint32_t slot) const { return *open_frame(slot).accumulator; }

double FrameQueue::frame_seconds(uint32_t slot) const {
    const OpenFrame& frame = open_frame(slot);
    const auto end = frame.complete_reported ? frame.completed : now_();
    return std::chrono::duration<double>(end - frame.opened).count();
}

void FrameQueue::close(uint32_t slot) {
    for (auto it = open_frames_.begin(); it != open_frames_.end(); ++it) {
        if ((*it)->slot == slot) {
            open_frames_.erase(it);
            return;
        }
    }
}

std::vector<uint32_t> FrameQueue::open_slots() const {
    std::vector<uint32_t> slots;
    for (const auto& frame : open_frames_) slots.push_back(frame->slot);
    return slots;
}

bool FrameQueue::finished() const {
    if (stopped_) return items_out_ == 0;
    return open_frames_.empty() && next_task_ >= tasks_.size();
}

}  // namespace farmrt
