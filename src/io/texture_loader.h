// Image textures: read through src/io/image_output.cpp read_image (OpenImageIO,
// or the built-in .ppm/.pfm reader without it), decoded to linear RGB and
// appended to the scene's flat texel array, which every backend reads.
#pragma once

#include <string>
#include <vector>

#include "core/materials.h"

namespace farmrt {

// The sRGB transfer curve, inverted: display-encoded [0, 1] to linear.
float srgb_to_linear(float encoded);

// Reads `path` (named `display_path` in errors), appends its texels to
// `texture_pixels` as linear RGB and returns the image texture. Integer images
// (.png, .jpg, .ppm, ...) are sRGB-decoded; float images (.exr, .hdr, .pfm)
// are already linear. Throws InputError when the file cannot be read.
Texture load_image_texture(const std::string& path, const std::string& display_path,
                           std::vector<float>& texture_pixels);

}  // namespace farmrt
