#include "io/image_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "core/version.h"
#include "io/file_reader.h"
#include "io/openimageio_loader.h"
#include "io/temporary_name.h"

namespace farmrt {
namespace {

// Libraries under OpenImageIO (libpng, libjpeg, libtiff) print their own
// lines on stderr before OpenImageIO reports the failure. Held here while a
// file is read, their text joins farmrt's one error line instead.
class StderrCapture {
public:
    StderrCapture() {
        std::fflush(stderr);
        saved_ = ::dup(STDERR_FILENO);
        file_ = std::tmpfile();
        if (saved_ < 0 || !file_ || ::dup2(::fileno(file_), STDERR_FILENO) < 0) restore();
    }
    ~StderrCapture() { restore(); }
    StderrCapture(const StderrCapture&) = delete;
    StderrCapture& operator=(const StderrCapture&) = delete;

    // Ends the capture; what was printed, as one line (at most 500 bytes).
    std::string take() {
        std::fflush(stderr);
        std::string text;
        if (file_ && captured_) {
            std::rewind(file_);
            char buffer[512];
            const size_t count = std::fread(buffer, 1, sizeof buffer - 12, file_);
            text.assign(buffer, count);
        }
        restore();
        std::replace(text.begin(), text.end(), '\n', ' ');
        while (!text.empty() && text.back() == ' ') text.pop_back();
        return text;
    }

private:
    void restore() {
        if (saved_ >= 0) {
            if (captured_) ::dup2(saved_, STDERR_FILENO);
            ::close(saved_);
            saved_ = -1;
        }
        if (file_) std::fclose(file_);
        file_ = nullptr;
        captured_ = false;
    }
    int saved_ = -1;
    std::FILE* file_ = nullptr;
    bool captured_ = true;
};

const char* const kBuiltinExtensions[] = {".ppm", ".pfm"};
const char* const kFloatExtensions[] = {".exr", ".hdr", ".pfm"};

bool is_builtin(const std::string& extension) {
    return std::find(std::begin(kBuiltinExtensions), std::end(kBuiltinExtensions), extension) !=
           std::end(kBuiltinExtensions);
}

bool is_float_only(const std::string& extension) {
    return std::find(std::begin(kFloatExtensions), std::end(kFloatExtensions), extension) != std::end(kFloatExtensions);
}

std::string directory_of(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? "." : parent.string();
}

std::string metadata_description(const ImageMetadata& m) {
    std::ostringstream out;
    out << kSoftwareName << " " << kVersion << ": scene=" << m.scene_file << " spp=" << m.spp << " seed=" << m.seed
        << " frame=" << m.frame << " render_seconds=" << m.render_seconds;
    if (!m.identity.empty()) out << " identity=" << m.identity;
    if (m.time_limit > 0) out << " time_limit=" << m.time_limit << " spp_requested=" << m.spp_requested;
    if (m.exposure != 0.0f) out << " exposure=" << m.exposure;
    if (m.view_transform == ViewTransform::Filmic) out << " view_transform=filmic";
    if (!m.sampler.empty()) out << " sampler=" << m.sampler;
    if (!m.filter.empty()) out << " filter=" << m.filter << " filter_width=" << m.filter_width;
    if (m.clamp_direct > 0.0f || m.clamp_indirect > 0.0f) {
        out << " clamp_direct=" << m.clamp_direct << " clamp_indirect=" << m.clamp_indirect;
    }
    if (m.film_width > 0) {
        out << " region=" << m.region_x << "," << m.region_y << " film=" << m.film_width << "x" << m.film_height;
    }
    return out.str();
}

// `path` is the temporary file; errors name `target`, the file the user asked for.
void write_builtin(const std::string& path, const std::string& target, const std::string& extension, uint32_t width,
                   uint32_t height, const std::vector<float>& pixels, Encoding encoding, PixelDataType data_type,
                   const ImageMetadata& metadata) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw RenderError(target + ": cannot open for writing: " + std::strerror(errno));
    const size_t count = size_t(width) * height * 3;
    if (extension == ".pfm") {
        // PFM rows run bottom to top; a negative scale means little-endian.
        out << "PF\n" << width << " " << height << "\n-1.0\n";
        for (uint32_t row = height; row-- > 0;) {
            out.write(reinterpret_cast<const char*>(&pixels[size_t(row) * width * 3]), std::streamsize(width) * 3 * 4);
        }
    } else {
        const bool wide = data_type == PixelDataType::UInt16;
        out << "P6\n# " << metadata_description(metadata) << "\n"
            << width << " " << height << "\n"
            << (wide ? 65535 : 255) << "\n";
        // Encoded on every thread: one pow() per value is tens of
        // milliseconds for a HD frame, a tenth of a GPU's render of it.
        std::vector<unsigned char> bytes(count * (wide ? 2 : 1));
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < count; ++i) {
            if (wide) {
                const uint16_t v = encode_uint16(pixels[i], encoding);
                bytes[2 * i] = static_cast<unsigned char>(v >> 8);  // PPM is big-endian
                bytes[2 * i + 1] = static_cast<unsigned char>(v & 0xFF);
            } else {
                bytes[i] = encode_uint8(pixels[i], encoding);
            }
        }
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    out.flush();
    if (!out) throw RenderError(target + ": write failed: " + std::strerror(errno));
}

// Float pixels followed, per pixel, by alpha and the AOVs' channels (OpenEXR's layers).
std::vector<float> interleave_channels(uint32_t width, uint32_t height, const std::vector<float>& pixels,
                                       const std::vector<float>& alpha, const std::vector<AovImage>& aovs,
                                       std::vector<std::string>& names) {
    names = {"R", "G", "B"};
    if (!alpha.empty()) names.push_back("A");
    std::vector<size_t> counts;
    for (const AovImage& aov : aovs) {
        const std::vector<std::string> channels = aov_channels(aov.aov);
        names.insert(names.end(), channels.begin(), channels.end());
        counts.push_back(channels.size());
    }
    const size_t pixel_count = size_t(width) * height, stride = names.size();
    std::vector<float> values(pixel_count * stride);
    for (size_t p = 0; p < pixel_count; ++p) {
        float* out = &values[p * stride];
        for (int c = 0; c < 3; ++c) *out++ = pixels[p * 3 + size_t(c)];
        if (!alpha.empty()) *out++ = alpha[p];
        for (size_t a = 0; a < aovs.size(); ++a) {
            for (size_t c = 0; c < counts[a]; ++c) *out++ = aovs[a].values[p * counts[a] + c];
        }
    }
    return values;
}

// `path` is the temporary file; errors name `target`. The module writes
// (io/openimageio_module.cpp); the values are encoded here.
void write_with_openimageio(const std::string& path, const std::string& target, uint32_t width, uint32_t height,
                            const std::vector<float>& pixels, const std::vector<float>& alpha, Encoding encoding,
                            PixelDataType data_type, const ImageMetadata& metadata, const std::vector<AovImage>& aovs) {
    const OiioFunctions* module = openimageio();
    if (!module) throw RenderError(target + ": " + openimageio_problem());
    OiioImageToWrite image;
    image.path = path;
    image.target = target;
    image.width = width;
    image.height = height;
    image.text_attributes = {{"Software", std::string(kSoftwareName) + " " + kVersion},
                             {"ImageDescription", metadata_description(metadata)},
                             {"farmrt:scene", metadata.scene_file},
                             {"farmrt:seed", std::to_string(metadata.seed)}};
    image.int_attributes = {{"farmrt:spp", int(metadata.spp)}, {"farmrt:frame", int(metadata.frame)}};
    image.float_attributes = {{"farmrt:render_seconds", float(metadata.render_seconds)}};
    image.region_x = metadata.region_x;
    image.region_y = metadata.region_y;
    image.film_width = metadata.film_width;
    image.film_height = metadata.film_height;
    // Integer values: RGB, or RGBA with alpha stored linear (straight alpha:
    // the caller has divided the colour by it).
    const size_t channels = alpha.empty() ? 3 : 4, count = size_t(width) * height * channels;
    const auto value = [&](size_t i) {
        return channels == 3 ? pixels[i] : (i % 4 == 3 ? alpha[i / 4] : pixels[i / 4 * 3 + i % 4]);
    };
    const auto encoding_of = [&](size_t i) { return channels == 4 && i % 4 == 3 ? Encoding::Linear : encoding; };
    std::vector<uint8_t> bytes;
    std::vector<uint16_t> words;
    std::vector<float> layered;
    if (data_type == PixelDataType::UInt8) {
        bytes.resize(count);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < count; ++i) bytes[i] = encode_uint8(value(i), encoding_of(i));
        image.data_type = 0;
        image.data = bytes.data();
    } else if (data_type == PixelDataType::UInt16) {
        words.resize(count);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < count; ++i) words[i] = encode_uint16(value(i), encoding_of(i));
        image.data_type = 1;
        image.data = words.data();
    } else {
        image.data_type = data_type == PixelDataType::Half ? 2 : 3;
        image.data = pixels.data();
    }
    if (channels == 4) {
        image.channels = 4;
        image.channel_names = {"R", "G", "B", "A"};
        // Integer colour is straight; float colour stays premultiplied.
        image.unassociated_alpha = data_type == PixelDataType::UInt8 || data_type == PixelDataType::UInt16;
    }
    if (!aovs.empty() || (channels == 4 && image.data_type >= 2)) {
        if (!aovs.empty() && (data_type == PixelDataType::UInt8 || data_type == PixelDataType::UInt16)) {
            throw RenderError(target + ": AOVs as channels need a float or half image");
        }
        layered = interleave_channels(width, height, pixels, alpha, aovs, image.channel_names);
        image.channels = int(image.channel_names.size());
        // Half holds integers up to 2048 and depths to 3 digits: too few.
        image.float_channels = {"Z", "samples", "variance"};
        image.data = layered.data();
    }
    // The tag says what the values are: the book's gamma 2 is not sRGB's curve
    // (PNG: a gAMA chunk of 1/2), and float data is always linear.
    if (data_type == PixelDataType::UInt8 || data_type == PixelDataType::UInt16) {
        image.colorspace = encoding == Encoding::Linear ? "linear" : encoding == Encoding::Gamma2 ? "Gamma2.0" : "sRGB";
    } else {
        image.colorspace = "linear";
    }
    const std::string problem = module->write(image);
    if (!problem.empty()) throw RenderError(problem);
}

