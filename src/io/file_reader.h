// Reading a whole input file (a scene, a mesh, a checkpoint, an image) with
// its size known before any byte is read: regular files only (a device, a
// FIFO or a directory, also behind a symbolic link, is one clear error and
// never blocks or streams forever), and at most `limit` bytes, so that what
// a file makes farmrt allocate is bounded by the file itself.
#pragma once

#include <cstdint>
#include <string>

namespace farmrt {

// The largest input file farmrt reads whole: scenes, meshes, checkpoints and
// images alike (a 16k x 16k float image is 3 GiB).
constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t(4) << 30;

// The size of the regular file at `path`, or an InputError naming
// `display_path` and `what` ("scene file", "mesh file", ...) when it is not a
// regular file, cannot be read or is larger than `limit`.
std::uintmax_t regular_file_size(const std::string& path, const std::string& display_path, const char* what,
                                 std::uintmax_t limit = kMaxInputFileBytes);

// The whole file, after regular_file_size's checks.
std::string read_regular_file(const std::string& path, const std::string& display_path, const char* what,
                              std::uintmax_t limit = kMaxInputFileBytes);

}  // namespace farmrt
