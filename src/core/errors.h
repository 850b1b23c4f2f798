// User-facing errors: one line that names what is wrong and where.
#pragma once

#include <algorithm>
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

// Bidirectional controls (U+200E-200F, U+202A-202E, U+2066-2069) are
// written as \uXXXX too: printed raw they reorder the rest of the line on a
// terminal, so that the line no longer says what it holds. A message longer
// than kMaxMessageBytes (a 100 KB value echoed back) is cut, saying so.
constexpr size_t kMaxMessageBytes = 1000;

inline bool is_bidi_control(const std::string& text, size_t i) {
    if (i + 2 >= text.size() || static_cast<unsigned char>(text[i]) != 0xE2) return false;
    const unsigned char second = static_cast<unsigned char>(text[i + 1]),
                        third = static_cast<unsigned char>(text[i + 2]);
    return (second == 0x80 && (third == 0x8E || third == 0x8F || (third >= 0xAA && third <= 0xAE))) ||
           (second == 0x81 && third >= 0xA6 && third <= 0xA9);
}

inline std::string one_line(const std::string& message) {
    static const char kHex[] = "0123456789abcdef";
    std::string line;
    line.reserve(std::min(message.size(), kMaxMessageBytes + 64));
    for (size_t i = 0; i < message.size(); ++i) {
        if (line.size() >= kMaxMessageBytes && (static_cast<unsigned char>(message[i]) & 0xC0) != 0x80) {
            line += "... (" + std::to_string(message.size() - i) + " more bytes)";
            break;
        }
        const char c = message[i];
        const unsigned char byte = static_cast<unsigned char>(c);
        if (is_bidi_control(message, i)) {
            const unsigned code = 0x2000u | ((static_cast<unsigned char>(message[i + 1]) & 0x3Fu) << 6) |
                                  (static_cast<unsigned char>(message[i + 2]) & 0x3Fu);
            line += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) line += kHex[(code >> shift) & 15];
            i += 2;
        } else if (byte >= 0x20 && byte != 0x7f) {
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
