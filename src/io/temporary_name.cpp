#include "io/temporary_name.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>

namespace farmrt {

namespace {

// NAME_MAX of Linux file systems: the longest file name, in bytes.
constexpr size_t kMaxFileNameBytes = 255;
constexpr size_t kRandomDigits = 16;  // 64 bits in hexadecimal

uint64_t random_bits() {
    std::random_device device;
    uint64_t bits = (uint64_t(device()) << 32) ^ uint64_t(device());
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    bits ^= std::hash<std::string>()(host) * 0x9E3779B97F4A7C15ull;
    bits ^= uint64_t(::getpid()) << 17;
    return bits;
}

// The part of a temporary name before its random part: "." + the target's
// name (less `suffix`), cut so that the whole name fits kMaxFileNameBytes.
std::string temporary_prefix(const std::filesystem::path& path, const std::string& suffix) {
    std::string stem = path.filename().string();
    const bool ends_with_suffix = !suffix.empty() && stem.size() >= suffix.size() &&
                                  stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (ends_with_suffix) stem.resize(stem.size() - suffix.size());
    const size_t room = kMaxFileNameBytes - 1 - std::strlen(kTemporaryMarker) - kRandomDigits - suffix.size();
    if (stem.size() > room) stem.resize(room);
    return "." + stem + kTemporaryMarker;
}

}  // namespace

std::string temporary_path_for(const std::string& target, const std::string& suffix) {
    const std::filesystem::path path(target);
    char random_part[kRandomDigits + 1];
    std::snprintf(random_part, sizeof random_part, "%016llx", static_cast<unsigned long long>(random_bits()));
    return (path.parent_path() / (temporary_prefix(path, suffix) + random_part + suffix)).string();
}

int remove_stale_temporaries(const std::string& target, const std::string& suffix, double quiet_seconds) {
    const std::filesystem::path path(target);
    const std::string prefix = temporary_prefix(path, suffix);
    const std::filesystem::path directory = path.parent_path().empty() ? "." : path.parent_path();
    std::error_code error;
    std::filesystem::directory_iterator entries(directory, error);
    if (error) return 0;
    const auto now = std::filesystem::file_time_type::clock::now();
    int removed = 0;
    for (const auto& entry : entries) {
        const std::string name = entry.path().filename().string();
        if (name.size() != prefix.size() + kRandomDigits + suffix.size() ||
            name.compare(0, prefix.size(), prefix) != 0 ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
            name.find_first_not_of("0123456789abcdef", prefix.size()) != name.size() - suffix.size()) {
            continue;
        }
        const auto written = std::filesystem::last_write_time(entry.path(), error);
        if (error || !entry.is_regular_file(error)) continue;
        if (std::chrono::duration<double>(now - written).count() < quiet_seconds) continue;
        if (std::filesystem::remove(entry.path(), error)) ++removed;
    }
    return removed;
}

std::string output_name_problem(const std::string& path) {
    if (path.find('\0') != std::string::npos) return "the name holds a NUL byte";
    if (path.size() >= PATH_MAX)
        return "the path is " + std::to_string(path.size()) + " bytes, longer than the limit of " +
               std::to_string(PATH_MAX - 1);
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.size() > kMaxFileNameBytes) {
        return "the file name is " + std::to_string(name.size()) + " bytes, longer than the file system's limit of " +
               std::to_string(kMaxFileNameBytes);
    }
    struct stat info {};
    if (::lstat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode)) {
        // A symbolic link is followed: to a regular file it is fine.
        if (!S_ISLNK(info.st_mode) || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
            const char* kind = S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ? "a device"
                               : S_ISFIFO(info.st_mode)                       ? "a FIFO"
                               : S_ISSOCK(info.st_mode)                       ? "a socket"
                               : S_ISLNK(info.st_mode)                        ? "a dangling symbolic link"
                                                                              : "not a regular file";
            return std::string("is ") + kind + "; farmrt writes its outputs as regular files only";
        }
    }
    return "";
}

}  // namespace farmrt
