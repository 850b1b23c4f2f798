// farmrt_cuda_benchmark: samples per second of the CUDA backend over a grid of
// kernel settings (math, schedule, block size, chunk size, band rows), timed
// with device events, with the kernel's resources (registers, stack,
// occupancy) and path segments (rays) per second. Prints a Markdown table.
//
//   farmrt_cuda_benchmark configs/spheres.yaml --width 1200 --height 675 --spp 1024
//       --math exact,fast --schedule dynamic,static --block 64,128,256 --chunk 1,4 --bands 0,64
#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_renderer.h"
#include "io/scene_loader.h"
#include "render/render_job.h"

namespace farmrt {
namespace {

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, ',')) parts.push_back(part);
    return parts;
}

std::vector<int> split_integers(const std::string& text) {
    std::vector<int> values;
    for (const std::string& part : split(text)) values.push_back(std::atoi(part.c_str()));
    return values;
}

// Mean path segments per sample, traced on the CPU with the shared core over
// a sparse subset of pixels (exact math follows the GPU's paths exactly).
double mean_segments_per_sample(const SceneView& scene, const FrameSettings& frame, uint32_t spp) {
    uint64_t segments = 0, samples = 0;
    const uint32_t sample_count = std::min<uint32_t>(spp, 32);
    for (uint32_t pixel = 0; pixel < frame.width * frame.height; pixel += 61) {
        const uint32_t x = pixel % frame.width, y = pixel / frame.width;
        for (uint32_t s = 0; s < sample_count; ++s) {
            PixelSampler sampler(frame.key, pixel, s);
            PathState path = start_path(frame.camera_ray(x, y, sampler), frame.integrator);
            while (path.depth < frame.max_depth && extend_path(scene, path, sampler)) {}
            segments += uint64_t(path.depth);
            ++samples;
        }
    }
    return double(segments) / double(samples);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

int run(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: farmrt_cuda_benchmark SCENE.yaml [--width W] [--height H] [--spp N] [--max-depth D]\n"
                     "       [--math exact,fast] [--schedule dynamic,static] [--block 128,...] [--chunk 1,...]\n"
                     "       [--blocks-per-sm 0,...] [--bands 0,...] [--repeat R] [--device D]\n"
                     "       [--geometry specialized,general] [--quorum 8,...] [--fused on,off] [--min-blocks 0,...]\n"
                     "       [--leaf-size 4,...] [--gpu-leaf-size 1,0,...] [--order last-rows-first,first-rows-first]\n"
                     "       [--wide on,off] [--items samples,pixels] [--exact-wide auto,on,off] [--warp-fetch off,on] "
                     "[--chunk-samples 1,...] [--sample-buffer-mib 256,...]\n"
                     "       (kernel variants beyond the defaults need -DFARMRT_CUDA_EXPERIMENTS=ON)\n");
        return 2;
    }
    // Nothing is written; the output only has to pass validation without OpenImageIO.
    std::vector<SceneOverride> overrides = {{"image.output=unused.pfm", ""}};
    std::vector<std::string> maths = {"exact"}, schedules = {"dynamic"};
    std::vector<int> blocks = {128}, chunks = {1}, bands = {0}, blocks_per_sm = {0};
    std::vector<std::string> geometries = {"specialized"}, fused = {"on"}, orders = {"first-rows-first"},
                             wides = {"on"};
    std::vector<int> gpu_leaf_sizes = {CudaOptions().gpu_leaf_size};
    std::vector<std::string> items = {"samples"}, exact_wides = {"auto"}, warp_fetches = {"off"};
    std::vector<int> chunk_samples = {CudaOptions().chunk_samples};
    std::vector<int> sample_buffers = {int(CudaOptions().sample_buffer_bytes >> 20)};
    std::vector<int> quorums = {kLeafQuorum}, min_blocks = {CudaOptions().min_blocks},
                     leaf_sizes = {BvhBuildOptions().max_leaf_size};
    int repeat = 3, device = 0;
    for (int i = 2; i < argc; ++i) {
        const std::string option = argv[i];
        if (i + 1 >= argc) throw InputError(option + ": missing value");
        const std::string value = argv[++i];
        if (option == "--width")
            overrides.push_back({"image.width=" + value, option});
        else if (option == "--height")
            overrides.push_back({"image.height=" + value, option});
        else if (option == "--spp")
            overrides.push_back({"sampling.spp=" + value, option});
        else if (option == "--max-depth")
            overrides.push_back({"sampling.max_depth=" + value, option});
        else if (option == "--math")
            maths = split(value);
        else if (option == "--schedule")
            schedules = split(value);
        else if (option == "--block")
            blocks = split_integers(value);
        else if (option == "--chunk")
            chunks = split_integers(value);
        else if (option == "--blocks-per-sm")
            blocks_per_sm = split_integers(value);
        else if (option == "--bands")
            bands = split_integers(value);
        else if (option == "--geometry")
            geometries = split(value);
        else if (option == "--quorum")
            quorums = split_integers(value);
        else if (option == "--fused")
            fused = split(value);
        else if (option == "--min-blocks")
            min_blocks = split_integers(value);
        else if (option == "--leaf-size")
            leaf_sizes = split_integers(value);
        else if (option == "--gpu-leaf-size")
            gpu_leaf_sizes = split_integers(value);
        else if (option == "--order")
            orders = split(value);
        else if (option == "--wide")
            wides = split(value);
        else if (option == "--items")
            items = split(value);
        else if (option == "--exact-wide")
            exact_wides = split(value);
        else if (option == "--warp-fetch")
            warp_fetches = split(value);
        else if (option == "--chunk-samples")
            chunk_samples = split_integers(value);
        else if (option == "--sample-buffer-mib")
            sample_buffers = split_integers(value);
        else if (option == "--repeat")
            repeat = std::max(1, std::atoi(value.c_str()));
        else if (option == "--device")
            device = std::atoi(value.c_str());
        else
            throw InputError(option + ": unknown option");
    }
    SceneDescription description = load_scene_file(argv[1], overrides);
    const RenderSettings& settings = description.settings;
    const FrameSettings frame = frame_settings_for(description, 0);
    const uint64_t samples = uint64_t(settings.width) * settings.height * settings.spp;
    std::printf("# %s, %ux%u, %u spp, max_depth %d, %zu primitives\n", settings.scene_file.c_str(), settings.width,
                settings.height, settings.spp, settings.max_depth, description.scene.primitive_count());
    std::printf("# device %s\n\n", gpu_description(device).c_str());
    std::printf(
        "| math | kernel | quorum | fused | leaf size (GPU's) | order | schedule | block | items (chunk) | bands "
        "(rows) | regs |"
        " stack B | blocks/SM | occupancy | kernel s | wall s | G samples/s | G segments/s |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::vector<float> sums(size_t(settings.width) * settings.height * 3);
    for (const int leaf_size : leaf_sizes) {
        BvhBuildOptions bvh_options;
        bvh_options.max_leaf_size = leaf_size;
        description.scene.build_acceleration(bvh_options);
        const SceneView host_scene = description.scene.view();
        const double segments = mean_segments_per_sample(host_scene, frame, settings.spp);
        std::fprintf(stderr,
                     "leaf size %d: %u BVH nodes, %.3f path segments per sample (CPU trace of a pixel subset)\n",
                     leaf_size, host_scene.node_count, segments);
        // Every combination of the listed settings.
        std::vector<CudaOptions> configs;
        for (const std::string& math : maths)
            for (const std::string& geometry : geometries)
                for (const int quorum : quorums)
                    for (const std::string& fuse : fused)
                        for (const int bound : min_blocks)
                            for (const int gpu_leaf : gpu_leaf_sizes)
                                for (const std::string& order : orders)
                                    for (const std::string& wide : wides)
                                        for (const std::string& exact_wide : exact_wides)
                                            for (const std::string& warp_fetch : warp_fetches)
                                                for (const std::string& schedule : schedules)
                                                    for (const int block : blocks)
                                                        for (const int chunk : chunks)
                                                            for (const std::string& item_kind : items)
                                                                for (const int chunk_sample : chunk_samples)
                                                                    for (const int buffer_mib : sample_buffers)
                                                                        for (const int per_sm : blocks_per_sm) {
                                                                            if (item_kind == "pixels" &&
                                                                                (chunk_sample != chunk_samples[0] ||
                                                                                 buffer_mib != sample_buffers[0])) {
                                                                                continue;
                                                                            }
                                                                            if (item_kind != "pixels" &&
                                                                                chunk != chunks[0])
                                                                                continue;
                                                                            CudaOptions options;
                                                                            options.device = device;
                                                                            options.fast_math = math == "fast";
                                                                            options.specialize_geometry =
                                                                                geometry != "general";
                                                                            options.leaf_quorum = quorum;
                                                                            options.fused_slabs = fuse == "on";
                                                                            options.min_blocks = bound;
                                                                            options.gpu_leaf_size = gpu_leaf;
                                                                            options.last_rows_first =
                                                                                order != "first-rows-first";
                                                                            options.wide_bvh = wide == "on";
                                                                            if (exact_wide != "auto")
                                                                                options.exact_wide_bvh =
                                                                                    exact_wide == "on";
                                                                            // Exact math's switch: fast math runs once.
                                                                            if (options.fast_math &&
                                                                                exact_wide != exact_wides.front())
                                                                                continue;
                                                                            options.schedule =
                                                                                schedule == "static"
                                                                                    ? PathSchedule::Static
                                                                                    : PathSchedule::Dynamic;
                                                                            options.block_size = block;
                                                                            options.chunk_pixels = chunk;
                                                                            options.sample_items =
                                                                                item_kind != "pixels";
                                                                            options.chunk_samples = chunk_sample;
                                                                            options.sample_buffer_bytes =
                                                                                size_t(std::max(buffer_mib, 0))
                                                                                << 20;  // 0: auto
                                                                            options.warp_fetch = warp_fetch == "on";
                                                                            options.blocks_per_sm = per_sm;
                                                                            options.samples_per_launch =
                                                                                uint64_t(1)
                                                                                << 40;  // one launch per band
                                                                            configs.push_back(options);
                                                                        }
        for (const CudaOptions& options : configs) {
            std::unique_ptr<CudaRenderer> created;
            try {
                created = std::make_unique<CudaRenderer>(host_scene, options);
            } catch (const RenderError& e) {
                std::printf("| skipped: %s |\n", e.what());
                continue;
            }
            CudaRenderer& renderer = *created;
            const CudaKernelReport report = renderer.kernel_report();
            const PathKernelVariant variant = renderer.kernel_variant();
            // Warm-up (module load, first touch of the buffers).
            renderer.render(frame, RowRange{0, settings.height}, SampleRange{0, 1}, sums.data(), nullptr);
            for (const int band_rows : bands) {
                std::vector<double> kernel_times, wall_times;
                for (int r = 0; r < repeat; ++r) {
                    std::fill(sums.begin(), sums.end(), 0.0f);
                    const auto start = std::chrono::steady_clock::now();
                    if (band_rows <= 0) {
                        renderer.render(frame, RowRange{0, settings.height}, SampleRange{0, settings.spp}, sums.data(),
                                        nullptr);
                    } else {
                        // Bands through the asynchronous pipeline, as an MPI rank feeds them.
                        for (uint32_t row = 0; row < settings.height; row += uint32_t(band_rows)) {
                            const RowRange rows{row, std::min(settings.height, row + uint32_t(band_rows))};
                            renderer.submit(frame, rows, SampleRange{0, settings.spp},
                                            sums.data() + size_t(row) * settings.width * 3, nullptr);
                        }
                        while (renderer.complete_oldest() != nullptr) {}
                    }
                    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                    // Kernel time from device events for one band; for a pipeline of bands, the wall time.
                    kernel_times.push_back(band_rows <= 0 ? renderer.last_kernel_seconds() : wall);
                    wall_times.push_back(wall);
                }
                const double kernel = median(kernel_times), wall = median(wall_times);
                const std::string band_text = band_rows <= 0 ? "frame" : std::to_string(band_rows);
                const std::string items_text =
                    (options.sample_items ? "samples (" + std::to_string(options.chunk_samples) + ", " +
                                                std::to_string(renderer.sample_buffer_bytes() >> 20) + " MiB)"
                                          : "pixels (" + std::to_string(options.chunk_pixels) + ")") +
                    (options.warp_fetch ? " warp fetch" : "");
                static const char* const kGeometryNames[] = {"general", "no instances", "spheres"};
                const std::string leaf_text =
                    std::to_string(leaf_size) +
                    (report.gpu_bvh_leaf_size > 0 ? " (" + std::to_string(report.gpu_bvh_leaf_size) + ")" : "");
                std::printf(
                    "| %s | %s%s%s | %d | %s | %s | %s | %s | %d | %s | %s | %d | %d | %d | %.0f%% | %.4f | %.4f | %.3f"
                    " | %.3f |\n",
                    options.fast_math ? "fast" : "exact", kGeometryNames[int(variant.geometry)],
                    variant.wide_bvh ? ", 4-wide BVH" : "",
                    variant.min_blocks > 0   ? (" (min " + std::to_string(variant.min_blocks) + " blocks)").c_str()
                    : variant.min_blocks < 0 ? " (64-register cap)"
                                             : "",
                    variant.leaf_quorum, variant.fused_slabs ? "yes" : "no", leaf_text.c_str(),
                    options.last_rows_first ? "last rows first" : "first rows first",
                    options.schedule == PathSchedule::Static ? "static" : "dynamic", options.block_size,
                    items_text.c_str(), band_text.c_str(), report.registers_per_thread, report.local_bytes_per_thread,
                    report.blocks_per_sm, 100.0 * report.occupancy, kernel, wall, double(samples) / kernel * 1e-9,
                    double(samples) * segments / kernel * 1e-9);
                std::fflush(stdout);
            }
        }
    }
    return 0;
}

}  // namespace
}  // namespace farmrt

int main(int argc, char** argv) {
    try {
        return farmrt::run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "farmrt_cuda_benchmark: error: %s\n", e.what());
        return 1;
    }
}
