// Chooses the backend tracer for a rank or a single process.
#include "cmd/backends.h"

#include <algorithm>

#include "core/errors.h"
#include "core/scene.h"
#include "simd/cpu_renderer.h"
#include "simd/simd_level.h"

#if FARMRT_HAVE_CUDA
#include "cuda/cuda_device.h"
#include "cuda/cuda_renderer.h"
#endif

namespace farmrt {

std::unique_ptr<BandRenderer> make_band_renderer(const Scene& scene, const RendererOptions& options) {
    if (options.backend != "cpu" && options.backend != "cuda" && options.backend != "auto") {
        throw InputError("--backend: unknown backend '" + options.backend + "' (expected cpu, cuda or auto)");
    }
    if (options.gpu_math != "exact" && options.gpu_math != "fast") {
        throw InputError("--gpu-math: expected exact or fast, got '" + options.gpu_math + "'");
    }
#if FARMRT_HAVE_CUDA
    const int device = choose_cuda_device(options.backend);
    if (device >= 0) {
        CudaOptions cuda;
        cuda.device = device;
        cuda.fast_math = options.gpu_math == "fast";
        apply_gpu_tuning(options.tuning.gpu, cuda);
        return std::make_unique<CudaRenderer>(scene.view(), cuda);
    }
#else
    if (options.backend == "cuda") {
        throw InputError("--backend cuda: this farmrt was built without CUDA (rebuild where nvcc is installed)");
    }
#endif
    return std::make_unique<CpuRenderer>(scene.view(), options.threads, options.tile_size,
                                         resolve_simd_level(options.simd), options.tuning.cpu);
}

int gpu_ranks_on_node(const std::string& backend, int ranks_on_node) {
#if FARMRT_HAVE_CUDA
    if (backend != "auto" && backend != "cuda") return 0;
    const int count = visible_gpu_count();
    if (count == 0) return 0;
    return backend == "cuda" ? ranks_on_node : std::min(count, ranks_on_node);
#else
    (void)backend;
    (void)ranks_on_node;
    return 0;
#endif
}

Backends available_backends() { return Backends{make_band_renderer, gpu_ranks_on_node}; }

}  // namespace farmrt
