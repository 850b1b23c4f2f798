// What rank 0 broadcasts after it has read and validated the scene: the
// settings, the scene's flat arrays and the job-wide options, as bytes. Ranks
// never open the scene file (on a cluster only the submitting node may see
// it, and mesh or texture files with it); each builds the same BVH from the
// same arrays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/scene_loader.h"

namespace farmrt {

// Options that must agree on every rank, so they come from rank 0's command line.
struct FarmOptions {
    std::string schedule = "dynamic";
    uint32_t band_rows = 0;  // 0: automatic
    bool linear_list = false;
};

struct JobMessage {
    SceneDescription description;
    FarmOptions options;
};

std::vector<char> serialize_job(const JobMessage& job);
// Throws RenderError when the bytes are not a complete job from this version.
JobMessage deserialize_job(const std::vector<char>& bytes);

}  // namespace farmrt
