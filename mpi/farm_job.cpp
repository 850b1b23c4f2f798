#include "farm_job.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "band_schedule.h"
#include "band_worker.h"
#include "errors.h"
#include "farm_report.h"
#include "frame_job.h"
#include "frame_list.h"
#include "frame_queue.h"
#include "image_output.h"
#include "interrupt.h"
#include "job_message.h"
#include "progress.h"
#include "render_job.h"
#include "scene_identity.h"
#include "temporary_name.h"
#include "version.h"

namespace farmrt {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point start, Clock::time_point end) {
    return std::chrono::duration<double>(end - start).count();
}

// Message tags. Between two ranks MPI keeps messages of one tag in order, so
// a rank's results arrive in the order of its bands and need no header.
constexpr int kTagRequest = 1;  // rank -> 0: give me work (BandRequest); dynamic schedule
constexpr int kTagResult = 3;   // rank -> 0: a band's (a work item's) float RGB sums

// The dynamic schedule (the frame farm, frame_queue.h): a work item is any
// frame's rows for any samples, with the rows' sums so far when it does not
// start at sample 0. Static and cyclic ranks know their bands and only send results.
constexpr int kTagWork = 4;      // 0 -> rank: WorkHeader; rows empty: no more (or kNotNow)
constexpr int kTagWorkSums = 5;  // 0 -> rank: the item's starting sums (when has_sums)

// A WorkHeader whose rows are [kNotNow, kNotNow): "ask again when you have
// nothing to render" (near the end of a round).
constexpr uint32_t kNotNow = 0xFFFFFFFFu;

struct WorkHeader {
    uint32_t frame = 0;
    uint32_t row_begin = 0, row_end = 0;
    uint32_t sample_begin = 0, sample_end = 0;
    uint32_t has_sums = 0;
    uint64_t tag = 0;
};

struct BandRequest {
    int32_t threads = 0;
    int32_t unfinished = 0;         // bands the rank holds (rendering or queued)
    double samples_per_second = 0;  // measured by the rank so far; 0 before its first band
    // What the rank's backend is like (RankAbility): the same in every request.
    double thread_equivalents = 0;
    uint64_t min_band_items = 0;
    int32_t slots = 1;
    int32_t item_is_sample = 0;
};

RankAbility ability_of(const BandRenderer& renderer) {
    RankAbility ability;
    ability.threads = renderer.threads();
    ability.thread_equivalents = renderer.thread_equivalents();
    ability.slots = std::max(1, renderer.bands_in_flight());
    ability.min_band_items = renderer.min_band_items();
    ability.item_is_sample = renderer.item_is_sample();
    return ability;
}

RankAbility ability_of(const BandRequest& request) {
    RankAbility ability;
    ability.threads = request.threads;
    ability.thread_equivalents = request.thread_equivalents;
    ability.slots = request.slots;
    ability.min_band_items = request.min_band_items;
    ability.item_is_sample = request.item_is_sample != 0;
    return ability;
}

void describe_renderer(BandRequest& request, const BandRenderer& renderer) {
    const RankAbility ability = ability_of(renderer);
    request.threads = ability.threads;
    request.thread_equivalents = ability.thread_equivalents;
    request.slots = ability.slots;
    request.min_band_items = ability.min_band_items;
    request.item_is_sample = ability.item_is_sample ? 1 : 0;
}

// Longest sleeps between polls of the main threads. Rank 0 answers requests
// within kPollRoot; a worker whose next band is queued needs MPI only to move
// its results; an idle worker waits for work, its cores free.
constexpr std::chrono::microseconds kPollRoot(500), kPollBusy(2000), kPollIdle(50);

int count_of(RowRange rows, uint32_t width) { return int(size_t(rows.count()) * width * 3); }

// Threads for this rank's renderer when --threads is not given: a rank that
// the launcher bound to some CPUs uses those; unbound ranks share the node's
// CPUs evenly, less one core for each GPU rank of the node (a GPU rank needs
// a core only to feed its GPU). OMP_NUM_THREADS, when set, is the user's
// choice (0 = keep it).
int default_threads(const MpiSession& mpi, const std::string& backend) {
    if (std::getenv("OMP_NUM_THREADS")) return 0;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    CPU_ZERO(&set);
    int allowed = int(online > 0 ? online : 1);
    if (sched_getaffinity(0, sizeof set, &set) == 0) allowed = std::max(1, CPU_COUNT(&set));
    if (online > 0 && allowed < online) return allowed;
    const int ranks = std::max(1, mpi.ranks_on_node());
    const int gpu_ranks = std::min(gpu_ranks_on_node(backend, ranks), ranks);
    if (gpu_ranks > 0 && gpu_ranks < ranks && allowed > gpu_ranks) {
        return std::max(1, (allowed - gpu_ranks) / (ranks - gpu_ranks));
    }
    return std::max(1, allowed / ranks);
}

// Non-blocking operations in flight, tested together with MPI_Testsome.
struct Operation {
    enum class Kind { RequestReceive, ResultReceive, Send, WorkReceive, WorkSumsReceive } kind;
    int rank = 0;
    RowRange rows;
    std::unique_ptr<BandRequest> request;    // RequestReceive buffer
    std::vector<float> sums;                 // result Send buffer
    std::unique_ptr<BandRequest> outgoing;   // request Send buffer
    uint64_t tag = 0;                        // frame farm: the work item
    std::unique_ptr<WorkHeader> header = nullptr;  // frame farm: WorkReceive / header Send buffer
};

class OperationSet {
public:
    void add(MPI_Request request, Operation operation) {
        requests_.push_back(request);
        operations_.push_back(std::move(operation));
    }
    size_t size() const { return requests_.size(); }

