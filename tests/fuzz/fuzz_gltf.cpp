// glTF and GLB bytes, through tinygltf and farmrt's checks of what it hands over.
#include "fuzz_input.h"
#include "io/model_formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = farmrt::fuzz::write_input(data, size, "model.gltf");
    return farmrt::fuzz::expect_farmrt_errors_only([&] { farmrt::load_gltf_model(path, "fuzz.gltf"); });
}
