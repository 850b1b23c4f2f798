#include "render/preview.h"

#include <cstdio>

#include "io/frame_list.h"

namespace farmrt {

PixelDataType preview_data_type(const std::string& preview_path, PixelDataType output_type) {
    return data_type_problem(preview_path, output_type).empty() ? output_type : default_data_type(preview_path);
}

PreviewWriter::PreviewWriter(PreviewOptions options, Encoding encoding, PixelDataType data_type)
    : options_(std::move(options)),
      encoding_(encoding),
      data_type_(preview_data_type(options_.path, data_type)),
      last_(std::chrono::steady_clock::now()) {}

PreviewWriter::~PreviewWriter() { join(); }

void PreviewWriter::join() {
    if (writer_.joinable()) writer_.join();
}

bool PreviewWriter::due() const {
    if (options_.path.empty() || busy_.load()) return false;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= options_.interval;
}

void PreviewWriter::write(uint32_t frame, std::vector<float> pixels, uint32_t width, uint32_t height,
                          ImageMetadata metadata) {
    join();
    last_ = std::chrono::steady_clock::now();
    busy_ = true;
    const std::string path = has_frame_pattern(options_.path) ? frame_output_path(options_.path, frame) : options_.path;
    writer_ = std::thread([this, path, frame, pixels = std::move(pixels), width, height, metadata]() {
        try {
            write_image(path, width, height, pixels, encoding_, data_type_, metadata);
            ++written_;
        } catch (const std::exception& error) {
            ++failed_;
            // One warning per frame, not one every interval (writes never
            // overlap: write() joins the last one first).
            if (!warned_ || warned_frame_ != frame) {  // even under --quiet: the user asked for these files
                std::fprintf(stderr, "farmrt: warning: preview of frame %u not written (the render goes on): %s\n",
                             frame, error.what());
            }
            warned_ = true;
            warned_frame_ = frame;
        }
        busy_ = false;
    });
}

}  // namespace farmrt
