// The job's memory estimate against the memory the job takes: building the
// BVH and the CPU backend's wide BVH over a loaded scene must not grow the
// process by more than acceleration_bytes() says, or a job the check lets
// through could still run out of memory before its first sample.
#include <gtest/gtest.h>
#include <malloc.h>

#include <fstream>
#include <string>

#include "cmd/backends.h"
#include "render/render_job.h"
#include "scene_test_helpers.h"

namespace farmrt {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// A line of /proc/self/status, in bytes (0 when absent).
uint64_t status_bytes(const std::string& key) {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind(key + ":", 0) == 0) return uint64_t(std::stoull(line.substr(key.size() + 1))) << 10;
    }
    return 0;
}

// Resets the peak resident size to the current one (Linux 4.0 and later).
bool reset_peak() {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    return bool(clear);
}

TEST(JobMemory, BuildingTheBvhsStaysWithinTheEstimate) {
    if (kSanitized) GTEST_SKIP() << "the sanitizers' own memory would be measured too";
    const std::string directory = testing::temporary_directory("job_memory");
    const int triangles = 300000;
    {
        std::ofstream obj(directory + "/triangles.obj");
        testing::Random random(7);
        for (int i = 0; i < triangles; ++i) {
            const Vec3 p = random.point(10);
            obj << "v " << p.x << ' ' << p.y << ' ' << p.z << "\nv " << p.x + 0.1f << ' ' << p.y << ' ' << p.z << "\nv "
                << p.x << ' ' << p.y + 0.1f << ' ' << p.z << '\n';
        }
        for (int i = 0; i < triangles; ++i) obj << "f " << 3 * i + 1 << ' ' << 3 * i + 2 << ' ' << 3 * i + 3 << '\n';
    }
    testing::write_text(
        directory + "/scene.yaml",
        testing::scene_yaml(testing::kGrayMaterial, "  - {type: model, file: triangles.obj, material: gray}\n"));
    SceneDescription description = load_scene_file(directory + "/scene.yaml", {});
    ASSERT_EQ(acceleration_references(description.scene), uint64_t(triangles));
    // Hands what loading freed back to the kernel: otherwise the build may
    // reuse those resident pages, growing the peak by less than it allocates
    // (below a third of the estimate in one run of three).
    malloc_trim(0);
    const uint64_t loaded = status_bytes("VmRSS");
    if (loaded == 0 || !reset_peak() || status_bytes("VmHWM") > loaded + (uint64_t(16) << 20)) {
        GTEST_SKIP() << "this kernel cannot reset the peak resident size";
    }
    const uint64_t estimate = acceleration_bytes(description.scene);
    CommandLine command_line;
    PreparedJob job = prepare_job(std::move(description), command_line, PhaseTimes{});
    RendererOptions options;
    options.backend = "cpu";
    options.threads = 1;
    auto renderer = make_band_renderer(job.description.scene, options);
    const uint64_t grown = status_bytes("VmHWM") - loaded;
    EXPECT_LE(grown, estimate) << "building the BVHs of " << triangles << " triangles took " << grown
                               << " bytes over the loaded scene's " << loaded;
    // And the estimate is not so loose that it refuses jobs that fit.
    EXPECT_GE(grown * 3, estimate) << "grown " << grown << ", estimated " << estimate;
}

}  // namespace
}  // namespace farmrt
