#include "io/frame_list.h"

#include <algorithm>
#include <cctype>

namespace farmrt {
namespace {

std::string trim(const std::string& s) {
    size_t begin = 0, end = s.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
    return s.substr(begin, end - begin);
}

// A non-negative decimal integer no larger than `limit`; digits only.
bool parse_number(const std::string& text, uint64_t limit, uint64_t& value) {
    if (text.empty() || text.size() > 12) return false;
    value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + uint64_t(c - '0');
    }
    return value <= limit;
}

// The file-name part of a path: '#' in directory names is literal.
size_t file_name_start(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? 0 : slash + 1;
}

}  // namespace

bool parse_frame_list(const std::string& text, std::vector<uint32_t>& frames, std::string& problem) {
    frames.clear();
    const std::string whole = trim(text);
    if (whole.empty()) {
        problem = "empty frame list (expected e.g. 1-120, 1-120:5 or 3,7,10-12)";
        return false;
    }
    size_t start = 0;
    while (start <= whole.size()) {
        size_t comma = whole.find(',', start);
        if (comma == std::string::npos) comma = whole.size();
        const std::string item = trim(whole.substr(start, comma - start));
        start = comma + 1;
        const auto where = [&item] { return "'" + item + "'"; };  // built only for an error
        if (item.empty()) {
            problem = "empty item in frame list '" + whole + "'";
            return false;
        }
        // item = FIRST | FIRST-LAST | FIRST-LAST:STEP
        std::string range = item, step_text;
        const size_t colon = item.find(':');
        if (colon != std::string::npos) {
            range = trim(item.substr(0, colon));
            step_text = trim(item.substr(colon + 1));
        }
        std::string first_text = range, last_text;
        const size_t dash = range.find('-', 1);  // a leading '-' is a negative number, rejected below
        const bool is_range = dash != std::string::npos;
        if (is_range) {
            first_text = trim(range.substr(0, dash));
            last_text = trim(range.substr(dash + 1));
        }
        uint64_t first = 0, last = 0, step = 1;
        if (!parse_number(first_text, kMaxFrameNumber, first) ||
            (is_range && !parse_number(last_text, kMaxFrameNumber, last))) {
            problem = "bad frame list item " + where() + ": frames are integers from 0 to " +
                      std::to_string(kMaxFrameNumber) + " written FIRST, FIRST-LAST or FIRST-LAST:STEP";
            return false;
        }
        if (!is_range) last = first;
        if (colon != std::string::npos) {
            if (!is_range) {
                problem = "bad frame list item " + where() + ": a step needs a range (FIRST-LAST:STEP)";
                return false;
            }
            if (!parse_number(step_text, kMaxFrameNumber, step) || step == 0) {
                problem = "bad frame list item " + where() + ": the step must be an integer >= 1";
                return false;
            }
        }
        if (last < first) {
            problem = "bad frame list item " + where() + ": the range runs backwards (" + std::to_string(first) +
                      " > " + std::to_string(last) + ")";
            return false;
        }
        if ((last - first) / step + 1 + frames.size() > kMaxFrameCount) {
            problem = "frame list '" + whole + "' has more than " + std::to_string(kMaxFrameCount) + " frames";
            return false;
        }
        for (uint64_t f = first; f <= last; f += step) frames.push_back(uint32_t(f));
        if (comma == whole.size()) break;
    }
    std::sort(frames.begin(), frames.end());
    frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
    return true;
}

// Runs of equal steps are written as ranges (FIRST-LAST, or FIRST-LAST:STEP
// for three or more frames), so that a long stepped list stays short.
std::string format_frame_list(const std::vector<uint32_t>& frames) {
    std::string text;
    for (size_t i = 0; i < frames.size();) {
        size_t j = i;
        const uint32_t step = i + 1 < frames.size() ? frames[i + 1] - frames[i] : 1;
        while (j + 1 < frames.size() && frames[j + 1] - frames[j] == step) ++j;
        if (step != 1 && j < i + 2) j = i;  // two frames a step apart: not worth a range
        if (!text.empty()) text += ",";
        text += std::to_string(frames[i]);
        if (j > i) text += "-" + std::to_string(frames[j]);
        if (j > i && step != 1) text += ":" + std::to_string(step);
        i = j + 1;
    }
    return text;
}

bool has_frame_pattern(const std::string& path) { return path.find('#', file_name_start(path)) != std::string::npos; }

std::string frame_pattern_problem(const std::string& pattern) {
    const size_t name = file_name_start(pattern);
    const size_t first = pattern.find('#', name);
    if (first == std::string::npos) return "";
    const size_t after = pattern.find_first_not_of('#', first);
    if (after != std::string::npos && pattern.find('#', after) != std::string::npos) {
        return "the frame pattern in '" + pattern.substr(name) +
               "' has more than one run of '#' (use one, e.g. out_####.png)";
    }
    return "";
}

std::string frame_output_path(const std::string& pattern, uint32_t frame) {
    const size_t first = pattern.find('#', file_name_start(pattern));
    if (first == std::string::npos) return pattern;
    size_t after = pattern.find_first_not_of('#', first);
    if (after == std::string::npos) after = pattern.size();
    std::string number = std::to_string(frame);
    if (number.size() < after - first) number.insert(0, after - first - number.size(), '0');
    return pattern.substr(0, first) + number + pattern.substr(after);
}

}  // namespace farmrt
