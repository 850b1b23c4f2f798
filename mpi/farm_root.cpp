#include "mpi/farm_root.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <unordered_map>

#include "core/errors.h"
#include "io/image_output.h"
#include "io/scene_identity.h"
#include "mpi/farm_messages.h"
#include "render/frame_queue.h"
#include "render/aov_pass.h"
#include "render/frame_log.h"
#include "render/interrupt.h"
#include "render/preview.h"
#include "render/progress.h"
#include "render/render_job.h"
#include "render/run_report.h"

namespace farmrt {
namespace {

// A rank holding work and silent this long is asked whether it is alive.

// The dealer's measurement switches (render/tuning.h; scripts/bench/mpi_imbalance.sh
// compares them), used on rank 0 only: it alone deals. Bytes never depend on them.
void apply_dealer_tuning(const DealerTuning& tuning, FrameQueueOptions& options) {
    if (tuning.measured_weights) {
        options.weighting = *tuning.measured_weights ? SpeedWeighting::Measured : SpeedWeighting::Pooled;
    }
    if (tuning.tail_samples) options.tail_samples = *tuning.tail_samples;
    if (tuning.band_divisor) options.band_divisor = *tuning.band_divisor;
    if (tuning.endgame_every_round) options.endgame_every_round = *tuning.endgame_every_round;
}

std::string dealer_json(const FrameQueueOptions& options) {
    JsonObject dealer;
    dealer.add("weights", std::string(options.weighting == SpeedWeighting::Pooled ? "pooled" : "measured"))
        .add("tail_samples", options.tail_samples < 0 ? std::string("auto") : std::to_string(options.tail_samples))
        .add("band_divisor", options.band_divisor)
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
    // The dealer's workers: rank 0's devices, then the other ranks.
    options.ranks = int(context.renderer.devices().size()) + context.mpi.size() - 1;
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
    // Keep a rank's worth of small frames open, within about 1 GiB of sums.
    const size_t frame_bytes = size_t(settings.width) * settings.height * pixel_record_floats(settings) * sizeof(float);
    options.max_open_frames = std::clamp<size_t>((size_t(1) << 30) / std::max<size_t>(frame_bytes, 1), 2,
                                                 size_t(std::max(options.ranks, 2)) + 1);
    return options;
}

// Returns what the checkpoints hold: frames and the samples of their pixels.
KeptWork write_frame_checkpoints(const FrameQueue& queue) {
    KeptWork kept;
    for (uint32_t slot : queue.open_slots()) {
        const FrameAccumulator& accumulator = queue.accumulator(slot);
        if (accumulator.samples_done() == 0 || accumulator.done()) continue;
        write_checkpoint(queue.task(slot).checkpoint, accumulator.checkpoint());
        ++kept.checkpoints;
        kept.samples += accumulator.samples_done();
    }
    return kept;
}

// What rank 0 knows of another rank while the job runs.
struct RankState {
    bool deferred = false;        // its request is held until work comes back
    int deferred_unfinished = 0;  // what the held request said it holds
    bool told_done = false;
    size_t items_held = 0;   // items sent to it and not yet back
    TimePoint last_heard{};  // its last message
    bool ping_out = false;
    TimePoint ping_sent{};
    RankMemory memory;  // as its last request told
};

class RootLoop {
public:
    RootLoop(const RenderContext& context, FrameJob& job, const CommandLine& command_line, RankReport& report)
        : context_(context),
          job_(job),
          command_line_(command_line),
          report_(report),
          settings_(job.description.settings),
          width_(settings_.width),
          row_floats_(size_t(width_) * pixel_record_floats(settings_)),
          options_(queue_options(context, settings_, command_line)),
          queue_(options_, job.frames, [this](const FrameTask& task) { return open_frame(task); }),
          frame_settings_(job.description),
          progress_(job.samples_to_render, command_line.quiet),
          devices_(context.renderer.devices()),
          ranks_(size_t(context.mpi.size())),
          preview_(PreviewOptions{command_line.preview_file, command_line.preview_interval}, settings_.encoding,
                   settings_.data_type) {
        for (int rank = 0; rank < context.mpi.size(); ++rank) ranks_[size_t(rank)].memory.rank = rank;
        // Each device of rank 0 is a worker of its own, on a thread of its
        // own (an injected failure goes to the first).
        for (size_t d = 0; d < devices_.size(); ++d) {
            locals_.push_back(std::make_unique<BandWorker>(*devices_[d], d == 0 ? context.failure : FailureInjection{},
                                                           &progress_.counter(), wake_));
        }
        local_done_.assign(devices_.size(), false);
        ping_bytes_.resize(size_t(context.mpi.size()));
        result_.dealer = dealer_json(options_);
        ranks_[0].told_done = true;
    }

