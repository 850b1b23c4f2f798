// Image output: the encodings (gamma2 exactly as the book writes it, the sRGB
// curve, linear), round trips through the built-in .ppm/.pfm and through
// OpenImageIO (.png .tif .exr .hdr .jpg), metadata in the files, and atomic
// writes (no temporary left behind; a failed write leaves the old file as it
// was, or no file). OpenImageIO tests skip in a build without it.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "core/errors.h"
#include "io/image_output.h"
#include "test_helpers.h"

#if FARMRT_TESTS_HAVE_OPENIMAGEIO
#include <OpenImageIO/imageio.h>
#endif

namespace farmrt {
namespace {

using testing::read_text;
using testing::TemporaryDirectory;
using testing::write_text;

#define REQUIRE_OPENIMAGEIO()                                                 \
    do {                                                                      \
        if (!have_openimageio()) GTEST_SKIP() << "built without OpenImageIO"; \
    } while (0)

// ---- encodings ------------------------------------------------------------------------

// floor(256 * clamp(sqrt(v), 0, 0.999)) computed exactly: the number of k in
// 1..255 with (k / 256)^2 <= v (squares of k / 256 are exact in double).
int exact_gamma2(float v) {
    if (!(v > 0.0f)) return 0;
    int k = 0;
    while (k < 255 && double(k + 1) * double(k + 1) / 65536.0 <= double(v)) ++k;
    return k;
}

TEST(Encoding, Gamma2IsExactlyTheBooksFormulaAtEveryStepBoundary) {
    for (int k = 1; k < 256; ++k) {
        const float at = float(k * k) / 65536.0f;  // exact: sqrt(at) = k / 256
        const float below = std::nextafter(at, 0.0f);
        EXPECT_EQ(encode_uint8(at, Encoding::Gamma2), k) << "v = (" << k << "/256)^2";
        EXPECT_EQ(encode_uint8(below, Encoding::Gamma2), k - 1) << "v just below (" << k << "/256)^2";
    }
}

TEST(Encoding, Gamma2MatchesTheExactFormulaOnRandomValues) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> value(0.0f, 1.2f);
    for (int i = 0; i < 100000; ++i) {
        const float v = value(rng);
        ASSERT_EQ(encode_uint8(v, Encoding::Gamma2), exact_gamma2(v)) << "v = " << v;
    }
}

TEST(Encoding, Gamma2ClampsLikeTheBook) {
    EXPECT_EQ(encode_uint8(0.0f, Encoding::Gamma2), 0);
    EXPECT_EQ(encode_uint8(-1.0f, Encoding::Gamma2), 0);
    EXPECT_EQ(encode_uint8(NAN, Encoding::Gamma2), 0);
    EXPECT_EQ(encode_uint8(0.998f, Encoding::Gamma2), 255);  // sqrt > 0.999 clamps, 256 * 0.999 = 255.7
    EXPECT_EQ(encode_uint8(1.0f, Encoding::Gamma2), 255);
    EXPECT_EQ(encode_uint8(1e30f, Encoding::Gamma2), 255);
    EXPECT_EQ(encode_uint8(INFINITY, Encoding::Gamma2), 255);
    EXPECT_EQ(encode_uint8(0.25f, Encoding::Gamma2), 128);  // sqrt = 0.5
}

double srgb_curve(double v) { return v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1 / 2.4) - 0.055; }

TEST(Encoding, SrgbFollowsTheTransferCurve) {
    EXPECT_EQ(encode_uint8(0.0f, Encoding::Srgb), 0);
    EXPECT_EQ(encode_uint8(1.0f, Encoding::Srgb), 255);
    EXPECT_EQ(encode_uint8(5.0f, Encoding::Srgb), 255);
    EXPECT_EQ(encode_uint8(-0.5f, Encoding::Srgb), 0);
    EXPECT_EQ(encode_uint8(NAN, Encoding::Srgb), 0);
    EXPECT_EQ(encode_uint8(0.5f, Encoding::Srgb), 188);   // 0.7354 * 255 = 187.5
    EXPECT_EQ(encode_uint8(0.18f, Encoding::Srgb), 118);  // middle grey: 0.4613 * 255 = 117.6
    EXPECT_EQ(encode_uint8(0.001f, Encoding::Srgb), 3);   // linear toe: 12.92 * 0.001 * 255 = 3.3
    int previous = 0;
    for (int i = 0; i <= 100000; ++i) {
        const float v = float(i) / 100000.0f;
        const int encoded = encode_uint8(v, Encoding::Srgb);
        ASSERT_GE(encoded, previous) << "not monotone at " << v;
        previous = encoded;
        const double exact = 255 * srgb_curve(v);
        // Round to nearest; float evaluation may differ only right at a .5 tie.
        if (std::fabs(exact - std::floor(exact) - 0.5) > 1e-3) {
            ASSERT_EQ(encoded, int(std::lround(exact))) << "v = " << v;
        }
    }
    EXPECT_EQ(previous, 255);
}

