// What the farm's ranks say to each other, and the non-blocking operations
// that carry it. Only the main thread of a rank calls MPI.
//
// Between two ranks MPI keeps messages of one tag in order, so a rank's
// results arrive in the order of its items and need no header.
#pragma once

#include <mpi.h>

#include <chrono>
#include <memory>
#include <vector>

#include "render/band_schedule.h"
#include "mpi/mpi_session.h"
#include "render/band_renderer.h"
#include "render/farm_workers.h"
#include "render/frame_log.h"

namespace farmrt {

constexpr int kTagRequest = 1;  // rank -> 0: give me work (WorkRequest)
// rank -> 0: a work item's pixel records. Abandoned after a stop: those of
// the leading rows kept (fewer, or none), or, when the other rows kept
// their first samples (RenderedItem::samples_kept), every row's followed by
// kPartTrailerFloats words: rows kept and samples kept, as uint32 bits.
constexpr int kTagResult = 3;
constexpr int kPartTrailerFloats = 2;
constexpr int kTagWork = 4;      // 0 -> rank: WorkHeader; rows empty: no more (or kNotNow)
constexpr int kTagWorkSums = 5;  // 0 -> rank: the item's starting sums (when has_sums)
constexpr int kTagStop = 6;      // 0 -> rank: stop (a signal reached rank 0): abandon the items held
constexpr int kTagPing = 7;  // are you alive? 0 -> a rank holding work, silent for a while; a rank -> 0, waiting for it
constexpr int kTagPong = 8;  // yes, the other way
// Seconds of silence before a ping.
constexpr double kPingAfterSeconds = 5;

// A WorkHeader whose rows are [kNotNow, kNotNow): "ask again when you have
// nothing to render" (near the end of a round).
constexpr uint32_t kNotNow = 0xFFFFFFFFu;

// A work item: any frame's rows for any samples, with the rows' sums so far
// (a WorkSums message) when it does not start at sample 0.
struct WorkHeader {
    uint32_t frame = 0;
    uint32_t row_begin = 0, row_end = 0;
    uint32_t sample_begin = 0, sample_end = 0;
    uint32_t has_sums = 0;
    uint64_t tag = 0;
};

struct WorkRequest {
    int32_t threads = 0;
    int32_t unfinished = 0;         // items the rank holds (rendering or queued)
    double samples_per_second = 0;  // measured by the rank so far; 0 before its first item
    // What the rank's backend is like (RankAbility): the same in every request.
    double thread_equivalents = 0;
    uint64_t min_band_items = 0;
    int32_t slots = 1;
    int32_t item_is_sample = 0;
    // The rank's memory, for --frame-log (render/frame_log.h).
    uint64_t peak_resident_bytes = 0;
    uint64_t gpu_memory_used_bytes = 0;
    int32_t has_gpu = 0;
};

RankAbility ability_of(const WorkRequest& request);
void describe_renderer(WorkRequest& request, const BandRenderer& renderer);
RankMemory memory_of(int rank, const WorkRequest& request);

// Longest sleeps between polls of the main threads. Rank 0 answers requests
// within kPollRoot; a worker whose next item is queued needs MPI only to move
// its results; an idle worker waits for work, its cores free.
constexpr std::chrono::microseconds kPollRoot(500), kPollBusy(2000), kPollIdle(50);

int count_of(RowRange rows, size_t row_floats);

// A non-blocking operation in flight and what it carries.
struct Operation {
    enum class Kind {
        RequestReceive,
        ResultReceive,
        Send,
        WorkReceive,
        WorkSumsReceive,
        StopReceive,
        PingReceive,
        PongReceive
    } kind;
    int rank = 0;
    RowRange rows;
    std::unique_ptr<WorkRequest> request;          // RequestReceive buffer
    std::vector<float> sums;                       // result Send buffer
    std::unique_ptr<WorkRequest> outgoing;         // request Send buffer
    uint64_t tag = 0;                              // the work item
    std::unique_ptr<WorkHeader> header = nullptr;  // WorkReceive / header Send buffer
    int received = 0;                              // a completed receive: how many elements came (MPI_Get_count)
};

// Operations tested together with MPI_Testsome.
class OperationSet {
public:
    void add(MPI_Request request, Operation operation);
    size_t size() const { return requests_.size(); }
    // The operations that completed since the last call.
    std::vector<Operation> test(MpiClock& clock);
    // Cancels the outstanding receives of `kind` (a rank's standing receives
    // for messages that may never come) and waits for them to end.
    void cancel(Operation::Kind kind, MpiClock& clock);

private:
    void compact();  // drops the completed (MPI_REQUEST_NULL) operations
    std::vector<MPI_Request> requests_;
    std::vector<Operation> operations_;
    std::vector<int> indices_;
    std::vector<MPI_Status> statuses_;
};

// Posts a non-blocking send or receive of `count` elements of `type` and adds it to `operations`.
void post_send(OperationSet& operations, Operation operation, const void* buffer, int count, MPI_Datatype type, int tag,
               MpiClock& clock, const char* what);
void post_receive(OperationSet& operations, Operation operation, void* buffer, int count, MPI_Datatype type, int tag,
                  MpiClock& clock, const char* what);

}  // namespace farmrt