    FrameFarmResult run() {
        start_ = last_checkpoint_ = Clock::now();
        for (int rank = 1; rank < context_.mpi.size(); ++rank) {
            ranks_[size_t(rank)].last_heard = start_;
            post_request_receive(rank);
            post_ping_receive(rank);
        }
        feed_local();
        PollBackoff backoff;
        for (;;) {
            bool activity = false;
            for (auto& local : locals_) {
                local->rethrow_failure();
                for (FinishedBand& band : local->take_finished()) {
                    activity = true;
                    if (band.abandoned)
                        item_abandoned(band.tag, band.rows_kept, band.samples_kept, band.sums.data());
                    else
                        item_done(band.tag, band.sums.data());
                }
            }
            for (Operation& operation : operations_.test(context_.clock)) {
                activity = true;
                completed(operation);
            }
            if (write_completed_frames()) activity = true;
            if ((interrupt_signal() != 0 || stop_requested()) && !queue_.stopped()) {
                begin_stop();
                activity = true;
            }
            checkpoint_when_due();
            preview_when_due();
            if (activity) answer_deferred();
            feed_local();
            watch_ranks();
            if (finished()) break;
            if (activity) backoff.reset();
            wake_.wait_for(backoff.next(kPollRoot));
        }
        operations_.cancel(Operation::Kind::PingReceive, context_.clock);
        // Stopped before the last frame was written (the items out may have finished it).
        result_.interrupted = queue_.stopped() && result_.frames_written < job_.frames.size();
        if (result_.interrupted) result_.kept = write_frame_checkpoints(queue_);
        progress_.finish();
        result_.passes = queue_.passes_started();
        return result_;
    }

    void record(TimePoint& first_start, TimePoint& last_end) {
        std::vector<const BandWorker*> workers;
        for (const auto& local : locals_) workers.push_back(local.get());
        record_rendering(workers, report_, first_start, last_end);
    }

private:
    std::unique_ptr<FrameAccumulator> open_frame(const FrameTask& task) {
        start_first_hits(task.frame);
        auto found = job_.resumed.find(task.frame);
        if (found != job_.resumed.end()) {
            std::unique_ptr<FrameAccumulator> accumulator = std::move(found->second);
            job_.resumed.erase(found);
            resumed_samples_[task.frame] = accumulator->samples_taken();
            return accumulator;
        }
        return std::make_unique<FrameAccumulator>(width_, settings_.height, settings_.spp,
                                                  frame_identity(job_.description, task.frame),
                                                  pixel_record_floats(settings_));
    }

    bool finished() const {
        const bool everyone_told =
            std::all_of(ranks_.begin(), ranks_.end(), [](const RankState& rank) { return rank.told_done; });
        const bool locals_done =
            std::all_of(locals_.begin(), locals_.end(), [](const auto& local) { return local->unfinished() == 0; }) &&
            std::all_of(local_done_.begin(), local_done_.end(), [](bool done) { return done; });
        return queue_.finished() && locals_done && everyone_told && operations_.size() == ping_receives_;
    }

