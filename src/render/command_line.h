// The options a job runs with, as the command line gives them (parsed by
// cmd/command_line_parser.h): scene overrides, backend and farm options.
#pragma once

#include <string>
#include <vector>

#include "io/scene_loader.h"
#include "render/tuning.h"

namespace farmrt {

// Test-only (--inject-failure RANK:BAND[:KIND]): rank RANK fails as it starts
// its BAND-th band (1 = first): KIND throw (an exception), kill (SIGKILL) or
// segv (SIGSEGV). Exercises the farm's failure path end to end.
struct FailureInjection {
    int rank = -1;  // -1: off
    uint32_t band = 0;
    std::string kind = "throw";
    bool enabled() const { return rank >= 0; }
};

struct CommandLine {
    std::string scene_file;
    std::vector<SceneOverride> overrides;  // -o, --spp, ..., --set, in command-line order
    int threads = 0;                       // 0 = all hardware threads
    int tile_size = 16;
    std::string simd = "auto";       // --simd: off | auto | sse4.2 | avx2 | avx512
    std::string backend = "auto";    // cpu | cuda | auto
    std::string gpu_math = "exact";  // exact | fast
    std::vector<int> gpus;           // --gpus: empty = every visible GPU
    bool gpus_given = false;         // --gpus given (all included)
    std::string stats_file;
    bool quiet = false;
    bool linear_list = false;  // benchmark baseline: no BVH
    // MPI farm (mpi/): how rank 0 deals bands of rows to ranks.
    std::string schedule = "dynamic";  // static | cyclic | dynamic
    int band_rows = 0;                 // rows per band; 0 = automatic
    FailureInjection inject_failure;
    Tuning tuning;  // FARMRT_* measurement switches, read once by the command layer
    // A rank holding work that answers nothing for this long ends the job
    // (a stopped or hung node); after a stop signal, how long rank 0 waits
    // for the ranks to hand back their items before it ends the job anyway.
    double rank_timeout = 30;
    // Sequences and checkpoints (frame_job.h)
    std::vector<uint32_t> frames;    // --frames, ascending; empty = the scene's (animation.frames, or a still)
    bool resume = false;             // skip finished frames, continue from checkpoints
    double checkpoint_interval = 0;  // seconds between checkpoints; 0 = only on SIGTERM/SIGUSR1
    uint32_t pass_samples = 0;       // samples per pass; 0 = adaptive (never changes the image)
    // Seconds after which a frame starts no new pass: it is written with the
    // samples of the pass in progress (the one option whose image depends on
    // the machine's speed). 0 = none.
    double time_limit = 0;
    std::string frame_log;     // --frame-log: a JSON line per completed frame
    std::string preview_file;  // --preview: the frame in progress, every preview_interval seconds
    double preview_interval = 10;
    int test_signal_after_items = 0;  // test only: rank 0 raises SIGTERM after this many work items
    bool show_help = false;
    bool show_version = false;
};

}  // namespace farmrt
