#include "render/frame_log.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/errors.h"
#include "io/temporary_name.h"
#include "render/run_report.h"

namespace farmrt {

std::string frame_log_line(const FrameLogEntry& entry) {
    std::string ranks = "[";
    for (const RankMemory& rank : entry.ranks) {
        JsonObject object;
        object.add("rank", rank.rank).add("peak_resident_bytes", rank.peak_resident_bytes);
        if (rank.has_gpu) object.add("gpu_memory_used_bytes", rank.gpu_memory_used_bytes);
        ranks += (ranks.size() > 1 ? "," : "") + object.str();
    }
    ranks += "]";
    JsonObject seconds;
    seconds.add("render", entry.render_seconds).add("write", entry.write_seconds);
    JsonObject line;
    line.add("frame", entry.frame)
        .add("output", entry.output)
        .add("spp", entry.spp)
        .add("spp_requested", entry.spp_requested)
        .add("time_limited", entry.time_limited)
        .add("samples", entry.samples)
        .add("samples_per_second", entry.render_seconds > 0 ? double(entry.samples) / entry.render_seconds : 0.0)
        .add_raw("seconds", seconds.str())
        .add("job_seconds", entry.job_seconds)
        .add_raw("ranks", ranks);
    std::string text = line.str();
    // One line per frame: the object's own line breaks go.
    for (char& c : text) {
        if (c == '\n') c = ' ';
    }
    return text;
}

void append_line(const std::string& path, const std::string& line) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw RenderError(path + ": cannot open for appending: " + std::strerror(errno));
    const std::string text = line + "\n";
    const ssize_t written = ::write(fd, text.data(), text.size());
    const int error = errno;
    ::close(fd);
    if (written != ssize_t(text.size())) {
        throw RenderError(path + ": write failed: " + (written < 0 ? std::strerror(error) : "short write"));
    }
}

void check_appendable(const std::string& option, const std::string& path) {
    // Checked without creating it: a job refused later leaves nothing behind.
    const std::string problem = output_name_problem(path);
    if (!problem.empty()) throw InputError(option + ": " + one_line(path) + ": " + problem);
    if (::access(path.c_str(), F_OK) == 0) {
        struct stat info {};
        if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
            throw InputError(option + ": " + path + " is a directory");
        }
        if (::access(path.c_str(), W_OK) != 0) {
            throw InputError(option + ": " + path + ": cannot append: " + std::strerror(errno));
        }
        return;
    }
    const std::string directory = std::filesystem::path(path).parent_path().string();
    if (::access(directory.empty() ? "." : directory.c_str(), W_OK) != 0) {
        throw InputError(option + ": " + path + ": cannot create it in '" + (directory.empty() ? "." : directory) +
                         "': " + std::strerror(errno));
    }
}

uint64_t peak_resident_bytes() {
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return uint64_t(usage.ru_maxrss) * 1024;  // Linux reports kibibytes
}

}  // namespace farmrt