    void send_header(int rank, const WorkHeader& header) {
        auto buffer = std::make_unique<WorkHeader>(header);
        WorkHeader* data = buffer.get();
        post_send(operations_, Operation{Operation::Kind::Send, rank, {}, {}, {}, {}, header.tag, std::move(buffer)},
                  data, int(sizeof(WorkHeader)), MPI_BYTE, kTagWork, context_.clock, "MPI_Isend (work)");
        report_.bytes_sent += sizeof(WorkHeader);
    }

    // A worker waiting for rank 0 pings it now and then (farm_worker.cpp):
    // answered at once, from the loop, by a standing receive per rank.
    void post_ping_receive(int rank) {
        post_receive(operations_, Operation{Operation::Kind::PingReceive, rank, {}, {}, {}, {}, 0, {}},
                     &ping_bytes_[size_t(rank)], 1, MPI_BYTE, kTagPing, context_.clock, "MPI_Irecv (ping from a rank)");
        ++ping_receives_;
    }

    void post_request_receive(int rank) {
        auto buffer = std::make_unique<BandRequest>();
        BandRequest* data = buffer.get();
        post_receive(operations_, Operation{Operation::Kind::RequestReceive, rank, {}, std::move(buffer), {}, {}}, data,
                     int(sizeof(BandRequest)), MPI_BYTE, kTagRequest, context_.clock, "MPI_Irecv (request)");
    }

    std::vector<float> starting_sums(const WorkItem& item) const {
        std::vector<float> sums;
        if (item.samples.begin > 0) {
            const float* from = queue_.starting_sums(item);
            sums.assign(from, from + size_t(item.rows.count()) * row_floats_);
        }
        return sums;
    }

    // Answers a rank's request: an item (expecting its result), "no more", or
    // nothing yet. A rank that still holds work is told "not now" at once and
    // asks again when idle; an idle rank's request is held and answered when
    // an item comes back.
    void answer(int rank, int unfinished) {
        RankState& state = ranks_[size_t(rank)];
        WorkItem item;
        const DealAnswer outcome = queue_.next(worker_of(rank), unfinished, item);
        // A rank with a free slot (idle, or a GPU with one band left) is held.
        state.deferred = outcome == DealAnswer::NotNow && queue_.has_free_slot(worker_of(rank), unfinished);
        state.deferred_unfinished = unfinished;
        if (state.deferred) return;
        WorkHeader header;
        if (outcome == DealAnswer::NotNow) {
            header.row_begin = header.row_end = kNotNow;
            send_header(rank, header);
            post_request_receive(rank);
            return;
        }
        if (outcome == DealAnswer::Done) {
            state.told_done = true;
            send_header(rank, header);
            return;
        }
        header.tag = next_tag_++;
        header.frame = item.frame;
        header.row_begin = item.rows.begin;
        header.row_end = item.rows.end;
        header.sample_begin = item.samples.begin;
        header.sample_end = item.samples.end;
        header.has_sums = item.samples.begin > 0;
        items_out_.emplace(header.tag, Outstanding{item, rank});
        ++state.items_held;
        std::vector<float>& buffer = result_buffers_[header.tag];
        buffer.resize(size_t(item.rows.count()) * row_floats_ + kPartTrailerFloats);
        post_receive(operations_,
                     Operation{Operation::Kind::ResultReceive, rank, item.rows, {}, {}, {}, header.tag, {}},
                     buffer.data(), count_of(item.rows, row_floats_) + kPartTrailerFloats, MPI_FLOAT, kTagResult,
                     context_.clock, "MPI_Irecv (item)");
        send_header(rank, header);
        if (header.has_sums) {
            Operation send{Operation::Kind::Send, rank, item.rows, {}, starting_sums(item), {}, header.tag, {}};
            const float* data = send.sums.data();
            report_.bytes_sent += send.sums.size() * sizeof(float);
            post_send(operations_, std::move(send), data, count_of(item.rows, row_floats_), MPI_FLOAT, kTagWorkSums,
                      context_.clock, "MPI_Isend (item sums)");
        }
        post_request_receive(rank);
    }

