// Chooses the backend tracer for a rank or a single process.
#include "cmd/backends.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

#include "core/errors.h"
#include "core/scene.h"
#include "render/device_group.h"
#include "simd/cpu_renderer.h"
#include "simd/simd_level.h"

#if FARMRT_HAVE_CUDA
#include "cuda/cuda_device.h"
#include "cuda/cuda_renderer.h"
#endif

namespace farmrt {

namespace {

std::unique_ptr<BandRenderer> make_cpu_renderer(const Scene& scene, const RendererOptions& options, int threads) {
    return std::make_unique<CpuRenderer>(scene.view(), threads, options.tile_size, resolve_simd_level(options.simd),
                                         options.tuning.cpu);
}

#if FARMRT_HAVE_CUDA
// The GPUs this process renders on: alone on its node, or given --gpus,
// every one of --gpus (all it sees by default); one of several ranks of a
// node without --gpus, the GPU of its node-local rank (one rank per GPU).
// Several ranks of a node each with GPUs of their own (a launcher wrapper
// setting CUDA_VISIBLE_DEVICES per rank) say --gpus all.
std::vector<int> choose_gpus(const RendererOptions& options) {
    if (options.backend == "cpu") {
        if (!options.gpus.empty()) throw InputError("--gpus: the CPU backend renders on no GPU (--backend cpu)");
        return {};
    }
    std::string problem;
    const int count = visible_gpu_count(&problem);
    for (int gpu : options.gpus) {
        if (gpu >= count) {
            throw InputError("--gpus: GPU " + std::to_string(gpu) + " does not exist: this process sees " +
                             std::to_string(count) + (count == 1 ? " GPU" : " GPUs") +
                             (count > 0 ? " (0-" + std::to_string(count - 1) + ")" : ": " + problem));
        }
    }
    if (options.ranks_on_node > 1 && !options.gpus_given) {
        const int device = choose_cuda_device(options.backend);
        if (device < 0) return {};
        return {device};
    }
    if (count == 0) {
        if (options.backend == "cuda") throw RenderError("--backend cuda: no usable GPU: " + problem);
        return {};
    }
    if (!options.gpus.empty()) return options.gpus;
    std::vector<int> all(static_cast<size_t>(count));
    for (int gpu = 0; gpu < count; ++gpu) all[size_t(gpu)] = gpu;
    return all;
}

// One renderer per GPU, set up at once (each uploads the scene and builds
// its own kernels' structures on a thread of its own).
std::vector<std::unique_ptr<BandRenderer>> make_gpu_renderers(const Scene& scene, const RendererOptions& options,
                                                              const std::vector<int>& gpus) {
    std::vector<std::unique_ptr<BandRenderer>> renderers(gpus.size());
    std::vector<std::exception_ptr> errors(gpus.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < gpus.size(); ++i) {
        threads.emplace_back([&, i] {
            try {
                CudaOptions cuda;
                cuda.device = gpus[i];
                cuda.fast_math = options.gpu_math == "fast";
                apply_gpu_tuning(options.tuning.gpu, cuda);
                renderers[i] = std::make_unique<CudaRenderer>(scene.view(), cuda);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    for (const std::exception_ptr& error : errors) {
        if (error) std::rethrow_exception(error);
    }
    return renderers;
}
#endif

}  // namespace

std::unique_ptr<BandRenderer> make_band_renderer(const Scene& scene, const RendererOptions& options) {
    if (options.backend != "cpu" && options.backend != "cuda" && options.backend != "auto") {
        throw InputError("--backend: unknown backend '" + options.backend + "' (expected cpu, cuda or auto)");
    }
    if (options.gpu_math != "exact" && options.gpu_math != "fast") {
        throw InputError("--gpu-math: expected exact or fast, got '" + options.gpu_math + "'");
    }
#if FARMRT_HAVE_CUDA
    const std::vector<int> gpus = choose_gpus(options);
    if (!gpus.empty()) {
        std::vector<std::unique_ptr<BandRenderer>> devices = make_gpu_renderers(scene, options, gpus);
        // auto, alone on the node: the cores the GPUs' threads leave render too.
        const int cpu_threads = options.threads - int(gpus.size());
        if (options.backend == "auto" && options.ranks_on_node == 1 && cpu_threads >= 2) {
            devices.push_back(make_cpu_renderer(scene, options, cpu_threads));
        }
        if (devices.size() == 1) return std::move(devices[0]);
        return std::make_unique<DeviceGroup>(std::move(devices));
    }
#else
    if (options.backend == "cuda") {
        throw InputError("--backend cuda: this farmrt was built without CUDA (rebuild where nvcc is installed)");
    }
    if (!options.gpus.empty()) {
        throw InputError("--gpus: this farmrt was built without CUDA (rebuild where nvcc is installed)");
    }
#endif
    return make_cpu_renderer(scene, options, options.threads);
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

void start_gpu_driver(const std::string& backend) {
#if FARMRT_HAVE_CUDA
    if (backend != "cpu") (void)visible_gpu_count();
#else
    (void)backend;
#endif
}

Backends available_backends() { return Backends{make_band_renderer, gpu_ranks_on_node, start_gpu_driver}; }

}  // namespace farmrt
