#include "render/output_driver.h"

#include <cstdio>

#include "io/checkpoint.h"
#include "io/image_output.h"
#include "io/scene_identity.h"
#include "render/render_job.h"
#include "render/run_report.h"

namespace farmrt {

OutputDriver::OutputDriver(const SceneDescription& description, const CommandLine& command_line, BandRenderer& renderer)
    : description_(description),
      settings_(description.settings),
      command_line_(command_line),
      renderer_(renderer),
      frame_settings_(description),
      preview_(PreviewOptions{command_line.preview_file, command_line.preview_interval}, settings_.encoding,
               settings_.data_type) {}

OutputDriver::~OutputDriver() = default;

void OutputDriver::start() { start_ = last_checkpoint_ = Clock::now(); }

// A frame's AOVs need no sample of its beauty: they are made from when the
// frame opens, while the workers render it (a GPU job's process 0 has idle
// cores; a CPU job shares them), and are ready when it completes. On this
// process's GPU if it has one (while it renders), else its cores.
void OutputDriver::frame_opened(uint32_t frame, uint64_t resumed_samples) {
    if (resumed_samples > 0) resumed_samples_[frame] = resumed_samples;
    if (settings_.aovs.empty()) return;
    first_hits_[frame] = std::async(
        std::launch::async,
        [scene = description_.scene.view(), settings = frame_settings_.get(frame), aovs = settings_.aovs,
         spp = settings_.spp, device = &renderer_]() { return render_first_hits(scene, settings, aovs, spp, device); });
}

FirstHitImages OutputDriver::take_first_hits(uint32_t frame) {
    auto found = first_hits_.find(frame);
    if (found == first_hits_.end()) return {};
    FirstHitImages images = found->second.get();
    first_hits_.erase(found);
    return images;
}

bool OutputDriver::write_completed(FrameQueue& queue, const std::function<std::vector<RankMemory>()>& memory) {
    bool any = false;
    for (uint32_t slot : queue.take_completed()) {
        any = true;
        const PlannedFrame& task = queue.task(slot);
        const FrameAccumulator& accumulator = queue.accumulator(slot);
        const auto write_start = Clock::now();
        std::vector<AovImage> aovs;
        if (!settings_.aovs.empty()) aovs = assemble_aovs(settings_.aovs, take_first_hits(task.frame), accumulator);
        write_image(task.output, settings_.width, settings_.height, accumulator.pixels(), settings_.encoding,
                    settings_.data_type, metadata_for(task.frame, accumulator), aovs, accumulator.alpha());
        std::remove(task.checkpoint.c_str());
        const double write_seconds = seconds_between(write_start, Clock::now());
        written_.write_seconds += write_seconds;
        if (accumulator.ended_early()) ++written_.time_limited;
        written_.samples_taken += accumulator.samples_taken();
        written_.sample_positions += accumulator.samples_done();
        if (!command_line_.frame_log.empty()) log_frame(queue, slot, write_seconds, memory());
        queue.close(slot);
        ++written_.frames;
    }
    return any;
}

ImageMetadata OutputDriver::metadata_for(uint32_t frame, const FrameAccumulator& accumulator) const {
    ImageMetadata metadata;
    metadata.scene_file = settings_.scene_file;
    metadata.spp = accumulator.target();
    metadata.seed = settings_.seed;
    metadata.frame = frame;
    metadata.render_seconds = seconds_between(start_, Clock::now());
    metadata.identity = frame_digest(description_, frame);
    metadata.exposure = settings_.exposure;
    metadata.view_transform = settings_.view_transform;
    metadata.sampler = sampler_name(settings_.sampler);
    metadata.filter = filter_name(settings_.filter);
    metadata.filter_width = settings_.filter_width;
    if (is_region(settings_)) {
        metadata.region_x = settings_.region_x;
        metadata.region_y = settings_.region_y;
        metadata.film_width = settings_.film_width;
        metadata.film_height = settings_.film_height;
    }
    metadata.clamp_direct = settings_.clamp_direct;
    metadata.clamp_indirect = settings_.clamp_indirect;
    if (accumulator.ended_early()) {
        metadata.spp_requested = accumulator.spp();
        metadata.time_limit = command_line_.time_limit;
    }
    return metadata;
}

void OutputDriver::log_frame(const FrameQueue& queue, uint32_t slot, double write_seconds,
                             std::vector<RankMemory> memory) {
    const PlannedFrame& task = queue.task(slot);
    const FrameAccumulator& accumulator = queue.accumulator(slot);
    FrameLogEntry entry;
    entry.frame = task.frame;
    entry.output = task.output;
    entry.spp = accumulator.target();
    entry.spp_requested = accumulator.spp();
    entry.time_limited = accumulator.ended_early();
    const auto resumed = resumed_samples_.find(task.frame);
    entry.samples = accumulator.samples_taken() - (resumed == resumed_samples_.end() ? 0 : resumed->second);
    entry.render_seconds = queue.frame_seconds(slot);
    entry.write_seconds = write_seconds;
    entry.job_seconds = seconds_between(start_, Clock::now());
    entry.ranks = std::move(memory);
    append_line(command_line_.frame_log, frame_log_line(entry));
}

// A frame in progress goes to the preview file, written in the background
// while the engine goes on dealing. One preview per interval, the open frames
// in turn: with several frames open (workers start the next frame while the
// last items of one are out), each gets its previews.
void OutputDriver::preview_when_due(const FrameQueue& queue) {
    if (!preview_.due() || queue.stopped()) return;
    int chosen = -1, first = -1;  // the first frame after the last one previewed; the first of all
    for (uint32_t slot : queue.open_slots()) {
        const FrameAccumulator& accumulator = queue.accumulator(slot);
        if (accumulator.done() || accumulator.samples_done() == 0) continue;
        const uint32_t frame = queue.task(slot).frame;
        const auto earlier = [&](int other) { return other < 0 || frame < queue.task(uint32_t(other)).frame; };
        if (earlier(first)) first = int(slot);
        if ((!previewed_any_ || frame > last_previewed_frame_) && earlier(chosen)) chosen = int(slot);
    }
    if (chosen < 0) chosen = first;
    if (chosen < 0) return;
    const FrameAccumulator& accumulator = queue.accumulator(uint32_t(chosen));
    const uint32_t frame = queue.task(uint32_t(chosen)).frame;
    ImageMetadata metadata = metadata_for(frame, accumulator);
    metadata.spp = uint32_t(accumulator.samples_done() / (uint64_t(settings_.width) * settings_.height));
    metadata.identity.clear();  // a preview is never a finished frame to --resume
    preview_.write(frame, accumulator.pixels(), settings_.width, settings_.height, metadata);
    previewed_any_ = true;
    last_previewed_frame_ = frame;
}

void OutputDriver::checkpoint_when_due(const FrameQueue& queue) {
    if (command_line_.checkpoint_interval <= 0 || queue.stopped()) return;
    if (seconds_between(last_checkpoint_, Clock::now()) < command_line_.checkpoint_interval) return;
    write_checkpoints(queue);
    last_checkpoint_ = Clock::now();
}

KeptWork OutputDriver::write_checkpoints(const FrameQueue& queue) {
    KeptWork kept;
    for (uint32_t slot : queue.open_slots()) {
        const FrameAccumulator& accumulator = queue.accumulator(slot);
        if (accumulator.samples_done() == 0 || accumulator.done()) continue;
        write_checkpoint(queue.task(slot).checkpoint, accumulator.checkpoint());
        ++kept.checkpoints;
        kept.samples += accumulator.samples_done();
    }
    return kept;
}

}  // namespace farmrt
