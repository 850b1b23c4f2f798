// What both sides of the farm loop share: the rank's job context, the
// frame settings of each frame, and how a rank's render thread is recorded.
#pragma once

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <vector>

#include "render/band_renderer.h"
#include "render/band_schedule.h"
#include "render/item_worker.h"
#include "render/cluster.h"
#include "render/command_line.h"
#include "render/farm_report.h"
#include "render/frame_job.h"

namespace farmrt {

inline double seconds_between(TimePoint start, TimePoint end) {
    return std::chrono::duration<double>(end - start).count();
}

struct RenderContext {
    Cluster& cluster;
    Schedule schedule;
    uint32_t band_rows;  // static/cyclic: resolved; dynamic: fixed size or 0 (guided)
    uint32_t spp;
    BandRenderer& renderer;
    FailureInjection failure;  // this rank's, or disabled
};

// One FrameSettings per frame number (the camera after animation), cached.
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

// What a rank's render threads (one per device) did, into its report: the
// busiest one's busy time, every thread's bands and samples; `first_start`
// and `last_end` are when the first item started and the last ended (epoch
// when none did).
inline void record_rendering(const std::vector<const ItemWorker*>& workers, RankReport& report, TimePoint& first_start,
                             TimePoint& last_end) {
    bool any = false;
    report.busy = 0;
    report.bands = report.samples = 0;
    for (const ItemWorker* worker : workers) {
        report.bands += worker->bands_done();
        report.samples += worker->samples_done();
        if (worker->bands_done() == 0) continue;
        report.busy = std::max(report.busy, worker->busy_seconds());
        first_start = any ? std::min(first_start, worker->first_start()) : worker->first_start();
        last_end = any ? std::max(last_end, worker->last_end()) : worker->last_end();
        any = true;
    }
}

}  // namespace farmrt
