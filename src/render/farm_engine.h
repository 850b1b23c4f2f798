// The farm engine, on process 0 of a job: deals work items of every frame
// (FrameQueue) to its workers, this process's devices and the other
// processes alike (render/farm_workers.h), adds their results to the frames,
// has each frame written as it completes and the open ones checkpointed
// (render/output_driver.h), and stops the job on SIGTERM/SIGINT/SIGUSR1
// within seconds. It never speaks MPI: the other processes of an MPI job are
// a worker set that mpi/ provides (Cluster::other_processes).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "render/farm_context.h"
#include "render/output_driver.h"

namespace farmrt {

// What process 0's engine renders: the frames still to render (FramePlan's,
// farm_job.cpp) and those resumed from checkpoints.
struct FramesToRender {
    const SceneDescription& description;
    std::vector<PlannedFrame> frames;                               // to render, in order
    std::map<uint32_t, std::unique_ptr<FrameAccumulator>> resumed;  // frame -> from its checkpoint
    uint64_t samples_to_render = 0;                                 // over `frames`, less what checkpoints hold
};

struct FrameFarmResult {
    size_t frames_written = 0;
    bool interrupted = false;
    KeptWork kept;  // when interrupted
    uint32_t passes = 0;
    size_t frames_time_limited = 0;  // ended by --time-limit with fewer samples than asked
    // Over the frames written: the samples their pixels took, and the
    // samples of their sample positions (more where adaptive sampling stopped pixels).
    uint64_t frame_samples_taken = 0, frame_sample_positions = 0;
    uint64_t samples = 0;      // traced in this job (abandoned items not counted)
    double write_seconds = 0;  // writing images, within the render phase
    std::string dealer;        // the dealer's tuning, as JSON (the run report)
    std::string devices;       // this process's devices' work, as JSON (LocalWorkers::json)
};

FrameFarmResult render_frames_as_root(const RenderContext& context, FramesToRender& job,
                                      const CommandLine& command_line, RankReport& report, TimePoint& first_start,
                                      TimePoint& last_end);

}  // namespace farmrt
