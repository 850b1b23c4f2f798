#include "render/frame_job.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/animation.h"
#include "core/errors.h"
#include "io/frame_list.h"
#include "io/image_output.h"

namespace farmrt {
std::vector<PlannedFrame> plan_frames(const SceneDescription& description, const std::vector<uint32_t>& requested) {
    const Animation& animation = description.animation;
    std::vector<uint32_t> frames = requested;
    if (frames.empty()) frames = animation.present ? animation.frames : std::vector<uint32_t>{0};
    if (!requested.empty() && animation.present) {
        for (uint32_t f : requested) {
            if (!std::binary_search(animation.frames.begin(), animation.frames.end(), f)) {
                throw InputError("--frames: frame " + std::to_string(f) + " is not in the scene's animation.frames (" +
                                 format_frame_list(animation.frames) + ")");
            }
        }
    }
    const std::string& pattern = description.settings.output;
    if (frames.size() > 1 && !has_frame_pattern(pattern)) {
        throw InputError("image.output: '" + pattern + "' has no frame pattern, but " + std::to_string(frames.size()) +
                         " frames are to be rendered (" + format_frame_list(frames) +
                         "): name the output like out_####.png (#### = frame number, zero-padded)");
    }
    std::vector<PlannedFrame> tasks;
    tasks.reserve(frames.size());
    for (uint32_t f : frames) {
        PlannedFrame task;
        task.frame = f;
        task.output = frame_output_path(pattern, f);
        task.checkpoint = checkpoint_path_for(task.output);
        tasks.push_back(std::move(task));
    }
    return tasks;
}

namespace {

// The value of " key=value" in farmrt's image description, "" where absent.
std::string description_value(const std::string& description, const std::string& key) {
    const std::string marker = " " + key + "=";
    const size_t at = description.find(marker);
    if (at == std::string::npos) return "";
    const size_t begin = at + marker.size();
    return description.substr(begin, description.find(' ', begin) - begin);
}

}  // namespace

bool is_complete_image(const std::string& path, uint32_t width, uint32_t height, const std::string& digest,
                       uint32_t spp, std::string* why_not) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) return false;
    LoadedImage image;
    try {
        image = read_image(path);
    } catch (const std::exception&) {
        return false;  // truncated, damaged or unreadable: render it again
    }
    if (image.width != width || image.height != height || image.pixels.size() != size_t(width) * height * 3)
        return false;
    const std::string recorded = description_value(image.description, "identity");
    if (digest.empty() || recorded.empty() || recorded == digest) return true;
    if (why_not) {
        const std::string recorded_spp = description_value(image.description, "spp");
        *why_not = !recorded_spp.empty() && recorded_spp != std::to_string(spp)
                       ? "spp " + recorded_spp + ", this run " + std::to_string(spp)
                       : "other settings (scene, camera, seed or integrator)";
    }
    return false;
}

FrameSettings frame_settings_for(const SceneDescription& description, uint32_t frame_number) {
    const RenderSettings& s = description.settings;
    FrameSettings frame;
    frame.camera =
        make_camera(camera_at_frame(s.camera, description.animation, frame_number), s.film_width, s.film_height);
    frame.width = s.width;
    frame.height = s.height;
    frame.region_x = s.region_x;
    frame.region_y = s.region_y;
    frame.film_width = s.film_width;
    frame.max_depth = s.max_depth;
    frame.integrator = s.integrator;
    frame.key = SamplerKey{s.seed, frame_number, s.sampler};
    frame.filter = make_pixel_filter(s.filter, s.filter_width);
    frame.sampling.record_floats = pixel_record_floats(s);
    frame.sampling.noise_threshold = s.noise_threshold;
    frame.sampling.min_samples = s.min_spp;
    return frame;
}

// ---- FrameAccumulator -------------------------------------------------------------

FrameAccumulator::FrameAccumulator(uint32_t width, uint32_t height, uint32_t spp, std::string identity,
                                   uint32_t record_floats)
    : width_(width),
      height_(height),
      spp_(spp),
      target_(spp),
      record_floats_(record_floats),
      identity_(std::move(identity)),
      sums_(size_t(width) * height * record_floats, 0.0f),
      row_counts_(height, 0) {}

