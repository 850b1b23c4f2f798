// What each rank did, gathered on rank 0 for the summary line and --stats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ray_counts.h"

namespace farmrt {

// Plain bytes, so that a cluster can carry it between processes of one build.
struct RankReport {
    char host[64] = {};
    char backend[96] = {};
    int32_t rank = 0;
    int32_t threads = 0;
    uint64_t bands = 0;
    uint64_t samples = 0;
    uint64_t bytes_sent = 0;
    uint64_t bvh_hash = 0;       // every rank must have built the same BVH
    double setup = 0;            // job start to render start: scene, BVH, renderer
    double busy = 0;             // inside BandRenderer::render
    double waiting = 0;          // render phase with nothing to render
    double communicating = 0;    // inside MPI calls (overlaps rendering)
    double first_band_wait = 0;  // render start to the first band's start (part of waiting)
    double tail_wait = 0;        // last band's end to the end of the render phase (part of waiting)
    double request_latency_mean = 0, request_latency_max = 0;  // dynamic: request to band, seconds
    uint64_t requests = 0;
    uint64_t peak_resident_bytes = 0;  // the rank's high-water mark at the end (getrusage)
    uint64_t gpu_memory_bytes = 0;     // a GPU rank's device memory in use at the end
    RayCounts rays;                    // traced by the rank's renderer (BandRenderer::rays_traced)

    void set_host(const std::string& text);
    void set_backend(const std::string& text);
};

struct FarmSummary {
    double load_imbalance = 1;              // max busy / mean busy
    double parallel_efficiency = 1;         // rendering thread-seconds / (render wall * all threads)
    double communication_fraction_max = 0;  // max over ranks of communicating / wall
    double communication_fraction_mean = 0;
    double waiting_fraction_mean = 0;  // mean waiting / render wall
    int total_threads = 0;
};

// Every rank's rays together.
RayCounts rays_of(const std::vector<RankReport>& ranks);
FarmSummary summarize(const std::vector<RankReport>& ranks, double render_seconds, double wall_seconds);
// {"camera", "extension", "shadow", "total", "per_second"}: rays traced in `seconds`.
std::string rays_json(const RayCounts& rays, double seconds);
std::string ranks_json(const std::vector<RankReport>& ranks);
// 64-bit FNV-1a of a byte range, chained through `hash`.
uint64_t fnv1a(const void* data, size_t size, uint64_t hash = 1469598103934665603ull);

}  // namespace farmrt
