#include "render/farm_job.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/errors.h"
#include "core/version.h"
#include "io/frame_list.h"
#include "io/image_output.h"
#include "io/openimageio_loader.h"
#include "io/scene_identity.h"
#include "io/temporary_name.h"
#include "render/farm_engine.h"
#include "render/farm_failure.h"
#include "render/farm_summary.h"
#include "render/frame_log.h"
#include "render/interrupt.h"
#include "render/progress.h"
#include "render/render_job.h"
#include "render/run_report.h"

namespace farmrt {
namespace {

// Threads for this process's renderer when --threads is not given: a process
// that the launcher bound to some CPUs uses those; unbound processes share the
// node's CPUs evenly, less one core for each GPU process of the node (which
// needs a core only to feed its GPU). OMP_NUM_THREADS, when set, is the user's
// choice (0 = keep it).
int default_threads(const Cluster& cluster, const Backends& backends, const std::string& backend) {
    if (std::getenv("OMP_NUM_THREADS")) return 0;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    CPU_ZERO(&set);
    int allowed = int(online > 0 ? online : 1);
    if (sched_getaffinity(0, sizeof set, &set) == 0) allowed = std::max(1, CPU_COUNT(&set));
    if (online > 0 && allowed < online) return allowed;
    const int ranks = std::max(1, cluster.processes_on_node());
    const int gpu_ranks = std::min(backends.gpu_ranks_on_node(backend, ranks), ranks);
    if (gpu_ranks > 0 && gpu_ranks < ranks && allowed > gpu_ranks) {
        return std::max(1, (allowed - gpu_ranks) / (ranks - gpu_ranks));
    }
    return std::max(1, allowed / ranks);
}

uint64_t bvh_hash(const Scene& scene) {
    const auto& nodes = scene.nodes();
    const auto& refs = scene.primitive_refs();
    return fnv1a(refs.data(), refs.size() * sizeof(PrimitiveRef), fnv1a(nodes.data(), nodes.size() * sizeof(BvhNode)));
}

// Process 0's plan for the frames: which to render, from which checkpoints.
struct FramePlan {
    std::vector<PlannedFrame> planned;  // every frame of the job
    std::vector<PlannedFrame> frames;   // those still to render
    std::map<uint32_t, std::unique_ptr<FrameAccumulator>> resumed;
    uint64_t samples_to_render = 0;
};

FramePlan plan_frame_job(const SceneDescription& description, const CommandLine& command_line) {
    FramePlan plan;
    plan.planned = plan_frames(description, command_line.frames);
    const RenderSettings& settings = description.settings;
    const uint64_t frame_samples = uint64_t(settings.width) * settings.height * settings.spp;
    for (const PlannedFrame& task : plan.planned) {
        // --resume: temporaries that a killed run left beside the frame's
        // image and checkpoint go; a frame whose image is complete is done.
        if (command_line.resume) {
            remove_stale_temporaries(task.output, std::filesystem::path(task.output).extension().string());
            remove_stale_temporaries(task.checkpoint, ".tmp");
        }
        if (command_line.resume) {
            std::string why_not;
            if (is_complete_image(task.output, settings.width, settings.height, frame_digest(description, task.frame),
                                  settings.spp, &why_not)) {
                continue;
            }
            // An image made with other settings is not this run's frame.
            if (!why_not.empty()) {
                std::fprintf(stderr, "farmrt: note: %s was rendered with %s: rendering it again\n", task.output.c_str(),
                             why_not.c_str());
            }
        }
        plan.frames.push_back(task);
        plan.samples_to_render += frame_samples;
        std::error_code error;
        if (!std::filesystem::exists(task.checkpoint, error)) continue;
        if (!command_line.resume) {
            if (!command_line.quiet) {
                std::fprintf(
                    stderr,
                    "farmrt: note: %s starts afresh; its checkpoint %s will be replaced (--resume continues it)\n",
                    task.output.c_str(), task.checkpoint.c_str());
            }
            continue;
        }
        // Read and checked now, so that a corrupt or mismatched checkpoint stops the job before it starts.
        auto accumulator =
            std::make_unique<FrameAccumulator>(settings.width, settings.height, settings.spp,
                                               frame_identity(description, task.frame), pixel_record_floats(settings));
        accumulator->resume_from(task.checkpoint);
        plan.samples_to_render -= accumulator->samples_done();
        plan.resumed.emplace(task.frame, std::move(accumulator));
    }
    return plan;
}

// One rank's job, step by step.
class FarmJob {
public:
    FarmJob(const CommandLine& command_line, const Backends& backends, Cluster& cluster)
        : command_line_(command_line), backends_(backends), cluster_(cluster), root_(cluster.rank() == 0) {
        report_.rank = cluster.rank();
        report_.set_host(cluster.host());
    }

