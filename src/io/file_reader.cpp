#include "io/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.h"

namespace farmrt {

namespace {

std::string failure(const std::string& display_path, const char* what, const std::string& why) {
    return display_path + ": cannot read " + what + ": " + why;
}

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "is a directory";
    if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
    if (S_ISSOCK(mode)) return "is a socket, not a regular file";
    return "is not a regular file";
}

}  // namespace

std::uintmax_t regular_file_size(const std::string& path, const std::string& display_path, const char* what,
                                 std::uintmax_t limit) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) throw InputError(failure(display_path, what, std::strerror(errno)));
    if (!S_ISREG(status.st_mode)) throw InputError(failure(display_path, what, kind_of(status.st_mode)));
    const std::uintmax_t size = std::uintmax_t(status.st_size);
    if (size > limit) {
        throw InputError(failure(display_path, what,
                                 std::to_string(size) + " bytes, more than the limit of " + std::to_string(limit)));
    }
    return size;
}

std::string read_regular_file(const std::string& path, const std::string& display_path, const char* what,
                              std::uintmax_t limit) {
    regular_file_size(path, display_path, what, limit);
    // O_NONBLOCK: a FIFO swapped in after the check must not block the open.
    const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (descriptor < 0) throw InputError(failure(display_path, what, std::strerror(errno)));
    struct stat status {};
    if (::fstat(descriptor, &status) != 0 || !S_ISREG(status.st_mode) || std::uintmax_t(status.st_size) > limit) {
        ::close(descriptor);
        throw InputError(failure(display_path, what, "changed while being opened"));
    }
    std::string bytes(size_t(status.st_size), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::read(descriptor, &bytes[done], bytes.size() - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;  // the file shrank: read what is there
        done += size_t(got);
    }
    const int read_errno = errno;
    ::close(descriptor);
    if (done < bytes.size() && read_errno != 0 && read_errno != EINTR && done == 0) {
        throw InputError(failure(display_path, what, std::strerror(read_errno)));
    }
    bytes.resize(done);
    return bytes;
}

}  // namespace farmrt
