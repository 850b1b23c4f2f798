// Checkpoint files and resuming from them.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "cmd/backends.h"
#include "core/errors.h"
#include "io/checkpoint.h"
#include "io/scene_identity.h"
#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "render/frame_job.h"

namespace farmrt {
namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("farmrt_test_" + std::to_string(getpid()) + "_" + name)).string();
}

Checkpoint sample_checkpoint() {
    Checkpoint c;
    c.identity = "frame=3\nspp=16\nscene=0123\n";
    c.width = 5;
    c.height = 4;
    c.spp = 16;
    for (uint32_t y = 0; y < c.height; ++y) {
        for (uint32_t x = 0; x < c.width; ++x) c.sample_counts.push_back(y < 2 ? 16 : 8);
    }
    for (size_t i = 0; i < size_t(c.width) * c.height * 3; ++i) c.sums.push_back(0.1f * float(i) + 1e-7f);
    return c;
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::string read_error(const std::string& path) {
    try {
        read_checkpoint(path);
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected " << path << " to be rejected";
    return "";
}

TEST(Checkpoint, RoundTripIsExact) {
    const std::string path = temp_path("roundtrip.checkpoint");
    const Checkpoint c = sample_checkpoint();
    write_checkpoint(path, c);
    const Checkpoint back = read_checkpoint(path);
    EXPECT_EQ(back.identity, c.identity);
    EXPECT_EQ(back.width, c.width);
    EXPECT_EQ(back.height, c.height);
    EXPECT_EQ(back.spp, c.spp);
    EXPECT_EQ(back.sample_counts, c.sample_counts);
    ASSERT_EQ(back.sums.size(), c.sums.size());
    EXPECT_EQ(0, std::memcmp(back.sums.data(), c.sums.data(), c.sums.size() * sizeof(float)));
    EXPECT_EQ(back.row_sample_count(0), 16u);
    EXPECT_EQ(back.row_sample_count(3), 8u);
    // The write left no temporary file behind.
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
        files += entry.path().filename().string().find("roundtrip.checkpoint") != std::string::npos;
    }
    EXPECT_EQ(files, 1u);
    std::remove(path.c_str());
}

TEST(Checkpoint, CorruptFilesAreRejected) {
    const std::string path = temp_path("corrupt.checkpoint");
    write_checkpoint(path, sample_checkpoint());
    const std::string good = read_bytes(path);

    // Every single flipped byte is caught (magic, header, counts, sums, checksum).
    for (size_t i = 0; i < good.size(); i += 7) {
        std::string bad = good;
        bad[i] = char(bad[i] ^ 0x20);
        write_bytes(path, bad);
        const std::string error = read_error(path);
        EXPECT_NE(error.find(path), std::string::npos);
        EXPECT_TRUE(error.find("corrupt checkpoint") != std::string::npos || error.find("version") != std::string::npos)
            << "byte " << i << ": " << error;
    }
    for (size_t keep : {size_t(0), size_t(5), size_t(40), good.size() / 2, good.size() - 1}) {
        write_bytes(path, good.substr(0, keep));
        EXPECT_NE(read_error(path).find("corrupt checkpoint"), std::string::npos) << "truncated to " << keep;
    }
    write_bytes(path, "P6\n1 1\n255\nabc");
    EXPECT_NE(read_error(path).find("not a farmrt checkpoint"), std::string::npos);
    std::remove(path.c_str());
    EXPECT_NE(read_error(path).find("cannot read checkpoint"), std::string::npos);
}

const char* kScene = R"(image: {width: 24, height: 10, output: out.pfm}
sampling: {spp: 13, max_depth: 6, seed: 5}
camera: {lookfrom: [0, 1, 5], lookat: [0, 0.5, 0], vfov: 40, defocus_angle: 1, focus_dist: 5}
objects:
  - {type: sphere, center: [0, -100, 0], radius: 100, material: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}
  - {type: sphere, center: [0, 0.5, 0], radius: 0.5, material: {type: dielectric, ior: 1.5}}
  - {type: sphere, center: [1, 0.5, 0], radius: 0.5, material: {type: metal, albedo: [0.8, 0.6, 0.5], fuzz: 0.2}}
)";

