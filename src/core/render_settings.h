// Everything about a render that is not geometry: image, sampling, camera.
#pragma once

#include <string>
#include <vector>

#include "core/camera.h"
#include "core/pixel_filter.h"
#include "core/sampler.h"

namespace farmrt {

// How linear radiance becomes 8- or 16-bit values.
enum class Encoding { Srgb, Gamma2, Linear };
// The estimator of the paths (integrator.h).
//   NextEvent: at every diffuse vertex one light sample (a shadow ray) and
//     the BSDF sample, weighted by the power heuristic (Veach 1997); emitters
//     that delta-like materials (dielectric, fuzzy metal) find count in full;
//     Russian roulette ends unlikely paths. The default.
//   Naive: the book's ray_color: a path gathers light only where it happens
//     to hit an emitter. Kept for comparisons with the books' programs.
enum class Integrator : uint32_t { NextEvent = 0, Naive = 1 };
// An auxiliary image written with the frame (core/aov.h).
enum class Aov : uint32_t;
// How display-referred outputs (8- and 16-bit) map scene light to the
// screen: Standard clips at 1; Filmic rolls highlights off along an S-curve
// (the ACES filmic fit of Narkowicz, 2015) so that bright light keeps detail.
enum class ViewTransform { Standard, Filmic };
// Pixel data type of the output file.
enum class PixelDataType { UInt8, UInt16, Half, Float };

constexpr uint32_t kDefaultMinSpp = 16;

struct RenderSettings {
    // The image rendered and written: the whole frame, or the window that
    // image.region (--crop) cuts from it.
    uint32_t width = 0;
    uint32_t height = 0;
    // The whole frame the camera sees (image.width x image.height), and
    // where the image sits in it: columns [region_x, region_x + width), rows
    // [region_y, region_y + height). A window's pixels are the frame's own,
    // bit for bit (the same rays and random numbers).
    uint32_t film_width = 0;
    uint32_t film_height = 0;
    uint32_t region_x = 0;
    uint32_t region_y = 0;
    std::string output;  // as written in the scene or on the command line
    Encoding encoding = Encoding::Srgb;
    PixelDataType data_type = PixelDataType::UInt8;
    // Display-referred outputs only (float outputs stay linear scene light):
    // light scaled by 2^exposure, then the view transform, then the encoding.
    float exposure = 0.0f;
    ViewTransform view_transform = ViewTransform::Standard;
    // image.alpha: an alpha channel, and a background transparent to camera
    // rays (core/pixel_record.h PixelSample).
    bool alpha = false;
    uint32_t spp = 0;
    int max_depth = 50;
    Integrator integrator = Integrator::NextEvent;
    uint64_t seed = 0;
    SamplerType sampler = SamplerType::Sobol;  // sampling.sampler (core/sampler.h)
    // image.filter and image.filter_width (core/pixel_filter.h); the width in
    // pixels, Cycles' meaning.
    FilterType filter = FilterType::BlackmanHarris;
    float filter_width = 1.5f;
    // sampling.clamp: the largest component a direct or indirect contribution
    // may have (integrator.h add_light); 0 = off.
    float clamp_direct = 0.0f;
    float clamp_indirect = 0.0f;
    // sampling.light_sampler: power (the default) or tree (core/light_tree.h).
    bool light_tree = false;
    // Adaptive sampling (core/pixel_record.h): 0 = off; a pixel stops once
    // the standard error of its mean luminance is at most noise_threshold x
    // the square root of that mean, after at least min_spp samples.
    float noise_threshold = 0.0f;
    uint32_t min_spp = kDefaultMinSpp;
    std::vector<Aov> aovs;  // image.aovs, in the scene's order
    CameraSettings camera;
    std::string scene_file;       // the path given on the command line
    std::string scene_directory;  // base for paths inside the scene
};

// Floats per pixel in the sums of a render with these settings: RGB, with
// statistics (adaptive sampling, the variance AOV), with alpha
// (core/pixel_record.h record_floats_of).
uint32_t pixel_record_floats(const RenderSettings& settings);

// Whether the image is a window of its frame (image.region).
inline bool is_region(const RenderSettings& s) {
    return s.region_x != 0 || s.region_y != 0 || s.width != s.film_width || s.height != s.film_height;
}
// The window as image.region gives it: "[x0, x1, y0, y1]".
std::string region_bounds(const RenderSettings& s);

const char* encoding_name(Encoding encoding);
const char* data_type_name(PixelDataType type);
const char* integrator_name(Integrator integrator);  // as the scene file spells it
const char* sampler_name(SamplerType type);          // as the scene file spells it

}  // namespace farmrt