TEST(Encoding, LinearRoundsToNearest) {
    EXPECT_EQ(encode_uint8(0.0f, Encoding::Linear), 0);
    EXPECT_EQ(encode_uint8(0.5f, Encoding::Linear), 128);  // 127.5 rounds half away from zero
    EXPECT_EQ(encode_uint8(0.25f, Encoding::Linear), 64);
    EXPECT_EQ(encode_uint8(1.0f, Encoding::Linear), 255);
    EXPECT_EQ(encode_uint8(2.0f, Encoding::Linear), 255);
    for (int i = 0; i <= 255; ++i) EXPECT_EQ(encode_uint8(float(i) / 255.0f, Encoding::Linear), i);
}

TEST(Encoding, SixteenBitEncodingsCoverTheFullRange) {
    for (Encoding e : {Encoding::Srgb, Encoding::Gamma2, Encoding::Linear}) {
        EXPECT_EQ(encode_uint16(0.0f, e), 0);
        EXPECT_EQ(encode_uint16(1.0f, e), 65535);
        EXPECT_EQ(encode_uint16(3.0f, e), 65535);
        EXPECT_EQ(encode_uint16(NAN, e), 0);
    }
    EXPECT_EQ(encode_uint16(0.25f, Encoding::Gamma2), 32768);  // sqrt: 0.5 * 65535 = 32767.5
    EXPECT_EQ(encode_uint16(0.5f, Encoding::Linear), 32768);
    EXPECT_EQ(encode_uint16(0.5f, Encoding::Srgb), uint16_t(std::lround(65535 * srgb_curve(0.5))));
}

// ---- formats ------------------------------------------------------------------------------

TEST(ImageFormats, ExtensionsAndDefaults) {
    EXPECT_EQ(file_extension("a/b/c.PNG"), ".png");
    EXPECT_EQ(file_extension("noextension"), "");
    EXPECT_EQ(file_extension("dir.d/file"), "");
    EXPECT_EQ(default_data_type("x.exr"), PixelDataType::Float);
    EXPECT_EQ(default_data_type("x.hdr"), PixelDataType::Float);
    EXPECT_EQ(default_data_type("x.pfm"), PixelDataType::Float);
    EXPECT_EQ(default_data_type("x.png"), PixelDataType::UInt8);
    EXPECT_EQ(default_data_type("x.ppm"), PixelDataType::UInt8);
    EXPECT_EQ(unsupported_format_reason("x.ppm"), "");
    EXPECT_EQ(unsupported_format_reason("x.PFM"), "");
    EXPECT_EQ(unsupported_format_reason("x"), "no file extension to choose the image format by (use .png, .exr, ...)");
    EXPECT_NE(unsupported_format_reason("x.xyz").find("unsupported image extension '.xyz'"), std::string::npos);
}

TEST(ImageFormats, DataTypesMustSuitTheFormat) {
    EXPECT_EQ(data_type_problem("x.png", PixelDataType::Float), ".png images hold integer data only");
    EXPECT_EQ(data_type_problem("x.exr", PixelDataType::UInt8), ".exr images hold float data only");
    EXPECT_EQ(data_type_problem("x.jpg", PixelDataType::UInt16), "JPEG images hold 8-bit data only");
    EXPECT_EQ(data_type_problem("x.ppm", PixelDataType::Half), ".ppm images hold integer data only");
    EXPECT_EQ(data_type_problem("x.tif", PixelDataType::Float), "");
    EXPECT_EQ(data_type_problem("x.png", PixelDataType::UInt16), "");
    EXPECT_EQ(data_type_problem("x.exr", PixelDataType::Half), "");
}