    void answer_deferred() {
        for (int rank = 1; rank < context_.mpi.size(); ++rank) {
            if (ranks_[size_t(rank)].deferred) answer(rank, ranks_[size_t(rank)].deferred_unfinished);
        }
    }

    // The dealer's worker of another rank: after rank 0's devices.
    int worker_of(int rank) const { return int(devices_.size()) + rank - 1; }

    // Keeps one item queued behind the one each of rank 0's devices renders.
    void feed_local() {
        for (size_t d = 0; d < locals_.size(); ++d) {
            BandWorker& local = *locals_[d];
            if (local_done_[d] || local.queued() > 0) continue;
            queue_.describe_rank(int(d), ability_of(*devices_[d]));
            queue_.report_speed(int(d), devices_[d]->threads(), local.samples_per_second());
            WorkItem item;
            const DealAnswer outcome = queue_.next(int(d), int(local.unfinished()), item);
            if (outcome == DealAnswer::Done) local_done_[d] = true;
            if (outcome != DealAnswer::Work) continue;
            const uint64_t tag = next_tag_++;
            items_out_.emplace(tag, Outstanding{item, 0});
            local.push(WorkTask{frame_settings_.get(item.frame), item.rows, item.samples, starting_sums(item), tag});
        }
    }

    void item_done(uint64_t tag, const float* sums) {
        const WorkItem item = take_item(tag);
        queue_.complete(item, sums);
        result_.samples += uint64_t(item.rows.count()) * width_ * item.samples.count();
        ++items_completed_;
        if (command_line_.test_signal_after_items > 0 &&
            items_completed_ == uint64_t(command_line_.test_signal_after_items)) {
            std::raise(SIGTERM);  // test hook: a stop signal at a known point
        }
    }

    // A rank gave an item back unfinished: it was asked to stop (by a signal
    // of its own, or by rank 0). Its first `rows_kept` rows are whole, and
    // its other rows the first `samples_kept` samples (their sums at `sums`),
    // and are kept; the whole job stops.
    void item_abandoned(uint64_t tag, uint32_t rows_kept, uint32_t samples_kept, const float* sums) {
        const WorkItem item = take_item(tag);
        queue_.complete_part(item, rows_kept, samples_kept, sums);
        rows_kept = std::min(rows_kept, item.rows.count());
        samples_kept = std::min(samples_kept, item.samples.count());
        result_.samples += uint64_t(width_) * (uint64_t(rows_kept) * item.samples.count() +
                                               uint64_t(item.rows.count() - rows_kept) * samples_kept);
        if (!queue_.stopped()) begin_stop();
    }

    WorkItem take_item(uint64_t tag) {
        const Outstanding outstanding = items_out_.at(tag);
        items_out_.erase(tag);
        if (outstanding.rank > 0) --ranks_[size_t(outstanding.rank)].items_held;
        return outstanding.item;
    }

    void completed(Operation& operation) {
        const int rank = operation.rank;
        if (operation.kind != Operation::Kind::Send) {
            ranks_[size_t(rank)].last_heard = Clock::now();
        }
        switch (operation.kind) {
        case Operation::Kind::RequestReceive:
            ranks_[size_t(rank)].memory = memory_of(rank, *operation.request);
            queue_.describe_rank(worker_of(rank), ability_of(*operation.request));
            queue_.report_speed(worker_of(rank), operation.request->threads, operation.request->samples_per_second);
            answer(rank, operation.request->unfinished);
            break;
        case Operation::Kind::ResultReceive: {
            std::vector<float> buffer = std::move(result_buffers_.at(operation.tag));
            result_buffers_.erase(operation.tag);
            const WorkItem& item = items_out_.at(operation.tag).item;
            // Abandoned after a stop (kTagResult): fewer rows than dealt, the
            // leading rows it finished; or every row and what each kept.
            const size_t whole = size_t(item.rows.count()) * row_floats_;
            if (size_t(operation.received) < whole) {
                item_abandoned(operation.tag, uint32_t(size_t(operation.received) / row_floats_), 0, buffer.data());
                break;
            }
            if (size_t(operation.received) == whole + kPartTrailerFloats) {
                uint32_t kept[kPartTrailerFloats];
                std::memcpy(kept, buffer.data() + whole, sizeof kept);
                item_abandoned(operation.tag, kept[0], kept[1], buffer.data());
                break;
            }
            progress_.counter().fetch_add(uint64_t(item.rows.count()) * width_ * item.samples.count(),
                                          std::memory_order_relaxed);
            item_done(operation.tag, buffer.data());
            break;
        }
        case Operation::Kind::PongReceive: ranks_[size_t(rank)].ping_out = false; break;
        case Operation::Kind::PingReceive:
            --ping_receives_;
            post_send(operations_, Operation{Operation::Kind::Send, rank, {}, {}, {}, {}, 0, {}}, &signal_byte_, 1,
                      MPI_BYTE, kTagPong, context_.clock, "MPI_Isend (pong)");
            post_ping_receive(rank);
            break;
        default: break;
        }
    }

