// Scenes and comparisons the CUDA backend's tests share: a config loaded at
// a given size, rendered whole on the CPU or the GPU, and compared bit for
// bit or by RMSE.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/cuda_device.h"
#include "cuda/cuda_renderer.h"
#include "io/scene_loader.h"
#include "render/render_job.h"
#include "simd/cpu_renderer.h"

namespace farmrt::testing {

// A name in configs/, or an absolute path.
inline std::string scene_path(const std::string& name) {
    return name.rfind('/', 0) == 0 ? name : std::string(FARMRT_SOURCE_DIR) + "/configs/" + name;
}

struct TestScene {
    SceneDescription description;
    FrameSettings frame;
};

inline TestScene load_test_scene(const std::string& name, uint32_t width, uint32_t height, uint32_t spp,
                                 uint64_t seed = 0) {
    std::vector<SceneOverride> overrides = {
        {"image.width=" + std::to_string(width), ""},
        {"image.height=" + std::to_string(height), ""},
        {"sampling.spp=" + std::to_string(spp), ""},
        {"sampling.seed=" + std::to_string(seed), ""},
        {"image.output=unused.pfm", ""},  // writable without OpenImageIO (the GPU machine has none)
    };
    TestScene scene{load_scene_file(scene_path(name), overrides), {}};
    scene.description.scene.build_acceleration();
    scene.frame = frame_settings_for(scene.description, 0);
    return scene;
}

inline std::vector<float> render_whole(BandRenderer& renderer, const TestScene& scene) {
    const RenderSettings& s = scene.description.settings;
    std::vector<float> sums(size_t(s.width) * s.height * scene.frame.sampling.record_floats, 0.0f);
    renderer.render(scene.frame, RowRange{0, s.height}, SampleRange{0, s.spp}, sums.data(), nullptr);
    return sums;
}

inline std::vector<float> render_cpu(const TestScene& scene) {
    CpuRenderer cpu(scene.description.scene.view(), 0, 16);
    return render_whole(cpu, scene);
}

inline std::vector<float> render_gpu(const TestScene& scene, const CudaOptions& options) {
    CudaRenderer gpu(scene.description.scene.view(), options);
    return render_whole(gpu, scene);
}

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

inline size_t differing_values(const std::vector<float>& a, const std::vector<float>& b) {
    size_t count = 0;
    for (size_t i = 0; i < a.size(); ++i) count += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return count;
}

inline double rmse(const std::vector<float>& a, const std::vector<float>& b, uint32_t spp) {
    double total = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = (double(a[i]) - double(b[i])) / spp;
        total += d * d;
    }
    return std::sqrt(total / double(a.size()));
}

}  // namespace farmrt::testing
