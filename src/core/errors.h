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

// A message as one printable line: control characters (a newline or a
// carriage return in a key, a value or a file name) written as \n, \r, \t
// or \xNN, so that an error stays the one line that scripts and farm
// managers read.
// A library's multi-line message as one line: the line ends after it
// dropped, those inside it spaces.
inline std::string joined_lines(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
    for (char& c : text) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    return text;
}

inline std::string one_line(const std::string& message) {
    static const char kHex[] = "0123456789abcdef";
    std::string line;
    line.reserve(message.size());
    for (const char c : message) {
        const unsigned char byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte != 0x7f) {
            line += c;
        } else if (c == '\n') {
            line += "\\n";
        } else if (c == '\r') {
            line += "\\r";
        } else if (c == '\t') {
            line += "\\t";
        } else {
            line += "\\x";
            line += kHex[byte >> 4];
            line += kHex[byte & 15];
        }
    }
    return line;
}

}  // namespace farmrt
