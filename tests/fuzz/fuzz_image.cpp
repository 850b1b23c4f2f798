// PPM and PFM bytes (farmrt's own readers, for textures and --resume): the
// first byte picks the extension, the rest is the file.
#include "fuzz_input.h"
#include "io/image_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string path = farmrt::fuzz::write_input(data + 1, size - 1, data[0] & 1 ? "image.pfm" : "image.ppm");
    return farmrt::fuzz::expect_farmrt_errors_only([&] { farmrt::read_image(path); });
}