    std::vector<Operation> test(MpiClock& clock) {
        std::vector<Operation> completed;
        if (requests_.empty()) return completed;
        int count = 0;
        indices_.resize(requests_.size());
        {
            MpiClock::Scope scope(clock);
            check_mpi(MPI_Testsome(int(requests_.size()), requests_.data(), &count, indices_.data(),
                                   MPI_STATUSES_IGNORE),
                      "MPI_Testsome");
        }
        if (count == MPI_UNDEFINED || count == 0) return completed;
        for (int i = 0; i < count; ++i) completed.push_back(std::move(operations_[size_t(indices_[size_t(i)])]));
        size_t kept = 0;
        for (size_t i = 0; i < requests_.size(); ++i) {
            if (requests_[i] == MPI_REQUEST_NULL) continue;
            requests_[kept] = requests_[i];
            if (kept != i) operations_[kept] = std::move(operations_[i]);
            ++kept;
        }
        requests_.resize(kept);
        operations_.resize(kept);
        return completed;
    }

private:
    std::vector<MPI_Request> requests_;
    std::vector<Operation> operations_;
    std::vector<int> indices_;
};

struct RenderContext {
    const MpiSession& mpi;
    MpiClock& clock;
    Schedule schedule;
    uint32_t band_rows;  // static/cyclic: resolved; dynamic: fixed size or 0 (guided)
    const FrameSettings& frame;
    uint32_t spp;
    BandRenderer& renderer;
    FailureInjection failure;  // this rank's, or disabled
};

// Every loop returns when this rank's first band started and its last ended.
using TimePoint = Clock::time_point;

// What a rank's render thread did, into its report.
void record_rendering(const BandWorker& worker, RankReport& report, TimePoint& first_start, TimePoint& last_end) {
    first_start = worker.first_start();
    last_end = worker.last_end();
    report.busy = worker.busy_seconds();
    report.bands = worker.bands_done();
    report.samples = worker.samples_done();
}

// A worker's finished bands (their sums) to rank 0, sent without waiting; the
// buffers live in `operations` until the sends complete. True if there were any.
bool send_finished_bands(BandWorker& worker, uint32_t width, OperationSet& operations, RankReport& report,
                         MpiClock& clock, const char* what) {
    bool any = false;
    for (FinishedBand& band : worker.take_finished()) {
        any = true;
        Operation send{Operation::Kind::Send, 0, band.rows, {}, std::move(band.sums), {}};
        MPI_Request request;
        {
            MpiClock::Scope scope(clock);
            check_mpi(MPI_Isend(send.sums.data(), count_of(band.rows, width), MPI_FLOAT, 0, kTagResult,
                                MPI_COMM_WORLD, &request),
                      what);
        }
        report.bytes_sent += send.sums.size() * sizeof(float);
        operations.add(request, std::move(send));
    }
    return any;
}

// The main thread of a rank other than 0, for every schedule: each turn it
// rethrows the render thread's failure, sends finished bands to rank 0, hands
// each completed MPI operation to `completed`, lets `ask` post what the rank
// needs next (true if it did), and sleeps until the render thread has news:
// briefly while the rank has nothing to render (its cores are idle anyway),
// lazily while it renders. It returns once the render thread is idle,
// `finished()` and every operation is complete.
template <class Completed, class Ask, class Finished>
void run_worker_loop(const RenderContext& context, BandWorker& worker, WakeSignal& wake, OperationSet& operations,
                     RankReport& report, const char* send_what, Completed completed, Ask ask, Finished finished) {
    PollBackoff backoff;
    for (;;) {
        worker.rethrow_failure();
        const bool worker_idle = worker.unfinished() == 0;
        bool activity = send_finished_bands(worker, context.frame.width, operations, report, context.clock, send_what);
        for (Operation& operation : operations.test(context.clock)) {
            activity = true;
            completed(operation);
        }
        if (ask()) activity = true;
        if (worker_idle && finished() && operations.size() == 0) break;
        if (activity) backoff.reset();
        wake.wait_for(backoff.next(worker.unfinished() == 0 ? kPollIdle : kPollBusy));
    }
}

// ---- static and cyclic: every rank knows its bands ---------------------------

// Rank 0 renders its own bands straight into the image and receives the others' into it.
void render_as_root(const RenderContext& context, std::vector<float>& sums, bool quiet, RankReport& report,
                    TimePoint& first_start, TimePoint& last_end) {
    const uint32_t width = context.frame.width, height = context.frame.height;
    const int ranks = context.mpi.size();
    ProgressReporter progress(uint64_t(width) * height * context.spp, quiet);
    WakeSignal wake;
    BandWorker local(context.renderer, context.frame, context.spp, context.failure, &progress.counter(), wake);
    OperationSet operations;
    uint64_t results_expected = 0;
    const auto rows_of = [&](RowRange rows) { return sums.data() + size_t(rows.begin) * width * 3; };
    for (int rank = 1; rank < ranks; ++rank) {
        for (RowRange rows : predetermined_bands(context.schedule, height, ranks, rank, context.band_rows)) {
            MPI_Request request;
            MpiClock::Scope scope(context.clock);
            check_mpi(MPI_Irecv(rows_of(rows), count_of(rows, width), MPI_FLOAT, rank, kTagResult, MPI_COMM_WORLD,
                                &request),
                      "MPI_Irecv (band)");
            operations.add(request, Operation{Operation::Kind::ResultReceive, rank, rows, {}, {}, {}});
            ++results_expected;
        }
    }
    for (RowRange rows : predetermined_bands(context.schedule, height, ranks, 0, context.band_rows)) {
        local.push(rows, rows_of(rows));
    }

    PollBackoff backoff;
    for (;;) {
        local.rethrow_failure();
        const bool local_idle = local.unfinished() == 0;
        bool activity = !local.take_finished().empty();
        for (Operation& operation : operations.test(context.clock)) {
            activity = true;
            if (operation.kind != Operation::Kind::ResultReceive) continue;
            --results_expected;
            progress.counter().fetch_add(uint64_t(operation.rows.count()) * width * context.spp,
                                         std::memory_order_relaxed);
        }
        if (local_idle && results_expected == 0 && operations.size() == 0) break;
        if (activity) backoff.reset();
        wake.wait_for(backoff.next(kPollRoot));
    }
    progress.finish();
    record_rendering(local, report, first_start, last_end);
}

// Ranks 1..N-1 render their bands and stream them to rank 0.
void render_as_worker(const RenderContext& context, RankReport& report, TimePoint& first_start,
                      TimePoint& last_end) {
    WakeSignal wake;
    BandWorker worker(context.renderer, context.frame, context.spp, context.failure, nullptr, wake);
    OperationSet operations;
    for (RowRange rows : predetermined_bands(context.schedule, context.frame.height, context.mpi.size(),
                                             context.mpi.rank(), context.band_rows)) {
        worker.push(rows, nullptr);
    }
    run_worker_loop(
        context, worker, wake, operations, report, "MPI_Isend (band)", [](Operation&) {}, [] { return false; },
        [] { return true; });
    record_rendering(worker, report, first_start, last_end);
}

