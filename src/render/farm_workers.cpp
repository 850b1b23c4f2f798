#include "render/farm_workers.h"

#include <algorithm>

#include "render/farm_context.h"
#include "render/run_report.h"

namespace farmrt {

RankAbility ability_of(const BandRenderer& renderer) {
    RankAbility ability;
    ability.threads = renderer.threads();
    ability.thread_equivalents = renderer.thread_equivalents();
    ability.slots = std::max(1, renderer.bands_in_flight());
    ability.min_band_items = renderer.min_band_items();
    ability.item_is_sample = renderer.item_is_sample();
    return ability;
}

RankMemory memory_of(int rank, const BandRenderer& renderer) {
    return RankMemory{rank, peak_resident_bytes(), renderer.has_gpu(), renderer.gpu_memory_used_bytes()};
}

LocalWorkers::LocalWorkers(BandRenderer& renderer, FailureInjection failure, std::atomic<uint64_t>* progress,
                           WakeSignal& wake, int first_worker)
    : devices_(renderer.devices()), first_worker_(first_worker) {
    for (size_t d = 0; d < devices_.size(); ++d) {
        workers_.push_back(
            std::make_unique<ItemWorker>(*devices_[d], d == 0 ? failure : FailureInjection{}, progress, wake));
    }
    told_done_.assign(devices_.size(), false);
}

bool LocalWorkers::collect(Dealer& dealer) {
    bool activity = false;
    for (auto& worker : workers_) {
        worker->rethrow_failure();
        for (RenderedItem& item : worker->take_finished()) {
            activity = true;
            if (item.abandoned)
                dealer.abandoned(item.tag, item.rows_kept, item.samples_kept, item.sums.data());
            else
                dealer.done(item.tag, item.sums.data());
        }
    }
    return activity;
}

// Keeps one item queued behind the one each device renders.
void LocalWorkers::deal(Dealer& dealer, bool) {
    for (size_t d = 0; d < workers_.size(); ++d) {
        ItemWorker& worker = *workers_[d];
        if (told_done_[d] || worker.queued() > 0) continue;
        const int index = first_worker_ + int(d);
        dealer.describe(index, ability_of(*devices_[d]), worker.samples_per_second());
        WorkItem item;
        uint64_t tag = 0;
        const DealAnswer outcome = dealer.next(index, int(worker.unfinished()), item, tag);
        if (outcome == DealAnswer::Done) told_done_[d] = true;
        if (outcome != DealAnswer::Work) continue;
        worker.push(
            ItemToRender{dealer.frame_settings(item.frame), item.rows, item.samples, dealer.starting_sums(item), tag});
    }
}

bool LocalWorkers::finished() const {
    for (size_t d = 0; d < workers_.size(); ++d) {
        if (!told_done_[d] || workers_[d]->unfinished() > 0) return false;
    }
    return true;
}

std::vector<const ItemWorker*> LocalWorkers::workers() const {
    std::vector<const ItemWorker*> workers;
    for (const auto& worker : workers_) workers.push_back(worker.get());
    return workers;
}

std::string LocalWorkers::json(TimePoint start) const {
    std::string array = "[";
    for (size_t d = 0; d < workers_.size(); ++d) {
        const ItemWorker& worker = *workers_[d];
        JsonObject device;
        device.add("device", devices_[d]->description())
            .add("items", worker.bands_done())
            .add("samples", worker.samples_done())
            .add("busy_seconds", worker.busy_seconds());
        if (devices_[d]->launches() > 0) device.add("launches", devices_[d]->launches());
        if (devices_[d]->device_busy_seconds() > 0)
            device.add("device_busy_seconds", devices_[d]->device_busy_seconds());
        if (worker.bands_done() > 0) {
            device.add("first_start_seconds", seconds_between(start, worker.first_start()))
                .add("last_end_seconds", seconds_between(start, worker.last_end()));
        }
        array += (d > 0 ? ", " : "") + device.str();
    }
    return array + "]";
}

}  // namespace farmrt