    // Frames now complete: write them (and drop their checkpoints).
    bool write_completed_frames() {
        bool any = false;
        for (uint32_t slot : queue_.take_completed()) {
            any = true;
            const FrameTask& task = queue_.task(slot);
            const FrameAccumulator& accumulator = queue_.accumulator(slot);
            const auto write_start = Clock::now();
            std::vector<AovImage> aovs;
            if (!settings_.aovs.empty()) aovs = assemble_aovs(settings_.aovs, take_first_hits(task.frame), accumulator);
            write_image(task.output, width_, settings_.height, accumulator.pixels(), settings_.encoding,
                        settings_.data_type, metadata_for(task.frame, accumulator), aovs);
            std::remove(task.checkpoint.c_str());
            const double write_seconds = seconds_between(write_start, Clock::now());
            result_.write_seconds += write_seconds;
            if (accumulator.ended_early()) ++result_.frames_time_limited;
            result_.frame_samples_taken += accumulator.samples_taken();
            result_.frame_sample_positions += accumulator.samples_done();
            if (!command_line_.frame_log.empty()) log_frame(slot, write_seconds);
            queue_.close(slot);
            ++result_.frames_written;
        }
        return any;
    }

    // A frame's AOVs need no sample of its beauty: they are made on rank 0
    // from when the frame opens, while the ranks render it (a GPU job's rank 0
    // has idle cores; a CPU job shares them), and are ready when it completes.
    void start_first_hits(uint32_t frame) {
        if (settings_.aovs.empty()) return;
        // On rank 0's GPU if it has one (while it renders), else its cores.
        first_hits_[frame] = std::async(std::launch::async,
                                        [scene = job_.description.scene.view(), settings = frame_settings_.get(frame),
                                         aovs = settings_.aovs, spp = settings_.spp, device = &context_.renderer]() {
                                            return render_first_hits(scene, settings, aovs, spp, device);
                                        });
    }

    FirstHitImages take_first_hits(uint32_t frame) {
        auto found = first_hits_.find(frame);
        if (found == first_hits_.end()) return {};
        FirstHitImages images = found->second.get();
        first_hits_.erase(found);
        return images;
    }

    ImageMetadata metadata_for(uint32_t frame, const FrameAccumulator& accumulator) const {
        ImageMetadata metadata;
        metadata.scene_file = settings_.scene_file;
        metadata.spp = accumulator.target();
        metadata.seed = settings_.seed;
        metadata.frame = frame;
        metadata.render_seconds = seconds_between(start_, Clock::now());
        metadata.identity = frame_digest(job_.description, frame);
        metadata.exposure = settings_.exposure;
        metadata.view_transform = settings_.view_transform;
        metadata.sampler = sampler_name(settings_.sampler);
        metadata.filter = filter_name(settings_.filter);
        metadata.filter_width = settings_.filter_width;
        metadata.clamp_direct = settings_.clamp_direct;
        metadata.clamp_indirect = settings_.clamp_indirect;
        if (accumulator.ended_early()) {
            metadata.spp_requested = accumulator.spp();
            metadata.time_limit = command_line_.time_limit;
        }
        return metadata;
    }

