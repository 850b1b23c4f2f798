// Checkpoint bytes, as --resume reads them.
#include "fuzz_input.h"
#include "io/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = farmrt::fuzz::write_input(data, size, "frame.ckpt");
    return farmrt::fuzz::expect_farmrt_errors_only([&] { farmrt::read_checkpoint(path); });
}
