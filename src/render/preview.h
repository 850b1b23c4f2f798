// --preview FILE: rank 0 writes the frame in progress every few seconds, so
// that a long frame can be looked at before it is done. The preview is each
// row's sums over its own samples (FrameAccumulator::pixels): rows that are a
// pass ahead are simply less noisy. Written in the background, atomically
// (write_image's temporary file and rename), so that rank 0 keeps answering
// the ranks and a viewer never reads half an image. A failed write is a
// warning: the render goes on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "core/render_settings.h"
#include "io/image_output.h"

namespace farmrt {

struct PreviewOptions {
    std::string path;      // "" = no previews; a frame pattern (####) takes the frame number
    double interval = 10;  // seconds between previews
};

class PreviewWriter {
public:
    PreviewWriter(PreviewOptions options, Encoding encoding, PixelDataType data_type);
    ~PreviewWriter();  // waits for the write in progress
    PreviewWriter(const PreviewWriter&) = delete;
    PreviewWriter& operator=(const PreviewWriter&) = delete;

    // True when previews are on, the interval has passed and no write is in progress.
    bool due() const;
    // Starts writing `pixels` (linear RGB, width x height) as frame `frame`'s preview.
    void write(uint32_t frame, std::vector<float> pixels, uint32_t width, uint32_t height, ImageMetadata metadata);
    uint64_t written() const { return written_.load(); }
    uint64_t failed() const { return failed_.load(); }

private:
    void join();

    PreviewOptions options_;
    Encoding encoding_;
    PixelDataType data_type_;
    std::chrono::steady_clock::time_point last_;
    std::thread writer_;
    std::atomic<bool> busy_{false};
    std::atomic<uint64_t> written_{0}, failed_{0};
    bool warned_ = false;
    uint32_t warned_frame_ = 0;
};

// The data type a preview gets: the output's when the preview's format takes it, else its format's default.
PixelDataType preview_data_type(const std::string& preview_path, PixelDataType output_type);

}  // namespace farmrt