// ---- frame farm: sequences of frames in passes, checkpoints (farm operations) --------
//
// Used for the dynamic schedule. Rank 0's FrameQueue hands out (frame, rows,
// samples) items across frames and passes; the rows' sums so far travel with
// an item that does not start at sample 0, and come back with its samples
// added, so every pixel's samples are summed in order whichever ranks render
// them: the bytes equal a one-rank, uninterrupted render. Rank 0 writes each
// frame as it completes, checkpoints open frames every --checkpoint-interval
// seconds, and on SIGTERM/SIGUSR1 stops handing out work, waits for the items
// out, checkpoints and ends the job (exit 75).

struct FrameJob {
    const SceneDescription& description;
    std::vector<FrameTask> frames;  // to render, in order (rank 0)
    std::map<uint32_t, std::unique_ptr<FrameAccumulator>> resumed;  // frame -> from its checkpoint (rank 0)
    uint64_t samples_to_render = 0;  // over `frames`, less what checkpoints hold
};

struct FrameFarmResult {
    size_t frames_written = 0;
    bool interrupted = false;
    uint32_t passes = 0;
    uint64_t samples = 0;  // traced in this job
    std::string dealer;    // the dealer's tuning, as JSON (the run report)
};

// The dealer's tuning, from the environment for experiments on real machines
// (scripts/mpi_imbalance_probe.sh compares them): FARMRT_FARM_WEIGHTS=pooled|measured,
// FARMRT_FARM_TAIL=SAMPLES (0: no tail round), FARMRT_FARM_BAND_DIVISOR=D,
// FARMRT_FARM_ENDGAME=every|last (busy ranks told "not now" at the end of every round, or of the last).
// Read on rank 0 only (it alone deals). Bytes never depend on them.
void apply_dealer_environment(FrameQueueOptions& options) {
    if (const char* weights = std::getenv("FARMRT_FARM_WEIGHTS")) {
        const std::string value = weights;
        if (value == "measured") options.weighting = SpeedWeighting::Measured;
        else if (value == "pooled") options.weighting = SpeedWeighting::Pooled;
        else throw InputError("FARMRT_FARM_WEIGHTS: expected pooled or measured, got '" + value + "'");
    }
    const auto number = [](const char* name, double lowest) {
        const char* text = std::getenv(name);
        char* end = nullptr;
        const double value = std::strtod(text, &end);
        if (end == text || *end != '\0' || !(value >= lowest) || value > 1e6) {
            throw InputError(std::string(name) + ": expected a number of at least " + std::to_string(int(lowest)) +
                             ", got '" + text + "'");
        }
        return value;
    };
    if (const char* endgame = std::getenv("FARMRT_FARM_ENDGAME")) {
        const std::string value = endgame;
        if (value == "every") options.endgame_every_round = true;
        else if (value == "last") options.endgame_every_round = false;
        else throw InputError("FARMRT_FARM_ENDGAME: expected every or last, got '" + value + "'");
    }
    if (std::getenv("FARMRT_FARM_TAIL")) options.tail_samples = int(number("FARMRT_FARM_TAIL", 0));
    if (std::getenv("FARMRT_FARM_BAND_DIVISOR")) options.band_divisor = number("FARMRT_FARM_BAND_DIVISOR", 1);
}

std::string dealer_json(const FrameQueueOptions& options) {
    JsonObject dealer;
    dealer.add("weights", std::string(options.weighting == SpeedWeighting::Pooled ? "pooled" : "measured"))
        .add("tail_samples", options.tail_samples < 0 ? std::string("auto") : std::to_string(options.tail_samples))
        .add("band_divisor", options.band_divisor)
        .add("endgame", std::string(options.endgame_every_round ? "every" : "last"));
    return dealer.str();
}

// Caches one FrameSettings per frame number (camera after animation).
class FrameSettingsCache {
public:
    explicit FrameSettingsCache(const SceneDescription& description) : description_(description) {}
    const FrameSettings& get(uint32_t frame) {
        auto found = cache_.find(frame);
        if (found == cache_.end()) {
            if (cache_.size() > 64) cache_.clear();
            found = cache_.emplace(frame, frame_settings_for(description_, frame)).first;
        }
        return found->second;
    }

private:
    const SceneDescription& description_;
    std::unordered_map<uint32_t, FrameSettings> cache_;
};

void write_frame_checkpoints(const FrameQueue& queue) {
    for (uint32_t slot : queue.open_slots()) {
        const FrameAccumulator& accumulator = queue.accumulator(slot);
        if (accumulator.samples_done() == 0 || accumulator.done()) continue;
        write_checkpoint(queue.task(slot).checkpoint, accumulator.checkpoint());
    }
}

