#include "mpi/farm_job.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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
#include "mpi/farm_root.h"
#include "mpi/farm_worker.h"
#include "mpi/job_message.h"
#include "render/interrupt.h"
#include "render/progress.h"
#include "render/render_job.h"
#include "render/run_report.h"

namespace farmrt {
namespace {

// Threads for this rank's renderer when --threads is not given: a rank that
// the launcher bound to some CPUs uses those; unbound ranks share the node's
// CPUs evenly, less one core for each GPU rank of the node (a GPU rank needs
// a core only to feed its GPU). OMP_NUM_THREADS, when set, is the user's
// choice (0 = keep it).
int default_threads(const MpiSession& mpi, const Backends& backends, const std::string& backend) {
    if (std::getenv("OMP_NUM_THREADS")) return 0;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    CPU_ZERO(&set);
    int allowed = int(online > 0 ? online : 1);
    if (sched_getaffinity(0, sizeof set, &set) == 0) allowed = std::max(1, CPU_COUNT(&set));
    if (online > 0 && allowed < online) return allowed;
    const int ranks = std::max(1, mpi.ranks_on_node());
    const int gpu_ranks = std::min(backends.gpu_ranks_on_node(backend, ranks), ranks);
    if (gpu_ranks > 0 && gpu_ranks < ranks && allowed > gpu_ranks) {
        return std::max(1, (allowed - gpu_ranks) / (ranks - gpu_ranks));
    }
    return std::max(1, allowed / ranks);
}

uint64_t bvh_hash(const Scene& scene) {
    const auto& nodes = scene.nodes();
    const auto& refs = scene.primitive_refs();
    return fnv1a(refs.data(), refs.size() * sizeof(PrimitiveRef),
                 fnv1a(nodes.data(), nodes.size() * sizeof(BvhNode)));
}

void broadcast_bytes(std::vector<char>& bytes, MpiClock& clock) {
    uint64_t size = bytes.size();
    MPI_Request request;
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast (job size)");
    }
    wait_sleeping(request, clock, "MPI_Ibcast (job size)");
    bytes.resize(size_t(size));
    // In pieces: MPI counts are int.
    constexpr size_t kPiece = size_t(1) << 30;
    for (size_t offset = 0; offset < bytes.size(); offset += kPiece) {
        const int count = int(std::min(kPiece, bytes.size() - offset));
        {
            MpiClock::Scope scope(clock);
            check_mpi(MPI_Ibcast(bytes.data() + offset, count, MPI_BYTE, 0, MPI_COMM_WORLD, &request),
                      "MPI_Ibcast (job)");
        }
        wait_sleeping(request, clock, "MPI_Ibcast (job)");
    }
}

void barrier_sleeping(const MpiSession& mpi, MpiClock& clock, double timeout_seconds = 0) {
    if (mpi.size() == 1) return;
    MPI_Request request;
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    }
    wait_sleeping(request, clock, "MPI_Ibarrier", timeout_seconds);
}

}  // namespace

namespace {

// Rank 0's plan for the frames: which to render, from which checkpoints.
struct FramePlan {
    std::vector<FrameTask> planned;  // every frame of the job
    std::vector<FrameTask> frames;   // those still to render
    std::map<uint32_t, std::unique_ptr<FrameAccumulator>> resumed;
    uint64_t samples_to_render = 0;
};

FramePlan plan_frame_job(const SceneDescription& description, const CommandLine& command_line) {
    FramePlan plan;
    plan.planned = plan_frames(description, command_line.frames);
    const RenderSettings& settings = description.settings;
    const uint64_t frame_samples = uint64_t(settings.width) * settings.height * settings.spp;
    for (const FrameTask& task : plan.planned) {
        // --resume: temporaries that a killed run left beside the frame's
        // image and checkpoint go; a frame whose image is complete is done.
        if (command_line.resume) {
            remove_stale_temporaries(task.output, std::filesystem::path(task.output).extension().string());
            remove_stale_temporaries(task.checkpoint, ".tmp");
        }
        if (command_line.resume && is_complete_image(task.output, settings.width, settings.height)) continue;
        plan.frames.push_back(task);
        plan.samples_to_render += frame_samples;
        std::error_code error;
        if (!std::filesystem::exists(task.checkpoint, error)) continue;
        if (!command_line.resume) {
            if (!command_line.quiet) {
                std::fprintf(stderr, "farmrt: note: %s starts afresh; its checkpoint %s will be replaced (--resume continues it)\n",
                             task.output.c_str(), task.checkpoint.c_str());
            }
            continue;
        }
        // Read and checked now, so that a corrupt or mismatched checkpoint stops the job before it starts.
        auto accumulator = std::make_unique<FrameAccumulator>(settings.width, settings.height, settings.spp,
                                                              frame_identity(description, task.frame));
        accumulator->resume_from(task.checkpoint);
        plan.samples_to_render -= accumulator->samples_done();
        plan.resumed.emplace(task.frame, std::move(accumulator));
    }
    return plan;
}

}  // namespace

