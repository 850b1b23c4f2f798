#include "render/aov_pass.h"

#include <algorithm>
#include <cmath>

namespace farmrt {
namespace {

bool wants(const std::vector<Aov>& aovs, Aov aov) { return std::find(aovs.begin(), aovs.end(), aov) != aovs.end(); }

}  // namespace

FirstHitImages render_first_hits(const SceneView& scene, const FrameSettings& frame, const std::vector<Aov>& aovs,
                                 uint32_t spp, BandRenderer* device) {
    const uint32_t width = frame.width, height = frame.height;
    const size_t pixels = size_t(width) * height;
    FirstHitImages images;
    std::vector<float>& albedo = images.albedo;
    std::vector<float>& normal = images.normal;
    std::vector<float>& depth = images.depth;
    const bool features = wants(aovs, Aov::Albedo) || wants(aovs, Aov::Normal) || wants(aovs, Aov::Depth);
    if (features) {
        albedo.resize(pixels * 3);
        normal.resize(pixels * 3);
        depth.resize(pixels);
        const uint32_t samples = std::max(1u, std::min(spp, kAovSamples));
        if (device && device->first_hit_features(frame, samples, albedo.data(), normal.data(), depth.data())) {
            return images;
        }
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t row = 0; row < int64_t(height); ++row) {
            const uint32_t y = uint32_t(row);
            for (uint32_t x = 0; x < width; ++x) {
                const size_t pixel = size_t(y) * width + x;
                pixel_first_hit_features(scene, frame, x, y, samples, BvhQuery(), &albedo[pixel * 3],
                                         &normal[pixel * 3], &depth[pixel]);
            }
        }
    }
    return images;
}

std::vector<AovImage> assemble_aovs(const std::vector<Aov>& aovs, FirstHitImages first_hits,
                                    const FrameAccumulator& accumulator) {
    const uint32_t width = accumulator.width(), height = accumulator.height();
    std::vector<AovImage> images;
    for (Aov aov : aovs) {
        AovImage image{aov, {}};
        switch (aov) {
        case Aov::Albedo: image.values = std::move(first_hits.albedo); break;
        case Aov::Normal: image.values = std::move(first_hits.normal); break;
        case Aov::Depth:
            image.values = std::move(first_hits.depth);
            for (float& depth : image.values) {
                if (!(depth < kEscapedDepth)) depth = kEscapedDepth;
            }
            break;
        case Aov::Samples:
            image.values.resize(size_t(width) * height);
            for (uint32_t y = 0; y < height; ++y) {
                for (uint32_t x = 0; x < width; ++x)
                    image.values[size_t(y) * width + x] = accumulator.pixel_samples(x, y);
            }
            break;
        case Aov::Variance: image.values = accumulator.luminance_variance(); break;
        }
        images.push_back(std::move(image));
    }
    return images;
}

std::vector<AovImage> render_aovs(const SceneView& scene, const FrameSettings& frame, const std::vector<Aov>& aovs,
                                  const FrameAccumulator& accumulator) {
    return assemble_aovs(aovs, render_first_hits(scene, frame, aovs, accumulator.target()), accumulator);
}

}  // namespace farmrt