TEST(ImageFormats, OpenImageIOFormatsAreAvailableExactlyWhenBuiltWithIt) {
    for (const char* name : {"x.png", "x.jpg", "x.tif", "x.exr", "x.hdr"}) {
        if (have_openimageio()) {
            EXPECT_EQ(unsupported_format_reason(name), "") << name;
        } else {
            EXPECT_NE(unsupported_format_reason(name).find("built without OpenImageIO"), std::string::npos) << name;
        }
    }
}

// ---- round trips ----------------------------------------------------------------------------

// A non-square image where every pixel and channel differs: catches flips,
// transposes and channel swaps. Values span [0, 1.25] (some above white).
std::vector<float> test_pattern(uint32_t width, uint32_t height) {
    std::vector<float> pixels(size_t(width) * height * 3);
    for (uint32_t y = 0; y < height; ++y) {
        for (uint32_t x = 0; x < width; ++x) {
            float* p = &pixels[(size_t(y) * width + x) * 3];
            p[0] = 1.25f * float(x) / float(width - 1);
            p[1] = float(y) / float(height - 1);
            p[2] = 0.5f * (1.0f + std::sin(0.7f * float(x) + 1.3f * float(y)));
        }
    }
    return pixels;
}

ImageMetadata test_metadata() {
    ImageMetadata m;
    m.scene_file = "configs/test.yaml";
    m.spp = 16;
    m.seed = 42;
    m.frame = 3;
    m.render_seconds = 1.5;
    return m;
}

constexpr uint32_t kWidth = 37, kHeight = 23;

LoadedImage write_and_read(const std::string& path, const std::vector<float>& pixels, Encoding encoding,
                           PixelDataType type) {
    write_image(path, kWidth, kHeight, pixels, encoding, type, test_metadata());
    const LoadedImage image = read_image(path);
    EXPECT_EQ(image.width, kWidth);
    EXPECT_EQ(image.height, kHeight);
    EXPECT_EQ(image.pixels.size(), pixels.size());
    return image;
}

// 8- and 16-bit files hold the encoded values: compare with encode_*() exactly.
void expect_encoded_exactly(const LoadedImage& image, const std::vector<float>& pixels, Encoding encoding,
                            bool sixteen) {
    ASSERT_EQ(image.pixels.size(), pixels.size());
    for (size_t i = 0; i < pixels.size(); ++i) {
        const float expected = sixteen ? float(encode_uint16(pixels[i], encoding)) / 65535.0f
                                       : float(encode_uint8(pixels[i], encoding)) / 255.0f;
        ASSERT_NEAR(image.pixels[i], expected, 1e-6f) << "value " << i;
    }
}

TEST(RoundTrip, PpmHoldsTheEncodedBytes) {
    const TemporaryDirectory directory;
    const std::vector<float> pixels = test_pattern(kWidth, kHeight);
    for (Encoding e : {Encoding::Srgb, Encoding::Gamma2, Encoding::Linear}) {
        const LoadedImage image = write_and_read(directory.file("a.ppm"), pixels, e, PixelDataType::UInt8);
        expect_encoded_exactly(image, pixels, e, false);
    }
    const LoadedImage wide = write_and_read(directory.file("b.ppm"), pixels, Encoding::Srgb, PixelDataType::UInt16);
    expect_encoded_exactly(wide, pixels, Encoding::Srgb, true);
}

TEST(RoundTrip, PfmHoldsTheFloatsBitForBit) {
    const TemporaryDirectory directory;
    std::vector<float> pixels = test_pattern(kWidth, kHeight);
    pixels[5] = 1e-30f;
    pixels[6] = 12345.678f;
    const LoadedImage image = write_and_read(directory.file("a.pfm"), pixels, Encoding::Linear, PixelDataType::Float);
    EXPECT_EQ(0, std::memcmp(image.pixels.data(), pixels.data(), pixels.size() * sizeof(float)));
    // The header is the standard little-endian RGB PFM one.
    EXPECT_EQ(read_text(directory.file("a.pfm")).substr(0, 14), "PF\n37 23\n-1.0\n");
}

TEST(RoundTrip, PngEightAndSixteenBit) {
    REQUIRE_OPENIMAGEIO();
    const TemporaryDirectory directory;
    const std::vector<float> pixels = test_pattern(kWidth, kHeight);
    for (Encoding e : {Encoding::Srgb, Encoding::Gamma2, Encoding::Linear}) {
        expect_encoded_exactly(write_and_read(directory.file("a.png"), pixels, e, PixelDataType::UInt8), pixels, e,
                               false);
    }
    expect_encoded_exactly(write_and_read(directory.file("b.png"), pixels, Encoding::Srgb, PixelDataType::UInt16),
                           pixels, Encoding::Srgb, true);
}