FrameFarmResult render_frames_as_root(const RenderContext& context, FrameJob& job, const CommandLine& command_line,
                                      RankReport& report, TimePoint& first_start, TimePoint& last_end) {
    const RenderSettings& settings = job.description.settings;
    const uint32_t width = settings.width;
    const int ranks = context.mpi.size();
    FrameFarmResult result;
    FrameSettingsCache frame_settings(job.description);
    FrameQueueOptions options;
    options.width = width;
    options.height = settings.height;
    options.spp = settings.spp;
    options.ranks = ranks;
    options.band_rows = context.band_rows;
    options.pass_samples = command_line.pass_samples;
    apply_dealer_environment(options);
    result.dealer = dealer_json(options);
    // Keep a rank's worth of small frames open, within about 1 GiB of sums.
    const size_t frame_bytes = size_t(width) * settings.height * 3 * sizeof(float);
    options.max_open_frames = std::clamp<size_t>((size_t(1) << 30) / std::max<size_t>(frame_bytes, 1), 2,
                                                 size_t(std::max(ranks, 2)) + 1);
    FrameQueue queue(options, job.frames, [&](const FrameTask& task) {
        auto found = job.resumed.find(task.frame);
        if (found != job.resumed.end()) {
            std::unique_ptr<FrameAccumulator> accumulator = std::move(found->second);
            job.resumed.erase(found);
            return accumulator;
        }
        return std::make_unique<FrameAccumulator>(width, settings.height, settings.spp,
                                                  frame_identity(job.description, task.frame));
    });

    ProgressReporter progress(job.samples_to_render, command_line.quiet);
    WakeSignal wake;
    BandWorker local(context.renderer, context.frame, context.spp, context.failure, &progress.counter(), wake);
    OperationSet operations;
    std::unordered_map<uint64_t, WorkItem> items_out;                 // tag -> item
    std::unordered_map<uint64_t, std::vector<float>> result_buffers;  // tag -> receive buffer
    uint64_t next_tag = 1;
    std::vector<bool> deferred(size_t(ranks), false);
    std::vector<int> deferred_unfinished(size_t(ranks), 0);  // what a held request said it holds
    std::vector<bool> told_done(size_t(ranks), false);
    told_done[0] = true;
    bool local_done = false;
    uint64_t items_completed = 0;
    const auto start = Clock::now();
    auto last_checkpoint = start;
    bool checkpoint_due = false;

    const auto send_header = [&](int rank, const WorkHeader& header) {
        Operation send{Operation::Kind::Send, rank, {}, {}, {}, {}, header.tag, std::make_unique<WorkHeader>(header)};
        MPI_Request request;
        {
            MpiClock::Scope scope(context.clock);
            check_mpi(MPI_Isend(send.header.get(), int(sizeof(WorkHeader)), MPI_BYTE, rank, kTagWork, MPI_COMM_WORLD,
                                &request),
                      "MPI_Isend (work)");
        }
        report.bytes_sent += sizeof(WorkHeader);
        operations.add(request, std::move(send));
    };
    const auto post_request_receive = [&](int rank) {
        Operation operation{Operation::Kind::RequestReceive, rank, {}, std::make_unique<BandRequest>(), {}, {}};
        MPI_Request request;
        MpiClock::Scope scope(context.clock);
        check_mpi(MPI_Irecv(operation.request.get(), int(sizeof(BandRequest)), MPI_BYTE, rank, kTagRequest,
                            MPI_COMM_WORLD, &request),
                  "MPI_Irecv (request)");
        operations.add(request, std::move(operation));
    };
    const auto starting_sums = [&](const WorkItem& item) {
        std::vector<float> sums;
        if (item.samples.begin > 0) {
            const float* from = queue.starting_sums(item);
            sums.assign(from, from + size_t(item.rows.count()) * width * 3);
        }
        return sums;
    };
    // Answers a rank's request: an item (expecting its result), "no more", or
    // nothing yet. A rank that still holds work is told "not now" at once and
    // asks again when idle (as in the single-frame farm); an idle rank's
    // request is held and answered when an item comes back.
    const auto answer = [&](int rank, int unfinished) {
        WorkItem item;
        const FrameQueue::Answer outcome = queue.next(rank, unfinished, item);
        // A rank with a free slot (idle, or a GPU with one band left) is held.
        deferred[size_t(rank)] = outcome == FrameQueue::Answer::Defer && queue.has_free_slot(rank, unfinished);
        deferred_unfinished[size_t(rank)] = unfinished;
        if (deferred[size_t(rank)]) return;
        WorkHeader header;
        if (outcome == FrameQueue::Answer::Defer) {
            header.row_begin = header.row_end = kNotNow;
            send_header(rank, header);
            post_request_receive(rank);
            return;
        }
        if (outcome == FrameQueue::Answer::Done) {
            told_done[size_t(rank)] = true;
            send_header(rank, header);
            return;
        }
        header.tag = next_tag++;
        header.frame = item.frame;
        header.row_begin = item.rows.begin;
        header.row_end = item.rows.end;
        header.sample_begin = item.samples.begin;
        header.sample_end = item.samples.end;
        header.has_sums = item.samples.begin > 0;
        items_out.emplace(header.tag, item);
        std::vector<float>& buffer = result_buffers[header.tag];
        buffer.resize(size_t(item.rows.count()) * width * 3);
        {
            MPI_Request request;
            MpiClock::Scope scope(context.clock);
            check_mpi(MPI_Irecv(buffer.data(), count_of(item.rows, width), MPI_FLOAT, rank, kTagResult,
                                MPI_COMM_WORLD, &request),
                      "MPI_Irecv (item)");
            operations.add(request, Operation{Operation::Kind::ResultReceive, rank, item.rows, {}, {}, {}, header.tag, {}});
        }
        send_header(rank, header);
        if (header.has_sums) {
            Operation send{Operation::Kind::Send, rank, item.rows, {}, starting_sums(item), {}, header.tag, {}};
            MPI_Request request;
            {
                MpiClock::Scope scope(context.clock);
                check_mpi(MPI_Isend(send.sums.data(), count_of(item.rows, width), MPI_FLOAT, rank, kTagWorkSums,
                                    MPI_COMM_WORLD, &request),
                          "MPI_Isend (item sums)");
            }
            report.bytes_sent += send.sums.size() * sizeof(float);
            operations.add(request, std::move(send));
        }
        post_request_receive(rank);
    };
    // Keeps one item queued behind the one rank 0 renders.
    const auto feed_local = [&]() {
        if (local_done || local.queued() > 0) return;
        queue.describe_rank(0, ability_of(context.renderer));
        queue.report_speed(0, context.renderer.threads(), local.samples_per_second());
        WorkItem item;
        const FrameQueue::Answer outcome = queue.next(0, int(local.unfinished()), item);
        if (outcome == FrameQueue::Answer::Done) local_done = true;
        if (outcome != FrameQueue::Answer::Item) return;
        const uint64_t tag = next_tag++;
        items_out.emplace(tag, item);
        local.push(WorkTask{frame_settings.get(item.frame), item.rows, item.samples, starting_sums(item), tag});
    };
    const auto item_done = [&](uint64_t tag, const float* sums) {
        const WorkItem item = items_out.at(tag);
        items_out.erase(tag);
        queue.complete(item, sums);
        result.samples += uint64_t(item.rows.count()) * width * item.samples.count();
        ++items_completed;
        if (command_line.test_signal_after_items > 0 && items_completed == uint64_t(command_line.test_signal_after_items)) {
            std::raise(SIGTERM);  // test hook: a stop signal at a known point
        }
    };

    for (int rank = 1; rank < ranks; ++rank) post_request_receive(rank);
    feed_local();
    PollBackoff backoff;
    for (;;) {
        local.rethrow_failure();
        bool activity = false;
        for (FinishedBand& band : local.take_finished()) {
            activity = true;
            item_done(band.tag, band.sums.data());
        }
        for (Operation& operation : operations.test(context.clock)) {
            activity = true;
            const int rank = operation.rank;
            if (operation.kind == Operation::Kind::RequestReceive) {
                queue.describe_rank(rank, ability_of(*operation.request));
                queue.report_speed(rank, operation.request->threads, operation.request->samples_per_second);
                answer(rank, operation.request->unfinished);
            } else if (operation.kind == Operation::Kind::ResultReceive) {
                std::vector<float> buffer = std::move(result_buffers.at(operation.tag));
                result_buffers.erase(operation.tag);
                const WorkItem& item = items_out.at(operation.tag);
                progress.counter().fetch_add(uint64_t(item.rows.count()) * width * item.samples.count(),
                                             std::memory_order_relaxed);
                item_done(operation.tag, buffer.data());
            }
        }
        // Frames that are complete: write them (and drop their checkpoints).
        for (uint32_t slot : queue.take_completed()) {
            activity = true;
            const FrameTask& task = queue.task(slot);
            ImageMetadata metadata;
            metadata.scene_file = settings.scene_file;
            metadata.spp = settings.spp;
            metadata.seed = settings.seed;
            metadata.frame = task.frame;
            metadata.render_seconds = seconds_between(start, Clock::now());
            write_image(task.output, width, settings.height, resolve_pixels(queue.accumulator(slot).sums(), settings.spp),
                        settings.encoding, settings.data_type, metadata);
            std::remove(task.checkpoint.c_str());
            queue.close(slot);
            ++result.frames_written;
        }
        if (interrupt_signal() != 0 && !queue.stopped()) {
            // Stop: no new items; save what is done now, and again once the items out are back.
            queue.stop();
            write_frame_checkpoints(queue);
            activity = true;
        }
        if (command_line.checkpoint_interval > 0 &&
            seconds_between(last_checkpoint, Clock::now()) >= command_line.checkpoint_interval) {
            checkpoint_due = true;
        }
        if (checkpoint_due && !queue.stopped()) {
            write_frame_checkpoints(queue);
            last_checkpoint = Clock::now();
            checkpoint_due = false;
        }
        if (activity) {
            for (int rank = 1; rank < ranks; ++rank) {
                if (deferred[size_t(rank)]) answer(rank, deferred_unfinished[size_t(rank)]);
            }
        }
        feed_local();
        const bool everyone_told = std::all_of(told_done.begin(), told_done.end(), [](bool told) { return told; });
        if (queue.finished() && local_done && local.unfinished() == 0 && everyone_told && operations.size() == 0) break;
        if (activity) backoff.reset();
        wake.wait_for(backoff.next(kPollRoot));
    }
    // Stopped before the last frame was written (the items out may have finished it).
    result.interrupted = queue.stopped() && result.frames_written < job.frames.size();
    if (result.interrupted) write_frame_checkpoints(queue);
    progress.finish();
    result.passes = queue.passes_started();
    record_rendering(local, report, first_start, last_end);
    return result;
}

