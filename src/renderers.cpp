// Chooses the backend tracer for a rank or a single process.
#include "band_renderer.h"
#include "cpu_renderer.h"
#include "errors.h"
#include "simd_level.h"

namespace farmrt {

std::unique_ptr<BandRenderer> make_band_renderer(const Scene& scene, const RendererOptions& options) {
    if (options.backend == "cpu" || options.backend == "auto") {
        return std::make_unique<CpuRenderer>(scene.view(), options.threads, options.tile_size,
                                             resolve_simd_level(options.simd));
    }
    throw InputError("--backend: unknown backend '" + options.backend + "' (expected cpu)");
}

}  // namespace farmrt
