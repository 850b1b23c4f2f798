// The scene loader with --set: the first line of the input is one --set
// assignment (empty: none), the rest the scene file's YAML.
#include "fuzz_input.h"
#include "io/scene_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t newline = input.find('\n');
    const std::string assignment = newline == std::string::npos ? "" : input.substr(0, newline);
    const std::string text = newline == std::string::npos ? input : input.substr(newline + 1);
    std::vector<farmrt::SceneOverride> overrides;
    if (!assignment.empty()) overrides.push_back(farmrt::SceneOverride{assignment, ""});
    // Relative mesh and texture paths resolve in an empty directory.
    return farmrt::fuzz::expect_farmrt_errors_only(
        [&] { farmrt::load_scene_text(text, "fuzz.yaml", "/nonexistent", overrides); });
}
