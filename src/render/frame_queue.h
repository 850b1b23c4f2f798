// Rank 0's work queue for a job of many frames, each rendered in passes of
// samples: it hands out (frame, rows, samples) items dynamically, so that
// many small frames keep every rank busy and a long frame can checkpoint
// between passes. No MPI in here: tests drive it directly.
//
// Each open frame progresses in rounds: a round brings every row to a target
// sample count (the previous target plus the pass size). Rows of a round are
// dealt by the farm's guided DynamicScheduler (band_schedule.h), so a round
// behaves like a single-frame render of the dynamic schedule: bands follow
// the ranks' speeds and shrink towards the end. A row's next item may start
// only when its previous one has come back (its sums go out with the item,
// and samples are added in order), so a round overlaps the end of the last
// one, and a frame overlaps the next frame: a rank that would wait gets work
// from the next frame instead. At most `max_open_frames` frames are open.
//
// Pass sizes never change the image (accumulate_pixel adds samples in order),
// so they adapt: the first round is a sixteenth of the samples, later ones last
// about `round_seconds` at the measured speed (or --pass-samples, fixed); with
// several ranks the last frame keeps a small last round (tail_samples) so that
// the job ends on small items.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "render/band_schedule.h"
#include "render/frame_job.h"

namespace farmrt {

struct WorkItem {
    uint32_t slot = 0;   // the open frame (an id unique over the job)
    uint32_t frame = 0;  // frame number
    RowRange rows;
    SampleRange samples;
};

struct FrameQueueOptions {
    uint32_t width = 0, height = 0, spp = 0;
    int ranks = 1;
    // Dynamic: rounds dealt by the guided dealer. Static and cyclic: each
    // round deals every rank its predetermined bands (band_rows each), and
    // without --pass-samples a frame is one round of all its samples.
    Schedule schedule = Schedule::Dynamic;
    uint32_t band_rows = 0;     // fixed band size; 0 = guided (dynamic only)
    uint32_t pass_samples = 0;  // fixed pass size; 0 = adaptive
    double round_seconds = 10;  // adaptive: a round's target duration
    double band_seconds = 0;    // the dealers' bound on a guided band's duration (what a stop may lose); 0 = none
    size_t max_open_frames = 4;
    // The last frame's last round, in samples (adaptive passes, several
    // ranks): -1 = automatic (an eighth of the samples), 0 = none. The end of
    // a job is as fine as its last items: a row at 64 spp costs 60-120 ms on
    // one thread, 3-6% of a 2 s job, the imbalance measured at 16 ranks; the
    // same row at 8 samples costs an eighth of that.
    int tail_samples = -1;
    SpeedWeighting weighting = SpeedWeighting::Pooled;  // the dealers' (band_schedule.h)
    double band_divisor = 3;                            // the dealers' guided band: share / divisor
    double min_band_seconds = kMinBandSeconds;          // the dealers' shortest band for a GPU
    // The dealers' end-of-round rule (busy ranks told "not now") in every
    // round, or only in a frame's last round.
    // Only the last: a look-ahead band held at the end of an earlier round
    // delays nothing but that round's rows' next items, which come last anyway
    // (simulated: mean waiting 0.9-1.1% -> 0.4-0.5% of the render, imbalance 1.008 -> 1.003).
    bool endgame_every_round = false;
    // --time-limit: a frame open this long starts no new round; it ends with
    // the samples of the round in progress (its rows all at one count). 0 = none.
    double time_limit_seconds = 0;
};

// How many frames of `frame_bytes` of sums process 0 keeps open for
// `workers` workers: a worker's worth of small frames, within about 1 GiB of
// sums; a job of many workers gets 16 MiB of sums for each (at most a quarter
// of `available_bytes`, the memory free), because the open frames bound how
// large its bands can be (DynamicScheduler::set_work_beside): a thousand nodes
// sharing ten 4K frames get bands of a few rows, and rank 0 three messages
// for each. Never fewer than 2.
size_t open_frame_limit(size_t frame_bytes, int workers, uint64_t available_bytes);

class FrameQueue {
public:
    // Makes a frame's accumulator (fresh, or from its checkpoint) when the frame opens.
    using Opener = std::function<std::unique_ptr<FrameAccumulator>(const PlannedFrame&)>;
    FrameQueue(const FrameQueueOptions& options, std::vector<PlannedFrame> frames, Opener open);
    ~FrameQueue();
    // Where the queue reads the time (pass sizes from the measured speed,
    // --time-limit, frame durations): the steady clock, or a simulation's
    // own (tests/farm/test_farm_balance.cpp), so that a simulated farm deals
    // as a real one of its speeds would, however fast the simulation runs.
    using TimeSource = std::function<std::chrono::steady_clock::time_point()>;
    void set_time_source(TimeSource now) { now_ = std::move(now); }
    FrameQueue(const FrameQueue&) = delete;
    FrameQueue& operator=(const FrameQueue&) = delete;

