#include "io/gltf_materials.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "io/texture_loader.h"

namespace farmrt {
namespace {

float decoded_texel(float encoded, TexelCoding coding) {
    switch (coding) {
    case TexelCoding::Srgb: return srgb_to_linear(encoded);
    case TexelCoding::Normal: return 2.0f * encoded - 1.0f;
    case TexelCoding::Linear:
    case TexelCoding::Alpha: break;
    }
    return encoded;
}

}  // namespace

double gltf_number(const tinygltf::Value& object, const char* key, double fallback) {
    if (!object.IsObject() || !object.Has(key) || !object.Get(key).IsNumber()) return fallback;
    return object.Get(key).GetNumberAsDouble();
}

void GltfMaterialReader::fail(const std::string& pointer, const std::string& problem) const {
    throw InputError(file_ + (pointer.empty() ? "" : ": " + pointer) + ": " + problem);
}

UvTransform GltfMaterialReader::texture_info(const tinygltf::ExtensionMap& extensions, int tex_coord,
                                             const std::string& pointer) {
    UvTransform result;
    const auto found = extensions.find("KHR_texture_transform");
    if (found != extensions.end()) {
        const tinygltf::Value& t = found->second;
        const std::string at = pointer + "/extensions/KHR_texture_transform";
        auto pair = [&](const char* key, double fallback, double values[2]) {
            values[0] = values[1] = fallback;
            if (!t.IsObject() || !t.Has(key)) return;
            const tinygltf::Value& v = t.Get(key);
            if (!v.IsArray() || v.ArrayLen() != 2 || !v.Get(0).IsNumber() || !v.Get(1).IsNumber())
                fail(at + "/" + key, "expected two numbers");
            values[0] = v.Get(0).GetNumberAsDouble();
            values[1] = v.Get(1).GetNumberAsDouble();
        };
        double offset[2], scale[2];
        pair("offset", 0.0, offset);
        pair("scale", 1.0, scale);
        double rotation = 0;
        if (t.IsObject() && t.Has("rotation")) {
            if (!t.Get("rotation").IsNumber()) fail(at + "/rotation", "expected a number");
            rotation = t.Get("rotation").GetNumberAsDouble();
        }
        for (double v : {offset[0], offset[1], scale[0], scale[1], rotation}) {
            if (!std::isfinite(v) || std::fabs(v) > 1e9) fail(at, "a value is not finite or exceeds 1e9");
        }
        if (t.IsObject() && t.Has("texCoord") && t.Get("texCoord").IsNumber()) {
            tex_coord = int(t.Get("texCoord").GetNumberAsDouble());
        }
        const double a = std::cos(rotation) * scale[0], b = std::sin(rotation) * scale[1];
        const double c = -std::sin(rotation) * scale[0], d = std::cos(rotation) * scale[1];
        const double m[6] = {a, -b, -c, d, b + offset[0], 1 - d - offset[1]};
        result.set = true;
        for (int i = 0; i < 6; ++i) result.m[i] = float(m[i]);
    }
    if (tex_coord != 0) warn(pointer + " reads TEXCOORD_" + std::to_string(tex_coord) + "; farmrt reads TEXCOORD_0");
    return result;
}

// A texture of `factor` times the image (channels r, g, b) decoded by
// `coding`; a constant of `factor` where there is no image.
uint32_t GltfMaterialReader::texture(int texture_index, TexelCoding coding, const Color& factor,
                                     const std::string& pointer, const UvTransform& transform) {
    if (texture_index < 0) return model_.add_constant(factor);
    if (size_t(texture_index) >= gltf_.textures.size()) fail(pointer, "refers to a missing texture");
    const tinygltf::Texture& t = gltf_.textures[size_t(texture_index)];
    const std::string texture_pointer = "/textures/" + std::to_string(texture_index);
    if (t.source < 0 || size_t(t.source) >= gltf_.images.size()) fail(texture_pointer, "has no image farmrt can read");
    const auto key = std::make_tuple(t.source, coding, factor.x, factor.y, factor.z, transform);
    const auto cached = texture_cache_.find(key);
    if (cached != texture_cache_.end()) return cached->second;
    const tinygltf::Image& image = gltf_.images[size_t(t.source)];
    const std::string image_pointer = "/images/" + std::to_string(t.source);
    const size_t bytes_per_channel = image.bits == 16 ? 2 : 1;
    if (image.width <= 0 || image.height <= 0 || image.component < 1 || image.component > 4 ||
        (image.bits != 8 && image.bits != 16) ||
        image.image.size() !=
            size_t(image.width) * size_t(image.height) * size_t(image.component) * bytes_per_channel) {
        fail(image_pointer, "was not decoded into pixels (missing, truncated or of an unsupported kind)");
    }
    Texture result;
    result.type = TextureType::Image;
    result.image_width = uint32_t(image.width);
    result.image_height = uint32_t(image.height);
    result.image_offset = uint32_t(model_.texture_pixels.size() / 3);
    bool repeat = true;
    if (t.sampler >= 0 && size_t(t.sampler) < gltf_.samplers.size()) {
        const tinygltf::Sampler& s = gltf_.samplers[size_t(t.sampler)];
        repeat = s.wrapS != TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE || s.wrapT != TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE;
        if (s.wrapS == TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT || s.wrapT == TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT) {
            warn("repeats mirrored textures without mirroring");
        }
    }
    result.repeat = repeat ? 1u : 0u;
    result.transformed = transform.set ? 1u : 0u;
    for (int i = 0; i < 6; ++i) result.uv_transform[i] = transform.m[i];
    const size_t texels = size_t(image.width) * size_t(image.height);
    model_.texture_pixels.reserve(model_.texture_pixels.size() + 3 * texels);
    const float scale = image.bits == 16 ? 1.0f / 65535.0f : 1.0f / 255.0f;
    for (size_t i = 0; i < texels; ++i) {
        for (int c = 0; c < 3; ++c) {
            // Grey images: the one channel. Alpha: the last of grey + alpha or RGBA; opaque without one.
            int channel = image.component >= 3 ? c : 0;
            if (coding == TexelCoding::Alpha)
                channel = image.component == 2 || image.component == 4 ? image.component - 1 : -1;
            const size_t at = (i * size_t(image.component) + size_t(std::max(channel, 0))) * bytes_per_channel;
            const float encoded = channel < 0              ? 1.0f
                                  : bytes_per_channel == 2 ? float(image.image[at] | (image.image[at + 1] << 8)) * scale
                                                           : float(image.image[at]) * scale;
            model_.texture_pixels.push_back(factor[c] * decoded_texel(encoded, coding));
        }
    }
    const uint32_t index = model_.add_texture(result);
    texture_cache_[key] = index;
    return index;
}

Material GltfMaterialReader::read(int index) {
    const tinygltf::Material& m = gltf_.materials[size_t(index)];
    const std::string pointer = "/materials/" + std::to_string(index);
    const tinygltf::PbrMetallicRoughness& pbr = m.pbrMetallicRoughness;
    Color base(1.0f);
    for (int c = 0; c < 3 && size_t(c) < pbr.baseColorFactor.size(); ++c)
        base[c] = float(pbr.baseColorFactor[size_t(c)]);
    const float metallic = float(pbr.metallicFactor), roughness = float(pbr.roughnessFactor);
    for (float v : {base.x, base.y, base.z, metallic, roughness}) {
        if (!(v >= 0.0f && v <= 1.0f)) fail(pointer + "/pbrMetallicRoughness", "a factor lies outside [0, 1]");
    }
    Material result;
    result.type = MaterialType::Principled;
    const std::string base_pointer = pointer + "/pbrMetallicRoughness/baseColorTexture";
    result.albedo_texture =
        texture(pbr.baseColorTexture.index, TexelCoding::Srgb, base, base_pointer,
                texture_info(pbr.baseColorTexture.extensions, pbr.baseColorTexture.texCoord, base_pointer));
    const std::string roughness_pointer = pointer + "/pbrMetallicRoughness/metallicRoughnessTexture";
    result.metallic_roughness_texture = texture(pbr.metallicRoughnessTexture.index, TexelCoding::Linear,
                                                Color(0.0f, roughness, metallic), roughness_pointer,
                                                texture_info(pbr.metallicRoughnessTexture.extensions,
                                                             pbr.metallicRoughnessTexture.texCoord, roughness_pointer));
    Color emissive(0.0f);
    for (int c = 0; c < 3 && size_t(c) < m.emissiveFactor.size(); ++c) emissive[c] = float(m.emissiveFactor[size_t(c)]);
    const auto extension = [&](const char* name) -> const tinygltf::Value* {
        const auto found = m.extensions.find(name);
        return found == m.extensions.end() ? nullptr : &found->second;
    };
    if (const tinygltf::Value* strength = extension("KHR_materials_emissive_strength")) {
        emissive = emissive * float(gltf_number(*strength, "emissiveStrength", 1.0));
    }
    for (float v : {emissive.x, emissive.y, emissive.z}) {
        if (!(v >= 0.0f && std::isfinite(v))) fail(pointer + "/emissiveFactor", "must be finite and not negative");
    }
    result.emission_texture = kNoTexture;
    if (emissive.x > 0.0f || emissive.y > 0.0f || emissive.z > 0.0f) {
        result.emission_texture = texture(
            m.emissiveTexture.index, TexelCoding::Srgb, emissive, pointer + "/emissiveTexture",
            texture_info(m.emissiveTexture.extensions, m.emissiveTexture.texCoord, pointer + "/emissiveTexture"));
    }
    if (const tinygltf::Value* transmission = extension("KHR_materials_transmission")) {
        result.transmission = float(gltf_number(*transmission, "transmissionFactor", 0.0));
        if (!(result.transmission >= 0.0f && result.transmission <= 1.0f)) {
            fail(pointer + "/extensions/KHR_materials_transmission/transmissionFactor", "lies outside [0, 1]");
        }
        if (transmission->IsObject() && transmission->Has("transmissionTexture"))
            warn("ignores transmissionTexture (uses transmissionFactor)");
    }
    result.ior = 1.5f;
    if (const tinygltf::Value* ior = extension("KHR_materials_ior")) {
        result.ior = float(gltf_number(*ior, "ior", 1.5));
        if (!(result.ior >= 1.0f && result.ior <= 10.0f))
            fail(pointer + "/extensions/KHR_materials_ior/ior", "must lie in [1, 10]");
    }
    if (m.normalTexture.index >= 0) {
        // x and y scaled as the spec says: (2 texel - 1) * (scale, scale, 1).
        const float scale = float(m.normalTexture.scale);
        if (!(std::isfinite(scale) && std::fabs(scale) <= 1e3f))
            fail(pointer + "/normalTexture/scale", "must be finite and at most 1000 in magnitude");
        const std::string normal_pointer = pointer + "/normalTexture";
        result.normal_texture =
            texture(m.normalTexture.index, TexelCoding::Normal, Color(scale, scale, 1.0f), normal_pointer,
                    texture_info(m.normalTexture.extensions, m.normalTexture.texCoord, normal_pointer));
    }
    if (m.alphaMode == "MASK" || m.alphaMode == "BLEND") {
        // Alpha: baseColorFactor's fourth value times the base colour texture's alpha.
        const float factor = pbr.baseColorFactor.size() > 3 ? float(pbr.baseColorFactor[3]) : 1.0f;
        if (!(factor >= 0.0f && factor <= 1.0f))
            fail(pointer + "/pbrMetallicRoughness/baseColorFactor", "alpha lies outside [0, 1]");
        const float cutoff = float(m.alphaCutoff);
        if (!(cutoff >= 0.0f && std::isfinite(cutoff)))
            fail(pointer + "/alphaCutoff", "must be finite and not negative");
        result.alpha_mode = m.alphaMode == "MASK" ? AlphaMode::Mask : AlphaMode::Blend;
        result.alpha_cutoff = cutoff;
        result.alpha_texture =
            texture(pbr.baseColorTexture.index, TexelCoding::Alpha, Color(factor), base_pointer,
                    texture_info(pbr.baseColorTexture.extensions, pbr.baseColorTexture.texCoord, base_pointer));
    } else if (!m.alphaMode.empty() && m.alphaMode != "OPAQUE") {
        fail(pointer + "/alphaMode", "must be OPAQUE, MASK or BLEND, got '" + m.alphaMode + "'");
    }
    return result;
}

}  // namespace farmrt