int run_farm_job(const CommandLine& command_line, const Backends& backends, const MpiSession& mpi, MpiClock& clock) {
    const auto job_start = Clock::now();
    const bool root = mpi.rank() == 0;
    PhaseTimes phases;

    // 1. Rank 0 reads and validates the scene (and that its outputs can be written),
    //    plans the frames and reads the checkpoints it will continue (--resume).
    JobMessage job;
    FramePlan frame_plan;
    std::vector<char> bytes;
    {
        std::exception_ptr error;
        if (root) {
            try {
                job.description = load_job_scene(command_line, phases);
                frame_plan = plan_frame_job(job.description, command_line);
                // OpenImageIO loads (0.5 s) while the scene renders, not after.
                if (!frame_plan.frames.empty() && needs_openimageio(frame_plan.frames[0].output)) {
                    preload_openimageio();
                }
                job.options.schedule = command_line.schedule;
                job.options.band_rows = uint32_t(command_line.band_rows);
                job.options.linear_list = command_line.linear_list;
                if (mpi.size() > 1) bytes = serialize_job(job);
            } catch (...) {
                error = std::current_exception();
            }
        }
        agree_on_failure(mpi, clock, error);
    }

    // 2. Every other rank receives it; every rank builds the BVH and its renderer.
    RankReport report;
    report.rank = mpi.rank();
    report.set_host(mpi.host());
    std::unique_ptr<PreparedJob> prepared;
    std::unique_ptr<BandRenderer> renderer;
    Schedule schedule = Schedule::Dynamic;
    {
        std::exception_ptr error;
        try {
            if (mpi.size() > 1) {
                broadcast_bytes(bytes, clock);
                if (root) {
                    report.bytes_sent += bytes.size();
                } else {
                    job = deserialize_job(bytes);
                }
                std::vector<char>().swap(bytes);
            }
            schedule = parse_schedule(job.options.schedule);
            CommandLine rank_command_line = command_line;  // this rank's own backend options
            rank_command_line.linear_list = job.options.linear_list;
            prepared = std::make_unique<PreparedJob>(prepare_job(std::move(job.description), rank_command_line, phases));
            phases = prepared->phases;
            RendererOptions options = make_renderer_options(rank_command_line);
            if (options.threads <= 0) options.threads = default_threads(mpi, backends, options.backend);
            const auto setup_start = Clock::now();
            renderer = backends.make_renderer(prepared->description.scene, options);
            phases.backend_setup = seconds_between(setup_start, Clock::now());
        } catch (...) {
            error = std::current_exception();
        }
        agree_on_failure(mpi, clock, error);
    }
    const RenderSettings& settings = prepared->description.settings;
    report.set_backend(renderer->description());
    report.threads = renderer->threads();
    report.bvh_hash = bvh_hash(prepared->description.scene);

    uint32_t band_rows = job.options.band_rows;
    if (schedule != Schedule::Dynamic && band_rows == 0) {
        band_rows = automatic_band_rows(settings.width, settings.height, mpi.size());
    }
    FailureInjection failure = command_line.inject_failure;
    if (failure.rank != mpi.rank()) failure = FailureInjection{};
    const RenderContext context{mpi, clock, schedule, band_rows, settings.spp, *renderer, failure};

    // 3. Render. From here a failing rank ends the job at once.
    TimePoint first_start{}, last_end{};
    const auto render_start = Clock::now();
    report.setup = seconds_between(job_start, render_start);
    FrameFarmResult frames_result;
    const size_t resumed_frames = frame_plan.resumed.size();
    const size_t frames_to_render = frame_plan.frames.size();
    try {
        if (root) {
            FrameJob frame_job{prepared->description, std::move(frame_plan.frames), std::move(frame_plan.resumed),
                               frame_plan.samples_to_render};
            frames_result = render_frames_as_root(context, frame_job, command_line, report, first_start, last_end);
        } else {
            render_frames_as_worker(context, prepared->description, report, first_start, last_end);
        }
        // Every rank has been told "no more" by now: rank 0 waits only for
        // their last messages, at most --rank-timeout (a rank stopped at the end).
        barrier_sleeping(mpi, clock, root ? command_line.rank_timeout : 0);
    } catch (...) {
        end_job_after_failure(mpi, std::current_exception());
    }
    const auto render_end = Clock::now();
    // Images are written as frames complete, inside the render loop: their
    // writing counts as the write phase, not as rendering.
    phases.render = seconds_between(render_start, render_end) - frames_result.write_seconds;
    report.waiting = std::max(0.0, phases.render - report.busy);
    if (report.bands > 0) {
        report.first_band_wait = seconds_between(render_start, first_start);
        report.tail_wait = seconds_between(last_end, render_end);
    }

    // 4. Rank 0 gathers the reports, writes the image and the run report.
    try {
        report.communicating = clock.seconds;
        std::vector<RankReport> reports(root ? size_t(mpi.size()) : 0);
        if (mpi.size() > 1) {
            MPI_Request request;
            {
                MpiClock::Scope scope(clock);
                check_mpi(MPI_Igather(&report, int(sizeof(RankReport)), MPI_BYTE, reports.data(),
                                      int(sizeof(RankReport)), MPI_BYTE, 0, MPI_COMM_WORLD, &request),
                          "MPI_Igather");
            }
            wait_sleeping(request, clock, "MPI_Igather", command_line.rank_timeout);
        } else {
            reports[0] = report;
        }
        if (root) {
            for (const RankReport& r : reports) {
                if (r.bvh_hash != report.bvh_hash) {
                    throw RenderError("rank " + std::to_string(r.rank) + " (" + r.host +
                                      ") built a different BVH than rank 0: are all ranks running the same farmrt build?");
                }
            }
            phases.write = frames_result.write_seconds;
            phases.total = seconds_between(job_start, Clock::now());

            const uint64_t total_samples = frames_result.samples;
            const std::string output = frame_plan.planned.size() == 1 ? frame_plan.planned[0].output : settings.output;
            const double samples_per_second = double(total_samples) / phases.render;
            const FarmSummary summary = summarize(reports, phases.render, phases.total);
            uint64_t bands = 0;
            for (const RankReport& r : reports) bands += r.bands;
            const size_t frames_planned = frame_plan.planned.size();
            const size_t frames_skipped = frames_planned - frames_to_render;
            if (!command_line.quiet && frames_result.interrupted) {
                std::fprintf(stderr,
                             "farmrt: stopped by %s after writing %zu of %zu frames; checkpoints saved, rerun with "
                             "--resume to continue\n",
                             signal_name(interrupt_signal()), frames_result.frames_written, frames_to_render);
            } else if (!command_line.quiet && frames_to_render == 0) {
                std::fprintf(stderr, "farmrt: all %zu frames of %s are already complete (--resume)\n", frames_planned,
                             settings.output.c_str());
            } else if (!command_line.quiet && frames_planned > 1) {
                std::fprintf(stderr,
                             "farmrt: wrote %zu frames %s (%ux%u, %u spp; %zu already complete, %zu resumed) in %s, "
                             "%.3g samples/s on %d ranks (%d threads), %llu items, load imbalance %.3f\n",
                             frames_result.frames_written, settings.output.c_str(), settings.width, settings.height,
                             settings.spp, frames_skipped, resumed_frames, format_duration(phases.total).c_str(),
                             samples_per_second, mpi.size(), summary.total_threads, (unsigned long long)bands,
                             summary.load_imbalance);
            } else if (!command_line.quiet) {
                if (mpi.size() == 1) {
                    std::fprintf(stderr, "farmrt: wrote %s (%ux%u, %u spp) in %s, %.3g samples/s on %d threads\n",
                                 output.c_str(), settings.width, settings.height, settings.spp,
                                 format_duration(phases.total).c_str(), samples_per_second, renderer->threads());
                } else {
                    std::fprintf(stderr,
                                 "farmrt: wrote %s (%ux%u, %u spp) in %s, %.3g samples/s on %d ranks (%d threads), "
                                 "%s schedule, %llu bands, load imbalance %.3f\n",
                                 output.c_str(), settings.width, settings.height, settings.spp,
                                 format_duration(phases.total).c_str(), samples_per_second, mpi.size(),
                                 summary.total_threads, schedule_name(schedule), (unsigned long long)bands,
                                 summary.load_imbalance);
                }
            }
            if (!command_line.stats_file.empty()) {
                JsonObject stats;
                stats.add("software", std::string(kSoftwareName) + " " + kVersion)
                    .add("scene", settings.scene_file)
                    .add_raw("settings", settings_json(settings))
                    .add("backend", renderer->description())
                    .add("threads", renderer->threads())
                    .add("tile", command_line.tile_size)
                    .add("primitives", uint64_t(prepared->description.scene.primitive_count()))
                    .add("instances", uint64_t(prepared->description.scene.instance_count()))
                    .add("rendered_primitives", prepared->description.scene.rendered_primitive_count())
                    .add("bvh_nodes", uint64_t(prepared->description.scene.nodes().size()))
                    .add_raw("seconds", phases_json(phases))
                    .add("samples", total_samples)
                    .add("samples_per_second", samples_per_second)
                    .add("ranks", mpi.size())
                    .add("schedule", schedule_name(schedule))
                    .add("band_rows", band_rows)
                    .add("bands", bands)
                    .add("wall_seconds", phases.total)
                    .add("render_seconds", phases.render)
                    .add("total_threads", summary.total_threads)
                    .add("load_imbalance", summary.load_imbalance)
                    .add("parallel_efficiency", summary.parallel_efficiency)
                    .add("communication_fraction", summary.communication_fraction_max)
                    .add("communication_fraction_mean", summary.communication_fraction_mean)
                    .add("waiting_fraction_mean", summary.waiting_fraction_mean)
                    .add_raw("per_rank", ranks_json(reports));
                {
                    std::vector<uint32_t> numbers;
                    for (const FrameTask& task : frame_plan.planned) numbers.push_back(task.frame);
                    JsonObject frames;
                    frames.add("list", format_frame_list(numbers))
                        .add("planned", uint64_t(frames_planned))
                        .add("skipped_complete", uint64_t(frames_skipped))
                        .add("resumed", uint64_t(resumed_frames))
                        .add("rendered", uint64_t(frames_result.frames_written))
                        .add("interrupted", frames_result.interrupted)
                        .add("passes", uint64_t(frames_result.passes));
                    stats.add_raw("frames", frames.str());
                    stats.add_raw("dealer", frames_result.dealer);
                }
                write_text_file_atomically(command_line.stats_file, stats.str() + "\n");
            }
        }
        // Ranks stay until the image is written, waiting without spinning.
        barrier_sleeping(mpi, clock);
    } catch (...) {
        end_job_after_failure(mpi, std::current_exception());
    }
    return root && frames_result.interrupted ? kExitInterrupted : 0;
}

}  // namespace farmrt