TEST(RoundTrip, TiffIntegerAndFloat) {
    REQUIRE_OPENIMAGEIO();
    const TemporaryDirectory directory;
    const std::vector<float> pixels = test_pattern(kWidth, kHeight);
    expect_encoded_exactly(write_and_read(directory.file("a.tif"), pixels, Encoding::Srgb, PixelDataType::UInt8),
                           pixels, Encoding::Srgb, false);
    expect_encoded_exactly(write_and_read(directory.file("b.tif"), pixels, Encoding::Gamma2, PixelDataType::UInt16),
                           pixels, Encoding::Gamma2, true);
    const LoadedImage f = write_and_read(directory.file("c.tif"), pixels, Encoding::Srgb, PixelDataType::Float);
    EXPECT_EQ(0, std::memcmp(f.pixels.data(), pixels.data(), pixels.size() * sizeof(float)));  // float: linear, exact
}

TEST(RoundTrip, ExrFloatIsExactAndHalfIsClose) {
    REQUIRE_OPENIMAGEIO();
    const TemporaryDirectory directory;
    const std::vector<float> pixels = test_pattern(kWidth, kHeight);
    const LoadedImage f = write_and_read(directory.file("a.exr"), pixels, Encoding::Srgb, PixelDataType::Float);
    EXPECT_EQ(0, std::memcmp(f.pixels.data(), pixels.data(), pixels.size() * sizeof(float)));
    const LoadedImage h = write_and_read(directory.file("b.exr"), pixels, Encoding::Srgb, PixelDataType::Half);
    for (size_t i = 0; i < pixels.size(); ++i) {
        ASSERT_NEAR(h.pixels[i], pixels[i], pixels[i] * (1.0f / 1024) + 1e-7f) << i;  // 11-bit mantissa
    }
}

TEST(RoundTrip, HdrKeepsLinearValuesToRgbePrecision) {
    REQUIRE_OPENIMAGEIO();
    const TemporaryDirectory directory;
    const std::vector<float> pixels = test_pattern(kWidth, kHeight);
    const LoadedImage image = write_and_read(directory.file("a.hdr"), pixels, Encoding::Srgb, PixelDataType::Float);
    for (size_t i = 0; i < pixels.size(); i += 3) {
        // RGBE: 8-bit mantissas with a shared exponent: error below 1/128 of the largest channel.
        const float largest = std::max({pixels[i], pixels[i + 1], pixels[i + 2]});
        for (int c = 0; c < 3; ++c) ASSERT_NEAR(image.pixels[i + c], pixels[i + c], largest / 128 + 1e-6f) << i;
    }
}

TEST(RoundTrip, JpegIsCloseToTheEncodedValues) {
    REQUIRE_OPENIMAGEIO();
    const TemporaryDirectory directory;
    // A smooth image: JPEG keeps it within a few levels.
    std::vector<float> pixels(size_t(kWidth) * kHeight * 3);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = 0.2f + 0.5f * float(i / 3 % kWidth) / kWidth;
    const LoadedImage image = write_and_read(directory.file("a.jpg"), pixels, Encoding::Srgb, PixelDataType::UInt8);
    double error = 0;
    for (size_t i = 0; i < pixels.size(); ++i) {
        error += std::fabs(image.pixels[i] - encode_uint8(pixels[i], Encoding::Srgb) / 255.0f);
    }
    EXPECT_LT(error / pixels.size(), 3.0 / 255);
}

// ---- metadata -------------------------------------------------------------------------------

TEST(Metadata, PpmHeaderCommentNamesSoftwareAndSettings) {
    const TemporaryDirectory directory;
    write_image(directory.file("a.ppm"), kWidth, kHeight, test_pattern(kWidth, kHeight), Encoding::Srgb,
                PixelDataType::UInt8, test_metadata());
    const std::string text = read_text(directory.file("a.ppm"));
    const std::string header = text.substr(0, text.find("\n37 23\n"));
    EXPECT_NE(header.find("# farmrt 0.1.0"), std::string::npos) << header;
    EXPECT_NE(header.find("scene=configs/test.yaml"), std::string::npos) << header;
    EXPECT_NE(header.find("spp=16"), std::string::npos) << header;
    EXPECT_NE(header.find("seed=42"), std::string::npos) << header;
    EXPECT_NE(header.find("render_seconds=1.5"), std::string::npos) << header;
}

