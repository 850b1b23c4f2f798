#include "wide_accelerator.h"

#include "errors.h"

namespace farmrt {
namespace simd {

const Kernels* kernels_for(SimdLevel level, int width) {
    const Kernels* table = nullptr;
#if FARMRT_HAVE_SIMD
    switch (level) {
    case SimdLevel::Off: return nullptr;
    case SimdLevel::Sse42: table = &kSse42Kernels; break;
    case SimdLevel::Avx2: table = &kAvx2Kernels; break;
    case SimdLevel::Avx512: table = width == 8 ? &kAvx512NarrowKernels : &kAvx512Kernels; break;
    }
#else
    (void)level;
#endif
    return table && (width == 0 || table->width == width) ? table : nullptr;
}

WideAccelerator::WideAccelerator(const SceneView& scene, SimdLevel level, const WideBvhOptions& options, int width)
    : kernels_(kernels_for(level, width)) {
    if (!kernels_for(level) || !simd_level_supported(level)) {
        throw RenderError(std::string("SIMD level ") + simd_level_name(level) + " is not available on this CPU");
    }
    if (!kernels_) {
        throw InputError(std::string("SIMD level ") + simd_level_name(level) + " has no kernels of node width " +
                         std::to_string(width));
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
