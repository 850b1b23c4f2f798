#include "io/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "core/pixel_record.h"
#include "io/file_reader.h"
#include "io/scene_identity.h"
#include "io/scene_loader.h"
#include "io/temporary_name.h"

namespace farmrt {
namespace {

constexpr char kMagic[8] = {'F', 'A', 'R', 'M', 'R', 'T', 'C', 'K'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kMaxIdentityLength = 1 << 20;

template <typename T>
void put(std::string& out, T value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Reads fixed-size fields from the file's bytes, failing with the file's name.
class ByteReader {
public:
    ByteReader(const std::string& path, const std::string& bytes) : path_(path), bytes_(bytes) {}
    template <typename T>
    T get(const char* what) {
        T value;
        need(sizeof value, what);
        std::memcpy(&value, bytes_.data() + offset_, sizeof value);
        offset_ += sizeof value;
        return value;
    }
    void get_bytes(void* target, size_t size, const char* what) {
        need(size, what);
        std::memcpy(target, bytes_.data() + offset_, size);
        offset_ += size;
    }
    size_t offset() const { return offset_; }
    size_t remaining() const { return bytes_.size() - offset_; }
    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(path_ + ": corrupt checkpoint: " + problem + " (delete it to start the frame again)");
    }

private:
    void need(size_t size, const char* what) const {
        if (remaining() < size) fail(std::string("file ends inside ") + what);
    }
    const std::string& path_;
    const std::string& bytes_;
    size_t offset_ = 0;
};

void write_all(int fd, const std::string& data, const std::string& path) {
    size_t written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw RenderError(path + ": cannot write checkpoint: " + std::strerror(errno));
        written += size_t(n);
    }
}

// Value of `key=` in an identity text, or "(none)".
std::string identity_value(const std::string& identity, const std::string& key) {
    std::istringstream lines(identity);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
    }
    return "(none)";
}

}  // namespace

uint32_t Checkpoint::row_sample_count(uint32_t y) const {
    const uint32_t* row = sample_counts.data() + size_t(y) * width;
    for (uint32_t x = 1; x < width; ++x) {
        if (row[x] != row[0]) return kMixedRow;
    }
    return row[0];
}

uint64_t Checkpoint::samples_done() const {
    uint64_t total = 0;
    for (uint32_t c : sample_counts) total += c;
    return total;
}

std::string checkpoint_path_for(const std::string& output) { return output + ".checkpoint"; }

void write_checkpoint(const std::string& path, const Checkpoint& c) {
    const size_t pixels = size_t(c.width) * c.height;
    if (c.sample_counts.size() != pixels || c.sums.size() != pixels * c.record_floats) {
        throw RenderError(path + ": checkpoint buffers do not match the image size");
    }
    std::string data;
    data.reserve(64 + c.identity.size() + pixels * 16);
    data.append(kMagic, sizeof kMagic);
    put<uint32_t>(data, kVersion);
    put<uint32_t>(data, 0);
    put<uint64_t>(data, c.identity.size());
    data += c.identity;
    put<uint32_t>(data, c.width);
    put<uint32_t>(data, c.height);
    put<uint32_t>(data, c.spp);
    put<uint32_t>(data, c.record_floats);
    data.append(reinterpret_cast<const char*>(c.sample_counts.data()), pixels * sizeof(uint32_t));
    data.append(reinterpret_cast<const char*>(c.sums.data()), c.sums.size() * sizeof(float));
    put<uint64_t>(data, fnv1a64(data.data(), data.size()));

    const std::filesystem::path target(path);
    const std::filesystem::path temporary = temporary_path_for(path, ".tmp");
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw RenderError(path + ": cannot create checkpoint: " + std::strerror(errno));
    try {
        write_all(fd, data, path);
        // On disk before the rename: a node that dies right after still has a
        // complete file under one of the two names.
        if (::fsync(fd) != 0) throw RenderError(path + ": cannot flush checkpoint: " + std::strerror(errno));
    } catch (...) {
        ::close(fd);
        std::remove(temporary.c_str());
        throw;
    }
    ::close(fd);
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        std::remove(temporary.c_str());
        throw RenderError(path + ": cannot move checkpoint into place: " + std::strerror(error));
    }
}