// Formats OpenImageIO 2.4 writes: accepted without loading it (checking an
// output name must not cost the module's load in the scene's parse).
bool known_openimageio_writer(const std::string& extension) {
    for (const char* known : {".png", ".exr", ".jpg", ".jpeg", ".hdr", ".tif", ".tiff", ".tga", ".bmp"}) {
        if (extension == known) return true;
    }
    return false;
}

LoadedImage read_builtin(const std::string& path, const std::string& extension) {
    const std::uintmax_t file_size = regular_file_size(path, path, "image");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
    LoadedImage image;
    std::string magic;
    in >> magic;
    auto skip_comments = [&]() {
        in >> std::ws;
        while (in.peek() == '#') {
            std::string line;
            std::getline(in, line);
            if (image.description.empty() && line.size() > 2) image.description = line.substr(2);  // "# " + text
            in >> std::ws;
        }
    };
    skip_comments();
    in >> image.width;
    skip_comments();
    in >> image.height;
    skip_comments();
    double scale_or_max = 0;
    in >> scale_or_max;
    in.get();
    if (!in || image.width == 0 || image.height == 0) throw InputError(path + ": not a valid image header");
    // The header's size must fit the bytes after it before anything is
    // allocated (width x height x 3 can also wrap around in 64 bits).
    const bool wide = extension != ".pfm" && scale_or_max > 255;
    const unsigned bytes_per_value = extension == ".pfm" ? 4 : (wide ? 2 : 1);
    const std::streamoff data_start = in.tellg();
    const unsigned __int128 needed = static_cast<unsigned __int128>(image.width) * image.height * 3 * bytes_per_value;
    if (data_start < 0 || needed > file_size - std::uintmax_t(data_start)) {
        throw InputError(path + ": the header's " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                         " pixels need more bytes than the file holds (" + std::to_string(file_size) + ")");
    }
    const size_t count = size_t(image.width) * image.height * 3;
    image.pixels.resize(count);
    if (extension == ".pfm") {
        if (magic != "PF" || scale_or_max >= 0) throw InputError(path + ": only little-endian RGB PFM is supported");
        image.floating_point = true;
        for (uint32_t row = image.height; row-- > 0;) {
            in.read(reinterpret_cast<char*>(&image.pixels[size_t(row) * image.width * 3]),
                    std::streamsize(image.width) * 3 * 4);
        }
    } else {
        if (magic != "P6") throw InputError(path + ": only binary RGB PPM (P6) is supported");
        std::vector<unsigned char> bytes(count * (wide ? 2 : 1));
        in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
        for (size_t i = 0; i < count; ++i) {
            image.pixels[i] = wide ? float((bytes[2 * i] << 8) | bytes[2 * i + 1]) / 65535.0f : bytes[i] / 255.0f;
        }
    }
    if (!in) throw InputError(path + ": truncated image data");
    return image;
}

}  // namespace

