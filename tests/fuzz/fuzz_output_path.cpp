// Output names as a scene or an option gives them (NUL bytes, long names,
// devices, FIFOs, "..", links): the checks made before rendering must
// answer with farmrt's own errors and never create, open or replace a file.
#include "fuzz_input.h"
#include "io/image_output.h"
#include "io/temporary_name.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path(reinterpret_cast<const char*>(data), size);
    (void)farmrt::output_name_problem(path);
    return farmrt::fuzz::expect_farmrt_errors_only([&] {
        farmrt::check_output_writable(path);
        (void)farmrt::unsupported_format_reason(path);
    });
}
