#include "mpi/rank_workers.h"

#include <cstring>

#include "core/errors.h"
#include "render/progress.h"

namespace farmrt {

RankWorkers::RankWorkers(const MpiSession& mpi, MpiClock& clock, RankReport& report, double rank_timeout,
                         int first_worker)
    : mpi_(mpi),
      clock_(clock),
      report_(report),
      rank_timeout_(rank_timeout),
      first_worker_(first_worker),
      ranks_(size_t(mpi.size())),
      ping_bytes_(size_t(mpi.size())) {
    const TimePoint now = Clock::now();
    ranks_[0].told_done = true;
    for (int rank = 1; rank < mpi.size(); ++rank) {
        ranks_[size_t(rank)].memory.rank = rank;
        ranks_[size_t(rank)].last_heard = now;
        post_request_receive(rank);
        post_ping_receive(rank);
    }
}

bool RankWorkers::collect(Dealer& dealer) {
    bool activity = false;
    for (Operation& operation : operations_.test(clock_)) {
        activity = true;
        completed(dealer, operation);
    }
    return activity;
}

void RankWorkers::deal(Dealer& dealer, bool activity) {
    // A held request waits for work to come back: only news can answer it.
    if (!activity) return;
    for (int rank = 1; rank < mpi_.size(); ++rank) {
        if (ranks_[size_t(rank)].deferred) answer(dealer, rank, ranks_[size_t(rank)].deferred_unfinished);
    }
}

bool RankWorkers::finished() const {
    for (const RankState& rank : ranks_) {
        if (!rank.told_done) return false;
    }
    return operations_.size() == ping_receives_;
}

void RankWorkers::close() { operations_.cancel(Operation::Kind::PingReceive, clock_); }

void RankWorkers::add_memory(std::vector<RankMemory>& processes) const {
    for (size_t rank = 1; rank < ranks_.size(); ++rank) processes.push_back(ranks_[rank].memory);
}

void RankWorkers::send_header(int rank, const WorkHeader& header) {
    auto buffer = std::make_unique<WorkHeader>(header);
    WorkHeader* data = buffer.get();
    post_send(operations_, Operation{Operation::Kind::Send, rank, {}, {}, {}, {}, header.tag, std::move(buffer)}, data,
              int(sizeof(WorkHeader)), MPI_BYTE, kTagWork, clock_, "MPI_Isend (work)");
    report_.bytes_sent += sizeof(WorkHeader);
}

// A worker waiting for rank 0 pings it now and then (farm_worker.cpp):
// answered at once, from the loop, by a standing receive per rank.
void RankWorkers::post_ping_receive(int rank) {
    post_receive(operations_, Operation{Operation::Kind::PingReceive, rank, {}, {}, {}, {}, 0, {}},
                 &ping_bytes_[size_t(rank)], 1, MPI_BYTE, kTagPing, clock_, "MPI_Irecv (ping from a rank)");
    ++ping_receives_;
}

void RankWorkers::post_request_receive(int rank) {
    auto buffer = std::make_unique<WorkRequest>();
    WorkRequest* data = buffer.get();
    post_receive(operations_, Operation{Operation::Kind::RequestReceive, rank, {}, std::move(buffer), {}, {}}, data,
                 int(sizeof(WorkRequest)), MPI_BYTE, kTagRequest, clock_, "MPI_Irecv (request)");
}

// Answers a rank's request: an item (expecting its result), "no more", or
// nothing yet. A rank that still holds work is told "not now" at once and
// asks again when idle; an idle rank's request is held and answered when
// an item comes back.
void RankWorkers::answer(Dealer& dealer, int rank, int unfinished) {
    RankState& state = ranks_[size_t(rank)];
    WorkItem item;
    uint64_t tag = 0;
    const DealAnswer outcome = dealer.next(worker_of(rank), unfinished, item, tag);
    // A rank with a free slot (idle, or a GPU with one band left) is held.
    state.deferred = outcome == DealAnswer::NotNow && dealer.has_free_slot(worker_of(rank), unfinished);
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
    const size_t row_floats = dealer.row_floats();
    header.tag = tag;
    header.frame = item.frame;
    header.row_begin = item.rows.begin;
    header.row_end = item.rows.end;
    header.sample_begin = item.samples.begin;
    header.sample_end = item.samples.end;
    header.has_sums = item.samples.begin > 0;
    ++state.items_held;
    std::vector<float>& buffer = result_buffers_[header.tag];
    buffer.resize(size_t(item.rows.count()) * row_floats + kPartTrailerFloats);
    post_receive(operations_, Operation{Operation::Kind::ResultReceive, rank, item.rows, {}, {}, {}, header.tag, {}},
                 buffer.data(), count_of(item.rows, row_floats) + kPartTrailerFloats, MPI_FLOAT, kTagResult, clock_,
                 "MPI_Irecv (item)");
    send_header(rank, header);
    if (header.has_sums) {
        Operation send{Operation::Kind::Send, rank, item.rows, {}, dealer.starting_sums(item), {}, header.tag, {}};
        const float* data = send.sums.data();
        report_.bytes_sent += send.sums.size() * sizeof(float);
        post_send(operations_, std::move(send), data, count_of(item.rows, row_floats), MPI_FLOAT, kTagWorkSums, clock_,
                  "MPI_Isend (item sums)");
    }
    post_request_receive(rank);
}

void RankWorkers::result_received(Dealer& dealer, Operation& operation) {
    --ranks_[size_t(operation.rank)].items_held;
    std::vector<float> buffer = std::move(result_buffers_.at(operation.tag));
    result_buffers_.erase(operation.tag);
    const WorkItem& item = dealer.item_out(operation.tag);
    // Abandoned after a stop (kTagResult): fewer rows than dealt, the
    // leading rows it finished; or every row and what each kept.
    const size_t whole = size_t(item.rows.count()) * dealer.row_floats();
    if (size_t(operation.received) < whole) {
        dealer.abandoned(operation.tag, uint32_t(size_t(operation.received) / dealer.row_floats()), 0, buffer.data());
        return;
    }
    if (size_t(operation.received) == whole + kPartTrailerFloats) {
        uint32_t kept[kPartTrailerFloats];
        std::memcpy(kept, buffer.data() + whole, sizeof kept);
        dealer.abandoned(operation.tag, kept[0], kept[1], buffer.data());
        return;
    }
    dealer.progress().fetch_add(
        uint64_t(item.rows.count()) * dealer.frame_settings(item.frame).width * item.samples.count(),
        std::memory_order_relaxed);
    dealer.done(operation.tag, buffer.data());
}

void RankWorkers::completed(Dealer& dealer, Operation& operation) {
    const int rank = operation.rank;
    if (operation.kind != Operation::Kind::Send) ranks_[size_t(rank)].last_heard = Clock::now();
    switch (operation.kind) {
    case Operation::Kind::RequestReceive:
        ranks_[size_t(rank)].memory = memory_of(rank, *operation.request);
        dealer.describe(worker_of(rank), ability_of(*operation.request), operation.request->samples_per_second);
        answer(dealer, rank, operation.request->unfinished);
        break;
    case Operation::Kind::ResultReceive: result_received(dealer, operation); break;
    case Operation::Kind::PongReceive: ranks_[size_t(rank)].ping_out = false; break;
    case Operation::Kind::PingReceive:
        --ping_receives_;
        post_send(operations_, Operation{Operation::Kind::Send, rank, {}, {}, {}, {}, 0, {}}, &signal_byte_, 1,
                  MPI_BYTE, kTagPong, clock_, "MPI_Isend (pong)");
        post_ping_receive(rank);
        break;
    default: break;
    }
}

// Every rank still in the job is told to abandon what it holds (a rank the
// signal did not reach learns it here).
void RankWorkers::stop() {
    stop_time_ = Clock::now();
    for (int rank = 1; rank < mpi_.size(); ++rank) {
        if (ranks_[size_t(rank)].told_done) continue;
        post_send(operations_, Operation{Operation::Kind::Send, rank, {}, {}, {}, {}, 0, {}}, &signal_byte_, 1,
                  MPI_BYTE, kTagStop, clock_, "MPI_Isend (stop)");
    }
}

// A rank still in the job (holding work, or waiting for it) that has been
// silent for a while is pinged; one that does not answer within
// --rank-timeout (SIGSTOPped, hung, its node gone quiet) ends the job: what
// the others finished is checkpointed first. After a stop, rank 0 waits at
// most as long for the items out.
void RankWorkers::watch(Dealer& dealer) {
    const TimePoint now = Clock::now();
    for (int rank = 1; rank < mpi_.size(); ++rank) {
        RankState& state = ranks_[size_t(rank)];
        if (state.told_done && state.items_held == 0) continue;
        const std::string name = "rank " + std::to_string(rank) + " ";
        if (state.ping_out && seconds_between(state.ping_sent, now) > rank_timeout_) {
            dealer.lost(name + "has not answered for " + format_duration(rank_timeout_) +
                        " (stopped, hung or unreachable)");
        }
        if (dealer.stopped() && state.items_held > 0 && seconds_between(stop_time_, now) > rank_timeout_) {
            dealer.lost(name + "did not hand back its work within " + format_duration(rank_timeout_) +
                        " of the stop (stopped, hung or unreachable)");
        }
        if (state.told_done || state.ping_out || seconds_between(state.last_heard, now) < kPingAfterSeconds) continue;
        state.ping_out = true;
        state.ping_sent = now;
        post_receive(operations_, Operation{Operation::Kind::PongReceive, rank, {}, {}, {}, {}, 0, {}}, &pong_byte_, 1,
                     MPI_BYTE, kTagPong, clock_, "MPI_Irecv (pong)");
        post_send(operations_, Operation{Operation::Kind::Send, rank, {}, {}, {}, {}, 0, {}}, &signal_byte_, 1,
                  MPI_BYTE, kTagPing, clock_, "MPI_Isend (ping)");
    }
}

}  // namespace farmrt
