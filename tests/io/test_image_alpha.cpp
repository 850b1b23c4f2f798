// Images with an alpha channel (image.alpha): float formats keep the colour
// premultiplied with an A channel, integer formats store it straight (PNG's
// convention) with alpha linear, PFM and PPM get NAME.alpha.pfm beside them,
// and formats without alpha are refused before anything is written.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/image_output.h"
#include "test_helpers.h"

#if FARMRT_TESTS_HAVE_OPENIMAGEIO
#include <OpenImageIO/imageio.h>
#endif

namespace farmrt {
namespace {

using testing::TemporaryDirectory;

constexpr uint32_t kWidth = 5, kHeight = 3;

// Premultiplied colour and its alpha: a transparent pixel, half-covered
// ones, opaque ones.
struct Premultiplied {
    std::vector<float> colour, alpha;
};
Premultiplied test_image() {
    Premultiplied image;
    for (uint32_t p = 0; p < kWidth * kHeight; ++p) {
        const float alpha = p == 0 ? 0.0f : (p % 2 == 0 ? 1.0f : 0.5f);
        image.alpha.push_back(alpha);
        for (int c = 0; c < 3; ++c) image.colour.push_back(alpha * (0.1f + 0.05f * float(p) + 0.2f * float(c)));
    }
    return image;
}

ImageMetadata metadata() {
    ImageMetadata m;
    m.scene_file = "alpha.yaml";
    m.spp = 4;
    return m;
}

TEST(ImageAlpha, PfmAndPpmGetTheirAlphaBeside) {
    const TemporaryDirectory directory;
    const Premultiplied image = test_image();
    write_image(directory.file("a.pfm"), kWidth, kHeight, image.colour, Encoding::Linear, PixelDataType::Float,
                metadata(), {}, image.alpha);
    int channels = 0;
    EXPECT_EQ(testing::read_pfm(directory.file("a.alpha.pfm"), channels), image.alpha);
    EXPECT_EQ(channels, 1);
    EXPECT_EQ(testing::read_pfm(directory.file("a.pfm"), channels), image.colour) << "float colour stays premultiplied";
    EXPECT_EQ(channels, 3);

    write_image(directory.file("b.ppm"), kWidth, kHeight, image.colour, Encoding::Linear, PixelDataType::UInt8,
                metadata(), {}, image.alpha);
    EXPECT_EQ(testing::read_pfm(directory.file("b.alpha.pfm"), channels), image.alpha);
    const LoadedImage ppm = read_image(directory.file("b.ppm"));
    for (size_t i = 0; i < ppm.pixels.size(); ++i) {
        const float alpha = image.alpha[i / 3];
        const float straight = alpha > 0.0f ? image.colour[i] / alpha : 0.0f;
        EXPECT_EQ(ppm.pixels[i], float(encode_uint8(straight, Encoding::Linear)) / 255.0f) << "value " << i;
    }
}

TEST(ImageAlpha, FormatsWithoutAlphaAreRefusedBeforeWriting) {
    for (const char* name : {"a.jpg", "a.hdr", "a.bmp"}) {
        EXPECT_NE(alpha_channel_problem(name).find("no alpha channel"), std::string::npos) << name;
    }
    for (const char* name : {"a.exr", "a.png", "a.tif", "a.tiff", "a.pfm", "a.ppm"}) {
        EXPECT_EQ(alpha_channel_problem(name), "") << name;
    }
    if (!have_openimageio()) return;
    const TemporaryDirectory directory;
    const Premultiplied image = test_image();
    EXPECT_THROW(write_image(directory.file("a.jpg"), kWidth, kHeight, image.colour, Encoding::Srgb,
                             PixelDataType::UInt8, metadata(), {}, image.alpha),
                 InputError);
    EXPECT_TRUE(directory.entries().empty());
}

#if FARMRT_TESTS_HAVE_OPENIMAGEIO
// Every channel of `path` as floats, as stored (no alpha association on reading).
std::vector<float> read_channels(const std::string& path, OIIO::ImageSpec& spec) {
    OIIO::ImageSpec config;
    config.attribute("oiio:UnassociatedAlpha", 1);
    auto input = OIIO::ImageInput::open(path, &config);
    if (!input) return {};
    spec = input->spec();
    std::vector<float> values(size_t(spec.width) * spec.height * size_t(spec.nchannels));
    if (!input->read_image(0, 0, 0, spec.nchannels, OIIO::TypeDesc::FLOAT, values.data())) return {};
    return values;
}
#endif

TEST(ImageAlpha, FloatFilesKeepPremultipliedColourAndA) {
    if (!have_openimageio()) GTEST_SKIP() << "built without OpenImageIO";
#if FARMRT_TESTS_HAVE_OPENIMAGEIO
    const TemporaryDirectory directory;
    const Premultiplied image = test_image();
    for (const char* name : {"a.exr", "a.tif"}) {
        write_image(directory.file(name), kWidth, kHeight, image.colour, Encoding::Linear, PixelDataType::Float,
                    metadata(), {}, image.alpha);
        OIIO::ImageSpec spec;
        const std::vector<float> values = read_channels(directory.file(name), spec);
        ASSERT_EQ(spec.nchannels, 4) << name;
        EXPECT_EQ(spec.channelnames[3], "A") << name;
        EXPECT_EQ(spec.alpha_channel, 3) << name;
        for (size_t p = 0; p < image.alpha.size(); ++p) {
            for (size_t c = 0; c < 3; ++c) EXPECT_EQ(values[p * 4 + c], image.colour[p * 3 + c]) << name << " " << p;
            EXPECT_EQ(values[p * 4 + 3], image.alpha[p]) << name << " " << p;
        }
    }
#endif
}

TEST(ImageAlpha, IntegerFilesStoreStraightColourAndLinearAlpha) {
    if (!have_openimageio()) GTEST_SKIP() << "built without OpenImageIO";
#if FARMRT_TESTS_HAVE_OPENIMAGEIO
    const TemporaryDirectory directory;
    const Premultiplied image = test_image();
    ImageMetadata looked = metadata();
    looked.exposure = 1.0f;  // the look applies to the straight colour
    for (const char* name : {"a.png", "a.tif"}) {
        write_image(directory.file(name), kWidth, kHeight, image.colour, Encoding::Srgb, PixelDataType::UInt8, looked,
                    {}, image.alpha);
        OIIO::ImageSpec spec;
        const std::vector<float> values = read_channels(directory.file(name), spec);
        ASSERT_EQ(spec.nchannels, 4) << name;
        EXPECT_EQ(spec.format, OIIO::TypeDesc::UINT8) << name;
        for (size_t p = 0; p < image.alpha.size(); ++p) {
            const float alpha = image.alpha[p];
            for (size_t c = 0; c < 3; ++c) {
                const float straight = alpha > 0.0f ? image.colour[p * 3 + c] / alpha : 0.0f;
                const uint8_t expected =
                    encode_uint8(display_value(straight, 1.0f, ViewTransform::Standard), Encoding::Srgb);
                EXPECT_EQ(std::lround(values[p * 4 + c] * 255.0f), expected) << name << " pixel " << p << " " << c;
            }
            EXPECT_EQ(std::lround(values[p * 4 + 3] * 255.0f), std::lround(alpha * 255.0f)) << name << " " << p;
        }
    }
#endif
}

}  // namespace
}  // namespace farmrt
