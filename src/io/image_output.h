// Writing (and, for tests and resume, reading) images. The extension picks the
// format; .ppm and .pfm are built in, everything else goes through OpenImageIO
// when farmrt is built with it. Every write is atomic: a temporary file in the
// target directory, renamed over the target only once complete.
#pragma once

#include <string>
#include <vector>

#include "core/render_settings.h"
#include "io/aov_output.h"

namespace farmrt {

struct ImageMetadata {
    std::string scene_file;
    uint32_t spp = 0;
    uint64_t seed = 0;
    uint32_t frame = 0;
    double render_seconds = 0;
    // A digest of the frame's identity (io/scene_identity.h frame_digest):
    // a later --resume tells a finished frame from one made with other settings.
    std::string identity;
    // Set when --time-limit ended the frame early: the samples the scene asked
    // for (spp holds those in the image) and the limit.
    uint32_t spp_requested = 0;
    double time_limit = 0;
    // For display-referred (integer) outputs: the look applied before the
    // encoding (core/render_settings.h); float outputs are written linear.
    float exposure = 0.0f;
    ViewTransform view_transform = ViewTransform::Standard;
    // How the samples were drawn and filtered, and the firefly clamp (biased
    // when set), so that an image says what made it.
    std::string sampler;
    std::string filter;
    float filter_width = 0.0f;
    float clamp_direct = 0.0f, clamp_indirect = 0.0f;
    // image.region: where the image sits in its frame (film_width x
    // film_height; 0: the image is the whole frame). EXR and TIFF keep it as
    // their data window inside the display window.
    uint32_t region_x = 0, region_y = 0, film_width = 0, film_height = 0;
};

// A linear value as a display-referred output shows it, before its encoding:
// scaled by 2^exposure, through the view transform.
float display_value(float linear, float exposure, ViewTransform view);

// Lower-case extension with the dot (".png"), or "" when there is none.
std::string file_extension(const std::string& path);
// Empty when farmrt can write this path's format, else a one-line reason.
std::string unsupported_format_reason(const std::string& path);
// The data type a format gets when the scene names none.
PixelDataType default_data_type(const std::string& path);
// Empty when the type suits the format, else a one-line reason.
std::string data_type_problem(const std::string& path, PixelDataType type);
// Empty when the format keeps an alpha channel (image.alpha), else a
// one-line reason. PFM and PPM keep it in a NAME.alpha.pfm beside them.
std::string alpha_channel_problem(const std::string& path);
// Where the alpha of an image in a format without an alpha channel goes.
std::string alpha_side_path(const std::string& image_path);
// Throws InputError when the output's directory does not exist or is not writable.
void check_output_writable(const std::string& path);

// Quantise one linear value with an encoding (8-bit and 16-bit outputs).
uint8_t encode_uint8(float linear, Encoding encoding);
uint16_t encode_uint16(float linear, Encoding encoding);

// `pixels` holds width * height linear RGB triples, top row first.
// `aovs` (io/aov_output.h) become more channels of an OpenEXR image, or PFM
// files next to it for other formats, written before it: a complete image
// means complete AOVs. `alpha` (width * height values, or empty: none)
// becomes the A channel; the colour given is premultiplied by it. Float
// outputs keep it so (OpenEXR's convention); integer outputs store the
// colour divided by alpha (PNG's and display-referred TIFF's straight
// alpha), the look and encoding applied after the division.
void write_image(const std::string& path, uint32_t width, uint32_t height, const std::vector<float>& pixels,
                 Encoding encoding, PixelDataType data_type, const ImageMetadata& metadata,
                 const std::vector<AovImage>& aovs = {}, const std::vector<float>& alpha = {});

struct LoadedImage {
    uint32_t width = 0, height = 0;
    std::vector<float> pixels;    // RGB, as stored (8-bit values scaled to [0, 1])
    bool floating_point = false;  // stored as floats (linear), not as integers (display-encoded)
    // What farmrt wrote into it (ImageDescription, or the PPM comment): "" where
    // the format keeps none (PFM) or another program wrote it.
    std::string description;
};
// The most pixels read_image accepts (a 16384 x 16384 texture; 3 GiB of RGB
// floats): a header asking for more is refused before anything is allocated.
constexpr uint64_t kMaxReadPixels = uint64_t(1) << 28;
// A compressed image (PNG, JPEG, HDR, TIFF, EXR) may hold at most
// kPixelsPerCompressedByte pixels per byte of its file beyond the first
// kMinPixelBudget (4096 x 4096): a header of a few bytes, or a flat image
// that compresses a thousandfold, cannot make farmrt allocate gigabytes.
// Real textures of 8192 x 8192 take megabytes.
constexpr uint64_t kMinPixelBudget = uint64_t(1) << 24;
constexpr uint64_t kPixelsPerCompressedByte = 16;
uint64_t image_pixel_budget(uint64_t file_bytes);
LoadedImage read_image(const std::string& path);

bool have_openimageio();
// True when writing `path` goes through OpenImageIO (its module is then worth
// loading in the background while the render runs: io/openimageio_loader.h).
bool needs_openimageio(const std::string& path);

}  // namespace farmrt
