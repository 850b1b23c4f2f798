#include "render/farm_engine.h"

#include <algorithm>
#include <csignal>
#include <memory>
#include <unordered_map>

#include "core/errors.h"
#include "io/scene_identity.h"
#include "render/farm_workers.h"
#include "render/frame_queue.h"
#include "render/interrupt.h"
#include "render/progress.h"
#include "render/render_job.h"
#include "render/run_report.h"

namespace farmrt {
namespace {

// The longest sleep between turns of the engine's loop: requests from other
// processes are answered within this.
constexpr std::chrono::microseconds kPollRoot(500);

// The dealer's measurement switches (render/tuning.h; scripts/bench/mpi_imbalance.sh
// compares them), used on rank 0 only: it alone deals. Bytes never depend on them.
void apply_dealer_tuning(const DealerTuning& tuning, FrameQueueOptions& options) {
    if (tuning.measured_weights) {
        options.weighting = *tuning.measured_weights ? SpeedWeighting::Measured : SpeedWeighting::Pooled;
    }
    if (tuning.tail_samples) options.tail_samples = *tuning.tail_samples;
    if (tuning.band_divisor) options.band_divisor = *tuning.band_divisor;
    if (tuning.min_band_seconds) options.min_band_seconds = *tuning.min_band_seconds;
    if (tuning.endgame_every_round) options.endgame_every_round = *tuning.endgame_every_round;
}

std::string dealer_json(const FrameQueueOptions& options) {
    JsonObject dealer;
    dealer.add("weights", std::string(options.weighting == SpeedWeighting::Pooled ? "pooled" : "measured"))
        .add("tail_samples", options.tail_samples < 0 ? std::string("auto") : std::to_string(options.tail_samples))
        .add("band_divisor", options.band_divisor)
        .add("min_band_seconds", options.min_band_seconds)
        .add("endgame", std::string(options.endgame_every_round ? "every" : "last"));
    return dealer.str();
}

constexpr double kBandSecondsLostToAStop = 2;

FrameQueueOptions queue_options(const RenderContext& context, const RenderSettings& settings,
                                const CommandLine& command_line) {
    FrameQueueOptions options;
    options.width = settings.width;
    options.height = settings.height;
    options.spp = settings.spp;
    // The dealer's workers: this process's devices, then the other processes.
    options.ranks = int(context.renderer.devices().size()) + context.cluster.size() - 1;
    options.schedule = context.schedule;
    options.band_rows = context.band_rows;
    options.pass_samples = command_line.pass_samples;
    apply_dealer_tuning(command_line.tuning.dealer, options);
    options.time_limit_seconds = command_line.time_limit;
    // A frame ends at the first pass boundary after its limit: passes of a
    // quarter of the limit keep the overrun within about that.
    if (command_line.time_limit > 0)
        options.round_seconds = std::min(options.round_seconds, command_line.time_limit / 4);
    // A stop keeps the bands finished (checkpointed) and loses those in
    // flight: bands of at most about 2 s keep a stop's loss to that.
    options.band_seconds = kBandSecondsLostToAStop;
    // An open frame holds its sums and, with AOVs, its first hits (albedo,
    // normal, depth: made when it opens, OutputDriver::frame_opened).
    const size_t first_hit_floats = settings.aovs.empty() ? 0 : 3 + 3 + 1;
    const size_t frame_bytes =
        size_t(settings.width) * settings.height * (pixel_record_floats(settings) + first_hit_floats) * sizeof(float);
    options.max_open_frames = open_frame_limit(frame_bytes, options.ranks, available_memory_bytes());
    return options;
}

class FarmEngine : public Dealer {
public:
    FarmEngine(const RenderContext& context, FramesToRender& job, const CommandLine& command_line, RankReport& report)
        : context_(context),
          job_(job),
          command_line_(command_line),
          report_(report),
          settings_(job.description.settings),
          width_(settings_.width),
          row_floats_(size_t(width_) * pixel_record_floats(settings_)),
          options_(queue_options(context, settings_, command_line)),
          outputs_(job.description, command_line, context.renderer),
          queue_(options_, job.frames, [this](const PlannedFrame& task) { return open_frame(task); }),
          frame_settings_(job.description),
          progress_(job.samples_to_render, command_line.quiet),
          locals_(context.renderer, context.failure, &progress_.counter(), wake_),
          others_(context.cluster.other_processes(report, command_line.rank_timeout, locals_.count())) {
        result_.dealer = dealer_json(options_);
        sets_.push_back(&locals_);
        if (others_) sets_.push_back(others_.get());
    }

