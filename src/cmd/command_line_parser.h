// The farmrt command line, parsed into a job's options and scene overrides.
#pragma once

#include <string>
#include <vector>

#include "render/command_line.h"

namespace farmrt {

// Throws InputError naming the option on bad input.
CommandLine parse_command_line(const std::vector<std::string>& arguments);
std::string usage_text();

}  // namespace farmrt
