// A rank other than 0: asks rank 0 for work items, renders them on its
// render thread and sends their sums back, until told there is no more.
#pragma once

#include "mpi/mpi_session.h"
#include "render/farm_context.h"

namespace farmrt {

void render_frames_as_worker(MpiClock& clock, const RenderContext& context, const SceneDescription& description,
                             RankReport& report, double rank_timeout, TimePoint& first_start, TimePoint& last_end);

}  // namespace farmrt