void FrameAccumulator::resume_from(const std::string& checkpoint_path) {
    Checkpoint c = read_checkpoint(checkpoint_path);
    require_matching_identity(checkpoint_path, c, identity_);
    if (c.width != width_ || c.height != height_ || c.spp != spp_) {
        throw InputError(checkpoint_path + ": checkpoint image size or spp differs from the render's");
    }
    if (c.record_floats != record_floats_) {
        throw InputError(checkpoint_path + ": checkpoint's pixel records differ from the render's (" +
                         std::to_string(c.record_floats) + " floats, the render's " + std::to_string(record_floats_) +
                         ")");
    }
    for (uint32_t y = 0; y < height_; ++y) row_counts_[y] = c.row_sample_count(y);
    sums_ = std::move(c.sums);
}

bool FrameAccumulator::done() const {
    return std::all_of(row_counts_.begin(), row_counts_.end(), [&](uint32_t c) { return c >= target_; });
}

float FrameAccumulator::pixel_samples(uint32_t x, uint32_t y) const {
    const size_t pixel = size_t(y) * width_ + x;
    return farmrt::samples_taken(sums_.data() + pixel * record_floats_, record_floats_, row_counts_[y]);
}

std::vector<float> FrameAccumulator::pixels() const {
    std::vector<float> pixels(size_t(width_) * height_ * 3, 0.0f);
    for (uint32_t y = 0; y < height_; ++y) {
        for (uint32_t x = 0; x < width_; ++x) {
            const size_t pixel = size_t(y) * width_ + x;
            const float count = pixel_samples(x, y);
            if (count == 0.0f) continue;
            for (size_t c = 0; c < 3; ++c) pixels[pixel * 3 + c] = sums_[pixel * record_floats_ + c] / count;
        }
    }
    return pixels;
}

std::vector<float> FrameAccumulator::luminance_variance() const {
    std::vector<float> variance(size_t(width_) * height_, 0.0f);
    if (!record_has_statistics(record_floats_)) return variance;
    for (size_t pixel = 0; pixel < variance.size(); ++pixel) {
        variance[pixel] = float(luminance_estimate(sums_.data() + pixel * record_floats_).variance_of_mean);
    }
    return variance;
}

std::vector<float> FrameAccumulator::alpha() const {
    if (!record_has_alpha(record_floats_)) return {};
    std::vector<float> alpha(size_t(width_) * height_, 0.0f);
    for (uint32_t y = 0; y < height_; ++y) {
        for (uint32_t x = 0; x < width_; ++x) {
            const size_t pixel = size_t(y) * width_ + x;
            const float count = pixel_samples(x, y);
            if (count > 0.0f) alpha[pixel] = sums_[pixel * record_floats_ + record_floats_ - 1] / count;
        }
    }
    return alpha;
}

uint64_t FrameAccumulator::samples_done() const {
    uint64_t total = 0;
    for (uint32_t c : row_counts_) total += uint64_t(c) * width_;
    return total;
}

uint64_t FrameAccumulator::samples_taken() const {
    if (!record_has_statistics(record_floats_)) return samples_done();
    uint64_t total = 0;
    for (size_t p = kSamplesTaken; p < sums_.size(); p += record_floats_) total += uint64_t(sums_[p]);
    return total;
}

std::vector<Band> FrameAccumulator::next_pass(uint32_t pass_samples) const {
    const uint32_t lowest = *std::min_element(row_counts_.begin(), row_counts_.end());
    const uint32_t target = uint32_t(std::min<uint64_t>(uint64_t(lowest) + std::max(1u, pass_samples), spp_));
    std::vector<Band> bands;
    for (uint32_t y = 0; y < height_;) {
        const uint32_t count = row_counts_[y];
        uint32_t end = y + 1;
        while (end < height_ && row_counts_[end] == count) ++end;
        if (count < target) bands.push_back(Band{RowRange{y, end}, SampleRange{count, target}});
        y = end;
    }
    return bands;
}

void FrameAccumulator::complete(const Band& band) {
    for (uint32_t y = band.rows.begin; y < band.rows.end; ++y) row_counts_[y] = band.samples.end;
}

Checkpoint FrameAccumulator::checkpoint() const {
    Checkpoint c;
    c.identity = identity_;
    c.width = width_;
    c.height = height_;
    c.spp = spp_;
    c.record_floats = record_floats_;
    c.sums = sums_;
    c.sample_counts.resize(size_t(width_) * height_);
    for (uint32_t y = 0; y < height_; ++y) {
        std::fill_n(c.sample_counts.begin() + ptrdiff_t(size_t(y) * width_), width_, row_counts_[y]);
    }
    return c;
}

}  // namespace farmrt