bool have_openimageio() { return FARMRT_HAVE_OPENIMAGEIO != 0; }

bool needs_openimageio(const std::string& path) { return have_openimageio() && !is_builtin(file_extension(path)); }

std::string file_extension(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension;
}

std::string unsupported_format_reason(const std::string& path) {
    const std::string extension = file_extension(path);
    if (extension.empty()) return "no file extension to choose the image format by (use .png, .exr, ...)";
    if (is_builtin(extension)) return "";
    if (!have_openimageio()) {
        return "unsupported image extension '" + extension + "' (built without OpenImageIO: use .ppm or .pfm)";
    }
    if (known_openimageio_writer(extension)) return "";
    const OiioFunctions* module = openimageio();
    if (!module) return openimageio_problem();
    if (module->can_write(path)) return "";
    return "unsupported image extension '" + extension + "' (OpenImageIO has no writer for it)";
}

PixelDataType default_data_type(const std::string& path) {
    return is_float_only(file_extension(path)) ? PixelDataType::Float : PixelDataType::UInt8;
}

std::string data_type_problem(const std::string& path, PixelDataType type) {
    const std::string extension = file_extension(path);
    const bool is_float = type == PixelDataType::Float || type == PixelDataType::Half;
    if (is_float_only(extension) && !is_float) return extension + " images hold float data only";
    if ((extension == ".png" || extension == ".ppm") && is_float) return extension + " images hold integer data only";
    // OpenImageIO 2.4's TIFF writer turns half into float without a word.
    if ((extension == ".tif" || extension == ".tiff") && type == PixelDataType::Half) {
        return "TIFF images are written with float, not half, data (use data_type: float, or .exr for half)";
    }
    if (extension == ".jpg" || extension == ".jpeg") {
        if (type != PixelDataType::UInt8) return "JPEG images hold 8-bit data only";
    }
    if (extension == ".ppm" && type != PixelDataType::UInt8 && type != PixelDataType::UInt16) {
        return ".ppm images hold 8- or 16-bit data only";
    }
    return "";
}

