// glTF accessors read into doubles with every byte checked first: the
// buffer view inside its buffer, the accessor's elements (with their stride)
// inside the view, sparse substitutions inside both; a bad one is an
// InputError naming the file and the JSON pointer, never a read out of bounds.
#pragma once

#include <tiny_gltf.h>

#include <string>
#include <vector>

namespace farmrt {

// The most elements an accessor without a buffer view may have (or 16 per
// sparse substitution, where that is more).
constexpr size_t kMaxUnbackedElements = size_t(1) << 16;

class GltfAccessorReader {
public:
    GltfAccessorReader(const tinygltf::Model& gltf, const std::string& display_path)
        : gltf_(gltf), file_(display_path) {}

    // Accessor `index` as `components` values per element (normalised
    // integers scaled as the spec says), sparse substitutions applied.
    // Throws unless its type has `components` components (`expected_type`).
    std::vector<double> read_accessor(int index, int components, const char* expected_type) const;
    // The same, every value finite and below 1e30 in magnitude.
    std::vector<double> read_finite(int index, int components, const char* expected_type) const;

private:
    [[noreturn]] void fail(const std::string& pointer, const std::string& problem) const;
    const unsigned char* view_bytes(int view_index, size_t byte_offset, size_t count, size_t element_size,
                                    size_t& stride, const std::string& pointer) const;
    void apply_sparse(const tinygltf::Accessor& a, int components, size_t size, const std::string& pointer,
                      std::vector<double>& values) const;

    const tinygltf::Model& gltf_;
    const std::string& file_;
};

}  // namespace farmrt