    void log_frame(uint32_t slot, double write_seconds) {
        const FrameTask& task = queue_.task(slot);
        const FrameAccumulator& accumulator = queue_.accumulator(slot);
        FrameLogEntry entry;
        entry.frame = task.frame;
        entry.output = task.output;
        entry.spp = accumulator.target();
        entry.spp_requested = accumulator.spp();
        entry.time_limited = accumulator.ended_early();
        const auto resumed = resumed_samples_.find(task.frame);
        entry.samples = accumulator.samples_taken() - (resumed == resumed_samples_.end() ? 0 : resumed->second);
        entry.render_seconds = queue_.frame_seconds(slot);
        entry.write_seconds = write_seconds;
        entry.job_seconds = seconds_between(start_, Clock::now());
        ranks_[0].memory = memory_of(0, context_.renderer);
        for (const RankState& rank : ranks_) entry.ranks.push_back(rank.memory);
        append_line(command_line_.frame_log, frame_log_line(entry));
    }

    // A frame in progress goes to the preview file, written in the
    // background while this loop goes on answering the ranks. One preview
    // per interval, the open frames in turn: with several frames open (the
    // ranks start the next frame while the last items of one are out), each
    // gets its previews.
    void preview_when_due() {
        if (!preview_.due() || queue_.stopped()) return;
        int chosen = -1, first = -1;  // the first frame after the last one previewed; the first of all
        for (uint32_t slot : queue_.open_slots()) {
            const FrameAccumulator& accumulator = queue_.accumulator(slot);
            if (accumulator.done() || accumulator.samples_done() == 0) continue;
            const uint32_t frame = queue_.task(slot).frame;
            const auto earlier = [&](int other) { return other < 0 || frame < queue_.task(uint32_t(other)).frame; };
            if (earlier(first)) first = int(slot);
            if ((!previewed_any_ || frame > last_previewed_frame_) && earlier(chosen)) chosen = int(slot);
        }
        if (chosen < 0) chosen = first;
        if (chosen < 0) return;
        const FrameAccumulator& accumulator = queue_.accumulator(uint32_t(chosen));
        const uint32_t frame = queue_.task(uint32_t(chosen)).frame;
        ImageMetadata metadata = metadata_for(frame, accumulator);
        metadata.spp = uint32_t(accumulator.samples_done() / (uint64_t(width_) * settings_.height));
        metadata.identity.clear();  // a preview is never a finished frame to --resume
        preview_.write(frame, accumulator.pixels(), width_, settings_.height, metadata);
        previewed_any_ = true;
        last_previewed_frame_ = frame;
    }

    // No new items; every rank still working is told to abandon what it
    // holds (a rank the signal did not reach learns it here). What is done
    // is saved now, and again once the items out are back.
    void begin_stop() {
        queue_.stop();
        request_stop();  // rank 0's own render thread abandons its item too
        stop_time_ = Clock::now();
        for (int rank = 1; rank < context_.mpi.size(); ++rank) {
            if (ranks_[size_t(rank)].told_done) continue;
            post_send(operations_, Operation{Operation::Kind::Send, rank, {}, {}, {}, {}, 0, {}}, &signal_byte_, 1,
                      MPI_BYTE, kTagStop, context_.clock, "MPI_Isend (stop)");
        }
        write_frame_checkpoints(queue_);
    }

    void checkpoint_when_due() {
        if (command_line_.checkpoint_interval <= 0 || queue_.stopped()) return;
        if (seconds_between(last_checkpoint_, Clock::now()) < command_line_.checkpoint_interval) return;
        write_frame_checkpoints(queue_);
        last_checkpoint_ = Clock::now();
    }