    FrameFarmResult run() {
        start_ = Clock::now();
        outputs_.start();
        for (WorkerSet* set : sets_) set->deal(*this, true);
        PollBackoff backoff;
        TimePoint last_watch{};
        for (;;) {
            bool activity = false;
            for (WorkerSet* set : sets_) activity = set->collect(*this) || activity;
            if (outputs_.write_completed(queue_, [this] { return memory(); })) activity = true;
            if ((interrupt_signal() != 0 || stop_requested()) && !queue_.stopped()) {
                begin_stop();
                activity = true;
            }
            outputs_.checkpoint_when_due(queue_);
            outputs_.preview_when_due(queue_);
            for (WorkerSet* set : sets_) set->deal(*this, activity);
            if (seconds_between(last_watch, Clock::now()) >= 0.25) {
                last_watch = Clock::now();
                for (WorkerSet* set : sets_) set->watch(*this);
            }
            if (finished()) break;
            if (activity) backoff.reset();
            wake_.wait_for(backoff.next(kPollRoot));
        }
        for (WorkerSet* set : sets_) set->close();
        const WrittenFrames& written = outputs_.written();
        result_.frames_written = written.frames;
        result_.frames_time_limited = written.time_limited;
        result_.frame_samples_taken = written.samples_taken;
        result_.frame_sample_positions = written.sample_positions;
        result_.write_seconds = written.write_seconds;
        // Stopped before the last frame was written (the items out may have finished it).
        result_.interrupted = queue_.stopped() && result_.frames_written < job_.frames.size();
        if (result_.interrupted) result_.kept = OutputDriver::write_checkpoints(queue_);
        progress_.finish();
        result_.passes = queue_.passes_started();
        result_.devices = locals_.json(start_);
        return result_;
    }

    void record(TimePoint& first_start, TimePoint& last_end) {
        record_rendering(locals_.workers(), report_, first_start, last_end);
    }

    // The dealer, as the worker sets see it.
    void describe(int worker, const RankAbility& ability, double samples_per_second) override {
        queue_.describe_rank(worker, ability);
        queue_.report_speed(worker, ability.threads, samples_per_second);
    }

    DealAnswer next(int worker, int unfinished, WorkItem& item, uint64_t& tag) override {
        const DealAnswer outcome = queue_.next(worker, unfinished, item);
        if (outcome == DealAnswer::Work) {
            tag = next_tag_++;
            items_out_.emplace(tag, item);
        }
        return outcome;
    }

    bool has_free_slot(int worker, int unfinished) const override { return queue_.has_free_slot(worker, unfinished); }

    std::vector<float> starting_sums(const WorkItem& item) const override {
        std::vector<float> sums;
        if (item.samples.begin > 0) {
            const float* from = queue_.starting_sums(item);
            sums.assign(from, from + size_t(item.rows.count()) * row_floats_);
        }
        return sums;
    }

    const FrameSettings& frame_settings(uint32_t frame) override { return frame_settings_.get(frame); }
    const WorkItem& item_out(uint64_t tag) const override { return items_out_.at(tag); }

    void done(uint64_t tag, const float* sums) override {
        const WorkItem item = take_item(tag);
        queue_.complete(item, sums);
        result_.samples += uint64_t(item.rows.count()) * width_ * item.samples.count();
        ++items_completed_;
        if (command_line_.test_signal_after_items > 0 &&
            items_completed_ == uint64_t(command_line_.test_signal_after_items)) {
            std::raise(SIGTERM);  // test hook: a stop signal at a known point
        }
    }