#if FARMRT_TESTS_HAVE_OPENIMAGEIO
OIIO::ImageSpec spec_of(const std::string& path) {
    auto input = OIIO::ImageInput::open(path);
    if (!input) return OIIO::ImageSpec();
    OIIO::ImageSpec spec = input->spec();
    input->close();
    return spec;
}
#endif

TEST(Metadata, OpenImageIOFilesCarrySoftwareSppSeedSceneAndTime) {
    REQUIRE_OPENIMAGEIO();
#if FARMRT_TESTS_HAVE_OPENIMAGEIO
    const TemporaryDirectory directory;
    for (const char* name : {"a.exr", "a.png", "a.tif", "a.jpg"}) {
        const std::string path = directory.file(name);
        write_image(path, kWidth, kHeight, test_pattern(kWidth, kHeight), Encoding::Srgb, default_data_type(path),
                    test_metadata());
        const OIIO::ImageSpec spec = spec_of(path);
        EXPECT_EQ(spec.get_string_attribute("Software"), "farmrt 0.1.0") << name;
        // Every format keeps the description; formats with arbitrary attributes keep them too.
        const std::string description = spec.get_string_attribute("ImageDescription");
        EXPECT_NE(description.find("spp=16"), std::string::npos) << name << ": " << description;
        EXPECT_NE(description.find("seed=42"), std::string::npos) << name;
        EXPECT_NE(description.find("scene=configs/test.yaml"), std::string::npos) << name;
        EXPECT_NE(description.find("render_seconds=1.5"), std::string::npos) << name;
    }
    const OIIO::ImageSpec exr = spec_of(directory.file("a.exr"));
    EXPECT_EQ(exr.get_int_attribute("farmrt:spp"), 16);
    EXPECT_EQ(exr.get_string_attribute("farmrt:seed"), "42");
    EXPECT_EQ(exr.get_string_attribute("farmrt:scene"), "configs/test.yaml");
    EXPECT_EQ(exr.get_int_attribute("farmrt:frame"), 3);
    EXPECT_FLOAT_EQ(exr.get_float_attribute("farmrt:render_seconds"), 1.5f);
#endif
}

// ---- atomic writes and failures ------------------------------------------------------------

TEST(AtomicWrite, SuccessLeavesOnlyTheImage) {
    const TemporaryDirectory directory;
    std::vector<std::string> names = {"a.ppm", "a.pfm"};
    if (have_openimageio()) names.insert(names.end(), {"a.png", "a.exr", "a.tif", "a.hdr", "a.jpg"});
    for (const std::string& name : names) {
        write_image(directory.file(name), kWidth, kHeight, test_pattern(kWidth, kHeight), Encoding::Srgb,
                    default_data_type(name), test_metadata());
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(directory.entries(), names);
}

TEST(AtomicWrite, OverwritesAnExistingFile) {
    const TemporaryDirectory directory;
    const std::string path = directory.file("a.ppm");
    write_text(path, "old contents");
    write_image(path, kWidth, kHeight, test_pattern(kWidth, kHeight), Encoding::Srgb, PixelDataType::UInt8, {});
    EXPECT_EQ(read_text(path).substr(0, 3), "P6\n");
    EXPECT_EQ(directory.entries(), std::vector<std::string>{"a.ppm"});
}

// Makes writes beyond `bytes` fail with EFBIG (as a full disk would) in this
// process, for the lifetime of the object.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        getrlimit(RLIMIT_FSIZE, &saved_);
        previous_handler_ = signal(SIGXFSZ, SIG_IGN);
        rlimit limit = saved_;
        limit.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limit);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &saved_);
        signal(SIGXFSZ, previous_handler_);
    }

private:
    rlimit saved_{};
    sighandler_t previous_handler_;
};