    // A rank still in the job (holding work, or waiting for it) that has
    // been silent for a while is pinged; one that does not answer within --rank-timeout (SIGSTOPped, hung, its node
    // gone quiet) ends the job: what the others finished is checkpointed
    // first. After a stop signal, rank 0 waits at most as long for the items out.
    void watch_ranks() {
        const TimePoint now = Clock::now();
        if (seconds_between(last_watch_, now) < 0.25) return;
        last_watch_ = now;
        const double timeout = command_line_.rank_timeout;
        for (int rank = 1; rank < context_.mpi.size(); ++rank) {
            RankState& state = ranks_[size_t(rank)];
            if (state.told_done && state.items_held == 0) continue;
            if (state.ping_out && seconds_between(state.ping_sent, now) > timeout) {
                end_with_lost_rank(rank, "has not answered for " + format_duration(timeout));
            }
            if (queue_.stopped() && state.items_held > 0 && seconds_between(stop_time_, now) > timeout) {
                end_with_lost_rank(rank,
                                   "did not hand back its work within " + format_duration(timeout) + " of the stop");
            }
            if (state.told_done || state.ping_out || seconds_between(state.last_heard, now) < kPingAfterSeconds)
                continue;
            state.ping_out = true;
            state.ping_sent = now;
            post_receive(operations_, Operation{Operation::Kind::PongReceive, rank, {}, {}, {}, {}, 0, {}}, &pong_byte_,
                         1, MPI_BYTE, kTagPong, context_.clock, "MPI_Irecv (pong)");
            post_send(operations_, Operation{Operation::Kind::Send, rank, {}, {}, {}, {}, 0, {}}, &signal_byte_, 1,
                      MPI_BYTE, kTagPing, context_.clock, "MPI_Isend (ping)");
        }
    }

    [[noreturn]] void end_with_lost_rank(int rank, const std::string& what) {
        write_frame_checkpoints(queue_);
        throw RenderError("rank " + std::to_string(rank) + " " + what +
                          " (stopped, hung or unreachable); the finished work is checkpointed: rerun with --resume");
    }

    struct Outstanding {
        WorkItem item;
        int rank = 0;
    };

    const RenderContext& context_;
    FrameJob& job_;
    const CommandLine& command_line_;
    RankReport& report_;
    const RenderSettings& settings_;
    const uint32_t width_;
    const size_t row_floats_;  // floats of one row's pixel records
    FrameFarmResult result_;
    FrameQueueOptions options_;
    FrameQueue queue_;
    FrameSettingsCache frame_settings_;
    ProgressReporter progress_;
    WakeSignal wake_;
    std::vector<BandRenderer*> devices_;               // rank 0's: each a worker of the dealer
    std::vector<std::unique_ptr<BandWorker>> locals_;  // one per device
    OperationSet operations_;
    std::unordered_map<uint64_t, Outstanding> items_out_;              // tag -> item
    std::unordered_map<uint64_t, std::vector<float>> result_buffers_;  // tag -> receive buffer
    std::vector<RankState> ranks_;
    uint64_t next_tag_ = 1;
    std::vector<bool> local_done_;  // per device: told there is no more
    uint64_t items_completed_ = 0;
    TimePoint start_{}, last_checkpoint_{}, last_watch_{}, stop_time_{};
    bool previewed_any_ = false;
    uint32_t last_previewed_frame_ = 0;
    std::unordered_map<uint32_t, uint64_t> resumed_samples_;  // frame -> samples its checkpoint held
    PreviewWriter preview_;
    std::unordered_map<uint32_t, std::future<FirstHitImages>> first_hits_;  // frame -> its AOVs in the making
    char signal_byte_ = 0, pong_byte_ = 0;
    std::vector<char> ping_bytes_;  // per rank: the standing ping receives' buffers
    size_t ping_receives_ = 0;
};

}  // namespace

FrameFarmResult render_frames_as_root(const RenderContext& context, FrameJob& job, const CommandLine& command_line,
                                      RankReport& report, TimePoint& first_start, TimePoint& last_end) {
    RootLoop loop(context, job, command_line, report);
    FrameFarmResult result = loop.run();
    loop.record(first_start, last_end);
    return result;
}

}  // namespace farmrt
