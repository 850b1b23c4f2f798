#include "temporary_name.h"

#include <limits.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>

namespace farmrt {

namespace {

// NAME_MAX of Linux file systems: the longest file name, in bytes.
constexpr size_t kMaxFileNameBytes = 255;

uint64_t random_bits() {
    std::random_device device;
    uint64_t bits = (uint64_t(device()) << 32) ^ uint64_t(device());
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    bits ^= std::hash<std::string>()(host) * 0x9E3779B97F4A7C15ull;
    bits ^= uint64_t(::getpid()) << 17;
    return bits;
}

}  // namespace

std::string temporary_path_for(const std::string& target, const std::string& suffix) {
    const std::filesystem::path path(target);
    char random_part[17];
    std::snprintf(random_part, sizeof random_part, "%016llx", static_cast<unsigned long long>(random_bits()));
    const std::string tail = std::string(kTemporaryMarker) + random_part + suffix;
    // The target's own name, cut so that the whole stays a valid file name.
    std::string stem = path.filename().string();
    const bool ends_with_suffix = !suffix.empty() && stem.size() >= suffix.size() &&
                                  stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (ends_with_suffix) {
        stem.resize(stem.size() - suffix.size());
    }
    const size_t room = kMaxFileNameBytes - 1 - tail.size();
    if (stem.size() > room) stem.resize(room);
    return (path.parent_path() / ("." + stem + tail)).string();
}

}  // namespace farmrt
