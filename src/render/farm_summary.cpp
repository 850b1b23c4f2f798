#include "render/farm_summary.h"

#include <algorithm>
#include <cstdio>

#include "core/version.h"
#include "io/frame_list.h"
#include "render/frame_log.h"
#include "render/interrupt.h"
#include "render/progress.h"

namespace farmrt {
namespace {

uint64_t bands_of(const std::vector<RankReport>& reports) {
    uint64_t bands = 0;
    for (const RankReport& r : reports) bands += r.bands;
    return bands;
}

// Samples traced: with adaptive sampling those the pixels took (they stop
// early), not the sample positions the dealt items spanned.
uint64_t samples_traced(const JobOutcome& o) {
    const bool adaptive = o.description.settings.noise_threshold > 0.0f && o.result.frame_sample_positions > 0;
    return adaptive ? std::min(o.result.samples, o.result.frame_samples_taken) : o.result.samples;
}

double samples_per_second(const JobOutcome& o) { return double(samples_traced(o)) / o.phases.render; }

// Rays traced per second of the render phase, every rank's together.
double rays_per_second(const JobOutcome& o) {
    return o.phases.render > 0 ? double(rays_of(o.reports).total()) / o.phases.render : 0.0;
}

// The rays traced by kind and the largest rank's peak memory, the summary's second line.
void print_work_line(const JobOutcome& o) {
    const RayCounts rays = rays_of(o.reports);
    uint64_t peak = 0;
    for (const RankReport& r : o.reports) peak = std::max(peak, r.peak_resident_bytes);
    const std::string where = o.ranks > 1 ? " (the largest of " + std::to_string(o.ranks) + " ranks)" : "";
    std::fprintf(stderr,
                 "farmrt: %llu rays traced (camera %llu, extension %llu, shadow %llu); peak memory %llu MiB%s\n",
                 (unsigned long long)rays.total(), (unsigned long long)rays.camera, (unsigned long long)rays.extension,
                 (unsigned long long)rays.shadow, (unsigned long long)(peak >> 20), where.c_str());
}

}  // namespace

void print_summary(const JobOutcome& o) {
    const RenderSettings& settings = o.description.settings;
    const FarmSummary summary = summarize(o.reports, o.phases.render, o.phases.total);
    const size_t planned = o.planned_frames.size();
    const std::string duration = format_duration(o.phases.total);
    const unsigned long long bands = bands_of(o.reports);
    if (o.result.interrupted && o.result.kept.checkpoints == 0) {
        // Said as it is: no band had finished a pass, so there was nothing to keep.
        std::fprintf(stderr,
                     "farmrt: stopped by %s after writing %zu of %zu frames; no pass of the frame in progress had "
                     "finished, so no checkpoint was written (rerun with --resume to render it from the start)\n",
                     signal_name(interrupt_signal()), o.result.frames_written, o.frames_to_render);
    } else if (o.result.interrupted) {
        std::fprintf(stderr,
                     "farmrt: stopped by %s after writing %zu of %zu frames; %zu checkpoint%s saved with %.4g pixel "
                     "samples, rerun with --resume to continue\n",
                     signal_name(interrupt_signal()), o.result.frames_written, o.frames_to_render,
                     o.result.kept.checkpoints, o.result.kept.checkpoints == 1 ? "" : "s",
                     double(o.result.kept.samples));
    } else if (o.frames_to_render == 0) {
        std::fprintf(stderr, "farmrt: all %zu frames of %s are already complete (--resume)\n", planned,
                     settings.output.c_str());
    } else if (planned > 1) {
        std::fprintf(stderr,
                     "farmrt: wrote %zu frames %s (%ux%u, %u spp; %zu already complete, %zu resumed) in %s, %.3g "
                     "samples/s (%.3g rays/s) on %d ranks (%d threads), %llu items, load imbalance %.3f\n",
                     o.result.frames_written, settings.output.c_str(), settings.width, settings.height, settings.spp,
                     planned - o.frames_to_render, o.resumed_frames, duration.c_str(), samples_per_second(o),
                     rays_per_second(o), o.ranks, summary.total_threads, bands, summary.load_imbalance);
    } else if (o.ranks == 1) {
        std::fprintf(stderr, "farmrt: wrote %s (%ux%u, %u spp) in %s, %.3g samples/s (%.3g rays/s) on %d threads\n",
                     o.output.c_str(), settings.width, settings.height, settings.spp, duration.c_str(),
                     samples_per_second(o), rays_per_second(o), o.renderer.threads());
    } else {
        std::fprintf(stderr,
                     "farmrt: wrote %s (%ux%u, %u spp) in %s, %.3g samples/s (%.3g rays/s) on %d ranks (%d threads), "
                     "%s schedule, %llu bands, load imbalance %.3f\n",
                     o.output.c_str(), settings.width, settings.height, settings.spp, duration.c_str(),
                     samples_per_second(o), rays_per_second(o), o.ranks, summary.total_threads,
                     schedule_name(o.schedule), bands, summary.load_imbalance);
    }
    if (o.frames_to_render > 0) print_work_line(o);
    if (settings.noise_threshold > 0.0f && o.result.frame_sample_positions > 0) {
        const double pixels =
            double(settings.width) * settings.height * double(std::max<size_t>(o.result.frames_written, 1));
        std::fprintf(stderr, "farmrt: adaptive sampling: %.1f samples per pixel on average (of %u; %.0f%% saved)\n",
                     double(o.result.frame_samples_taken) / pixels, settings.spp,
                     100.0 * (1.0 - double(o.result.frame_samples_taken) / double(o.result.frame_sample_positions)));
    }
    if (o.result.frames_time_limited > 0) {
        std::fprintf(
            stderr,
            "farmrt: %zu of those frames ended at --time-limit %gs with fewer than %u spp (see their metadata)\n",
            o.result.frames_time_limited, o.command_line.time_limit, settings.spp);
    }
}

std::string stats_json(const JobOutcome& o) {
    const RenderSettings& settings = o.description.settings;
    const Scene& scene = o.description.scene;
    const FarmSummary summary = summarize(o.reports, o.phases.render, o.phases.total);
    JsonObject frames;
    frames.add("list", format_frame_list(o.planned_frames))
        .add("planned", uint64_t(o.planned_frames.size()))
        .add("skipped_complete", uint64_t(o.planned_frames.size() - o.frames_to_render))
        .add("resumed", uint64_t(o.resumed_frames))
        .add("rendered", uint64_t(o.result.frames_written))
        .add("interrupted", o.result.interrupted)
        .add("time_limited", uint64_t(o.result.frames_time_limited))
        .add("samples_taken", o.result.frame_samples_taken)
        .add("passes", uint64_t(o.result.passes));
    JsonObject stats;
    stats.add("software", std::string(kSoftwareName) + " " + kVersion)
        .add("scene", settings.scene_file)
        .add_raw("settings", settings_json(settings))
        .add("backend", o.renderer.description())
        .add("threads", o.renderer.threads())
        .add("tile", o.command_line.tile_size)
        .add("primitives", uint64_t(scene.primitive_count()))
        .add("instances", uint64_t(scene.instance_count()))
        .add("rendered_primitives", scene.rendered_primitive_count())
        .add("lights", uint64_t(scene.lights().size()))
        .add("bvh_nodes", uint64_t(scene.nodes().size()))
        .add_raw("seconds", phases_json(o.phases))
        .add("samples", samples_traced(o))
        .add("peak_resident_bytes", peak_resident_bytes())
        .add("samples_per_second", samples_per_second(o))
        .add_raw("rays", rays_json(rays_of(o.reports), o.phases.render))
        .add("ranks", o.ranks)
        .add("schedule", schedule_name(o.schedule))
        .add("band_rows", o.band_rows)
        .add("bands", bands_of(o.reports))
        .add("wall_seconds", o.phases.total)
        .add("render_seconds", o.phases.render)
        .add("total_threads", summary.total_threads)
        .add("load_imbalance", summary.load_imbalance)
        .add("parallel_efficiency", summary.parallel_efficiency)
        .add("communication_fraction", summary.communication_fraction_max)
        .add("communication_fraction_mean", summary.communication_fraction_mean)
        .add("waiting_fraction_mean", summary.waiting_fraction_mean)
        .add_raw("per_rank", ranks_json(o.reports))
        .add_raw("frames", frames.str())
        .add_raw("dealer", o.result.dealer)
        .add_raw("devices", o.result.devices.empty() ? "[]" : o.result.devices);
    return stats.str();
}

}  // namespace farmrt
