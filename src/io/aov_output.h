// How auxiliary images (AOVs, core/aov.h) are stored: as more channels of an
// OpenEXR image (albedo.R, N.X, Z, ... as compositors and Open Image Denoise's
// tools name them), or, for formats without layers, as one PFM file each
// next to the image (frame.png -> frame.albedo.pfm), float like the EXR.
#pragma once

#include <string>
#include <vector>

#include "core/aov.h"

namespace farmrt {

struct AovImage {
    Aov aov = Aov::Albedo;
    std::vector<float> values;  // width x height x aov_channels(aov).size(), top row first
};

// "albedo", "normal", "depth", "samples", "variance": the names in scene files and --aov.
const char* aov_name(Aov aov);
// Parses one name; false when it is none of them.
bool parse_aov(const std::string& name, Aov& aov);
// The known names, for error messages ("albedo, normal, depth, samples or variance").
std::string aov_names();
// The AOV's channels as an EXR names them.
std::vector<std::string> aov_channels(Aov aov);
// Where an AOV goes for an image in a format without layers.
std::string aov_side_path(const std::string& image_path, Aov aov);
// True when the image's format holds AOVs as channels (OpenEXR).
bool stores_aovs_as_channels(const std::string& image_path);

// Writes one PFM file atomically: RGB ("PF") for 3 channels, greyscale
// ("Pf") for 1; throws RenderError naming it.
void write_pfm(const std::string& path, uint32_t width, uint32_t height, const std::vector<float>& values,
               size_t channels);

// Writes each AOV as its own PFM file (RGB, or greyscale "Pf" for one
// channel), each atomically; throws RenderError naming the file.
void write_aov_files(const std::string& image_path, uint32_t width, uint32_t height, const std::vector<AovImage>& aovs);

}  // namespace farmrt
