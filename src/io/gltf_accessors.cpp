#include "io/gltf_accessors.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/errors.h"

namespace farmrt {
namespace {

size_t component_size(int type) {
    switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
    }
    return 0;
}

double component_value(const unsigned char* p, int type, bool normalized) {
    switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
        const int8_t v = int8_t(p[0]);
        return normalized ? std::max(double(v) / 127.0, -1.0) : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? p[0] / 255.0 : double(p[0]);
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
        int16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? std::max(double(v) / 32767.0, -1.0) : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return double(v);
    }
    default: {
        float v;
        std::memcpy(&v, p, 4);
        return double(v);
    }
    }
}

// The bytes of `count` elements of `element_size` at `byte_offset` in
// buffer view `view_index`, with their stride; every byte checked to lie
// inside the view and the view inside its buffer.

}  // namespace

void GltfAccessorReader::fail(const std::string& pointer, const std::string& problem) const {
    throw InputError(file_ + (pointer.empty() ? "" : ": " + pointer) + ": " + problem);
}

const unsigned char* GltfAccessorReader::view_bytes(int view_index, size_t byte_offset, size_t count,
                                                    size_t element_size, size_t& stride,
                                                    const std::string& pointer) const {
    if (view_index < 0 || size_t(view_index) >= gltf_.bufferViews.size())
        fail(pointer, "refers to a missing buffer view");
    const tinygltf::BufferView& view = gltf_.bufferViews[size_t(view_index)];
    const std::string view_pointer = "/bufferViews/" + std::to_string(view_index);
    if (view.buffer < 0 || size_t(view.buffer) >= gltf_.buffers.size())
        fail(view_pointer, "refers to a missing buffer");
    const tinygltf::Buffer& buffer = gltf_.buffers[size_t(view.buffer)];
    if (view.byteOffset > buffer.data.size() || view.byteLength > buffer.data.size() - view.byteOffset) {
        fail(view_pointer, "bytes " + std::to_string(view.byteOffset) + " to " +
                               std::to_string(uint64_t(view.byteOffset) + view.byteLength) + " lie outside buffer " +
                               std::to_string(view.buffer) + " (" + std::to_string(buffer.data.size()) + " bytes)");
    }
    stride = view.byteStride != 0 ? view.byteStride : element_size;
    if (stride < element_size)
        fail(view_pointer, "byteStride " + std::to_string(stride) + " is smaller than an element");
    if (count == 0) return buffer.data.data() + view.byteOffset;
    // In 128 bits' worth of care: count and stride are each below 2^32 here.
    const unsigned long long end =
        (unsigned long long)byte_offset + (unsigned long long)stride * (count - 1) + element_size;
    if (byte_offset > view.byteLength || end > view.byteLength) {
        fail(pointer, std::to_string(count) + " elements need " + std::to_string(end) + " bytes of buffer view " +
                          std::to_string(view_index) + ", which has " + std::to_string(view.byteLength));
    }
    return buffer.data.data() + view.byteOffset + byte_offset;
}

// Accessor `index` as `components` doubles per element, sparse
// substitutions applied.
std::vector<double> GltfAccessorReader::read_accessor(int index, int components, const char* expected_type) const {
    const std::string pointer = "/accessors/" + std::to_string(index);
    if (index < 0 || size_t(index) >= gltf_.accessors.size()) fail(pointer, "does not exist");
    const tinygltf::Accessor& a = gltf_.accessors[size_t(index)];
    const int type_components = tinygltf::GetNumComponentsInType(uint32_t(a.type));
    if (type_components != components) fail(pointer, std::string("is not of type ") + expected_type);
    const size_t size = component_size(a.componentType);
    if (size == 0) fail(pointer, "has an unknown componentType " + std::to_string(a.componentType));
    if (a.count > (size_t(1) << 28)) fail(pointer, "count " + std::to_string(a.count) + " is beyond farmrt's limit");
    // Elements held by no bytes (no buffer view: zeros, perhaps with sparse
    // substitutions) are bounded, so that a count in a few bytes of JSON
    // cannot make farmrt allocate gigabytes.
    if (a.bufferView < 0) {
        const size_t substituted = a.sparse.isSparse ? size_t(std::max(0, a.sparse.count)) : 0;
        const size_t limit = std::max<size_t>(kMaxUnbackedElements, 16 * substituted);
        if (a.count > limit) {
            fail(pointer, "count " + std::to_string(a.count) + " has no buffer view to hold it (at most " +
                              std::to_string(limit) + " elements without one)");
        }
    }
    std::vector<double> values(a.count * size_t(components), 0.0);
    if (a.bufferView >= 0) {
        size_t stride = 0;
        const unsigned char* bytes =
            view_bytes(a.bufferView, a.byteOffset, a.count, size * size_t(components), stride, pointer);
        for (size_t e = 0; e < a.count; ++e) {
            for (int c = 0; c < components; ++c) {
                values[e * size_t(components) + size_t(c)] =
                    component_value(bytes + e * stride + size_t(c) * size, a.componentType, a.normalized);
            }
        }
    }
    if (a.sparse.isSparse) apply_sparse(a, components, size, pointer, values);
    return values;
}

void GltfAccessorReader::apply_sparse(const tinygltf::Accessor& a, int components, size_t size,
                                      const std::string& pointer, std::vector<double>& values) const {
    const std::string sparse_pointer = pointer + "/sparse";
    if (a.sparse.count < 0 || size_t(a.sparse.count) > a.count) fail(sparse_pointer, "count is out of range");
    const size_t count = size_t(a.sparse.count);
    const size_t index_size = component_size(a.sparse.indices.componentType);
    const int index_type = a.sparse.indices.componentType;
    if (index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT) {
        fail(sparse_pointer + "/indices", "has an invalid componentType");
    }
    size_t index_stride = 0, value_stride = 0;
    const unsigned char* indices =
        view_bytes(a.sparse.indices.bufferView, size_t(std::max(0, a.sparse.indices.byteOffset)), count, index_size,
                   index_stride, sparse_pointer + "/indices");
    const unsigned char* substitutes =
        view_bytes(a.sparse.values.bufferView, size_t(std::max(0, a.sparse.values.byteOffset)), count,
                   size * size_t(components), value_stride, sparse_pointer + "/values");
    for (size_t s = 0; s < count; ++s) {
        const double target = component_value(indices + s * index_size, a.sparse.indices.componentType, false);
        if (!(target >= 0 && target < double(a.count))) fail(sparse_pointer, "an index is out of range");
        for (int c = 0; c < components; ++c) {
            values[size_t(target) * size_t(components) + size_t(c)] = component_value(
                substitutes + s * size * size_t(components) + size_t(c) * size, a.componentType, a.normalized);
        }
    }
}

std::vector<double> GltfAccessorReader::read_finite(int index, int components, const char* expected_type) const {
    std::vector<double> values = read_accessor(index, components, expected_type);
    for (size_t i = 0; i < values.size(); ++i) {
        if (!std::isfinite(values[i]) || std::fabs(values[i]) > 1e30) {
            fail("/accessors/" + std::to_string(index),
                 "element " + std::to_string(i / size_t(components)) +
                     (std::isfinite(values[i]) ? " exceeds 1e30 in magnitude" : " is not a finite number"));
        }
    }
    return values;
}

}  // namespace farmrt