TEST(AtomicWrite, AWriteThatFailsMidwayLeavesTheOldFileAndNoTemporary) {
    const TemporaryDirectory directory;
    std::vector<std::string> names = {"a.ppm", "a.pfm"};
    if (have_openimageio()) names.insert(names.end(), {"a.png", "a.exr", "a.tif", "a.jpg", "a.hdr"});
    const uint32_t width = 256, height = 256;  // well above the limit in every format
    std::vector<float> pixels(size_t(width) * height * 3);
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> noise(0, 1);
    for (float& v : pixels) v = noise(rng);  // incompressible
    for (const std::string& name : names) {
        const std::string path = directory.file(name);
        write_text(path, "the previous image");
        {
            const FileSizeLimit limit(4096);
            EXPECT_THROW(write_image(path, width, height, pixels, Encoding::Srgb, default_data_type(name), {}),
                         RenderError)
                << name;
        }
        EXPECT_EQ(read_text(path), "the previous image") << name;
        EXPECT_EQ(directory.entries(), std::vector<std::string>{name}) << name << ": temporary file left behind";
        std::filesystem::remove(path);
        {
            const FileSizeLimit limit(4096);
            EXPECT_THROW(write_image(path, width, height, pixels, Encoding::Srgb, default_data_type(name), {}),
                         RenderError)
                << name;
        }
        EXPECT_TRUE(directory.entries().empty()) << name << ": a failed write left a file";
    }
}

TEST(AtomicWrite, FailedRenameLeavesNoTemporary) {
    // The target is a non-empty directory: the final rename fails.
    const TemporaryDirectory directory;
    std::filesystem::create_directory(directory.file("a.ppm"));
    write_text(directory.file("a.ppm") + "/keep", "x");
    EXPECT_THROW(write_image(directory.file("a.ppm"), kWidth, kHeight, test_pattern(kWidth, kHeight), Encoding::Srgb,
                             PixelDataType::UInt8, {}),
                 RenderError);
    EXPECT_EQ(directory.entries(), std::vector<std::string>{"a.ppm"});
    EXPECT_EQ(read_text(directory.file("a.ppm") + "/keep"), "x");
}

TEST(AtomicWrite, UnsupportedExtensionWritesNothing) {
    const TemporaryDirectory directory;
    try {
        write_image(directory.file("a.xyz"), kWidth, kHeight, test_pattern(kWidth, kHeight), Encoding::Srgb,
                    PixelDataType::UInt8, {});
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("unsupported image extension '.xyz'"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
    EXPECT_THROW(write_image(directory.file("noextension"), kWidth, kHeight, test_pattern(kWidth, kHeight),
                             Encoding::Srgb, PixelDataType::UInt8, {}),
                 InputError);
    EXPECT_TRUE(directory.entries().empty());
}

TEST(AtomicWrite, MissingDirectoryIsAnErrorAndWritesNothing) {
    const TemporaryDirectory directory;
    std::vector<std::string> names = {"a.ppm", "a.pfm"};
    if (have_openimageio()) names.insert(names.end(), {"a.png", "a.exr"});
    for (const std::string& name : names) {
        const std::string path = directory.file("missing/" + name);
        EXPECT_THROW(write_image(path, kWidth, kHeight, test_pattern(kWidth, kHeight), Encoding::Srgb,
                                 default_data_type(name), {}),
                     RenderError)
            << name;
    }
    EXPECT_TRUE(directory.entries().empty());
}

TEST(AtomicWrite, WrongBufferSizeIsRefused) {
    const TemporaryDirectory directory;
    EXPECT_THROW(write_image(directory.file("a.ppm"), kWidth, kHeight, std::vector<float>(10), Encoding::Srgb,
                             PixelDataType::UInt8, {}),
                 RenderError);
    EXPECT_TRUE(directory.entries().empty());
}

TEST(OutputChecks, UnwritableOrMissingDirectoriesAreInputErrors) {
    const TemporaryDirectory directory;
    const std::string missing = directory.file("missing/out.png");
    try {
        check_output_writable(missing);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  missing + ": output directory '" + directory.file("missing") + "' does not exist");
    }
    write_text(directory.file("file"), "x");
    EXPECT_THROW(check_output_writable(directory.file("file/out.png")), InputError);  // parent is a file
    std::filesystem::create_directory(directory.file("sub.png"));
    try {
        check_output_writable(directory.file("sub.png"));
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), directory.file("sub.png") + ": output path is a directory");
    }
    EXPECT_NO_THROW(check_output_writable(directory.file("ok.png")));
    EXPECT_NO_THROW(check_output_writable("relative-in-current-directory.png"));
    if (geteuid() != 0) {  // root may write anywhere: this case needs an ordinary user
        std::filesystem::create_directory(directory.file("locked"));
        chmod(directory.file("locked").c_str(), 0500);
        try {
            check_output_writable(directory.file("locked/out.png"));
            ADD_FAILURE() << "no error";
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()), directory.file("locked/out.png") + ": output directory '" +
                                                 directory.file("locked") + "' is not writable");
        }
        chmod(directory.file("locked").c_str(), 0700);
    }
}

