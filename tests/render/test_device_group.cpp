// A process's devices rendering each band together (render/device_group.h):
// whatever devices share a band, in whatever pieces, every pixel's sums are
// the bits of one device rendering it alone; bands complete in order; a
// device's failure reaches the caller; a stop keeps only whole rows.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "cmd/backends.h"
#include "core/stop_flag.h"
#include "io/scene_loader.h"
#include "render/device_group.h"
#include "render/render_job.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

struct Fixture {
    SceneDescription description;
    FrameSettings frame;

    explicit Fixture(uint32_t spp = 6) {
        description = load_scene_file(testing::source_path("configs/tiny.yaml"),
                                      {SceneOverride{"sampling.spp=" + std::to_string(spp), ""},
                                       SceneOverride{"image.width=48", ""}, SceneOverride{"image.height=37", ""}});
        description.scene.build_acceleration();
        frame = frame_settings_for(description, 0);
    }
    size_t floats() const { return size_t(frame.width) * frame.height * frame.sampling.record_floats; }

    std::unique_ptr<BandRenderer> cpu(int threads, const std::string& simd = "auto") const {
        RendererOptions options;
        options.backend = "cpu";
        options.threads = threads;
        options.simd = simd;
        return make_band_renderer(description.scene, options);
    }
};

// A device that fails on its second piece.
class FailingDevice : public BandRenderer {
public:
    void render(const FrameSettings&, RowRange, SampleRange, float*, std::atomic<uint64_t>*) override {
        if (++calls_ == 2) throw std::runtime_error("device lost");
    }
    std::string description() const override { return "failing"; }
    int threads() const override { return 1; }
    RayCounts rays_traced() const override { return {}; }       // it traces none
    double thread_equivalents() const override { return 100; }  // takes most pieces

private:
    int calls_ = 0;
};

TEST(DeviceGroup, AnyDevicesGiveTheBytesOfOne) {
    const Fixture fixture;
    const uint32_t height = fixture.frame.height, spp = fixture.description.settings.spp;
    std::vector<float> reference(fixture.floats(), 0.0f);
    fixture.cpu(1)->render(fixture.frame, RowRange{0, height}, SampleRange{0, spp}, reference.data(), nullptr);

    for (int devices : {1, 2, 3}) {
        std::vector<std::unique_ptr<BandRenderer>> members;
        // The third is several times slower (scalar): it takes small pieces, or none.
        for (int d = 0; d < devices; ++d) members.push_back(fixture.cpu(1, d == 2 ? "off" : "auto"));
        DeviceGroup group(std::move(members));
        EXPECT_EQ(group.device_count(), size_t(devices));
        // Bands of 1, 5 and 13 rows, all submitted before the first is
        // taken back, in two sample ranges.
        for (uint32_t band : {1u, 5u, 13u}) {
            std::vector<float> sums(fixture.floats(), 0.0f);
            std::atomic<uint64_t> progress{0};
            for (const SampleRange samples : {SampleRange{0, 2}, SampleRange{2, spp}}) {
                std::vector<float*> order;
                for (uint32_t row = 0; row < height; row += band) {
                    const RowRange rows{row, std::min(height, row + band)};
                    float* at = sums.data() + size_t(row) * fixture.frame.width * fixture.frame.sampling.record_floats;
                    group.submit(fixture.frame, rows, samples, at, &progress);
                    order.push_back(at);
                }
                for (float* expected : order) EXPECT_EQ(group.complete_oldest(), expected);
                EXPECT_EQ(group.complete_oldest(), nullptr);
            }
            EXPECT_EQ(0, std::memcmp(reference.data(), sums.data(), sums.size() * sizeof(float)))
                << devices << " devices, bands of " << band;
            EXPECT_EQ(progress.load(), uint64_t(fixture.frame.width) * height * spp);
        }
        // Two equal devices both took a share of the work.
        if (devices == 2) {
            for (uint64_t samples : group.samples_by_device()) EXPECT_GT(samples, 0u);
        }
    }
}

TEST(DeviceGroup, ADeviceFailureReachesTheCaller) {
    const Fixture fixture;
    std::vector<std::unique_ptr<BandRenderer>> members;
    members.push_back(fixture.cpu(1));
    members.push_back(std::make_unique<FailingDevice>());
    DeviceGroup group(std::move(members));
    std::vector<float> sums(fixture.floats(), 0.0f);
    EXPECT_THROW(
        {
            for (int round = 0; round < 8; ++round) {
                group.render(fixture.frame, RowRange{0, fixture.frame.height}, SampleRange{0, 1}, sums.data(), nullptr);
            }
        },
        std::runtime_error);
}

TEST(DeviceGroup, AStopKeepsOnlyWholeRows) {
    const Fixture fixture(64);
    const uint32_t height = fixture.frame.height;
    std::vector<std::unique_ptr<BandRenderer>> members;
    members.push_back(fixture.cpu(1));
    members.push_back(fixture.cpu(1));
    DeviceGroup group(std::move(members));
    std::vector<float> sums(fixture.floats(), 0.0f);
    std::atomic<uint64_t> progress{0};
    group.submit(fixture.frame, RowRange{0, height}, SampleRange{0, 64}, sums.data(), &progress);
    while (progress.load() < uint64_t(fixture.frame.width) * 64 * 4) std::this_thread::yield();
    request_stop();
    EXPECT_EQ(group.complete_oldest(), sums.data());
    const uint32_t kept = group.rows_finished_at_stop();
    withdraw_stop_request();
    ASSERT_LT(kept, height) << "the band ended before the stop: nothing to test";
    std::vector<float> reference(fixture.floats(), 0.0f);
    fixture.cpu(1)->render(fixture.frame, RowRange{0, height}, SampleRange{0, 64}, reference.data(), nullptr);
    const size_t kept_floats = size_t(kept) * fixture.frame.width * fixture.frame.sampling.record_floats;
    EXPECT_EQ(0, std::memcmp(reference.data(), sums.data(), kept_floats * sizeof(float))) << kept << " rows kept";
}

}  // namespace
}  // namespace farmrt