TEST(Checkpoint, IdentityMismatchNamesTheDifference) {
    const SceneDescription d = load_scene_text(kScene, "s.yaml", ".");
    const std::string identity = frame_identity(d, 4);
    EXPECT_EQ(identity,
              frame_identity(load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"image.output=x.ppm", ""}}), 4))
        << "the output name and format do not change the sums";
    Checkpoint c = sample_checkpoint();
    c.identity = identity;
    EXPECT_NO_THROW(require_matching_identity("c", c, identity));

    auto mismatch = [&](const std::string& other) {
        try {
            require_matching_identity("x.checkpoint", c, other);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    const SceneDescription more_spp = load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"sampling.spp=32", ""}});
    EXPECT_NE(
        mismatch(frame_identity(more_spp, 4))
            .find("x.checkpoint: checkpoint was made for other scene or settings: spp is 13 in the checkpoint, 32 now"),
        std::string::npos)
        << mismatch(frame_identity(more_spp, 4));
    EXPECT_NE(mismatch(frame_identity(d, 5)).find("frame is 4 in the checkpoint, 5 now"), std::string::npos);
    const SceneDescription moved = load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"objects[1].radius=0.6", ""}});
    EXPECT_NE(mismatch(frame_identity(moved, 4)).find("the scene's content"), std::string::npos)
        << mismatch(frame_identity(moved, 4));
    const SceneDescription camera = load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"camera.vfov=41", ""}});
    EXPECT_NE(mismatch(frame_identity(camera, 4)).find("camera.vfov"), std::string::npos);
    // Both estimators converge to the same image, but their sums differ: never mixed in one frame.
    const SceneDescription naive =
        load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"sampling.integrator=naive", ""}});
    EXPECT_NE(mismatch(frame_identity(naive, 4)).find("integrator is nee in the checkpoint, naive now"),
              std::string::npos)
        << mismatch(frame_identity(naive, 4));
    // Samplers, filters and clamps make other sums too.
    const SceneDescription independent =
        load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"sampling.sampler=independent", ""}});
    EXPECT_NE(mismatch(frame_identity(independent, 4)).find("sampler is sobol in the checkpoint, independent now"),
              std::string::npos)
        << mismatch(frame_identity(independent, 4));
    const SceneDescription mitchell =
        load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"image.filter=mitchell", ""}});
    EXPECT_NE(mismatch(frame_identity(mitchell, 4)).find("filter is blackman-harris in the checkpoint, mitchell now"),
              std::string::npos)
        << mismatch(frame_identity(mitchell, 4));
    const SceneDescription by_tree =
        load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"sampling.light_sampler=tree", ""}});
    EXPECT_NE(mismatch(frame_identity(by_tree, 4)).find("light_sampler is power in the checkpoint, tree now"),
              std::string::npos)
        << mismatch(frame_identity(by_tree, 4));
    const SceneDescription clamped = load_scene_text(kScene, "s.yaml", ".", {SceneOverride{"sampling.clamp=10", ""}});
    EXPECT_NE(mismatch(frame_identity(clamped, 4)).find("clamp_direct"), std::string::npos)
        << mismatch(frame_identity(clamped, 4));
}

// Renders the frame with `renderer` in passes, checkpointing and reloading
// after every pass (a fresh accumulator each time, as a resumed process would).
std::vector<float> render_with_restarts(BandRenderer& renderer, const SceneDescription& d, uint32_t frame,
                                        std::mt19937& random) {
    const std::string path = temp_path("resume.checkpoint");
    const std::string identity = frame_identity(d, frame);
    const FrameSettings settings = frame_settings_for(d, frame);
    bool first = true;
    for (;;) {
        FrameAccumulator accumulator(d.settings.width, d.settings.height, d.settings.spp, identity);
        if (!first) accumulator.resume_from(path);
        first = false;
        if (accumulator.done()) break;
        // Uneven passes over uneven bands, as different rank counts would make.
        for (const Band& pass_band : accumulator.next_pass(1 + random() % 5)) {
            uint32_t row = pass_band.rows.begin;
            while (row < pass_band.rows.end) {
                const uint32_t end = std::min(pass_band.rows.end, row + 1 + uint32_t(random() % 4));
                const Band band{RowRange{row, end}, pass_band.samples};
                renderer.render(settings, band.rows, band.samples, accumulator.row_sums(row), nullptr);
                accumulator.complete(band);
                row = end;
                if (random() % 3 == 0) break;  // stopped mid-pass: rows at different counts
            }
        }
        write_checkpoint(path, accumulator.checkpoint());
    }
    const Checkpoint final_state = read_checkpoint(path);
    std::remove(path.c_str());
    return final_state.sums;
}

TEST(Checkpoint, ResumedRenderIsBitIdentical) {
    SceneDescription d = load_scene_text(kScene, "s.yaml", ".");
    d.scene.build_acceleration();
    RendererOptions options;
    options.threads = 2;
    options.tile_size = 5;
    const std::unique_ptr<BandRenderer> renderer = make_band_renderer(d.scene, options);
    const FrameSettings settings = frame_settings_for(d, 4);
    std::vector<float> reference(size_t(d.settings.width) * d.settings.height * 3, 0.0f);
    renderer->render(settings, RowRange{0, d.settings.height}, SampleRange{0, d.settings.spp}, reference.data(),
                     nullptr);
    std::mt19937 random(12345);
    for (int trial = 0; trial < 4; ++trial) {
        const std::vector<float> resumed = render_with_restarts(*renderer, d, 4, random);
        ASSERT_EQ(resumed.size(), reference.size());
        EXPECT_EQ(0, std::memcmp(resumed.data(), reference.data(), reference.size() * sizeof(float)))
            << "trial " << trial;
    }
}

TEST(Checkpoint, AccumulatorRejectsAnotherFramesCheckpoint) {
    const SceneDescription d = load_scene_text(kScene, "s.yaml", ".");
    const std::string path = temp_path("other.checkpoint");
    FrameAccumulator frame4(d.settings.width, d.settings.height, d.settings.spp, frame_identity(d, 4));
    write_checkpoint(path, frame4.checkpoint());
    FrameAccumulator frame5(d.settings.width, d.settings.height, d.settings.spp, frame_identity(d, 5));
    EXPECT_THROW(frame5.resume_from(path), InputError);
    std::remove(path.c_str());
}

}  // namespace
}  // namespace farmrt
