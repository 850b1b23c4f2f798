#include "mpi/farm_worker.h"

#include <cstring>

#include "core/errors.h"
#include "mpi/farm_messages.h"
#include "render/interrupt.h"
#include "render/progress.h"

namespace farmrt {
namespace {

// The worker's side of the conversation with rank 0. Its main thread, each
// turn: rethrows the render thread's failure, sends finished items, handles
// completed messages, asks for the next item when nothing is queued (the
// round trip hides behind the item being rendered; after "not now", once a
// slot is free), and sleeps until the render thread has news.
class WorkerLoop {
public:
    WorkerLoop(MpiClock& clock, const RenderContext& context, const SceneDescription& description, RankReport& report,
               double rank_timeout)
        : clock_(clock),
          context_(context),
          report_(report),
          frame_settings_(description),
          worker_(context.renderer, context.failure, nullptr, wake_),
          rank_timeout_(rank_timeout) {}

    void run() {
        post_standing_receive(Operation::Kind::StopReceive, kTagStop, &stop_byte_);
        post_standing_receive(Operation::Kind::PingReceive, kTagPing, &ping_byte_);
        PollBackoff backoff;
        last_heard_ = Clock::now();
        for (;;) {
            worker_.rethrow_failure();
            watch_root();
            const bool idle = worker_.unfinished() == 0;
            bool activity = send_finished();
            for (Operation& operation : operations_.test(clock_)) {
                activity = true;
                completed(operation);
            }
            if (ask()) activity = true;
            if (idle && no_more_ && !request_out_ && outstanding() == 0) break;
            if (activity) backoff.reset();
            wake_.wait_for(backoff.next(worker_.unfinished() == 0 ? kPollIdle : kPollBusy));
        }
        operations_.cancel(Operation::Kind::StopReceive, clock_);
        operations_.cancel(Operation::Kind::PingReceive, clock_);
        operations_.cancel(Operation::Kind::PongReceive, clock_);
    }

    void record(TimePoint& first_start, TimePoint& last_end) {
        record_rendering({&worker_}, report_, first_start, last_end);
        report_.request_latency_mean = idle_requests_ ? latency_sum_ / double(idle_requests_) : 0.0;
    }

private:
    // Rank 0 watched as it watches the workers: a worker that has heard
    // nothing from it for a while pings it (also while rendering a long band:
    // a stopped rank 0 is found within seconds, not after the band), and
    // ends the job when no answer comes within --rank-timeout (rank 0
    // stopped, hung, or its node gone quiet), instead of waiting forever.
    void watch_root() {
        const TimePoint now = Clock::now();
        if (ping_out_ && seconds_between(ping_sent_, now) > rank_timeout_) {
            throw RenderError("rank 0 has not answered for " + format_duration(rank_timeout_) +
                              " (stopped, hung or unreachable)");
        }
        if (no_more_ || ping_out_ || seconds_between(last_heard_, now) < kPingAfterSeconds) return;
        ping_out_ = true;
        ping_sent_ = now;
        post_receive(operations_, Operation{Operation::Kind::PongReceive, 0, {}, {}, {}, {}, 0, {}}, &root_pong_byte_,
                     1, MPI_BYTE, kTagPong, clock_, "MPI_Irecv (pong from rank 0)");
        ++standing_;
        post_send(operations_, Operation{Operation::Kind::Send, 0, {}, {}, {}, {}, 0, {}}, &root_ping_byte_, 1,
                  MPI_BYTE, kTagPing, clock_, "MPI_Isend (ping to rank 0)");
    }

    // Operations other than the standing stop and ping receives.
    size_t outstanding() const { return operations_.size() - standing_; }

    void post_standing_receive(Operation::Kind kind, int tag, char* buffer) {
        post_receive(operations_, Operation{kind, 0, {}, {}, {}, {}, 0, {}}, buffer, 1, MPI_BYTE, tag, clock_,
                     "MPI_Irecv (stop or ping)");
        ++standing_;
    }

    // Finished items to rank 0, sent without waiting (an abandoned one with
    // the sums of the rows it kept: a shorter message, or an empty one); the
    // buffers live in the operations until sent.
    bool send_finished() {
        bool any = false;
        for (RenderedItem& rendered : worker_.take_finished()) {
            any = true;
            if (rendered.abandoned && rendered.samples_kept > 0) {
                const uint32_t words[kPartTrailerFloats] = {rendered.rows_kept, rendered.samples_kept};
                float trailer[kPartTrailerFloats];
                std::memcpy(trailer, words, sizeof trailer);
                rendered.sums.insert(rendered.sums.end(), trailer, trailer + kPartTrailerFloats);
            }
            Operation send{Operation::Kind::Send, 0, rendered.rows, {}, std::move(rendered.sums), {}};
            const float* data = send.sums.data();
            const int count = int(send.sums.size());  // abandoned: what was kept (see kTagResult)
            report_.bytes_sent += size_t(count) * sizeof(float);
            post_send(operations_, std::move(send), data, count, MPI_FLOAT, kTagResult, clock_, "MPI_Isend (item)");
        }
        return any;
    }