std::string alpha_channel_problem(const std::string& path) {
    const std::string extension = file_extension(path);
    for (const char* kept : {".exr", ".png", ".tif", ".tiff", ".pfm", ".ppm"}) {
        if (extension == kept) return "";
    }
    return extension +
           " images have no alpha channel (use .exr, .png or .tiff; .pfm and .ppm get a NAME.alpha.pfm "
           "beside them)";
}

std::string alpha_side_path(const std::string& image_path) {
    std::filesystem::path path(image_path);
    path.replace_extension(".alpha.pfm");
    return path.string();
}

void check_output_writable(const std::string& path) {
    const std::string problem = output_name_problem(path);
    if (!problem.empty()) throw InputError(one_line(path) + ": " + problem);
    const std::string directory = directory_of(path);
    struct stat info {};
    if (stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
        throw InputError(path + ": output directory '" + directory + "' does not exist");
    }
    if (access(directory.c_str(), W_OK) != 0) {
        throw InputError(path + ": output directory '" + directory + "' is not writable");
    }
    if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
        throw InputError(path + ": output path is a directory");
    }
}

uint8_t encode_uint8(float linear, Encoding encoding) {
    if (!(linear > 0.0f)) linear = 0.0f;  // also maps NaN to black
    switch (encoding) {
    case Encoding::Gamma2:
        // Exactly the book's write_color: floor(256 * clamp(sqrt(v), 0, 0.999)),
        // in double as the book does: a float sqrt rounds values just below
        // (k / 256)^2 up to k / 256 and so writes k instead of k - 1.
        return static_cast<uint8_t>(256.0 * std::min(std::sqrt(double(linear)), 0.999));
    case Encoding::Srgb: {
        const float v = std::min(linear, 1.0f);
        const float encoded = v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
        return static_cast<uint8_t>(std::lround(std::min(encoded, 1.0f) * 255.0f));
    }
    case Encoding::Linear: return static_cast<uint8_t>(std::lround(std::min(linear, 1.0f) * 255.0f));
    }
    return 0;
}

uint16_t encode_uint16(float linear, Encoding encoding) {
    if (!(linear > 0.0f)) linear = 0.0f;
    const float v = std::min(linear, 1.0f);
    float encoded = v;
    if (encoding == Encoding::Gamma2) encoded = std::sqrt(v);
    if (encoding == Encoding::Srgb) encoded = v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
    return static_cast<uint16_t>(std::lround(std::min(encoded, 1.0f) * 65535.0f));
}

float display_value(float linear, float exposure, ViewTransform view) {
    float v = linear * std::exp2(exposure);
    if (view == ViewTransform::Filmic) {
        if (!(v > 0.0f)) return 0.0f;
        v = std::min(v, 65504.0f);
        v = (v * (2.51f * v + 0.03f)) / (v * (2.43f * v + 0.59f) + 0.14f);
        v = std::min(v, 1.0f);
    }
    return v;
}

