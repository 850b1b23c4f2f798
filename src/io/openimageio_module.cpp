// Built as the shared module libfarmrt_openimageio.so (see openimageio_module.h).
#include "io/openimageio_module.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <OpenImageIO/filesystem.h>
#include <OpenImageIO/imageio.h>

namespace farmrt {
namespace {

std::string extension_of(const std::string& path) {
    const size_t dot = path.rfind('.');
    std::string extension = dot == std::string::npos ? "" : path.substr(dot);
    for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
    return extension;
}

bool can_write(const std::string& path) { return OIIO::ImageOutput::create(path) != nullptr; }

// Reads a written file back completely; "" or the problem.
std::string read_back_problem(const std::string& path, uint32_t width, uint32_t height) {
    auto input = OIIO::ImageInput::open(path);
    if (!input) return OIIO::geterror();  // (retrieving it also clears it)
    const OIIO::ImageSpec spec = input->spec();
    if (spec.width != int(width) || spec.height != int(height)) return "wrong size on reading back";
    std::vector<float> scratch(size_t(width) * height * size_t(spec.nchannels));
    if (!input->read_image(0, 0, 0, spec.nchannels, OIIO::TypeDesc::FLOAT, scratch.data())) {
        return input->geterror();
    }
    return "";
}

// OpenImageIO's PNG writer (2.4) reports success when its file writes failed
// (a full disk, a file size limit) and leaves a truncated file, so the image
// is encoded in memory and written here with every write checked; other
// formats are written by OpenImageIO to the file, which is then read back.
std::string write(const OiioImageToWrite& image) {
    const std::string& target = image.target;
    std::vector<unsigned char> encoded;
    OIIO::Filesystem::IOVecOutput memory(encoded);  // outlives `output`
    auto output = OIIO::ImageOutput::create(image.path);
    if (!output) return target + ": OpenImageIO cannot write this format: " + OIIO::geterror();
    // Only for formats whose in-memory writing is tested (round trips in
    // tests/io/test_image_output.cpp): OpenImageIO 2.4 writes broken TIFFs that way.
    const std::string extension = extension_of(target);
    const bool memory_tested = extension == ".png" || extension == ".jpg" || extension == ".jpeg" ||
                               extension == ".exr" || extension == ".hdr";
    const bool in_memory = memory_tested && output->supports("ioproxy") && output->set_ioproxy(&memory);
    const OIIO::TypeDesc formats[] = {OIIO::TypeDesc::UINT8, OIIO::TypeDesc::UINT16, OIIO::TypeDesc::HALF,
                                      OIIO::TypeDesc::FLOAT};
    OIIO::ImageSpec spec(int(image.width), int(image.height), image.channels, formats[image.data_type]);
    if (!image.channel_names.empty()) spec.channelnames = image.channel_names;
    if (!image.float_channels.empty() && image.data_type == 2) {
        for (const std::string& name : spec.channelnames) {
            const bool keep_float =
                std::find(image.float_channels.begin(), image.float_channels.end(), name) != image.float_channels.end();
            spec.channelformats.push_back(keep_float ? OIIO::TypeDesc::FLOAT : OIIO::TypeDesc::HALF);
        }
    }
    for (const auto& [name, value] : image.text_attributes) spec.attribute(name, value);
    for (const auto& [name, value] : image.int_attributes) spec.attribute(name, value);
    for (const auto& [name, value] : image.float_attributes) spec.attribute(name, value);
    if (!image.colorspace.empty()) spec.attribute("oiio:ColorSpace", image.colorspace);
    if (image.unassociated_alpha) spec.attribute("oiio:UnassociatedAlpha", 1);
    if (image.film_width > 0) {
        spec.x = int(image.region_x);
        spec.y = int(image.region_y);
        spec.full_x = spec.full_y = 0;
        spec.full_width = int(image.film_width);
        spec.full_height = int(image.film_height);
    }
    if (!output->open(image.path, spec)) return target + ": " + output->geterror();
    const OIIO::TypeDesc given = image.data_type <= 1 ? formats[image.data_type] : OIIO::TypeDesc::FLOAT;
    if (!output->write_image(given, image.data)) return target + ": " + output->geterror();
    if (!output->close()) return target + ": " + output->geterror();
    if (in_memory) {
        std::ofstream out(image.path, std::ios::binary);
        if (!out) return target + ": cannot open for writing: " + std::strerror(errno);
        out.write(reinterpret_cast<const char*>(encoded.data()), std::streamsize(encoded.size()));
        out.flush();
        if (!out) return target + ": write failed: " + std::strerror(errno);
        return "";
    }
    const std::string problem = read_back_problem(image.path, image.width, image.height);
    if (!problem.empty()) return target + ": the written image does not read back complete (disk full?): " + problem;
    return "";
}

// The most OpenImageIO may hold at once while it reads an image for farmrt
// (beside the floats farmrt keeps): rows or tiles as stored, and as floats.
constexpr uint64_t kMaxReadChunkBytes = uint64_t(256) << 20;
// OpenImageIO converts a file's rows to floats 256 rows at a time, whatever
// the image's height.
constexpr uint64_t kMaxReadRowBytes = kMaxReadChunkBytes / 256;

std::string image_size(const OIIO::ImageSpec& spec) {
    return "image of " + std::to_string(spec.width) + "x" + std::to_string(spec.height) + " pixels and " +
           std::to_string(spec.nchannels) + " channels";
}

std::string read(const std::string& path, uint64_t max_pixels, OiioImageRead& image) {
    auto input = OIIO::ImageInput::open(path);
    if (!input) return "cannot read: " + OIIO::geterror();
    const OIIO::ImageSpec& spec = input->spec();
    // The header's size, checked before anything is allocated.
    if (spec.width <= 0 || spec.height <= 0 || spec.nchannels <= 0 || spec.nchannels > 64 ||
        uint64_t(spec.width) * uint64_t(spec.height) > max_pixels) {
        return image_size(spec) + ": more than the " + std::to_string(max_pixels >> 20) +
               " Mpixels farmrt reads from a file of this size";
    }
    // A row of 1 MiB (65536 RGBA float pixels) costs OpenImageIO 256 MiB;
    // a one-row image 16 M pixels wide asked it for 50 GiB.
    const uint64_t row_bytes = uint64_t(spec.scanline_bytes(true));
    if (row_bytes > kMaxReadRowBytes) {
        return image_size(spec) + ": a row of " + std::to_string(row_bytes) + " bytes, more than the " +
               std::to_string(kMaxReadRowBytes) + " farmrt reads";
    }
    // Tiled files: OpenImageIO reads a whole tile (as stored, and as floats)
    // and a row of whole tiles at once, whatever the image's size: a TIFF of
    // 234 bytes, 16 x 16 pixels in one tile of 16384 x 16384, asked it for 6 GiB.
    if (spec.tile_width != 0 && (spec.tile_width < 0 || spec.tile_height <= 0 || spec.tile_depth <= 0)) {
        return image_size(spec) + " in tiles of " + std::to_string(spec.tile_width) + "x" +
               std::to_string(spec.tile_height) + "x" + std::to_string(spec.tile_depth) + ": not a tile size";
    }
    if (spec.tile_width > 0) {
        // In doubles: a header's tile sizes multiply past 64 bits.
        const double tile_pixels =
            double(spec.tile_width) * double(std::max(1, spec.tile_height)) * double(std::max(1, spec.tile_depth));
        const double pixel_bytes = double(spec.pixel_bytes(true));
        const double tiles_across = std::ceil(double(spec.width) / double(spec.tile_width));
        const double at_once = std::max(tile_pixels * std::max(double(spec.nchannels) * sizeof(float), pixel_bytes),
                                        tiles_across * tile_pixels * pixel_bytes);
        if (at_once > double(kMaxReadChunkBytes)) {
            char bytes[32];
            std::snprintf(bytes, sizeof(bytes), "%.0f", at_once);
            return image_size(spec) + " in tiles of " + std::to_string(spec.tile_width) + "x" +
                   std::to_string(spec.tile_height) + ": " + bytes + " bytes read at once, more than the " +
                   std::to_string(kMaxReadChunkBytes) + " farmrt reads";
        }
    }
    image.width = uint32_t(spec.width);
    image.height = uint32_t(spec.height);
    const int channels = std::clamp(image.max_channels, 1, spec.nchannels);
    image.channels = channels;
    image.floating_point = spec.format.is_floating_point();
    image.description = spec.get_string_attribute("ImageDescription");
    image.values.resize(size_t(spec.width) * spec.height * size_t(channels));
    try {
        if (!input->read_image(0, 0, 0, channels, OIIO::TypeDesc::FLOAT, image.values.data())) {
            return input->geterror();
        }
    } catch (const std::exception& error) {  // OpenImageIO's own sizes overflowing (std::length_error)
        return std::string("cannot read: ") + error.what();
    }
    return "";
}

const OiioFunctions kFunctions{can_write, write, read};

}  // namespace
}  // namespace farmrt

extern "C" const farmrt::OiioFunctions* farmrt_openimageio_functions() { return &farmrt::kFunctions; }
