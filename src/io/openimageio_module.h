// The interface of farmrt's OpenImageIO module (libfarmrt_openimageio.so),
// which io/openimageio_loader.h loads on first use. OpenImageIO links about
// 260 shared libraries, whose loading takes 0.5-0.6 s: linked into farmrt,
// every run paid it, even `farmrt --version` and a render to .pfm. Loaded on
// demand (and in the background while a scene renders to a format that
// needs it), only the runs that use it wait, and mostly not at all.
//
// Plain data across the boundary; errors come back as text, not exceptions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace farmrt {

struct OiioImageToWrite {
    std::string path;    // the file to write (a temporary)
    std::string target;  // the name in errors and for the format (its extension)
    uint32_t width = 0, height = 0;
    int data_type = 0;           // 0 uint8, 1 uint16, 2 half, 3 float
    const void* data = nullptr;  // width x height x channels values: uint8, uint16 (encoded), or float (half too)
    int channels = 3;
    std::vector<std::string> channel_names;   // "" = OpenImageIO's (R, G, B)
    std::vector<std::string> float_channels;  // kept float in a half image (depth, sample counts, variance)
    std::string colorspace;                   // "linear", "sRGB" or "" (float data)
    // With an A channel: the colour is straight (not premultiplied), and
    // OpenImageIO is to write it as it is.
    bool unassociated_alpha = false;
    std::vector<std::pair<std::string, std::string>> text_attributes;
    std::vector<std::pair<std::string, int>> int_attributes;
    std::vector<std::pair<std::string, float>> float_attributes;
    // The data window's place in the display window (film_width 0: the
    // image is the whole display window).
    uint32_t region_x = 0, region_y = 0, film_width = 0, film_height = 0;
};

struct OiioImageRead {
    // Asked by the caller: the first channels to read (farmrt's textures and
    // resumed images need R, G, B: an alpha or AOV channel would only add to
    // what is held).
    int max_channels = 64;
    // Read:
    uint32_t width = 0, height = 0;
    int channels = 0;
    bool floating_point = false;
    std::vector<float> values;  // width x height x channels
    std::string description;    // the ImageDescription attribute, "" where none
};

struct OiioFunctions {
    // True when OpenImageIO has a writer for the path's format.
    bool (*can_write)(const std::string& path);
    // "" or the problem (already prefixed with the target's name where useful).
    std::string (*write)(const OiioImageToWrite& image);
    // "" or the problem; refuses images of more than max_pixels before allocating.
    std::string (*read)(const std::string& path, uint64_t max_pixels, OiioImageRead& image);
};

}  // namespace farmrt

// The module's one exported symbol.
extern "C" const farmrt::OiioFunctions* farmrt_openimageio_functions();
