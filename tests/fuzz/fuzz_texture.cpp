// Image textures in the formats OpenImageIO reads (PNG, JPEG, HDR, TIFF,
// EXR), through farmrt's loader: the first byte picks the extension the
// file is named with, the rest are its bytes. Headers are checked against
// the pixel budget (io/image_output.h) before anything is allocated.
#include "fuzz_input.h"
#include "io/texture_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    static const char* const kExtensions[] = {".png", ".jpg", ".hdr", ".tif", ".exr", ".ppm", ".pfm"};
    const std::string name = std::string("texture") + kExtensions[data[0] % 7];
    const std::string path = farmrt::fuzz::write_input(data + 1, size - 1, name);
    std::vector<float> texels;
    return farmrt::fuzz::expect_farmrt_errors_only([&] { farmrt::load_image_texture(path, "fuzz" + name, texels); });
}
