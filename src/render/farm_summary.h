// What rank 0 tells at the end of a job: the one summary line on stderr and
// the run report (--stats).
#pragma once

#include <string>
#include <vector>

#include "render/band_schedule.h"
#include "render/farm_report.h"
#include "render/farm_engine.h"
#include "render/band_renderer.h"
#include "render/command_line.h"
#include "render/run_report.h"

namespace farmrt {

struct JobOutcome {
    const SceneDescription& description;
    const CommandLine& command_line;
    const BandRenderer& renderer;  // rank 0's
    const PhaseTimes& phases;
    const std::vector<RankReport>& reports;  // every rank's
    const FrameFarmResult& result;
    int ranks = 1;
    Schedule schedule = Schedule::Dynamic;
    uint32_t band_rows = 0;
    std::vector<uint32_t> planned_frames;
    std::string output;  // the image, or the frame pattern of a sequence
    size_t frames_to_render = 0, resumed_frames = 0;
};

void print_summary(const JobOutcome& outcome);
std::string stats_json(const JobOutcome& outcome);

}  // namespace farmrt
