// The farmrt command line: parsed into options and scene overrides.
#pragma once

#include <string>
#include <vector>

#include "scene_loader.h"

namespace farmrt {

struct CommandLine {
    std::string scene_file;
    std::vector<SceneOverride> overrides;  // -o, --spp, ..., --set, in command-line order
    int threads = 0;                       // 0 = all hardware threads
    int tile_size = 16;
    std::string simd = "auto";  // --simd: off | auto | sse4.2 | avx2 | avx512
    std::string stats_file;
    bool quiet = false;
    bool linear_list = false;  // benchmark baseline: no BVH
    bool show_help = false;
    bool show_version = false;
};

// Throws InputError naming the option on bad input.
CommandLine parse_command_line(const std::vector<std::string>& arguments);
std::string usage_text();

}  // namespace farmrt
