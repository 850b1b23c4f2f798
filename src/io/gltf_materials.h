// glTF 2.0 materials and the textures they reference, as principled
// materials (io/gltf_loader.cpp reads the rest of a file): base colour,
// metallic-roughness, emission, transmission, index, normal maps, cut-outs,
// each texture with its sampler's wrapping and KHR_texture_transform.
#pragma once

#include <tiny_gltf.h>

#include <array>
#include <functional>
#include <map>
#include <string>
#include <tuple>

#include "io/model.h"

namespace farmrt {

// A number of a glTF extension's JSON object, or `fallback` where it has none.
double gltf_number(const tinygltf::Value& object, const char* key, double fallback);

// A texture reference's KHR_texture_transform, as Texture::uv_transform
// maps farmrt's (u, v) (v up: 1 - glTF's v). glTF's transform is
// T(offset) R(rotation) S(scale) on its own (u, v): u' = a u + b v + ox,
// v' = c u + d v + oy with a = cos sx, b = sin sy, c = -sin sx, d = cos sy;
// in farmrt's v it becomes u' = a u - b v + (b + ox), v' = -c u + d v + (1 - d - oy).
struct UvTransform {
    bool set = false;
    std::array<float, 6> m = {1, 0, 0, 1, 0, 0};
    bool operator<(const UvTransform& o) const { return std::tie(set, m) < std::tie(o.set, o.m); }
};

// How an image's texels become a texture's values: as they are (linear
// data), decoded from sRGB (colours), as a normal map's tangent-space
// normal (2 texel - 1), or the alpha channel (linear) in every channel.
enum class TexelCoding { Linear, Srgb, Normal, Alpha };

class GltfMaterialReader {
public:
    // `warn`: receives one line per optional feature left out.
    GltfMaterialReader(const tinygltf::Model& gltf, const std::string& display_path, ModelData& model,
                       std::function<void(const std::string&)> warn)
        : gltf_(gltf), file_(display_path), model_(model), warn_(std::move(warn)) {}

    // materials[index], its textures added to the model. Throws InputError
    // with one line naming the file and the JSON pointer.
    Material read(int index);

private:
    [[noreturn]] void fail(const std::string& pointer, const std::string& problem) const;
    void warn(const std::string& text) { warn_(text); }
    UvTransform texture_info(const tinygltf::ExtensionMap& extensions, int tex_coord, const std::string& pointer);
    uint32_t texture(int texture_index, TexelCoding coding, const Color& factor, const std::string& pointer,
                     const UvTransform& transform = UvTransform());

    const tinygltf::Model& gltf_;
    const std::string& file_;
    ModelData& model_;
    std::function<void(const std::string&)> warn_;
    std::map<std::tuple<int, TexelCoding, float, float, float, UvTransform>, uint32_t> texture_cache_;
};

}  // namespace farmrt