void write_image(const std::string& path, uint32_t width, uint32_t height, const std::vector<float>& given_pixels,
                 Encoding encoding, PixelDataType data_type, const ImageMetadata& metadata,
                 const std::vector<AovImage>& aovs, const std::vector<float>& alpha) {
    if (given_pixels.size() != size_t(width) * height * 3)
        throw RenderError(path + ": pixel buffer has the wrong size");
    if (!alpha.empty() && alpha.size() != size_t(width) * height)
        throw RenderError(path + ": alpha buffer has the wrong size");
    if (!alpha.empty()) {
        const std::string problem = alpha_channel_problem(path);
        if (!problem.empty()) throw InputError(path + ": " + problem);
    }
    // The look of a display-referred output, on straight colour (a look
    // is not linear: applied to premultiplied colour it would darken
    // edges); float outputs keep scene light, premultiplied.
    const bool display = data_type == PixelDataType::UInt8 || data_type == PixelDataType::UInt16;
    const bool look = display && (metadata.exposure != 0.0f || metadata.view_transform != ViewTransform::Standard);
    const bool straight = display && !alpha.empty();
    std::vector<float> looked;
    if (look || straight) {
        looked.resize(given_pixels.size());
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < looked.size(); ++i) {
            float v = given_pixels[i];
            if (straight) v = alpha[i / 3] > 0.0f ? v / alpha[i / 3] : 0.0f;
            looked[i] = look ? display_value(v, metadata.exposure, metadata.view_transform) : v;
        }
    }
    const std::vector<float>& pixels = look || straight ? looked : given_pixels;
    const std::string extension = file_extension(path);
    const std::string reason = unsupported_format_reason(path);
    if (!reason.empty()) throw InputError(path + ": " + reason);
    // The extension stays last: it picks the format.
    const std::string temporary = temporary_path_for(path, std::filesystem::path(path).extension().string());
    const bool aovs_as_channels = stores_aovs_as_channels(path);
    if (!aovs_as_channels) write_aov_files(path, width, height, aovs);
    if (!alpha.empty() && is_builtin(extension)) write_pfm(alpha_side_path(path), width, height, alpha, 1);
    try {
        if (is_builtin(extension)) {
            write_builtin(temporary, path, extension, width, height, pixels, encoding, data_type, metadata);
        } else {
            write_with_openimageio(temporary, path, width, height, pixels, alpha, encoding, data_type, metadata,
                                   aovs_as_channels ? aovs : std::vector<AovImage>{});
        }
        if (std::rename(temporary.c_str(), path.c_str()) != 0) {
            throw RenderError(path + ": cannot move the finished image into place: " + std::strerror(errno));
        }
    } catch (...) {
        std::remove(temporary.c_str());
        throw;
    }
}

uint64_t image_pixel_budget(uint64_t file_bytes) {
    return std::min(kMaxReadPixels, std::max(kMinPixelBudget, kPixelsPerCompressedByte * file_bytes));
}

LoadedImage read_image(const std::string& path) {
    const std::string extension = file_extension(path);
    if (is_builtin(extension)) return read_builtin(path, extension);
    if (!have_openimageio()) {
        throw InputError(path + ": cannot read '" + extension + "' (built without OpenImageIO)");
    }
    const uint64_t file_bytes = regular_file_size(path, path, "image");
    const OiioFunctions* module = openimageio();
    if (!module) throw InputError(path + ": " + openimageio_problem());
    StderrCapture library_messages;
    OiioImageRead read;
    read.max_channels = 3;
    const std::string problem = module->read(path, image_pixel_budget(file_bytes), read);
    const std::string printed = library_messages.take();  // a file that read: its warnings are not farmrt's to print
    if (!problem.empty()) {
        std::string message = path + ": " + problem;
        if (!printed.empty() && problem.find(printed) == std::string::npos) message += " (" + printed + ")";
        throw InputError(message);
    }
    LoadedImage image;
    image.width = read.width;
    image.height = read.height;
    image.floating_point = read.floating_point;
    image.description = read.description;
    image.pixels.resize(size_t(read.width) * read.height * 3);
    const size_t channels = size_t(read.channels);
    for (size_t i = 0; i < size_t(read.width) * read.height; ++i) {
        for (size_t c = 0; c < 3; ++c) image.pixels[i * 3 + c] = read.values[i * channels + std::min(c, channels - 1)];
    }
    return image;
}

}  // namespace farmrt
