// The workers of the farm engine's dealer, behind one interface however they
// are reached: the devices of this process (LocalWorkers, below: a render
// thread each) and the other processes of the job (mpi/rank_workers.h,
// through messages). The engine numbers every worker of the job; a set holds
// a contiguous range of them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/band_renderer.h"
#include "render/band_schedule.h"
#include "render/item_worker.h"
#include "render/cluster.h"
#include "render/frame_log.h"
#include "render/frame_queue.h"

namespace farmrt {

// What a worker set sees of the engine: the dealer and the frames it fills.
class Dealer {
public:
    virtual ~Dealer() = default;
    // What a worker is like and how fast it has rendered so far.
    virtual void describe(int worker, const RankAbility& ability, double samples_per_second) = 0;
    // The next item for `worker`, which holds `unfinished` items: Work (then
    // `item` and its `tag` are set, and the item is out until handed back),
    // NotNow or Done.
    virtual DealAnswer next(int worker, int unfinished, WorkItem& item, uint64_t& tag) = 0;
    // Whether `worker` has a slot free (an idle worker, a GPU with one band left).
    virtual bool has_free_slot(int worker, int unfinished) const = 0;
    // The sums an item starts from: empty when it starts at sample 0.
    virtual std::vector<float> starting_sums(const WorkItem& item) const = 0;
    virtual const FrameSettings& frame_settings(uint32_t frame) = 0;
    virtual const WorkItem& item_out(uint64_t tag) const = 0;
    // An item handed back whole.
    virtual void done(uint64_t tag, const float* sums) = 0;
    // An item handed back after a stop: its first `rows_kept` rows whole, its
    // other rows their first `samples_kept` samples; the job stops.
    virtual void abandoned(uint64_t tag, uint32_t rows_kept, uint32_t samples_kept, const float* sums) = 0;
    virtual bool stopped() const = 0;
    // Floats of one image row's pixel records.
    virtual size_t row_floats() const = 0;
    // Pixel samples finished, for the progress line.
    virtual std::atomic<uint64_t>& progress() = 0;
    // A worker stopped answering: the finished work is checkpointed and the
    // job ends with `what` as its error.
    [[noreturn]] virtual void lost(const std::string& what) = 0;
};

class WorkerSet {
public:
    virtual ~WorkerSet() = default;
    // Hands what finished back to the dealer; true when anything happened.
    virtual bool collect(Dealer& dealer) = 0;
    // Gives workers that can take work their next items; `activity`: whether
    // anything happened this turn.
    virtual void deal(Dealer& dealer, bool activity) = 0;
    // A stop: every worker abandons what it holds, handing back what it keeps.
    virtual void stop() = 0;
    // Now and then: whether workers holding work still answer (Dealer::lost when not).
    virtual void watch(Dealer& dealer) { (void)dealer; }
    // Every worker told there is no more, and nothing held.
    virtual bool finished() const = 0;
    // The engine's loop has ended: stop waiting for messages that will not come.
    virtual void close() {}
    // The memory of the processes it holds, for the frame log (not this one's).
    virtual void add_memory(std::vector<RankMemory>& processes) const { (void)processes; }
};

RankAbility ability_of(const BandRenderer& renderer);
RankMemory memory_of(int rank, const BandRenderer& renderer);

// The devices of this process, each a worker with a render thread of its own
// (ItemWorker), numbered from `first_worker` in the order of BandRenderer::devices().
class LocalWorkers : public WorkerSet {
public:
    // `failure` goes to the first device (tests); `progress` counts the samples they finish.
    LocalWorkers(BandRenderer& renderer, FailureInjection failure, std::atomic<uint64_t>* progress, WakeSignal& wake,
                 int first_worker = 0);
    bool collect(Dealer& dealer) override;
    void deal(Dealer& dealer, bool activity) override;
    void stop() override {}  // the process's stop flag reaches its render threads
    bool finished() const override;
    int count() const { return int(devices_.size()); }
    std::vector<const ItemWorker*> workers() const;
    // Each device's work, as a JSON array (the run report): its description,
    // items, pixel samples, busy seconds, and when its first item started and
    // its last ended, in seconds from `start`.
    std::string json(TimePoint start) const;

private:
    std::vector<BandRenderer*> devices_;
    int first_worker_ = 0;
    std::vector<std::unique_ptr<ItemWorker>> workers_;  // one per device
    std::vector<bool> told_done_;
};

}  // namespace farmrt
