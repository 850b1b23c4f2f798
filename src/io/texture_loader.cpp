#include "io/texture_loader.h"

#include <cmath>
#include <filesystem>

#include "core/errors.h"
#include "io/image_output.h"

namespace farmrt {

float srgb_to_linear(float encoded) {
    if (encoded <= 0.04045f) return encoded / 12.92f;
    return std::pow((encoded + 0.055f) / 1.055f, 2.4f);
}

Texture load_image_texture(const std::string& path, const std::string& display_path,
                           std::vector<float>& texture_pixels) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
        throw InputError(display_path + ": cannot read image texture: " +
                         (std::filesystem::exists(path, error) ? "not a regular file" : "no such file"));
    }
    LoadedImage image;
    try {
        image = read_image(path);
    } catch (const InputError& e) {
        // read_image names the path it was given; show the scene's spelling.
        std::string message = e.what();
        if (message.rfind(path, 0) == 0) message = display_path + message.substr(path.size());
        throw InputError(message);
    }
    if (image.width == 0 || image.height == 0) throw InputError(display_path + ": image texture is empty");
    const size_t texel_count = size_t(image.width) * image.height;
    const size_t offset = texture_pixels.size() / 3;
    if (offset + texel_count > 0xFFFFFFFFull) throw InputError(display_path + ": too many texture texels in the scene");
    Texture texture;
    texture.type = TextureType::Image;
    texture.image_offset = uint32_t(offset);
    texture.image_width = image.width;
    texture.image_height = image.height;
    texture_pixels.reserve(texture_pixels.size() + 3 * texel_count);
    for (size_t i = 0; i < 3 * texel_count; ++i) {
        float value = image.pixels[i];
        if (!std::isfinite(value) || value < 0) value = 0;
        texture_pixels.push_back(image.floating_point ? value : srgb_to_linear(value));
    }
    return texture;
}

}  // namespace farmrt
