// OBJ text, through farmrt's checks and tinyobjloader.
#include "fuzz_input.h"
#include "io/mesh_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    return farmrt::fuzz::expect_farmrt_errors_only([&] { farmrt::parse_obj_mesh(text, "fuzz.obj"); });
}