void render_frames_as_worker(const RenderContext& context, const SceneDescription& description, RankReport& report,
                             TimePoint& first_start, TimePoint& last_end) {
    const uint32_t width = context.frame.width;
    FrameSettingsCache frame_settings(description);
    WakeSignal wake;
    BandWorker worker(context.renderer, context.frame, context.spp, context.failure, nullptr, wake);
    OperationSet operations;
    bool no_more = false, request_out = false, request_while_idle = false, sums_pending = false;
    bool ask_when_idle = false;  // told "not now": ask again with nothing to render
    Clock::time_point request_time;
    double latency_sum = 0;
    uint64_t idle_requests = 0;

    const auto push = [&](const WorkHeader& header, std::vector<float> sums) {
        const RowRange rows{header.row_begin, header.row_end};
        worker.push(WorkTask{frame_settings.get(header.frame), rows, SampleRange{header.sample_begin, header.sample_end},
                             std::move(sums), header.tag});
    };
    const auto send_request = [&]() {
        Operation receive{Operation::Kind::WorkReceive, 0, {}, {}, {}, {}, 0, std::make_unique<WorkHeader>()};
        Operation send{Operation::Kind::Send, 0, {}, {}, {}, std::make_unique<BandRequest>()};
        describe_renderer(*send.outgoing, context.renderer);
        const size_t unfinished = worker.unfinished();
        send.outgoing->unfinished = int32_t(unfinished);
        send.outgoing->samples_per_second = worker.samples_per_second();
        MPI_Request receive_request, send_request;
        {
            MpiClock::Scope scope(context.clock);
            check_mpi(MPI_Irecv(receive.header.get(), int(sizeof(WorkHeader)), MPI_BYTE, 0, kTagWork, MPI_COMM_WORLD,
                                &receive_request),
                      "MPI_Irecv (work)");
            check_mpi(MPI_Isend(send.outgoing.get(), int(sizeof(BandRequest)), MPI_BYTE, 0, kTagRequest,
                                MPI_COMM_WORLD, &send_request),
                      "MPI_Isend (request)");
        }
        operations.add(receive_request, std::move(receive));
        operations.add(send_request, std::move(send));
        report.bytes_sent += sizeof(BandRequest);
        ++report.requests;
        request_out = true;
        request_while_idle = unfinished == 0;
        request_time = Clock::now();
    };

    const auto completed = [&](Operation& operation) {
        if (operation.kind == Operation::Kind::WorkReceive) {
            request_out = false;
            if (request_while_idle) {
                // Only requests made with nothing to render cost time; the
                // look-ahead ones are hidden behind the item being rendered.
                const double latency = seconds_between(request_time, Clock::now());
                latency_sum += latency;
                report.request_latency_max = std::max(report.request_latency_max, latency);
                ++idle_requests;
            }
            const WorkHeader& header = *operation.header;
            ask_when_idle = header.row_begin == kNotNow;
            if (ask_when_idle) return;
            if (header.row_begin == header.row_end) {
                no_more = true;
                return;
            }
            if (header.row_end > context.frame.height || header.row_begin > header.row_end ||
                header.sample_begin >= header.sample_end || header.sample_end > context.spp) {
                throw RenderError("rank 0 sent a work item outside the image or the samples");
            }
            const RowRange rows{header.row_begin, header.row_end};
            if (!header.has_sums) {
                push(header, {});
                return;
            }
            Operation receive{Operation::Kind::WorkSumsReceive, 0, rows, {}, {}, {}, header.tag,
                              std::move(operation.header)};
            receive.sums.resize(size_t(rows.count()) * width * 3);
            MPI_Request request;
            {
                MpiClock::Scope scope(context.clock);
                check_mpi(MPI_Irecv(receive.sums.data(), count_of(rows, width), MPI_FLOAT, 0, kTagWorkSums,
                                    MPI_COMM_WORLD, &request),
                          "MPI_Irecv (item sums)");
            }
            operations.add(request, std::move(receive));
            sums_pending = true;
        } else if (operation.kind == Operation::Kind::WorkSumsReceive) {
            sums_pending = false;
            push(*operation.header, std::move(operation.sums));
        }
    };
    // The next request goes out as soon as nothing is queued (the round trip
    // hides behind the item being rendered); after "not now", once a slot is free.
    const auto ask = [&]() {
        if (no_more || request_out || sums_pending || worker.queued() > 0) return false;
        if (ask_when_idle && worker.unfinished() >= size_t(worker.slots())) return false;
        send_request();
        return true;
    };
    run_worker_loop(context, worker, wake, operations, report, "MPI_Isend (item)", completed, ask,
                    [&] { return no_more && !request_out; });
    record_rendering(worker, report, first_start, last_end);
    report.request_latency_mean = idle_requests ? latency_sum / double(idle_requests) : 0.0;
}

