// An OBJ model with its material library: the input up to the first NUL byte
// is the OBJ text, the rest the MTL text (joined as farmrt joins the
// libraries a model names), through farmrt's checks, tinyobjloader and the
// triangulation of its polygons.
#include "fuzz_input.h"
#include "io/mesh_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    const std::string obj = split == std::string::npos ? input : input.substr(0, split);
    const std::string mtl = split == std::string::npos ? "" : input.substr(split + 1);
    return farmrt::fuzz::expect_farmrt_errors_only([&] { farmrt::parse_obj_mesh(obj, "fuzz.obj", true, mtl); });
}
