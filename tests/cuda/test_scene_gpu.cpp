// CPU and GPU on every committed config. The GPU's exact math must give the
// CPU's bytes; its fast math (fused multiply-add, approximate division and
// square root) changes rounding, so paths diverge and the image is a different
// sample of the same picture: it must be as far from CPU renders as two CPU
// renders with different seeds are from each other, and no farther.
//
// Built in every build: the GPU tests ask make_band_renderer for the CUDA
// backend and skip, with the reason, where there is none (a build without
// CUDA, or no visible GPU). scripts/gpu_build_and_test.sh runs them on the GPU
// machine (label cuda). The yardstick itself is tested on the CPU everywhere:
// other seeds pass it, a 10% darker image fails it. Each prints its figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "core/errors.h"
#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "render/render_job.h"

namespace farmrt {
namespace {

struct Config {
    const char* file;
    uint32_t width, height, spp;
};

// Small enough for CI's two cores, with enough samples that a 10% change of
// brightness stands out of the noise (the Cornell box is dim and noisy: more).
const Config kConfigs[] = {
    {"cornell.yaml", 96, 96, 64},   {"mesh.yaml", 128, 72, 16},          {"stress.yaml", 96, 54, 16},
    {"textured.yaml", 120, 80, 16}, {"spheres.yaml", 128, 72, 16},       {"many_spheres.yaml", 128, 72, 16},
    {"emissive.yaml", 120, 90, 16}, {"tiny.yaml", 120, 80, 16},          {"lights.yaml", 128, 72, 16},
    {"models.yaml", 96, 96, 64},    {"models/shapes.gltf", 128, 72, 16}, {"surface_details.yaml", 128, 72, 16},
};
constexpr uint32_t kBlock = 4;
// Accepted ratio of a candidate's distance to the CPU-CPU distance.
constexpr double kLowest = 0.8, kHighest = 1.25;
// Accepted difference of mean brightness, in standard errors.
constexpr double kLargestZ = 5.0;

SceneDescription load_config(const Config& c) {
    const std::vector<SceneOverride> overrides = {
        {"image.width=" + std::to_string(c.width), ""},
        {"image.height=" + std::to_string(c.height), ""},
        {"sampling.spp=" + std::to_string(c.spp), ""},
        {"image.output=unused.pfm", ""},  // writable without OpenImageIO (the GPU machine has none)
    };
    SceneDescription d = load_scene_file(std::string(FARMRT_SOURCE_DIR) + "/configs/" + c.file, overrides);
    d.scene.build_acceleration();
    return d;
}

// Mean pixel values (not sums) of a whole-image render with `seed`.
std::vector<float> render(const SceneDescription& d, uint64_t seed, BandRenderer& renderer) {
    RenderSettings s = d.settings;
    s.seed = seed;
    std::vector<float> image(size_t(s.width) * s.height * 3, 0.0f);
    FrameSettings frame = frame_settings_for(d, 0);
    frame.key.seed = seed;
    renderer.render(frame, RowRange{0, s.height}, SampleRange{0, s.spp}, image.data(), nullptr);
    for (float& v : image) v /= float(s.spp);
    return image;
}

std::vector<float> render_cpu(const SceneDescription& d, uint64_t seed) {
    RendererOptions options;
    options.backend = "cpu";
    return render(d, seed, *make_band_renderer(d.scene, options));
}

// Values as an 8-bit image shows them: clamped to [0, 1]. A rare very bright
// sample (a light seen through glass, a caustic) would otherwise dominate the
// RMSE and make the yardstick itself noisy; clamped, the CPU-CPU distance
// varies by a few percent between seeds.
double display(float v) { return std::min(std::max(double(v), 0.0), 1.0); }

double rmse(const std::vector<float>& a, const std::vector<float>& b) {
    double total = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = display(a[i]) - display(b[i]);
        total += d * d;
    }
    return std::sqrt(total / double(a.size()));
}

// Means of kBlock x kBlock blocks, per channel: values [channel][block].
std::vector<std::vector<double>> block_means(const std::vector<float>& image, uint32_t width, uint32_t height) {
    std::vector<std::vector<double>> means(3);
    for (uint32_t by = 0; by + kBlock <= height; by += kBlock) {
        for (uint32_t bx = 0; bx + kBlock <= width; bx += kBlock) {
            for (int c = 0; c < 3; ++c) {
                double sum = 0;
                for (uint32_t y = by; y < by + kBlock; ++y) {
                    for (uint32_t x = bx; x < bx + kBlock; ++x)
                        sum += display(image[(size_t(y) * width + x) * 3 + size_t(c)]);
                }
                means[size_t(c)].push_back(sum / double(kBlock * kBlock));
            }
        }
    }
    return means;
}

struct Comparison {
    double rmse_ratio = 0;  // candidate's RMSE to the CPU renders / CPU-CPU RMSE
    double largest_z = 0;   // the largest |z| of a channel's mean brightness difference
    std::string problems;   // empty when statistically the same image
};

// Is `candidate` statistically the same image as the CPU renders `cpu_a` and
// `cpu_b` (different seeds; the candidate has a seed of its own)? Two tests,
// both measured against the CPU-CPU noise:
// - RMSE: the candidate's distance to the CPU renders (mean of the two) is
//   within kLowest..kHighest times the distance between them;
// - brightness: per channel, the candidate's mean differs from the CPU
//   renders' by at most kLargestZ standard errors. The standard error comes
//   from the CPU-CPU differences of block means (pixels are independent, so
//   block means are too): var(block_a - block_b) = 2 s^2, and the candidate's
//   image mean minus the mean of a and b has variance 1.5 s^2 / blocks. This
//   catches a bias far below the per-pixel noise, which RMSE alone does not.
Comparison compare_to_cpu_noise(const std::vector<float>& cpu_a, const std::vector<float>& cpu_b,
                                const std::vector<float>& candidate, uint32_t width, uint32_t height) {
    Comparison result;
    std::ostringstream problems;
    const double noise = rmse(cpu_a, cpu_b);
    const double distance = 0.5 * (rmse(cpu_a, candidate) + rmse(cpu_b, candidate));
    result.rmse_ratio = distance / noise;
    if (!(noise > 0) || !(result.rmse_ratio >= kLowest && result.rmse_ratio <= kHighest)) {
        problems << "RMSE to the CPU renders " << distance << " vs CPU-CPU " << noise << " (ratio " << result.rmse_ratio
                 << ", accepted " << kLowest << " to " << kHighest << "); ";
    }
    const auto a = block_means(cpu_a, width, height), b = block_means(cpu_b, width, height),
               c = block_means(candidate, width, height);
    const char* channel_names[3] = {"red", "green", "blue"};
    for (size_t channel = 0; channel < 3; ++channel) {
        const size_t blocks = a[channel].size();
        double squares = 0, difference = 0;
        for (size_t k = 0; k < blocks; ++k) {
            const double ab = a[channel][k] - b[channel][k];
            squares += ab * ab;
            difference += c[channel][k] - 0.5 * (a[channel][k] + b[channel][k]);
        }
        const double block_variance = squares / (2.0 * double(blocks));  // s^2
        difference /= double(blocks);
        const double standard_error = std::sqrt(1.5 * block_variance / double(blocks));
        if (!(standard_error > 0)) {
            if (difference != 0)
                problems << channel_names[channel] << ": brightness differs from noiseless CPU renders; ";
            continue;
        }
        const double z = difference / standard_error;
        result.largest_z = std::max(result.largest_z, std::fabs(z));
        if (!(std::fabs(z) <= kLargestZ)) {
            problems << channel_names[channel] << " mean off by " << difference << " = " << z
                     << " standard errors (accepted " << kLargestZ << "); ";
        }
    }
    result.problems = problems.str();
    return result;
}

// The yardstick, on the CPU: a render with a third seed is the same picture,
// one 10% darker is not, on every config.
TEST(CpuGpuYardstick, OtherSeedsPassAndABiasedImageFails) {
    for (const Config& c : kConfigs) {
        const SceneDescription d = load_config(c);
        const std::vector<float> a = render_cpu(d, 1);
        const std::vector<float> b = render_cpu(d, 2);
        std::vector<float> other = render_cpu(d, 3);
        const Comparison same = compare_to_cpu_noise(a, b, other, c.width, c.height);
        EXPECT_EQ(same.problems, "") << c.file << " seed 3";
        for (float& v : other) v *= 0.9f;
        const Comparison darker = compare_to_cpu_noise(a, b, other, c.width, c.height);
        EXPECT_NE(darker.problems, "") << c.file << " 10% darker";
        std::printf("%-18s seed 3: RMSE ratio %.3f, |z| %.2f; 10%% darker: RMSE ratio %.3f, |z| %.1f\n", c.file,
                    same.rmse_ratio, same.largest_z, darker.rmse_ratio, darker.largest_z);
    }
}

// The CUDA backend, or a skip naming why there is none. Any other failure is one.
std::unique_ptr<BandRenderer> make_gpu(const SceneDescription& d, const char* math, std::string& why_none) {
    RendererOptions options;
    options.backend = "cuda";
    options.gpu_math = math;
    try {
        return make_band_renderer(d.scene, options);
    } catch (const std::exception& e) {
        const std::string message = e.what();
        if (message.find("built without CUDA") == std::string::npos &&
            message.find("no usable GPU") == std::string::npos) {
            throw;
        }
        why_none = message;
        return nullptr;
    }
}

TEST(CpuGpu, ExactMathIsByteIdenticalOnEveryConfig) {
    for (const Config& c : kConfigs) {
        const SceneDescription d = load_config(c);
        std::string why_none;
        const std::unique_ptr<BandRenderer> gpu = make_gpu(d, "exact", why_none);
        if (!gpu) GTEST_SKIP() << "no GPU to compare with: " << why_none;
        const std::vector<float> cpu = render_cpu(d, 1);
        const std::vector<float> on_gpu = render(d, 1, *gpu);
        ASSERT_EQ(cpu.size(), on_gpu.size());
        size_t differing = 0;
        for (size_t i = 0; i < cpu.size(); ++i) differing += std::memcmp(&cpu[i], &on_gpu[i], sizeof(float)) != 0;
        EXPECT_EQ(differing, 0u) << c.file << " on " << gpu->description() << ": " << differing << " of " << cpu.size()
                                 << " values differ";
        std::printf("%-18s exact GPU vs CPU: %zu of %zu values differ\n", c.file, differing, cpu.size());
    }
}

TEST(CpuGpu, FastMathIsStatisticallyEqualOnEveryConfig) {
    for (const Config& c : kConfigs) {
        const SceneDescription d = load_config(c);
        std::string why_none;
        const std::unique_ptr<BandRenderer> gpu = make_gpu(d, "fast", why_none);
        if (!gpu) GTEST_SKIP() << "no GPU to compare with: " << why_none;
        const std::vector<float> a = render_cpu(d, 1);
        const std::vector<float> b = render_cpu(d, 2);
        const std::vector<float> on_gpu = render(d, 3, *gpu);
        const Comparison result = compare_to_cpu_noise(a, b, on_gpu, c.width, c.height);
        EXPECT_EQ(result.problems, "") << c.file << " on " << gpu->description();
        std::printf("%-18s fast GPU vs CPU: RMSE ratio %.3f, |z| %.2f\n", c.file, result.rmse_ratio, result.largest_z);
    }
}

}  // namespace
}  // namespace farmrt