uint64_t bvh_hash(const Scene& scene) {
    const auto& nodes = scene.nodes();
    const auto& refs = scene.primitive_refs();
    return fnv1a(refs.data(), refs.size() * sizeof(PrimitiveRef),
                 fnv1a(nodes.data(), nodes.size() * sizeof(BvhNode)));
}

void broadcast_bytes(std::vector<char>& bytes, MpiClock& clock) {
    uint64_t size = bytes.size();
    MPI_Request request;
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast (job size)");
    }
    wait_sleeping(request, clock, "MPI_Ibcast (job size)");
    bytes.resize(size_t(size));
    // In pieces: MPI counts are int.
    constexpr size_t kPiece = size_t(1) << 30;
    for (size_t offset = 0; offset < bytes.size(); offset += kPiece) {
        const int count = int(std::min(kPiece, bytes.size() - offset));
        {
            MpiClock::Scope scope(clock);
            check_mpi(MPI_Ibcast(bytes.data() + offset, count, MPI_BYTE, 0, MPI_COMM_WORLD, &request),
                      "MPI_Ibcast (job)");
        }
        wait_sleeping(request, clock, "MPI_Ibcast (job)");
    }
}

void barrier_sleeping(const MpiSession& mpi, MpiClock& clock) {
    if (mpi.size() == 1) return;
    MPI_Request request;
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    }
    wait_sleeping(request, clock, "MPI_Ibarrier");
}

}  // namespace

int exit_code_for(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const InputError&) {
        return 2;
    } catch (...) {
        return 1;
    }
}

void print_error(const MpiSession& mpi, std::exception_ptr error) {
    std::string what = "unknown failure";
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    const std::string who = mpi.who();
    std::fprintf(stderr, "farmrt: error: %s%s\n", who.empty() ? "" : (who + ": ").c_str(), one_line(what).c_str());
    std::fflush(stderr);
}

void agree_on_failure(const MpiSession& mpi, MpiClock& clock, std::exception_ptr local_error) {
    if (mpi.size() == 1) {
        if (local_error) std::rethrow_exception(local_error);
        return;
    }
    // MINLOC over (failing rank or size, exit code): the lowest failing rank and its code.
    struct {
        int value, index;
    } mine{local_error ? mpi.rank() : mpi.size(), local_error ? exit_code_for(local_error) : 0}, first{0, 0};
    MPI_Request request;
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Iallreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &request), "MPI_Iallreduce");
    }
    wait_sleeping(request, clock, "MPI_Iallreduce");
    if (first.value == mpi.size()) return;
    if (first.value == mpi.rank()) std::rethrow_exception(local_error);
    throw JobAbandoned{first.index};
}