    void report_speed(int rank, int threads, double samples_per_second);
    // The rest of what a rank tells with its requests (band_schedule.h).
    void describe_rank(int rank, const RankAbility& ability);
    // True when a rank holding `unfinished` items would start a new one at once.
    bool has_free_slot(int rank, int unfinished) const;

    // A request from `rank`, which holds `unfinished` items (rendering or
    // queued). NotNow: nothing to start now (rows still out, the end of a
    // round kept for idle ranks): ask again later. Done: no more work for
    // anyone (or stopped).
    DealAnswer next(int rank, int unfinished, WorkItem& item);
    // The item's starting sums (rows x width x 3 floats); unchanged while it is out.
    const float* starting_sums(const WorkItem& item) const;
    // The item's rows after its samples were added to starting_sums.
    void complete(const WorkItem& item, const float* sums);
    // An item given up after a stop: its rows keep the samples they had
    // (a checkpoint saves those; resume renders the item again).
    void abandon(const WorkItem& item);
    // An item given up after a stop with its first `rows_done` rows whole
    // (their sums at `sums`): those complete. The other rows keep the first
    // `samples_done` of the item's samples (their sums follow, when
    // nonzero: a GPU's sample passes finished before the stop) and are
    // abandoned from there.
    void complete_part(const WorkItem& item, uint32_t rows_done, uint32_t samples_done, const float* sums);

    // Frames now complete (every sample of every row), oldest first; the caller
    // writes each and then closes it.
    std::vector<uint32_t> take_completed();
    const PlannedFrame& task(uint32_t slot) const;
    const FrameAccumulator& accumulator(uint32_t slot) const;
    // Seconds from the frame's opening to its completion (to now while open).
    double frame_seconds(uint32_t slot) const;
    void close(uint32_t slot);
    std::vector<uint32_t> open_slots() const;

    // No more items from now on (a stop signal): items out still come back.
    void stop() { stopped_ = true; }
    bool stopped() const { return stopped_; }
    size_t items_out() const { return items_out_; }
    // Every frame written, or stopped with nothing out.
    bool finished() const;
    size_t frames_opened() const { return next_task_; }
    uint32_t passes_started() const { return rounds_; }

private:
    struct OpenFrame;
    enum class Try { Work, NotNow, Exhausted };
    // `rows_beside`: the job's rows still to deal outside this frame's round.
    Try try_frame(OpenFrame& frame, int rank, int in_flight, WorkItem& item, uint64_t rows_beside);
    static uint64_t undealt_rows(const OpenFrame& frame);
    bool hand_out_pending(OpenFrame& frame, int rank, WorkItem& item);
    bool start_round(OpenFrame& frame);
    uint32_t pass_samples() const;
    uint32_t tail_samples() const;
    bool end_when_out_of_time(OpenFrame& frame, uint32_t lowest, uint32_t highest);
    OpenFrame& open_frame(uint32_t slot);
    const OpenFrame& open_frame(uint32_t slot) const;

    FrameQueueOptions options_;
    std::vector<PlannedFrame> tasks_;
    Opener open_;
    size_t next_task_ = 0;
    std::deque<std::unique_ptr<OpenFrame>> open_frames_;
    std::vector<uint32_t> completed_;
    std::vector<RankAbility> abilities_;
    std::vector<double> speeds_;
    bool stopped_ = false;
    size_t items_out_ = 0;
    uint32_t rounds_ = 0;
    // Job throughput for adaptive passes: samples finished since the first item.
    uint64_t samples_finished_ = 0;
    bool clock_started_ = false;
    std::chrono::steady_clock::time_point first_item_time_;
    TimeSource now_ = [] { return std::chrono::steady_clock::now(); };
};

}  // namespace farmrt
