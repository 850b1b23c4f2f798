#include "render/farm_report.h"

#include <algorithm>
#include <cstring>

#include "io/scene_identity.h"
#include "render/run_report.h"

namespace farmrt {
namespace {

template <size_t N>
void copy_text(char (&field)[N], const std::string& text) {
    const size_t n = std::min(text.size(), N - 1);
    std::memcpy(field, text.data(), n);
    field[n] = '\0';
}

}  // namespace

void RankReport::set_host(const std::string& text) { copy_text(host, text); }
void RankReport::set_backend(const std::string& text) { copy_text(backend, text); }

RayCounts rays_of(const std::vector<RankReport>& ranks) {
    RayCounts rays;
    for (const RankReport& r : ranks) rays += r.rays;
    return rays;
}

FarmSummary summarize(const std::vector<RankReport>& ranks, double render_seconds, double wall_seconds) {
    FarmSummary s;
    if (ranks.empty()) return s;
    double busy_max = 0, busy_sum = 0, thread_busy = 0, comm_sum = 0, waiting_sum = 0;
    for (const RankReport& r : ranks) {
        busy_max = std::max(busy_max, r.busy);
        busy_sum += r.busy;
        thread_busy += r.busy * r.threads;
        s.total_threads += r.threads;
        comm_sum += r.communicating;
        waiting_sum += r.waiting;
        if (wall_seconds > 0)
            s.communication_fraction_max = std::max(s.communication_fraction_max, r.communicating / wall_seconds);
    }
    const double n = double(ranks.size());
    s.load_imbalance = busy_sum > 0 ? busy_max / (busy_sum / n) : 1.0;
    s.parallel_efficiency =
        render_seconds > 0 && s.total_threads > 0 ? thread_busy / (render_seconds * s.total_threads) : 0.0;
    s.communication_fraction_mean = wall_seconds > 0 ? comm_sum / n / wall_seconds : 0.0;
    s.waiting_fraction_mean = render_seconds > 0 ? waiting_sum / n / render_seconds : 0.0;
    return s;
}

std::string rays_json(const RayCounts& rays, double seconds) {
    JsonObject o;
    o.add("camera", rays.camera)
        .add("extension", rays.extension)
        .add("shadow", rays.shadow)
        .add("total", rays.total())
        .add("per_second", seconds > 0 ? double(rays.total()) / seconds : 0.0);
    return o.str();
}

std::string ranks_json(const std::vector<RankReport>& ranks) {
    std::string out = "[";
    for (size_t i = 0; i < ranks.size(); ++i) {
        const RankReport& r = ranks[i];
        JsonObject o;
        o.add("rank", int(r.rank))
            .add("host", std::string(r.host))
            .add("backend", std::string(r.backend))
            .add("threads", int(r.threads))
            .add("bands", r.bands)
            .add("samples", r.samples)
            .add_raw("rays", rays_json(r.rays, r.busy))
            .add("setup_seconds", r.setup)
            .add("busy_seconds", r.busy)
            .add("waiting_seconds", r.waiting)
            .add("first_band_wait_seconds", r.first_band_wait)
            .add("tail_wait_seconds", r.tail_wait)
            .add("communicating_seconds", r.communicating)
            .add("bytes_sent", r.bytes_sent)
            .add("peak_resident_bytes", r.peak_resident_bytes);
        if (r.gpu_memory_bytes > 0) o.add("gpu_memory_bytes", r.gpu_memory_bytes);
        if (r.requests > 0) {
            o.add("requests", r.requests)
                .add("request_latency_mean_seconds", r.request_latency_mean)
                .add("request_latency_max_seconds", r.request_latency_max);
        }
        out += (i ? ", " : "") + o.str();
    }
    return out + "]";
}

// The core's FNV-1a (src/io/scene_identity.h), from this file's own default start.
uint64_t fnv1a(const void* data, size_t size, uint64_t hash) { return fnv1a64(data, size, hash); }

}  // namespace farmrt