TEST(ReadImage, BadFilesAreInputErrors) {
    const TemporaryDirectory directory;
    EXPECT_THROW(read_image(directory.file("missing.ppm")), InputError);
    write_text(directory.file("bad.ppm"), "P3\n1 1\n255\n0 0 0\n");
    EXPECT_THROW(read_image(directory.file("bad.ppm")), InputError);  // ASCII PPM is not supported
    write_text(directory.file("short.ppm"), "P6\n4 4\n255\nabc");
    EXPECT_THROW(read_image(directory.file("short.ppm")), InputError);
    write_text(directory.file("big-endian.pfm"), "PF\n1 1\n1.0\nabcdefghijkl");
    EXPECT_THROW(read_image(directory.file("big-endian.pfm")), InputError);
    write_text(directory.file("header.pfm"), "PF\nx y\n");
    EXPECT_THROW(read_image(directory.file("header.pfm")), InputError);
}

TEST(DisplayLook, ExposureScalesAndFilmicRollsHighlightsOff) {
    // Exposure: 2^EV, exactly.
    EXPECT_EQ(display_value(0.25f, 1.0f, ViewTransform::Standard), 0.5f);
    EXPECT_EQ(display_value(0.25f, -2.0f, ViewTransform::Standard), 0.0625f);
    EXPECT_EQ(display_value(0.3f, 0.0f, ViewTransform::Standard), 0.3f) << "standard at 0 EV leaves light as it is";
    // Filmic: black stays black, the curve rises monotonically up to about 8
    // (Standard clips at 1) and never passes 1.
    EXPECT_EQ(display_value(0.0f, 0.0f, ViewTransform::Filmic), 0.0f);
    EXPECT_EQ(display_value(std::nanf(""), 0.0f, ViewTransform::Filmic), 0.0f);
    float previous = 0.0f;
    for (float v = 0.001f; v < 1000.0f; v *= 1.5f) {
        const float shown = display_value(v, 0.0f, ViewTransform::Filmic);
        if (v < 8.0f) {
            EXPECT_GT(shown, previous) << v;
        }
        EXPECT_GE(shown, previous) << v;
        EXPECT_LE(shown, 1.0f) << v;
        previous = shown;
    }
    EXPECT_LT(display_value(1.0f, 0.0f, ViewTransform::Filmic), 0.85f) << "1 is no longer white";
    EXPECT_GT(display_value(16.0f, 0.0f, ViewTransform::Filmic), display_value(4.0f, 0.0f, ViewTransform::Filmic));
}

TEST(DisplayLook, AppliesToDisplayReferredOutputsOnlyAndIsRecorded) {
    TemporaryDirectory directory;
    const std::vector<float> pixels = {0.1f, 0.5f, 2.0f, 0.25f, 0.0f, 8.0f};
    ImageMetadata metadata;
    metadata.exposure = 1.0f;
    metadata.view_transform = ViewTransform::Filmic;
    const std::string ppm = directory.file("look.ppm"), pfm = directory.file("look.pfm");
    write_image(ppm, 2, 1, pixels, Encoding::Linear, PixelDataType::UInt8, metadata);
    write_image(pfm, 2, 1, pixels, Encoding::Linear, PixelDataType::Float, metadata);
    const LoadedImage shown = read_image(ppm), linear = read_image(pfm);
    for (size_t i = 0; i < pixels.size(); ++i) {
        EXPECT_EQ(std::lround(shown.pixels[i] * 255.0f),
                  encode_uint8(display_value(pixels[i], 1.0f, ViewTransform::Filmic), Encoding::Linear))
            << i;
        EXPECT_EQ(linear.pixels[i], pixels[i]) << "float outputs keep scene light";
    }
    EXPECT_NE(shown.description.find("exposure=1 view_transform=filmic"), std::string::npos) << shown.description;
}

}  // namespace
}  // namespace farmrt
