#include "core/render_settings.h"

namespace farmrt {

const char* encoding_name(Encoding encoding) {
    switch (encoding) {
    case Encoding::Srgb: return "srgb";
    case Encoding::Gamma2: return "gamma2";
    case Encoding::Linear: return "linear";
    }
    return "?";
}

const char* integrator_name(Integrator integrator) {
    return integrator == Integrator::Naive ? "naive" : "nee";
}

const char* data_type_name(PixelDataType type) {
    switch (type) {
    case PixelDataType::UInt8: return "uint8";
    case PixelDataType::UInt16: return "uint16";
    case PixelDataType::Half: return "half";
    case PixelDataType::Float: return "float";
    }
    return "?";
}

}  // namespace farmrt
