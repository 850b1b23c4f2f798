// Frame lists (--frames, animation.frames): parsed, and what parses is
// written back and read again to the same frames.
#include <cstdlib>

#include "fuzz_input.h"
#include "io/frame_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<uint32_t> frames;
    std::string problem;
    if (!farmrt::parse_frame_list(text, frames, problem)) return 0;
    std::vector<uint32_t> again;
    if (!farmrt::parse_frame_list(farmrt::format_frame_list(frames), again, problem) || again != frames) std::abort();
    return 0;
}
