// PLY bytes (ASCII or binary), through farmrt's PLY reader.
#include "fuzz_input.h"
#include "io/model_formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = farmrt::fuzz::write_input(data, size, "model.ply");
    return farmrt::fuzz::expect_farmrt_errors_only([&] { farmrt::load_ply_model(path, "fuzz.ply"); });
}
