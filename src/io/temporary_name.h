// Names for the temporary files that farmrt writes and then renames over its
// outputs (images, checkpoints, reports), so that a reader never sees half a
// file: hidden, in the target's directory (rename is atomic only there),
// unique across processes and hosts (nodes of a cluster writing to one shared
// filesystem can have equal process ids), and never longer than a file name
// may be, whatever the target's name.
#pragma once

#include <string>

namespace farmrt {

// The marker in every temporary name: ".<name>.farmrt-<random>-<suffix>".
constexpr const char* kTemporaryMarker = ".farmrt-";

// A temporary path beside `target` ending in `suffix` (an image's extension,
// which picks its format, or ".tmp"). The random part is 64 bits from the
// system's random device mixed with the host name and the process id.
std::string temporary_path_for(const std::string& target, const std::string& suffix);

// Removes the temporaries of `target` (temporary_path_for's names with this
// suffix) that were last written more than `quiet_seconds` ago: left behind
// by a run that was killed mid-write. A temporary written more recently may
// belong to a run still writing, and stays. Returns how many were removed.
int remove_stale_temporaries(const std::string& target, const std::string& suffix, double quiet_seconds = 60);

// "" when `path` may name an output that farmrt writes whole and renames into
// place, else why not: a NUL byte in it, a file name longer than the file
// system allows (the rename would fail after the render), or an existing
// path that is not a regular file (a device, a FIFO, a socket: renaming over
// it would replace the node, writing into it could block forever).
std::string output_name_problem(const std::string& path);

}  // namespace farmrt