    int run() {
        {
            ExitAtStopWhileLoading loading(root_);
            // The GPU driver starts while the scene is read (a million
            // triangles take about as long to read as the driver to start).
            std::future<void> driver;
            if (backends_.start_gpu_driver && command_line_.backend != "cpu") {
                driver = std::async(std::launch::async, backends_.start_gpu_driver, command_line_.backend);
            }
            read_and_plan();
            if (driver.valid()) driver.get();
            set_up();
        }
        render();
        finish();
        return root_ && result_.interrupted ? kExitInterrupted : 0;
    }

private:
    // 1. Rank 0 reads and validates the scene (and that its outputs can be
    //    written), plans the frames and reads the checkpoints it will continue.
    void read_and_plan() {
        std::exception_ptr error;
        if (root_) {
            try {
                job_.description = load_job_scene(command_line_, phases_);
                plan_ = plan_frame_job(job_.description, command_line_);
                // OpenImageIO loads (0.5 s) while the scene renders, not after.
                if (!plan_.frames.empty() && needs_openimageio(plan_.frames[0].output)) preload_openimageio();
                job_.options.schedule = command_line_.schedule;
                job_.options.band_rows = uint32_t(command_line_.band_rows);
                job_.options.linear_list = command_line_.linear_list;
                cluster_.ready_job(job_);
            } catch (...) {
                error = std::current_exception();
            }
        }
        cluster_.agree_on_failure(error);
    }

    // 2. Every other rank receives the scene; every rank builds the BVH and its renderer.
    void set_up() {
        std::exception_ptr error;
        try {
            report_.bytes_sent += cluster_.share_job(job_);
            schedule_ = parse_schedule(job_.options.schedule);
            CommandLine rank_command_line = command_line_;  // this rank's own backend options
            rank_command_line.linear_list = job_.options.linear_list;
            prepared_ =
                std::make_unique<PreparedJob>(prepare_job(std::move(job_.description), rank_command_line, phases_));
            phases_ = prepared_->phases;
            RendererOptions options = make_renderer_options(rank_command_line);
            options.ranks_on_node = std::max(1, cluster_.processes_on_node());
            if (options.threads <= 0) options.threads = default_threads(cluster_, backends_, options.backend);
            const auto setup_start = Clock::now();
            renderer_ = backends_.make_renderer(prepared_->description.scene, options);
            phases_.backend_setup = seconds_between(setup_start, Clock::now());
        } catch (...) {
            error = std::current_exception();
        }
        cluster_.agree_on_failure(error);
        report_.set_backend(renderer_->description());
        report_.threads = renderer_->threads();
        report_.bvh_hash = bvh_hash(prepared_->description.scene);
        const RenderSettings& settings = prepared_->description.settings;
        band_rows_ = job_.options.band_rows;
        if (schedule_ != Schedule::Dynamic && band_rows_ == 0) {
            band_rows_ = automatic_band_rows(settings.width, settings.height, cluster_.size());
        }
    }

