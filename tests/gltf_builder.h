// glTF files written by hand for the import tests, as a file would be: one
// buffer of accessors (GltfBuilder) and the JSON around them.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.h"
#include "io/model_loader.h"
#include "test_helpers.h"

namespace farmrt {
namespace testing_gltf {

inline std::string base64(const std::string& bytes) {
    static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
        for (int k = 3; k >= 0; --k) out += kAlphabet[(v >> (6 * k)) & 63];
    }
    if (i + 1 == bytes.size()) {
        const uint32_t v = uint8_t(bytes[i]) << 16;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += "==";
    } else if (i + 2 == bytes.size()) {
        const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += '=';
    }
    return out;
}

template <class T>
void append(std::string& bytes, const std::vector<T>& values) {
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    while (bytes.size() % 4) bytes += '\0';
}

// One buffer of accessors, written by hand as a file would be.
struct GltfBuilder {
    std::string buffer;
    std::vector<std::string> views, accessors;

    int add(const std::string& bytes, int component_type, size_t count, const char* type, bool normalized = false) {
        const size_t offset = buffer.size();
        buffer += bytes;
        while (buffer.size() % 4) buffer += '\0';
        views.push_back("{\"buffer\": 0, \"byteOffset\": " + std::to_string(offset) +
                        ", \"byteLength\": " + std::to_string(bytes.size()) + "}");
        accessors.push_back("{\"bufferView\": " + std::to_string(views.size() - 1) + ", \"componentType\": " +
                            std::to_string(component_type) + ", \"count\": " + std::to_string(count) +
                            ", \"type\": \"" + type + "\"" + (normalized ? ", \"normalized\": true" : "") + "}");
        return int(accessors.size() - 1);
    }
    template <class T>
    int add_values(const std::vector<T>& values, int component_type, size_t count, const char* type,
                   bool normalized = false) {
        std::string bytes;
        append(bytes, values);
        return add(bytes, component_type, count, type, normalized);
    }

    // The file around `body` (meshes, nodes, ...: JSON members without braces).
    std::string json(const std::string& body) const {
        std::string text = "{\"asset\": {\"version\": \"2.0\"}, " + body +
                           ", \"buffers\": [{\"byteLength\": " + std::to_string(buffer.size()) +
                           ", \"uri\": \"data:application/octet-stream;base64," + base64(buffer) +
                           "\"}], \"bufferViews\": [";
        for (size_t i = 0; i < views.size(); ++i) text += (i ? ", " : "") + views[i];
        text += "], \"accessors\": [";
        for (size_t i = 0; i < accessors.size(); ++i) text += (i ? ", " : "") + accessors[i];
        return text + "]}";
    }
};

constexpr int kFloat = 5126, kUnsignedByte = 5121, kUnsignedShort = 5123, kUnsignedInt = 5125;

const std::vector<float> kSquare = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};  // four corners in z = 0

inline ModelData load_text(const testing::TemporaryDirectory& directory, const std::string& name,
                           const std::string& text) {
    testing::write_text(directory.file(name), text);
    return load_model(directory.file(name), name);
}

inline std::string model_error(const testing::TemporaryDirectory& directory, const std::string& name,
                               const std::string& text) {
    try {
        load_text(directory, name, text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

// Vectors read from a model against the values the test wrote.
inline void expect_near(const Vec3& a, const Vec3& b, float tolerance = 1e-5f) {
    EXPECT_NEAR(a.x, b.x, tolerance);
    EXPECT_NEAR(a.y, b.y, tolerance);
    EXPECT_NEAR(a.z, b.z, tolerance);
}

}  // namespace testing_gltf
}  // namespace farmrt
