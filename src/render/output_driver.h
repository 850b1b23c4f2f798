// Everything a farm job writes while it renders, apart from the dealing:
// each frame's image (with its AOVs) as it completes, the frame log's line,
// previews of the frames in progress, and checkpoints of the open frames
// (now and then, and at a stop). The engine (render/farm_engine.h) tells it
// when frames open and asks it to write what the queue completed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <string>
#include <unordered_map>
#include <vector>

#include "render/aov_pass.h"
#include "render/band_renderer.h"
#include "render/command_line.h"
#include "render/farm_context.h"
#include "render/frame_log.h"
#include "render/frame_queue.h"
#include "render/preview.h"

namespace farmrt {

// What checkpoints hold.
struct KeptWork {
    size_t checkpoints = 0;
    uint64_t samples = 0;  // pixel samples held by them
};

// The frames written so far.
struct WrittenFrames {
    size_t frames = 0;
    size_t time_limited = 0;  // ended by --time-limit with fewer samples than asked
    // The samples their pixels took, and the samples of their sample
    // positions (more where adaptive sampling stopped pixels).
    uint64_t samples_taken = 0, sample_positions = 0;
    double write_seconds = 0;  // writing images
};

class OutputDriver {
public:
    // `renderer` makes the AOVs' first hits when it can (a GPU), else the cores do.
    OutputDriver(const SceneDescription& description, const CommandLine& command_line, BandRenderer& renderer);
    ~OutputDriver();
    OutputDriver(const OutputDriver&) = delete;
    OutputDriver& operator=(const OutputDriver&) = delete;

    // Rendering starts: the images' render times and the log's job times count from now.
    void start();
    // A frame opened (`resumed_samples`: what its checkpoint held): its AOVs
    // are made from now, while the frame renders.
    void frame_opened(uint32_t frame, uint64_t resumed_samples);
    // Writes the frames the queue has completed, drops their checkpoints and
    // closes them; `memory` tells each process's memory for the frame log.
    // True when it wrote any.
    bool write_completed(FrameQueue& queue, const std::function<std::vector<RankMemory>()>& memory);
    // A preview of a frame in progress, when one is due.
    void preview_when_due(const FrameQueue& queue);
    // Checkpoints of the open frames, when --checkpoint-interval says so.
    void checkpoint_when_due(const FrameQueue& queue);
    // Checkpoints of every open frame that holds samples.
    static KeptWork write_checkpoints(const FrameQueue& queue);

    const WrittenFrames& written() const { return written_; }

private:
    FirstHitImages take_first_hits(uint32_t frame);
    ImageMetadata metadata_for(uint32_t frame, const FrameAccumulator& accumulator) const;
    void log_frame(const FrameQueue& queue, uint32_t slot, double write_seconds, std::vector<RankMemory> memory);

    const SceneDescription& description_;
    const RenderSettings& settings_;
    const CommandLine& command_line_;
    BandRenderer& renderer_;
    FrameSettingsCache frame_settings_;
    PreviewWriter preview_;
    WrittenFrames written_;
    TimePoint start_{}, last_checkpoint_{};
    bool previewed_any_ = false;
    uint32_t last_previewed_frame_ = 0;
    std::unordered_map<uint32_t, uint64_t> resumed_samples_;                // frame -> samples its checkpoint held
    std::unordered_map<uint32_t, std::future<FirstHitImages>> first_hits_;  // frame -> its AOVs in the making
};

}  // namespace farmrt
