#include "core/render_settings.h"

#include <algorithm>
#include <string>

#include "core/aov.h"
#include "core/pixel_record.h"

namespace farmrt {

uint32_t pixel_record_floats(const RenderSettings& settings) {
    const bool variance = std::find(settings.aovs.begin(), settings.aovs.end(), Aov::Variance) != settings.aovs.end();
    return record_floats_of(settings.noise_threshold > 0.0f || variance, settings.alpha);
}

std::string region_bounds(const RenderSettings& s) {
    return "[" + std::to_string(s.region_x) + ", " + std::to_string(s.region_x + s.width) + ", " +
           std::to_string(s.region_y) + ", " + std::to_string(s.region_y + s.height) + "]";
}

const char* encoding_name(Encoding encoding) {
    switch (encoding) {
    case Encoding::Srgb: return "srgb";
    case Encoding::Gamma2: return "gamma2";
    case Encoding::Linear: return "linear";
    }
    return "?";
}

const char* integrator_name(Integrator integrator) { return integrator == Integrator::Naive ? "naive" : "nee"; }

const char* data_type_name(PixelDataType type) {
    switch (type) {
    case PixelDataType::UInt8: return "uint8";
    case PixelDataType::UInt16: return "uint16";
    case PixelDataType::Half: return "half";
    case PixelDataType::Float: return "float";
    }
    return "?";
}

const char* sampler_name(SamplerType type) { return type == SamplerType::Sobol ? "sobol" : "independent"; }

}  // namespace farmrt