void end_job_after_failure(const MpiSession& mpi, std::exception_ptr error) {
    print_error(mpi, error);
    const int code = exit_code_for(error);
    if (mpi.size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

namespace {

// Rank 0's plan for the frames: which to render, from which checkpoints.
struct FramePlan {
    std::vector<FrameTask> planned;  // every frame of the job
    std::vector<FrameTask> frames;   // those still to render
    std::map<uint32_t, std::unique_ptr<FrameAccumulator>> resumed;
    uint64_t samples_to_render = 0;
};

FramePlan plan_frame_job(const SceneDescription& description, const CommandLine& command_line) {
    FramePlan plan;
    plan.planned = plan_frames(description, command_line.frames);
    const RenderSettings& settings = description.settings;
    if (command_line.schedule != "dynamic" &&
        (plan.planned.size() > 1 || plan.planned[0].frame != 0 || command_line.resume ||
         command_line.checkpoint_interval > 0 || command_line.pass_samples > 0)) {
        throw InputError("--schedule " + command_line.schedule +
                         ": renders single stills only; frame sequences, animation, --resume and checkpoints use "
                         "the dynamic schedule");
    }
    const uint64_t frame_samples = uint64_t(settings.width) * settings.height * settings.spp;
    for (const FrameTask& task : plan.planned) {
        // --resume: temporaries that a killed run left beside the frame's
        // image and checkpoint go; a frame whose image is complete is done.
        if (command_line.resume) {
            remove_stale_temporaries(task.output, std::filesystem::path(task.output).extension().string());
            remove_stale_temporaries(task.checkpoint, ".tmp");
        }
        if (command_line.resume && is_complete_image(task.output, settings.width, settings.height)) continue;
        plan.frames.push_back(task);
        plan.samples_to_render += frame_samples;
        std::error_code error;
        if (!std::filesystem::exists(task.checkpoint, error)) continue;
        if (!command_line.resume) {
            if (!command_line.quiet) {
                std::fprintf(stderr, "farmrt: note: %s starts afresh; its checkpoint %s will be replaced (--resume continues it)\n",
                             task.output.c_str(), task.checkpoint.c_str());
            }
            continue;
        }
        // Read and checked now, so that a corrupt or mismatched checkpoint stops the job before it starts.
        auto accumulator = std::make_unique<FrameAccumulator>(settings.width, settings.height, settings.spp,
                                                              frame_identity(description, task.frame));
        accumulator->resume_from(task.checkpoint);
        plan.samples_to_render -= accumulator->samples_done();
        plan.resumed.emplace(task.frame, std::move(accumulator));
    }
    return plan;
}

}  // namespace

int run_farm_job(const CommandLine& command_line, const MpiSession& mpi, MpiClock& clock) {
    const auto job_start = Clock::now();
    const bool root = mpi.rank() == 0;
    PhaseTimes phases;

    // 1. Rank 0 reads and validates the scene (and that its outputs can be written),
    //    plans the frames and reads the checkpoints it will continue (--resume).
    JobMessage job;
    FramePlan frame_plan;
    std::vector<char> bytes;
    {
        std::exception_ptr error;
        if (root) {
            try {
                job.description = load_job_scene(command_line, phases);
                frame_plan = plan_frame_job(job.description, command_line);
                job.options.schedule = command_line.schedule;
                job.options.band_rows = uint32_t(command_line.band_rows);
                job.options.linear_list = command_line.linear_list;
                if (mpi.size() > 1) bytes = serialize_job(job);
            } catch (...) {
                error = std::current_exception();
            }
        }
        agree_on_failure(mpi, clock, error);
    }

    // 2. Every other rank receives it; every rank builds the BVH and its renderer.
    RankReport report;
    report.rank = mpi.rank();
    report.set_host(mpi.host());
    std::unique_ptr<PreparedJob> prepared;
    std::unique_ptr<BandRenderer> renderer;
    Schedule schedule = Schedule::Dynamic;
    {
        std::exception_ptr error;
        try {
            if (mpi.size() > 1) {
                broadcast_bytes(bytes, clock);
                if (root) {
                    report.bytes_sent += bytes.size();
                } else {
                    job = deserialize_job(bytes);
                }
                std::vector<char>().swap(bytes);
            }
            schedule = parse_schedule(job.options.schedule);
            CommandLine rank_command_line = command_line;  // this rank's own backend options
            rank_command_line.linear_list = job.options.linear_list;
            prepared = std::make_unique<PreparedJob>(prepare_job(std::move(job.description), rank_command_line, phases));
            phases = prepared->phases;
            RendererOptions options = make_renderer_options(rank_command_line);
            if (options.threads <= 0) options.threads = default_threads(mpi, options.backend);
            renderer = make_band_renderer(prepared->description.scene, options);
        } catch (...) {
            error = std::current_exception();
        }
        agree_on_failure(mpi, clock, error);
    }
    const RenderSettings& settings = prepared->description.settings;
    report.set_backend(renderer->description());
    report.threads = renderer->threads();
    report.bvh_hash = bvh_hash(prepared->description.scene);

    uint32_t band_rows = job.options.band_rows;
    if (schedule != Schedule::Dynamic && band_rows == 0) {
        band_rows = automatic_band_rows(settings.width, settings.height, mpi.size());
    }
    FailureInjection failure = command_line.inject_failure;
    if (failure.rank != mpi.rank()) failure = FailureInjection{};
    const RenderContext context{mpi, clock, schedule, band_rows, prepared->frame, settings.spp, *renderer, failure};

    // 3. Render. From here a failing rank ends the job at once.
    std::vector<float> sums;
    TimePoint first_start{}, last_end{};
    const auto render_start = Clock::now();
    report.setup = seconds_between(job_start, render_start);
    FrameFarmResult frames_result;
    const bool frame_farm = schedule == Schedule::Dynamic;
    const size_t resumed_frames = frame_plan.resumed.size();
    const size_t frames_to_render = frame_plan.frames.size();
    try {
        if (frame_farm && root) {
            FrameJob frame_job{prepared->description, std::move(frame_plan.frames), std::move(frame_plan.resumed),
                               frame_plan.samples_to_render};
            frames_result = render_frames_as_root(context, frame_job, command_line, report, first_start, last_end);
        } else if (frame_farm) {
            render_frames_as_worker(context, prepared->description, report, first_start, last_end);
        } else if (root) {
            sums.assign(size_t(settings.width) * settings.height * 3, 0.0f);
            render_as_root(context, sums, command_line.quiet, report, first_start, last_end);
        } else {
            render_as_worker(context, report, first_start, last_end);
        }
        barrier_sleeping(mpi, clock);
    } catch (...) {
        end_job_after_failure(mpi, std::current_exception());
    }
    const auto render_end = Clock::now();
    phases.render = seconds_between(render_start, render_end);
    report.waiting = std::max(0.0, phases.render - report.busy);
    if (report.bands > 0) {
        report.first_band_wait = seconds_between(render_start, first_start);
        report.tail_wait = seconds_between(last_end, render_end);
    }

    // 4. Rank 0 gathers the reports, writes the image and the run report.
    try {
        report.communicating = clock.seconds;
        std::vector<RankReport> reports(root ? size_t(mpi.size()) : 0);
        if (mpi.size() > 1) {
            MPI_Request request;
            {
                MpiClock::Scope scope(clock);
                check_mpi(MPI_Igather(&report, int(sizeof(RankReport)), MPI_BYTE, reports.data(),
                                      int(sizeof(RankReport)), MPI_BYTE, 0, MPI_COMM_WORLD, &request),
                          "MPI_Igather");
            }
            wait_sleeping(request, clock, "MPI_Igather");
        } else {
            reports[0] = report;
        }
        if (root) {
            for (const RankReport& r : reports) {
                if (r.bvh_hash != report.bvh_hash) {
                    throw RenderError("rank " + std::to_string(r.rank) + " (" + r.host +
                                      ") built a different BVH than rank 0: are all ranks running the same farmrt build?");
                }
            }
            const auto write_start = Clock::now();
            if (!frame_farm) {  // the frame farm writes each frame as it completes
                ImageMetadata metadata;
                metadata.scene_file = settings.scene_file;
                metadata.spp = settings.spp;
                metadata.seed = settings.seed;
                metadata.render_seconds = phases.render;
                write_image(settings.output, settings.width, settings.height, resolve_pixels(sums, settings.spp),
                            settings.encoding, settings.data_type, metadata);
                std::vector<float>().swap(sums);
            }
            phases.write = seconds_between(write_start, Clock::now());
            phases.total = seconds_between(job_start, Clock::now());

            const uint64_t total_samples =
                frame_farm ? frames_result.samples : uint64_t(settings.width) * settings.height * settings.spp;
            const std::string output = frame_plan.planned.size() == 1 ? frame_plan.planned[0].output : settings.output;
            const double samples_per_second = double(total_samples) / phases.render;
            const FarmSummary summary = summarize(reports, phases.render, phases.total);
            uint64_t bands = 0;
            for (const RankReport& r : reports) bands += r.bands;
            const size_t frames_planned = frame_plan.planned.size();
            const size_t frames_skipped = frames_planned - frames_to_render;
            if (!command_line.quiet && frames_result.interrupted) {
                std::fprintf(stderr,
                             "farmrt: stopped by %s after writing %zu of %zu frames; checkpoints saved, rerun with "
                             "--resume to continue\n",
                             signal_name(interrupt_signal()), frames_result.frames_written, frames_to_render);
            } else if (!command_line.quiet && frame_farm && frames_to_render == 0) {
                std::fprintf(stderr, "farmrt: all %zu frames of %s are already complete (--resume)\n", frames_planned,
                             settings.output.c_str());
            } else if (!command_line.quiet && frame_farm && frames_planned > 1) {
                std::fprintf(stderr,
                             "farmrt: wrote %zu frames %s (%ux%u, %u spp; %zu already complete, %zu resumed) in %s, "
                             "%.3g samples/s on %d ranks (%d threads), %llu items, load imbalance %.3f\n",
                             frames_result.frames_written, settings.output.c_str(), settings.width, settings.height,
                             settings.spp, frames_skipped, resumed_frames, format_duration(phases.total).c_str(),
                             samples_per_second, mpi.size(), summary.total_threads, (unsigned long long)bands,
                             summary.load_imbalance);
            } else if (!command_line.quiet) {
                if (mpi.size() == 1) {
                    std::fprintf(stderr, "farmrt: wrote %s (%ux%u, %u spp) in %s, %.3g samples/s on %d threads\n",
                                 output.c_str(), settings.width, settings.height, settings.spp,
                                 format_duration(phases.total).c_str(), samples_per_second, renderer->threads());
                } else {
                    std::fprintf(stderr,
                                 "farmrt: wrote %s (%ux%u, %u spp) in %s, %.3g samples/s on %d ranks (%d threads), "
                                 "%s schedule, %llu bands, load imbalance %.3f\n",
                                 output.c_str(), settings.width, settings.height, settings.spp,
                                 format_duration(phases.total).c_str(), samples_per_second, mpi.size(),
                                 summary.total_threads, schedule_name(schedule), (unsigned long long)bands,
                                 summary.load_imbalance);
                }
            }
            if (!command_line.stats_file.empty()) {
                JsonObject stats;
                stats.add("software", std::string(kSoftwareName) + " " + kVersion)
                    .add("scene", settings.scene_file)
                    .add_raw("settings", settings_json(settings))
                    .add("backend", renderer->description())
                    .add("threads", renderer->threads())
                    .add("tile", command_line.tile_size)
                    .add("primitives", uint64_t(prepared->description.scene.primitive_count()))
                    .add("instances", uint64_t(prepared->description.scene.instance_count()))
                    .add("rendered_primitives", prepared->description.scene.rendered_primitive_count())
                    .add("bvh_nodes", uint64_t(prepared->description.scene.nodes().size()))
                    .add_raw("seconds", phases_json(phases))
                    .add("samples", total_samples)
                    .add("samples_per_second", samples_per_second)
                    .add("ranks", mpi.size())
                    .add("schedule", schedule_name(schedule))
                    .add("band_rows", band_rows)
                    .add("bands", bands)
                    .add("wall_seconds", phases.total)
                    .add("render_seconds", phases.render)
                    .add("total_threads", summary.total_threads)
                    .add("load_imbalance", summary.load_imbalance)
                    .add("parallel_efficiency", summary.parallel_efficiency)
                    .add("communication_fraction", summary.communication_fraction_max)
                    .add("communication_fraction_mean", summary.communication_fraction_mean)
                    .add("waiting_fraction_mean", summary.waiting_fraction_mean)
                    .add_raw("per_rank", ranks_json(reports));
                if (frame_farm) {
                    std::vector<uint32_t> numbers;
                    for (const FrameTask& task : frame_plan.planned) numbers.push_back(task.frame);
                    JsonObject frames;
                    frames.add("list", format_frame_list(numbers))
                        .add("planned", uint64_t(frames_planned))
                        .add("skipped_complete", uint64_t(frames_skipped))
                        .add("resumed", uint64_t(resumed_frames))
                        .add("rendered", uint64_t(frames_result.frames_written))
                        .add("interrupted", frames_result.interrupted)
                        .add("passes", uint64_t(frames_result.passes));
                    stats.add_raw("frames", frames.str());
                    stats.add_raw("dealer", frames_result.dealer);
                }
                write_text_file_atomically(command_line.stats_file, stats.str() + "\n");
            }
        }
        // Ranks stay until the image is written, waiting without spinning.
        barrier_sleeping(mpi, clock);
    } catch (...) {
        end_job_after_failure(mpi, std::current_exception());
    }
    return root && frames_result.interrupted ? kExitInterrupted : 0;
}

}  // namespace farmrt
