#include "simd/wide_accelerator.h"

#include "core/errors.h"

namespace farmrt {
namespace simd {

const Kernels* kernels_for(SimdLevel level) {
#if FARMRT_HAVE_SIMD
    switch (level) {
    case SimdLevel::Off: return nullptr;
    case SimdLevel::Sse42: return &kSse42Kernels;
    case SimdLevel::Avx2: return &kAvx2Kernels;
    case SimdLevel::Avx512: return &kAvx512Kernels;
    }
#else
    (void)level;
#endif
    return nullptr;
}

WideAccelerator::WideAccelerator(const SceneView& scene, SimdLevel level, const WideBvhOptions& options)
    : kernels_(kernels_for(level)) {
    if (!kernels_ || !simd_level_supported(level)) {
        throw RenderError(std::string("SIMD level ") + simd_level_name(level) + " is not available on this CPU");
    }
    switch (kernels_->width) {
    case 4:
        bvh4_ = std::make_unique<WideBvh<4>>(scene, options);
        view4_ = bvh4_->view();
        view_ = &view4_;
        break;
    case 8:
        bvh8_ = std::make_unique<WideBvh<8>>(scene, options);
        view8_ = bvh8_->view();
        view_ = &view8_;
        break;
    case 16:
        bvh16_ = std::make_unique<WideBvh<16>>(scene, options);
        view16_ = bvh16_->view();
        view_ = &view16_;
        break;
    default: throw RenderError("SIMD kernel of unsupported width " + std::to_string(kernels_->width));
    }
}

WideAccelerator::~WideAccelerator() = default;

WideBvhStats WideAccelerator::stats() const {
    if (bvh4_) return bvh4_->stats();
    if (bvh8_) return bvh8_->stats();
    return bvh16_->stats();
}

}  // namespace simd
}  // namespace farmrt
