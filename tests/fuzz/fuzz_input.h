// What the fuzz targets share: fuzzed bytes as a file (for the readers that
// take a path), and the rule that bad input may only end in farmrt's own
// errors (InputError, RenderError); anything else (a crash, a sanitizer
// report, std::bad_alloc, another exception) is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/errors.h"

namespace farmrt::fuzz {

// A file under the temporary directory, rewritten for each input.
inline std::string write_input(const uint8_t* data, size_t size, const std::string& name) {
    const char* directory = std::getenv("TMPDIR");
    const std::string path =
        std::string(directory ? directory : "/tmp") + "/farmrt-fuzz-" + std::to_string(::getpid()) + "-" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return path;
}

// Runs `body`; farmrt's own errors are the expected answer to bad input.
template <class Body>
int expect_farmrt_errors_only(Body body) {
    try {
        body();
    } catch (const InputError&) {
    } catch (const RenderError&) {}
    return 0;
}

}  // namespace farmrt::fuzz
