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
#include "io/temporary_name.h"

#if FARMRT_HAVE_OPENIMAGEIO
#include <OpenImageIO/filesystem.h>
#include <OpenImageIO/imageio.h>
#endif

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
    return std::find(std::begin(kFloatExtensions), std::end(kFloatExtensions), extension) !=
           std::end(kFloatExtensions);
}

std::string directory_of(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? "." : parent.string();
}

std::string metadata_description(const ImageMetadata& m) {
    std::ostringstream out;
    out << kSoftwareName << " " << kVersion << ": scene=" << m.scene_file << " spp=" << m.spp << " seed=" << m.seed
        << " frame=" << m.frame << " render_seconds=" << m.render_seconds;
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
        out << "P6\n# " << metadata_description(metadata) << "\n" << width << " " << height << "\n"
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

#if FARMRT_HAVE_OPENIMAGEIO
std::string read_back_problem(const std::string& path, uint32_t width, uint32_t height);

// `path` is the temporary file; errors name `target`. OpenImageIO's PNG writer
// (2.4) reports success when its file writes failed (a full disk, a file size
// limit) and leaves a truncated file, so the image is encoded in memory and
// written here with every write checked; other formats are written by
// OpenImageIO to the file, which is then read back completely.
void write_with_openimageio(const std::string& path, const std::string& target, uint32_t width, uint32_t height,
                            const std::vector<float>& pixels, Encoding encoding, PixelDataType data_type,
                            const ImageMetadata& metadata) {
    std::vector<unsigned char> encoded;
    OIIO::Filesystem::IOVecOutput memory(encoded);  // outlives `output`
    auto output = OIIO::ImageOutput::create(path);
    if (!output) throw RenderError(target + ": OpenImageIO cannot write this format: " + OIIO::geterror());
    // Only for formats whose in-memory writing is tested (round trips in
    // tests/test_image_output.cpp): OpenImageIO 2.4 writes broken TIFFs that way.
    const std::string extension = file_extension(target);
    const bool memory_tested = extension == ".png" || extension == ".jpg" || extension == ".jpeg" ||
                               extension == ".exr" || extension == ".hdr";
    const bool in_memory = memory_tested && output->supports("ioproxy") && output->set_ioproxy(&memory);
    OIIO::TypeDesc format = OIIO::TypeDesc::UINT8;
    if (data_type == PixelDataType::UInt16) format = OIIO::TypeDesc::UINT16;
    if (data_type == PixelDataType::Half) format = OIIO::TypeDesc::HALF;
    if (data_type == PixelDataType::Float) format = OIIO::TypeDesc::FLOAT;
    OIIO::ImageSpec spec(int(width), int(height), 3, format);
    spec.attribute("Software", std::string(kSoftwareName) + " " + kVersion);
    spec.attribute("ImageDescription", metadata_description(metadata));
    spec.attribute("farmrt:scene", metadata.scene_file);
    spec.attribute("farmrt:spp", int(metadata.spp));
    spec.attribute("farmrt:seed", std::to_string(metadata.seed));
    spec.attribute("farmrt:frame", int(metadata.frame));
    spec.attribute("farmrt:render_seconds", float(metadata.render_seconds));
    if (data_type == PixelDataType::UInt8 || data_type == PixelDataType::UInt16) {
        spec.attribute("oiio:ColorSpace", encoding == Encoding::Linear ? "linear" : "sRGB");
    }
    if (!output->open(path, spec)) throw RenderError(target + ": " + output->geterror());
    bool ok = true;
    const size_t count = size_t(width) * height * 3;
    if (data_type == PixelDataType::UInt8) {
        std::vector<uint8_t> bytes(count);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < count; ++i) bytes[i] = encode_uint8(pixels[i], encoding);
        ok = output->write_image(OIIO::TypeDesc::UINT8, bytes.data());
    } else if (data_type == PixelDataType::UInt16) {
        std::vector<uint16_t> words(count);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < count; ++i) words[i] = encode_uint16(pixels[i], encoding);
        ok = output->write_image(OIIO::TypeDesc::UINT16, words.data());
    } else {
        ok = output->write_image(OIIO::TypeDesc::FLOAT, pixels.data());
    }
    if (!ok) throw RenderError(target + ": " + output->geterror());
    if (!output->close()) throw RenderError(target + ": " + output->geterror());
    if (in_memory) {
        std::ofstream out(path, std::ios::binary);
        if (!out) throw RenderError(target + ": cannot open for writing: " + std::strerror(errno));
        out.write(reinterpret_cast<const char*>(encoded.data()), std::streamsize(encoded.size()));
        out.flush();
        if (!out) throw RenderError(target + ": write failed: " + std::strerror(errno));
        return;
    }
    const std::string problem = read_back_problem(path, width, height);
    if (!problem.empty()) {
        throw RenderError(target + ": the written image does not read back complete (disk full?): " + problem);
    }
}

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
#endif

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
    const unsigned __int128 needed =
        static_cast<unsigned __int128>(image.width) * image.height * 3 * bytes_per_value;
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
#if FARMRT_HAVE_OPENIMAGEIO
    auto output = OIIO::ImageOutput::create(path);
    if (output) return "";
    return "unsupported image extension '" + extension + "' (OpenImageIO has no writer for it)";
