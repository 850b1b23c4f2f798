// The job as rank 0 broadcasts it (render/farm_job.h's JobMessage): the
// settings, the scene's flat arrays and the job-wide options, as bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/farm_job.h"

namespace farmrt {

std::vector<char> serialize_job(const JobMessage& job);
// Throws RenderError when the bytes are not a complete job from this version.
JobMessage deserialize_job(const std::vector<char>& bytes);

}  // namespace farmrt