    void send_request() {
        auto header = std::make_unique<WorkHeader>();
        WorkHeader* header_buffer = header.get();
        post_receive(operations_, Operation{Operation::Kind::WorkReceive, 0, {}, {}, {}, {}, 0, std::move(header)},
                     header_buffer, int(sizeof(WorkHeader)), MPI_BYTE, kTagWork, clock_, "MPI_Irecv (work)");
        auto request = std::make_unique<WorkRequest>();
        describe_renderer(*request, context_.renderer);
        const size_t unfinished = worker_.unfinished();
        request->unfinished = int32_t(unfinished);
        request->samples_per_second = worker_.samples_per_second();
        WorkRequest* request_buffer = request.get();
        post_send(operations_, Operation{Operation::Kind::Send, 0, {}, {}, {}, std::move(request)}, request_buffer,
                  int(sizeof(WorkRequest)), MPI_BYTE, kTagRequest, clock_, "MPI_Isend (request)");
        report_.bytes_sent += sizeof(WorkRequest);
        ++report_.requests;
        request_out_ = true;
        request_while_idle_ = unfinished == 0;
        request_time_ = Clock::now();
    }

    bool ask() {
        if (no_more_ || request_out_ || sums_pending_ || worker_.queued() > 0) return false;
        if (ask_when_idle_ && worker_.unfinished() >= size_t(worker_.slots())) return false;
        send_request();
        return true;
    }

    void push(const WorkHeader& header, std::vector<float> sums) {
        const RowRange rows{header.row_begin, header.row_end};
        worker_.push(ItemToRender{frame_settings_.get(header.frame), rows,
                                  SampleRange{header.sample_begin, header.sample_end}, std::move(sums), header.tag});
    }

    void work_received(Operation& operation) {
        request_out_ = false;
        if (request_while_idle_) {
            // Only requests made with nothing to render cost time; the
            // look-ahead ones are hidden behind the item being rendered.
            const double latency = seconds_between(request_time_, Clock::now());
            latency_sum_ += latency;
            report_.request_latency_max = std::max(report_.request_latency_max, latency);
            ++idle_requests_;
        }
        const WorkHeader& header = *operation.header;
        ask_when_idle_ = header.row_begin == kNotNow;
        if (ask_when_idle_) return;
        if (header.row_begin == header.row_end) {
            no_more_ = true;
            return;
        }
        const FrameSettings& frame = frame_settings_.get(header.frame);
        if (header.row_end > frame.height || header.row_begin > header.row_end ||
            header.sample_begin >= header.sample_end || header.sample_end > context_.spp) {
            throw RenderError("rank 0 sent a work item outside the image or the samples");
        }
        if (!header.has_sums) {
            push(header, {});
            return;
        }
        const RowRange rows{header.row_begin, header.row_end};
        Operation receive{Operation::Kind::WorkSumsReceive, 0, rows, {}, {}, {}, header.tag,
                          std::move(operation.header)};
        const size_t row_floats = size_t(frame.width) * frame.sampling.record_floats;
        receive.sums.resize(size_t(rows.count()) * row_floats);
        float* buffer = receive.sums.data();
        post_receive(operations_, std::move(receive), buffer, count_of(rows, row_floats), MPI_FLOAT, kTagWorkSums,
                     clock_, "MPI_Irecv (item sums)");
        sums_pending_ = true;
    }

    void completed(Operation& operation) {
        if (operation.kind != Operation::Kind::Send) last_heard_ = Clock::now();
        switch (operation.kind) {
        case Operation::Kind::PongReceive:
            --standing_;
            ping_out_ = false;
            break;
        case Operation::Kind::WorkReceive: work_received(operation); break;
        case Operation::Kind::WorkSumsReceive:
            sums_pending_ = false;
            push(*operation.header, std::move(operation.sums));
            break;
        case Operation::Kind::StopReceive:
            --standing_;
            request_stop();  // the render thread abandons what it holds
            break;
        case Operation::Kind::PingReceive:
            --standing_;
            post_send(operations_, Operation{Operation::Kind::Send, 0, {}, {}, {}, {}, 0, {}}, &pong_byte_, 1, MPI_BYTE,
                      kTagPong, clock_, "MPI_Isend (pong)");
            post_standing_receive(Operation::Kind::PingReceive, kTagPing, &ping_byte_);
            break;
        default: break;
        }
    }

    MpiClock& clock_;
    const RenderContext& context_;
    RankReport& report_;
    FrameSettingsCache frame_settings_;
    WakeSignal wake_;
    ItemWorker worker_;
    OperationSet operations_;
    size_t standing_ = 0;
    char stop_byte_ = 0, ping_byte_ = 0, pong_byte_ = 0, root_ping_byte_ = 0, root_pong_byte_ = 0;
    double rank_timeout_;
    TimePoint last_heard_{}, ping_sent_{};
    bool ping_out_ = false;
    bool no_more_ = false, request_out_ = false, request_while_idle_ = false, sums_pending_ = false;
    bool ask_when_idle_ = false;  // told "not now": ask again with nothing to render
    TimePoint request_time_;
    double latency_sum_ = 0;
    uint64_t idle_requests_ = 0;
};

}  // namespace

void render_frames_as_worker(MpiClock& clock, const RenderContext& context, const SceneDescription& description,
                             RankReport& report, double rank_timeout, TimePoint& first_start, TimePoint& last_end) {
    WorkerLoop loop(clock, context, description, report, rank_timeout);
    loop.run();
    loop.record(first_start, last_end);
}

}  // namespace farmrt
