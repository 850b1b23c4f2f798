// Rank 0's side of the conversation with the other ranks: they are workers
// of the farm engine's dealer (render/farm_workers.h) reached by messages
// (mpi/farm_messages.h). A rank asks for work; rank 0 answers with an item
// (and its starting sums), "not now" or "no more", receives the item's
// result, pings ranks that hold work and fall silent, and tells every rank
// to stop when the job stops.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "mpi/farm_messages.h"
#include "mpi/mpi_session.h"
#include "render/farm_context.h"
#include "render/farm_report.h"
#include "render/farm_workers.h"

namespace farmrt {

class RankWorkers : public WorkerSet {
public:
    // Ranks 1 to size - 1 are the dealer's workers `first_worker` onwards.
    RankWorkers(const MpiSession& mpi, MpiClock& clock, RankReport& report, double rank_timeout, int first_worker);
    bool collect(Dealer& dealer) override;
    void deal(Dealer& dealer, bool activity) override;
    void stop() override;
    void watch(Dealer& dealer) override;
    bool finished() const override;
    void close() override;
    void add_memory(std::vector<RankMemory>& processes) const override;

private:
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

    int worker_of(int rank) const { return first_worker_ + rank - 1; }
    void completed(Dealer& dealer, Operation& operation);
    void result_received(Dealer& dealer, Operation& operation);
    void answer(Dealer& dealer, int rank, int unfinished);
    void send_header(int rank, const WorkHeader& header);
    void post_request_receive(int rank);
    void post_ping_receive(int rank);

    const MpiSession& mpi_;
    MpiClock& clock_;
    RankReport& report_;
    const double rank_timeout_;
    const int first_worker_;
    std::vector<RankState> ranks_;  // by rank; rank 0's unused
    OperationSet operations_;
    std::unordered_map<uint64_t, std::vector<float>> result_buffers_;  // tag -> receive buffer
    TimePoint stop_time_{};
    char signal_byte_ = 0, pong_byte_ = 0;
    std::vector<char> ping_bytes_;  // per rank: the standing ping receives' buffers
    size_t ping_receives_ = 0;
};

}  // namespace farmrt