#else
    return "unsupported image extension '" + extension + "' (built without OpenImageIO: use .ppm or .pfm)";
#endif
}

PixelDataType default_data_type(const std::string& path) {
    return is_float_only(file_extension(path)) ? PixelDataType::Float : PixelDataType::UInt8;
}

std::string data_type_problem(const std::string& path, PixelDataType type) {
    const std::string extension = file_extension(path);
    const bool is_float = type == PixelDataType::Float || type == PixelDataType::Half;
    if (is_float_only(extension) && !is_float) return extension + " images hold float data only";
    if ((extension == ".png" || extension == ".ppm") && is_float) return extension + " images hold integer data only";
    if (extension == ".jpg" || extension == ".jpeg") {
        if (type != PixelDataType::UInt8) return "JPEG images hold 8-bit data only";
    }
    if (extension == ".ppm" && type != PixelDataType::UInt8 && type != PixelDataType::UInt16) {
        return ".ppm images hold 8- or 16-bit data only";
    }
    return "";
}

void check_output_writable(const std::string& path) {
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
    case Encoding::Linear:
        return static_cast<uint8_t>(std::lround(std::min(linear, 1.0f) * 255.0f));
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

void write_image(const std::string& path, uint32_t width, uint32_t height, const std::vector<float>& pixels,
                 Encoding encoding, PixelDataType data_type, const ImageMetadata& metadata) {
    if (pixels.size() != size_t(width) * height * 3) throw RenderError(path + ": pixel buffer has the wrong size");
    const std::string extension = file_extension(path);
    const std::string reason = unsupported_format_reason(path);
    if (!reason.empty()) throw InputError(path + ": " + reason);
    // The extension stays last: it picks the format.
    const std::string temporary = temporary_path_for(path, std::filesystem::path(path).extension().string());
    try {
        if (is_builtin(extension)) {
            write_builtin(temporary, path, extension, width, height, pixels, encoding, data_type, metadata);
        } else {
#if FARMRT_HAVE_OPENIMAGEIO
            write_with_openimageio(temporary, path, width, height, pixels, encoding, data_type, metadata);
#endif
        }
        if (std::rename(temporary.c_str(), path.c_str()) != 0) {
            throw RenderError(path + ": cannot move the finished image into place: " + std::strerror(errno));
        }
    } catch (...) {
        std::remove(temporary.c_str());
        throw;
    }
}

LoadedImage read_image(const std::string& path) {
    const std::string extension = file_extension(path);
    if (is_builtin(extension)) return read_builtin(path, extension);
#if FARMRT_HAVE_OPENIMAGEIO
    StderrCapture library_messages;
    const auto fail = [&](const std::string& problem) {
        const std::string printed = library_messages.take();
        std::string message = path + ": " + problem;
        if (!printed.empty() && problem.find(printed) == std::string::npos) message += " (" + printed + ")";
        throw InputError(message);
    };
    regular_file_size(path, path, "image");
    auto input = OIIO::ImageInput::open(path);
    if (!input) fail("cannot read: " + OIIO::geterror());
    const OIIO::ImageSpec& spec = input->spec();
    // The header's size, checked before anything is allocated.
    if (spec.width <= 0 || spec.height <= 0 || spec.nchannels <= 0 || spec.nchannels > 64 ||
        uint64_t(spec.width) * uint64_t(spec.height) > kMaxReadPixels) {
        fail("image of " + std::to_string(spec.width) + "x" + std::to_string(spec.height) + " pixels and " +
             std::to_string(spec.nchannels) + " channels: images read are at most " +
             std::to_string(kMaxReadPixels >> 20) + " Mpixels");
    }
    LoadedImage image;
    image.width = uint32_t(spec.width);
    image.height = uint32_t(spec.height);
    image.floating_point = spec.format.is_floating_point();
    image.pixels.resize(size_t(spec.width) * spec.height * 3);
    std::vector<float> all(size_t(spec.width) * spec.height * spec.nchannels);
    if (!input->read_image(0, 0, 0, spec.nchannels, OIIO::TypeDesc::FLOAT, all.data())) fail(input->geterror());
    library_messages.take();  // warnings of a file that read: not farmrt's to print
    for (size_t i = 0; i < size_t(spec.width) * spec.height; ++i) {
        for (int c = 0; c < 3; ++c) image.pixels[i * 3 + c] = all[i * spec.nchannels + std::min(c, spec.nchannels - 1)];
    }
    return image;
#else
    throw InputError(path + ": cannot read '" + extension + "' (built without OpenImageIO)");
#endif
}

}  // namespace farmrt