    // 3. Render. From here a failing rank ends the job at once.
    void render() {
        FailureInjection failure = command_line_.inject_failure;
        if (failure.rank != cluster_.rank()) failure = FailureInjection{};
        const RenderContext context{cluster_,   schedule_, band_rows_, prepared_->description.settings.spp,
                                    *renderer_, failure};
        TimePoint first_start{}, last_end{};
        const auto render_start = Clock::now();
        report_.setup = seconds_between(job_start_, render_start);
        frames_to_render_ = plan_.frames.size();
        resumed_frames_ = plan_.resumed.size();
        try {
            if (root_) {
                FramesToRender frame_job{prepared_->description, std::move(plan_.frames), std::move(plan_.resumed),
                                         plan_.samples_to_render};
                result_ = render_frames_as_root(context, frame_job, command_line_, report_, first_start, last_end);
            } else {
                cluster_.serve(context, prepared_->description, report_, command_line_.rank_timeout, first_start,
                               last_end);
            }
            // Every rank has been told "no more" by now: rank 0 waits only for
            // their last messages, at most --rank-timeout (a rank stopped at the end).
            cluster_.barrier(root_ ? command_line_.rank_timeout : 0);
        } catch (...) {
            cluster_.end_job_after_failure(std::current_exception());
        }
        const auto render_end = Clock::now();
        // Images are written as frames complete, inside the render loop: their
        // writing counts as the write phase, not as rendering.
        phases_.render = seconds_between(render_start, render_end) - result_.write_seconds;
        report_.waiting = std::max(0.0, phases_.render - report_.busy);
        if (report_.bands > 0) {
            report_.first_band_wait = seconds_between(render_start, first_start);
            report_.tail_wait = seconds_between(last_end, render_end);
        }
    }

    // 4. Rank 0 gathers the ranks' reports, prints the summary and writes the run report.
    void finish() {
        try {
            const std::vector<RankReport> reports = gather_reports();
            if (root_) {
                for (const RankReport& r : reports) {
                    if (r.bvh_hash != report_.bvh_hash) {
                        throw RenderError(
                            "rank " + std::to_string(r.rank) + " (" + r.host +
                            ") built a different BVH than rank 0: are all ranks running the same farmrt build?");
                    }
                }
                phases_.write = result_.write_seconds;
                phases_.total = seconds_between(job_start_, Clock::now());
                const JobOutcome outcome = outcome_of(reports);
                if (!command_line_.quiet) print_summary(outcome);
                if (!command_line_.stats_file.empty()) {
                    write_text_file_atomically(command_line_.stats_file, stats_json(outcome) + "\n");
                }
            }
            // Ranks stay until the run report is written, waiting without spinning.
            cluster_.barrier(0);
        } catch (...) {
            cluster_.end_job_after_failure(std::current_exception());
        }
    }

    std::vector<RankReport> gather_reports() {
        report_.communicating = cluster_.communicating_seconds();
        report_.peak_resident_bytes = peak_resident_bytes();
        if (renderer_) {
            report_.gpu_memory_bytes = renderer_->gpu_memory_used_bytes();
            report_.rays = renderer_->rays_traced();
        }
        return cluster_.gather_reports(report_, command_line_.rank_timeout);
    }

    JobOutcome outcome_of(const std::vector<RankReport>& reports) const {
        std::vector<uint32_t> planned;
        for (const PlannedFrame& task : plan_.planned) planned.push_back(task.frame);
        const std::string output =
            plan_.planned.size() == 1 ? plan_.planned[0].output : prepared_->description.settings.output;
        return JobOutcome{prepared_->description, command_line_, *renderer_, phases_, reports, result_,
                          cluster_.size(),        schedule_,     band_rows_, planned, output,  frames_to_render_,
                          resumed_frames_};
    }

    const CommandLine& command_line_;
    const Backends& backends_;
    Cluster& cluster_;
    const bool root_;
    const TimePoint job_start_ = Clock::now();
    PhaseTimes phases_;
    RankReport report_;
    JobMessage job_;
    FramePlan plan_;
    std::unique_ptr<PreparedJob> prepared_;
    std::unique_ptr<BandRenderer> renderer_;
    Schedule schedule_ = Schedule::Dynamic;
    uint32_t band_rows_ = 0;
    size_t frames_to_render_ = 0, resumed_frames_ = 0;
    FrameFarmResult result_;
};

}  // namespace

int run_farm_job(const CommandLine& command_line, const Backends& backends, Cluster& cluster) {
    return FarmJob(command_line, backends, cluster).run();
}

}  // namespace farmrt
