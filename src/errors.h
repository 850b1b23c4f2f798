// User-facing errors: one line that names what is wrong and where.
#pragma once

#include <stdexcept>
#include <string>

namespace farmrt {

// Bad input from the user: a scene file, a command-line value, an output path.
// The message is complete ("scene.yaml:12:5: objects[3].radius: must be > 0, got -1").
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// A failure while rendering or writing (I/O, device, communication).
class RenderError : public std::runtime_error {
public:
    explicit RenderError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace farmrt
