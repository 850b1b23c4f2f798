// --frame-log: one JSON line per frame as it completes, for a farm manager
// (Deadline, Flamenco, a shell loop) to follow a job without parsing stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace farmrt {

// What one rank holds, as last told to rank 0.
struct RankMemory {
    int rank = 0;
    uint64_t peak_resident_bytes = 0;  // the process's high-water mark (getrusage)
    bool has_gpu = false;
    uint64_t gpu_memory_used_bytes = 0;  // its GPU's memory in use (cudaMemGetInfo)
};

struct FrameLogEntry {
    uint32_t frame = 0;
    std::string output;
    uint32_t spp = 0;            // samples per pixel in the image
    uint32_t spp_requested = 0;  // the scene's; more than spp when the time limit ended the frame
    bool time_limited = false;
    uint64_t samples =
        0;  // taken by this run (a resumed frame's checkpoint excluded; adaptive sampling's skipped ones too)
    double render_seconds = 0;  // from the frame's first item to its last sample
    double write_seconds = 0;   // encoding and writing the image
    double job_seconds = 0;     // since the job started, when the line was written
    std::vector<RankMemory> ranks;
};

std::string frame_log_line(const FrameLogEntry& entry);
// Appends `line` and a newline in one write (O_APPEND), so that lines of
// several jobs sharing a log never interleave; throws RenderError naming the path.
void append_line(const std::string& path, const std::string& line);
// Throws InputError when `path` cannot be opened for appending.
void check_appendable(const std::string& option, const std::string& path);
// This process's peak resident memory in bytes.
uint64_t peak_resident_bytes();

}  // namespace farmrt