Checkpoint read_checkpoint(const std::string& path) {
    const std::string bytes = read_regular_file(path, path, "checkpoint");
    ByteReader reader(path, bytes);

    char magic[sizeof kMagic];
    reader.get_bytes(magic, sizeof magic, "the header");
    if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) reader.fail("not a farmrt checkpoint");
    const uint32_t version = reader.get<uint32_t>("the header");
    if (version != kVersion) {
        throw InputError(path + ": checkpoint format version " + std::to_string(version) +
                         " is not supported (this farmrt reads version " + std::to_string(kVersion) + ")");
    }
    reader.get<uint32_t>("the header");
    if (bytes.size() < sizeof(uint64_t)) reader.fail("too short");
    uint64_t stored_checksum;
    std::memcpy(&stored_checksum, bytes.data() + bytes.size() - sizeof stored_checksum, sizeof stored_checksum);
    if (fnv1a64(bytes.data(), bytes.size() - sizeof stored_checksum) != stored_checksum) {
        reader.fail("checksum mismatch (truncated or damaged file)");
    }

    Checkpoint c;
    const uint64_t identity_length = reader.get<uint64_t>("the header");
    if (identity_length > kMaxIdentityLength || identity_length > reader.remaining())
        reader.fail("bad identity length");
    c.identity.resize(identity_length);
    reader.get_bytes(c.identity.data(), identity_length, "the identity");
    c.width = reader.get<uint32_t>("the image size");
    c.height = reader.get<uint32_t>("the image size");
    c.spp = reader.get<uint32_t>("the image size");
    c.record_floats = reader.get<uint32_t>("the image size");
    if (c.record_floats == 0) c.record_floats = kColorFloats;
    if (c.record_floats < kColorFloats || c.record_floats > kMaxRecordFloats) reader.fail("bad pixel record size");
    if (c.width == 0 || c.height == 0 || c.width > kMaxImageSide || c.height > kMaxImageSide ||
        uint64_t(c.width) * c.height > kMaxPixels || c.spp == 0) {
        reader.fail("bad image size or spp");
    }
    const size_t pixels = size_t(c.width) * c.height;
    const size_t sum_floats = pixels * c.record_floats;
    if (reader.remaining() != pixels * sizeof(uint32_t) + sum_floats * sizeof(float) + sizeof(uint64_t)) {
        reader.fail("file size does not match the image size");
    }
    c.sample_counts.resize(pixels);
    c.sums.resize(sum_floats);
    reader.get_bytes(c.sample_counts.data(), pixels * sizeof(uint32_t), "the sample counts");
    reader.get_bytes(c.sums.data(), sum_floats * sizeof(float), "the sums");
    for (uint32_t count : c.sample_counts) {
        if (count > c.spp) reader.fail("a pixel has more samples than spp");
    }
    for (uint32_t y = 0; y < c.height; ++y) {
        if (c.row_sample_count(y) == Checkpoint::kMixedRow)
            reader.fail("row " + std::to_string(y) + " is partly rendered");
    }
    if (record_has_statistics(c.record_floats)) {
        // A pixel's samples taken: a whole number no greater than its position.
        for (size_t p = 0; p < pixels; ++p) {
            const float taken = c.sums[p * c.record_floats + kSamplesTaken];
            if (!(taken >= 0.0f && taken <= float(c.sample_counts[p]) && taken == float(uint32_t(taken)))) {
                reader.fail("pixel " + std::to_string(p) + " has a bad sample count");
            }
        }
    }
    return c;
}

void require_matching_identity(const std::string& path, const Checkpoint& checkpoint, const std::string& identity) {
    if (checkpoint.identity == identity) return;
    std::istringstream lines(identity);
    std::string line;
    while (std::getline(lines, line)) {
        const std::string key = line.substr(0, line.find('='));
        const std::string now = line.substr(key.size() + 1);
        const std::string then = identity_value(checkpoint.identity, key);
        if (now != then) {
            const std::string what = key == "scene" ? "the scene's content (hash)" : key;
            throw InputError(
                path + ": checkpoint was made for other scene or settings: " + what + " is " + then +
                " in the checkpoint, " + now +
                " now (render with the original settings, or delete the checkpoint to start the frame again)");
        }
    }
    throw InputError(path + ": checkpoint was made for other scene or settings (delete it to start the frame again)");
}

}  // namespace farmrt