    // A worker was asked to stop (by a signal of its own process, or by the
    // engine). What it kept is kept; the whole job stops.
    void abandoned(uint64_t tag, uint32_t rows_kept, uint32_t samples_kept, const float* sums) override {
        const WorkItem item = take_item(tag);
        queue_.complete_part(item, rows_kept, samples_kept, sums);
        rows_kept = std::min(rows_kept, item.rows.count());
        samples_kept = std::min(samples_kept, item.samples.count());
        result_.samples += uint64_t(width_) * (uint64_t(rows_kept) * item.samples.count() +
                                               uint64_t(item.rows.count() - rows_kept) * samples_kept);
        if (!queue_.stopped()) begin_stop();
    }

    bool stopped() const override { return queue_.stopped(); }
    size_t row_floats() const override { return row_floats_; }
    std::atomic<uint64_t>& progress() override { return progress_.counter(); }

    [[noreturn]] void lost(const std::string& what) override {
        OutputDriver::write_checkpoints(queue_);
        throw RenderError(what + "; the finished work is checkpointed: rerun with --resume");
    }

private:
    std::unique_ptr<FrameAccumulator> open_frame(const PlannedFrame& task) {
        std::unique_ptr<FrameAccumulator> accumulator;
        auto found = job_.resumed.find(task.frame);
        if (found != job_.resumed.end()) {
            accumulator = std::move(found->second);
            job_.resumed.erase(found);
        } else {
            accumulator = std::make_unique<FrameAccumulator>(width_, settings_.height, settings_.spp,
                                                             frame_identity(job_.description, task.frame),
                                                             pixel_record_floats(settings_));
        }
        outputs_.frame_opened(task.frame, accumulator->samples_taken());
        return accumulator;
    }

    WorkItem take_item(uint64_t tag) {
        const WorkItem item = items_out_.at(tag);
        items_out_.erase(tag);
        return item;
    }

    bool finished() const {
        if (!queue_.finished()) return false;
        return std::all_of(sets_.begin(), sets_.end(), [](const WorkerSet* set) { return set->finished(); });
    }

    // Every process's memory, this one first.
    std::vector<RankMemory> memory() const {
        std::vector<RankMemory> processes{memory_of(0, context_.renderer)};
        for (const WorkerSet* set : sets_) set->add_memory(processes);
        return processes;
    }

    // No new items; every worker still working abandons what it holds (a
    // process the signal did not reach learns it from its worker set). What
    // is done is saved now, and again once the items out are back.
    void begin_stop() {
        queue_.stop();
        request_stop();  // this process's render threads abandon their items too
        for (WorkerSet* set : sets_) set->stop();
        OutputDriver::write_checkpoints(queue_);
    }

    const RenderContext& context_;
    FramesToRender& job_;
    const CommandLine& command_line_;
    RankReport& report_;
    const RenderSettings& settings_;
    const uint32_t width_;
    const size_t row_floats_;  // floats of one row's pixel records
    FrameFarmResult result_;
    FrameQueueOptions options_;
    OutputDriver outputs_;
    FrameQueue queue_;
    FrameSettingsCache frame_settings_;
    ProgressReporter progress_;
    WakeSignal wake_;
    LocalWorkers locals_;                // this process's devices: workers 0 to count - 1
    std::unique_ptr<WorkerSet> others_;  // the other processes, after them
    std::vector<WorkerSet*> sets_;
    std::unordered_map<uint64_t, WorkItem> items_out_;  // tag -> item
    uint64_t next_tag_ = 1;
    uint64_t items_completed_ = 0;
    TimePoint start_{};
};

}  // namespace

FrameFarmResult render_frames_as_root(const RenderContext& context, FramesToRender& job,
                                      const CommandLine& command_line, RankReport& report, TimePoint& first_start,
                                      TimePoint& last_end) {
    FarmEngine engine(context, job, command_line, report);
    FrameFarmResult result = engine.run();
    engine.record(first_start, last_end);
    return result;
}

}  // namespace farmrt
