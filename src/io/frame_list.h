// Frame numbers of a sequence and the file names they render to.
//   "1-120"        every frame from 1 to 120
//   "1-120:5"      1, 6, 11, ..., 116 (every 5th)
//   "3,7,10-12"    3, 7, 10, 11, 12
// Used by --frames, by animation.frames in a scene, and by the Slurm array
// scripts (which pass one chunk of a range per task).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace farmrt {

// Largest frame number and longest list accepted: beyond these a list is a typo.
constexpr uint32_t kMaxFrameNumber = 9999999;
constexpr size_t kMaxFrameCount = 1000000;

// Parses a frame list into ascending, distinct frame numbers. On bad input
// returns false and sets `problem` to one line (without the option or key
// name, which the caller prefixes).
bool parse_frame_list(const std::string& text, std::vector<uint32_t>& frames, std::string& problem);
// The shortest text that parse_frame_list reads back as `frames` ("1-5,9").
std::string format_frame_list(const std::vector<uint32_t>& frames);

// An output name with a frame pattern: the one run of '#' in its file name is
// replaced by the frame number, zero-padded to the run's length
// ("out_####.png", 7 -> "out_0007.png"; a number longer than the run is
// written in full). Names without '#' are returned unchanged.
bool has_frame_pattern(const std::string& path);
std::string frame_output_path(const std::string& pattern, uint32_t frame);
// Empty when `pattern` is usable, else one line: more than one run of '#' in
// the file name is ambiguous.
std::string frame_pattern_problem(const std::string& pattern);

}  // namespace farmrt
