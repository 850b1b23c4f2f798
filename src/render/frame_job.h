// Frame sequences with progressive passes and checkpoints: the pieces that
// the farm engine (process 0 of a job) uses to render many frames.
//
//  - plan_frames: which frames, to which files (frame patterns, --frames,
//    animation.frames), and which --resume may skip (complete images).
//  - FrameAccumulator: one frame's sums and per-row sample counts; hands out
//    the next pass's work (rows x samples) and makes checkpoints. It starts
//    fresh or from a checkpoint; either way the final sums are the same floats.
// The farm engine (render/frame_queue.h, render/farm_engine.cpp) deals the
// passes out to its workers (local devices, other processes), checkpoints and
// writes the frames.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "io/checkpoint.h"
#include "io/scene_loader.h"
#include "render/band_renderer.h"
#include "render/command_line.h"

namespace farmrt {

// A frame of the job and the files it writes.
struct PlannedFrame {
    uint32_t frame = 0;
    std::string output;      // the output pattern with the frame number filled in
    std::string checkpoint;  // checkpoint_path_for(output)
};

// The frames a job renders: --frames, else animation.frames, else one still
// (frame 0). Throws InputError when several frames would share one output name
// or when --frames leaves the animation's range.
std::vector<PlannedFrame> plan_frames(const SceneDescription& description,
                                      const std::vector<uint32_t>& requested_frames);

// True when `path` exists, reads back as a complete width x height image,
// and, where its metadata records the settings it was made with (every
// format but PFM), was made with this frame's (`digest`: frame_digest). When
// a complete image was made with other settings, `why_not` says how ("spp 4,
// this run 64"; "other settings").
bool is_complete_image(const std::string& path, uint32_t width, uint32_t height, const std::string& digest = "",
                       uint32_t spp = 0, std::string* why_not = nullptr);

// The one builder of FrameSettings: the frame's camera (after animation),
// image size, depth and sampler key (seed, frame).
FrameSettings frame_settings_for(const SceneDescription& description, uint32_t frame);

// A band: rows [rows.begin, rows.end), each taking samples
// [samples.begin, samples.end). A work item (frame_queue.h) is a band of an
// open frame; a BandRenderer renders one.
struct Band {
    RowRange rows;
    SampleRange samples;
};

class FrameAccumulator {
public:
    // record_floats: floats per pixel in the sums (FrameSettings::sampling).
    FrameAccumulator(uint32_t width, uint32_t height, uint32_t spp, std::string identity,
                     uint32_t record_floats = kColorFloats);
    // Takes over a checkpoint's sums and counts; throws InputError when it is
    // corrupt or was made for other settings.
    void resume_from(const std::string& checkpoint_path);

    uint32_t width() const { return width_; }
    uint32_t height() const { return height_; }
    uint32_t spp() const { return spp_; }
    uint32_t record_floats() const { return record_floats_; }
    // Ends the frame at `samples` per pixel, fewer than spp (a time limit
    // reached at a pass boundary): done() once every row has them.
    void end_at(uint32_t samples) { target_ = std::min(samples, spp_); }
    // The samples every row ends with: spp, or fewer after end_at().
    uint32_t target() const { return target_; }
    bool ended_early() const { return target_ < spp_; }
    bool done() const;
    uint64_t samples_done() const;  // sample positions of every pixel (see row_count)
    // Samples actually taken: samples_done() less those adaptive sampling skipped.
    uint64_t samples_taken() const;
    // The sample position of a row: every pixel of it has taken its samples
    // below it (all of them, but where adaptive sampling stopped a pixel).
    uint32_t row_count(uint32_t row) const { return row_counts_[row]; }
    // The samples pixel (x, y) has taken.
    float pixel_samples(uint32_t x, uint32_t y) const;
    // Per pixel, the variance of its mean luminance (LuminanceEstimate); all
    // zero without statistics.
    std::vector<float> luminance_variance() const;
    // The next pass: every run of rows whose count is below
    // min(lowest count + pass_samples, spp) is brought up to that level.
    std::vector<Band> next_pass(uint32_t pass_samples) const;
    // Records of rows [row, ...): width * record_floats floats per row.
    float* row_sums(uint32_t row) { return sums_.data() + size_t(row) * width_ * record_floats_; }
    const float* row_sums(uint32_t row) const { return sums_.data() + size_t(row) * width_ * record_floats_; }
    const std::vector<float>& sums() const { return sums_; }
    // Linear RGB: each pixel's sum over its own sample count (black where it
    // has none yet). The final image once done(), a preview before.
    std::vector<float> pixels() const;
    // Each pixel's alpha (image.alpha): its alpha sum over its sample count;
    // empty where the record keeps none.
    std::vector<float> alpha() const;
    // Records that `band` has been added to the sums.
    void complete(const Band& band);
    Checkpoint checkpoint() const;

private:
    uint32_t width_, height_, spp_, target_, record_floats_;
    std::string identity_;
    std::vector<float> sums_;
    std::vector<uint32_t> row_counts_;
};

}  // namespace farmrt
