// The CUDA backend on the GPU: its bytes against the CPU's, its integrators,
// kernels and BVHs against each other, decompositions, stops and errors.
// These tests skip with a message when no device is visible (CI), and run on
// the GPU machine (scripts/gpu_build_and_test.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cmd/backends.h"
#include "core/errors.h"
#include "core/stop_flag.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_renderer.h"
#include "cuda/wide_bvh_gpu.h"
#include "io/scene_loader.h"
#include "render/render_job.h"
#include "cuda/cuda_test_scenes.h"
#include "scoped_environment.h"
#include "simd/cpu_renderer.h"

namespace farmrt {
namespace {

using namespace testing;

#define REQUIRE_GPU()                                                                             \
    do {                                                                                          \
        std::string problem;                                                                      \
        if (visible_gpu_count(&problem) == 0) GTEST_SKIP() << "no CUDA device here: " << problem; \
    } while (0)

// ---- on the GPU ------------------------------------------------------------------

// The exact kernel rounds like the CPU build: identical sums, not just close,
// on the scene's BVH and on the GPU's own leaves of one and of two primitives.
TEST(CudaGpu, ExactMathMatchesCpuBitForBit) {
    REQUIRE_GPU();
    // Every material and texture kind, quads, triangles and meshes, instances.
    // lights.yaml: every kind of light, sampled with shadow rays.
    // models.yaml, models/shapes.gltf: imported models, the principled material.
    for (const char* name : {"tiny.yaml", "emissive.yaml", "spheres.yaml", "textured.yaml", "cornell.yaml",
                             "stress.yaml", "lights.yaml", "models.yaml", "models/shapes.gltf"}) {
        const TestScene scene = load_test_scene(name, 96, 54, 8);
        const std::vector<float> cpu = render_cpu(scene);
        for (const int gpu_leaves : {0, 1, 2}) {
            CudaOptions options;
            options.exact_gpu_leaves = gpu_leaves > 0;
            if (gpu_leaves > 0) options.gpu_leaf_size = gpu_leaves;
            const std::vector<float> gpu = render_gpu(scene, options);
            EXPECT_TRUE(same_bits(cpu, gpu)) << name << ", the GPU's leaves of " << gpu_leaves << ": "
                                             << differing_values(cpu, gpu) << " of " << cpu.size() << " values differ";
        }
    }
}

// The split kernels (wavefront.h) and the megakernel, each chosen
// explicitly, give the CPU's bits on every kind of scene; the split kernels
// too with a pool of 1,024 paths (each slot traces many samples, and the
// launch's items outnumber the pool many times over), with one sample a
// launch, and with each way of sharing a queue among warps (a fixed share,
// or 32 or 96 entries at a time: the pool of 1,024 paths ends a queue inside
// a warp's fetch), and with the paths in one pool or three, each on a stream
// of its own (the default: two), taking items from one counter.
TEST(CudaGpu, SplitKernelsAndMegakernelMatchCpuBitForBit) {
    REQUIRE_GPU();
    for (const char* name :
         {"tiny.yaml", "emissive.yaml", "spheres.yaml", "textured.yaml", "cornell.yaml", "stress.yaml", "lights.yaml",
          "models.yaml", "models/shapes.gltf", "interior.yaml", "mesh.yaml", "many_spheres.yaml"}) {
        const TestScene scene = load_test_scene(name, 96, 54, 8);
        const std::vector<float> cpu = render_cpu(scene);
        std::vector<CudaOptions> runs(12);
        runs[0].integrator = GpuTuning::Integrator::Megakernel;
        runs[1].integrator = GpuTuning::Integrator::Split;
        runs[2].integrator = GpuTuning::Integrator::Split;
        runs[2].split_paths = 1024;
        runs[3].integrator = GpuTuning::Integrator::Split;
        runs[3].samples_per_launch = 96 * 54;
        runs[4].integrator = GpuTuning::Integrator::Split;
        runs[4].shading = GpuTuning::Shading::AllTypes;
        runs[5].integrator = GpuTuning::Integrator::Split;
        runs[5].shading = GpuTuning::Shading::SceneTypes;
        runs[6].integrator = GpuTuning::Integrator::Split;
        runs[6].shading = GpuTuning::Shading::Sorted;
        for (size_t k = 7; k < runs.size(); ++k) {
            runs[k].integrator = GpuTuning::Integrator::Split;
            runs[k].split_paths = 1024;
        }
        runs[7].queue_fetch = 0;
        runs[8].queue_fetch = 1;
        runs[9].queue_fetch = 3;
        runs[10].split_streams = 1;
        runs[11].split_streams = 3;
        for (const CudaOptions& o : runs) {
            const std::vector<float> gpu = render_gpu(scene, o);
            EXPECT_TRUE(same_bits(cpu, gpu))
                << name << " integrator " << int(o.integrator) << " paths " << o.split_paths << " samples/launch "
                << o.samples_per_launch << " shading " << int(o.shading) << " queue fetch " << o.queue_fetch
                << " streams " << o.split_streams << ": " << differing_values(cpu, gpu) << " of " << cpu.size()
                << " values differ";
        }
    }
}

// Intersect's and shadow's warps take their first entries by their place in
// the grid and the rest from a counter: a frame of 2.6 million samples (and a
// third of it, a first band) queues more rays than the first shares of any
// GPU's grid hold, so that warps fetch, and the queues end inside a fetch.
// The CPU's bits with every way of sharing.
TEST(CudaGpu, SplitKernelsFetchingLongQueuesMatchCpuBitForBit) {
    REQUIRE_GPU();
    for (const char* name : {"cornell.yaml", "models.yaml"}) {
        const TestScene scene = load_test_scene(name, 1024, 640, 4);
        const std::vector<float> cpu = render_cpu(scene);
        for (const uint32_t fetch : {0u, 1u, 3u}) {
            CudaOptions options;
            options.integrator = GpuTuning::Integrator::Split;
            options.queue_fetch = fetch;
            const std::vector<float> gpu = render_gpu(scene, options);
            EXPECT_TRUE(same_bits(cpu, gpu)) << name << " queue fetch " << fetch << ": " << differing_values(cpu, gpu)
                                             << " of " << cpu.size() << " values differ";
        }
    }
}

// The split kernels' paths in several pools, each on a stream of its own:
// every pool takes items from the launch's one counter, so the frame is the
// CPU's bits and every ray is counted once, as with one pool (the same
// paths, whichever pool traces them). 2.6 million samples keep two and four
// pools of 2,097,152 paths together busy through several iterations.
TEST(CudaGpu, SplitKernelsInSeveralPoolsMatchOnePool) {
    REQUIRE_GPU();
    for (const char* name : {"cornell.yaml", "models.yaml"}) {
        const TestScene scene = load_test_scene(name, 1024, 640, 4);
        const std::vector<float> cpu = render_cpu(scene);
        RayCounts one_pool;
        for (const int streams : {1, 2, 4}) {
            CudaOptions options;
            options.integrator = GpuTuning::Integrator::Split;
            options.split_streams = streams;
            CudaRenderer gpu(scene.description.scene.view(), options);
            const std::vector<float> image = render_whole(gpu, scene);
            EXPECT_TRUE(same_bits(cpu, image)) << name << " streams " << streams << ": " << differing_values(cpu, image)
                                               << " of " << cpu.size() << " values differ";
            const RayCounts rays = gpu.rays_traced();
            if (streams == 1) {
                one_pool = rays;
                EXPECT_EQ(rays.camera, uint64_t(1024) * 640 * 4) << name;
                EXPECT_GT(rays.shadow, 0u) << name;
                continue;
            }
            EXPECT_EQ(rays.camera, one_pool.camera) << name << " streams " << streams;
            EXPECT_EQ(rays.extension, one_pool.extension) << name << " streams " << streams;
            EXPECT_EQ(rays.shadow, one_pool.shadow) << name << " streams " << streams;
        }
    }
}

// The split kernels' paths chosen by the size of the scene's tree: more
// paths in more pools where it outgrows L2 (here a limit of one byte stands
// in for a tree of a million triangles), the same bytes either way, and
// paths set by hand kept.
TEST(CudaGpu, SplitKernelsKeepMorePathsInFlightForTreesBeyondL2) {
    REQUIRE_GPU();
    const TestScene scene = load_test_scene("models.yaml", 256, 160, 4);
    const std::vector<float> cpu = render_cpu(scene);
    struct Case {
        size_t deep_tree_bytes;
        uint32_t split_paths;
        const char* description;
    };
    for (const Case& c :
         {Case{0, 0, ", 2097152 paths in 2 pools"}, Case{1, 0, ", 8388608 paths in 4 pools (the tree outgrows L2)"},
          Case{1, 4096, ", 4096 paths in 2 pools"}}) {
        CudaOptions options;
        options.integrator = GpuTuning::Integrator::Split;
        options.deep_tree_bytes = c.deep_tree_bytes;
        options.split_paths = c.split_paths;
        CudaRenderer gpu(scene.description.scene.view(), options);
        const std::string description = gpu.description(), ending = c.description;
        EXPECT_TRUE(description.size() >= ending.size() &&
                    description.compare(description.size() - ending.size(), ending.size(), ending) == 0)
            << description;
        const std::vector<float> image = render_whole(gpu, scene);
        EXPECT_TRUE(same_bits(cpu, image))
            << c.description << ": " << differing_values(cpu, image) << " of " << cpu.size() << " values differ";
    }
}

// Real models (Debian's assimp-testmodels, where present): textured glTF in
// its three encodings, a 121k-triangle engine of instanced meshes, a PLY scan.
TEST(CudaGpu, ImportedModelsMatchCpuBitForBit) {
    REQUIRE_GPU();
    // Where the tests run, not where they were built (a GPU machine may run a
    // build made elsewhere).
    const std::string root = FARMRT_ASSIMP_MODELS;
    if (root.empty() || !std::filesystem::is_directory(root + "/glTF2")) {
        GTEST_SKIP() << "assimp-testmodels is not installed";
    }
    for (const char* model :
         {"glTF2/BoxTextured-glTF/BoxTextured.gltf", "glTF2/BoxTextured-glTF-Binary/BoxTextured.glb",
          "glTF2/BoxTextured-glTF-Embedded/BoxTextured.gltf", "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
          "glTF2/cameras/Cameras.gltf", "PLY/Wuson.ply"}) {
        const TestScene scene = load_test_scene(root + "/" + model, 96, 54, 8);
        const std::vector<float> cpu = render_cpu(scene);
        const std::vector<float> gpu = render_gpu(scene, CudaOptions{});
        EXPECT_TRUE(same_bits(cpu, gpu)) << model << ": " << differing_values(cpu, gpu) << " of " << cpu.size()
                                         << " values differ";
    }
}

// The kernels specialised to a scene's geometry (spheres only; no instances)
// give the general kernel's bits.
TEST(CudaGpu, SpecialisedKernelsMatchGeneralKernel) {
    REQUIRE_GPU();
    for (const char* name : {"spheres.yaml", "cornell.yaml", "textured.yaml"}) {
        const TestScene scene = load_test_scene(name, 64, 36, 4);
        for (const bool fast_math : {false, true}) {
            CudaOptions general;
            general.fast_math = fast_math;
            general.fused_slabs = false;
            general.specialize_geometry = false;
            general.wide_bvh = false;  // the general kernel has none
            CudaOptions specialised = general;
            specialised.specialize_geometry = true;
            const std::vector<float> a = render_gpu(scene, general), b = render_gpu(scene, specialised);
            EXPECT_TRUE(same_bits(a, b)) << name << " fast " << fast_math << ": " << differing_values(a, b)
                                         << " values differ";
        }
    }
}

// The fast kernel's 4-wide BVH gives the binary BVH's image: the same hits
// except where surfaces tie within rounding (none expected in these scenes).
TEST(CudaGpu, WideBvhMatchesBinaryBvh) {
    REQUIRE_GPU();
    for (const char* name : {"spheres.yaml", "cornell.yaml", "many_spheres.yaml"}) {
        const TestScene scene = load_test_scene(name, 96, 54, 4);
        CudaOptions binary;
        binary.fast_math = true;
        binary.wide_bvh = false;
        CudaOptions wide = binary;
        wide.wide_bvh = true;
        const std::vector<float> a = render_gpu(scene, binary), b = render_gpu(scene, wide);
        EXPECT_LE(differing_values(a, b), a.size() / 1000) << name;
    }
}

// Fast math is not bitwise equal but must be statistically the same image:
// its distance to CPU renders with other seeds is that between the CPU
// renders themselves, and not far below it (an estimate of its own, not a
// copy). Distances are root mean squares over four CPU renders: one RMSE of
// a 16-spp Sobol render is carried by a few edge pixels (the Cornell box's
// lamp) and varies by 20% from seed to seed.
TEST(CudaGpu, FastMathAgreesWithCpuWithinNoise) {
    REQUIRE_GPU();
    for (const char* name : {"tiny.yaml", "spheres.yaml", "cornell.yaml"}) {
        const uint32_t spp = 16;
        std::vector<std::vector<float>> cpu;
        for (uint64_t seed : {1, 2, 4, 5}) cpu.push_back(render_cpu(load_test_scene(name, 128, 72, spp, seed)));
        double noise_squared = 0;
        int pairs = 0;
        for (size_t i = 0; i < cpu.size(); ++i) {
            for (size_t j = i + 1; j < cpu.size(); ++j, ++pairs)
                noise_squared += std::pow(rmse(cpu[i], cpu[j], spp), 2);
        }
        const double noise = std::sqrt(noise_squared / pairs);
        EXPECT_GT(noise, 0.0);
        for (const bool fused : {true, false}) {  // the slab test with and without fused multiply-add
            CudaOptions fast;
            fast.fast_math = true;
            fast.fused_slabs = fused;
            const std::vector<float> gpu = render_gpu(load_test_scene(name, 128, 72, spp, 3), fast);
            double distance_squared = 0;
            for (const std::vector<float>& image : cpu) distance_squared += std::pow(rmse(image, gpu, spp), 2);
            const double gpu_to_cpu = std::sqrt(distance_squared / double(cpu.size()));
            EXPECT_LT(gpu_to_cpu, 1.15 * noise)
                << name << " fused " << fused << ": CPU-CPU RMSE " << noise << ", GPU-CPU RMSE " << gpu_to_cpu;
            EXPECT_GT(gpu_to_cpu, 0.85 * noise)
                << name << " fused " << fused << ": CPU-CPU RMSE " << noise << ", GPU-CPU RMSE " << gpu_to_cpu;
        }
    }
}

// Sums depend on nothing but the scene: not the schedule, grid, block, chunk,
// launch split or band split (for both math variants).
TEST(CudaGpu, SumsIndependentOfDecomposition) {
    REQUIRE_GPU();
    const TestScene scene = load_test_scene("tiny.yaml", 67, 29, 11);
    const RenderSettings& s = scene.description.settings;
    for (const bool fast_math : {false, true}) {
        CudaOptions base;
        base.fast_math = fast_math;
        const std::vector<float> reference = render_gpu(scene, base);
        std::vector<CudaOptions> variants;
        for (const int block : {32, 96, 256}) {  // 512: more registers than next-event estimation leaves room for
            CudaOptions o = base;
            o.block_size = block;
            variants.push_back(o);
        }
        for (const int chunk : {3, 64}) {
            CudaOptions o = base;
            o.chunk_pixels = chunk;
            variants.push_back(o);
        }
        CudaOptions static_schedule = base;
        static_schedule.schedule = PathSchedule::Static;
        static_schedule.chunk_pixels = 5;
        variants.push_back(static_schedule);
        CudaOptions small_grid = base;  // 64 threads: each takes about 30 pixels
        small_grid.max_grid_blocks = 2;
        small_grid.block_size = 32;
        variants.push_back(small_grid);
        small_grid.schedule = PathSchedule::Static;
        small_grid.chunk_pixels = 2;
        variants.push_back(small_grid);
        CudaOptions many_launches = base;  // one or two samples per launch
        many_launches.samples_per_launch = uint64_t(s.width) * s.height * 2 - 1;
        variants.push_back(many_launches);
        // Per-pixel work items (each pixel's samples summed in registers)
        // against the default per-sample items; per-sample chunks of 3
        // samples; a radiance buffer of two samples per launch; per-sample
        // items on the static schedule and on a small grid.
        CudaOptions per_pixel = base;
        per_pixel.sample_items = false;
        variants.push_back(per_pixel);
        CudaOptions sample_chunks = base;
        sample_chunks.chunk_samples = 3;
        variants.push_back(sample_chunks);
        CudaOptions small_buffer = base;
        small_buffer.sample_buffer_bytes = size_t(s.width) * s.height * 3 * sizeof(float) * 2;
        variants.push_back(small_buffer);
        CudaOptions static_samples = base;
        static_samples.schedule = PathSchedule::Static;
        static_samples.chunk_samples = 2;
        variants.push_back(static_samples);
        CudaOptions warp_fetch = base;
        warp_fetch.warp_fetch = true;
        variants.push_back(warp_fetch);
        CudaOptions small_grid_samples = base;
        small_grid_samples.max_grid_blocks = 1;
        small_grid_samples.block_size = 32;
        variants.push_back(small_grid_samples);
        // The split kernels: a pool smaller than a launch, bands and passes
        // as above (exact math: the megakernel's bits; fast math compiles
        // each kernel's floats its own way, so there they are compared with
        // the split kernels' own default).
        std::vector<CudaOptions> split_variants;
        CudaOptions split = base;
        split.integrator = GpuTuning::Integrator::Split;
        split_variants.push_back(split);
        split.split_paths = 1024;
        split_variants.push_back(split);
        split.sample_buffer_bytes = size_t(s.width) * s.height * 3 * sizeof(float) * 2;
        split_variants.push_back(split);
        const std::vector<float> split_reference = render_gpu(scene, split_variants[0]);
        if (!fast_math) {
            EXPECT_TRUE(same_bits(reference, split_reference)) << "split kernels";
        }
        for (const CudaOptions& o : split_variants) {
            EXPECT_TRUE(same_bits(split_reference, render_gpu(scene, o)))
                << "split: fast_math " << fast_math << " paths " << o.split_paths << " sample buffer "
                << o.sample_buffer_bytes;
        }
        for (const CudaOptions& o : variants) {
            EXPECT_TRUE(same_bits(reference, render_gpu(scene, o)))
                << "fast_math " << fast_math << " block " << o.block_size << " chunk " << o.chunk_pixels << " schedule "
                << int(o.schedule) << " blocks/SM " << o.blocks_per_sm << " samples/launch " << o.samples_per_launch
                << " sample items " << o.sample_items << " chunk samples " << o.chunk_samples << " sample buffer "
                << o.sample_buffer_bytes << " warp fetch " << o.warp_fetch;
        }

        // Bands of 1, 4 and 7 rows, submitted asynchronously, and sample ranges split in two.
        CudaRenderer gpu(scene.description.scene.view(), base);
        for (const uint32_t band : {1u, 4u, 7u}) {
            std::vector<float> sums(reference.size(), 0.0f);
            std::vector<uint32_t> submitted;
            for (uint32_t row = 0; row < s.height; row += band) {
                const RowRange rows{row, std::min(s.height, row + band)};
                gpu.submit(scene.frame, rows, SampleRange{0, 4}, sums.data() + size_t(row) * s.width * 3, nullptr);
            }
            while (gpu.complete_oldest() != nullptr) {}
            for (uint32_t row = 0; row < s.height; row += band) {
                const RowRange rows{row, std::min(s.height, row + band)};
                gpu.submit(scene.frame, rows, SampleRange{4, s.spp}, sums.data() + size_t(row) * s.width * 3, nullptr);
            }
            while (gpu.complete_oldest() != nullptr) {}
            EXPECT_TRUE(same_bits(reference, sums)) << "fast_math " << fast_math << " band " << band;
        }
    }
}

// A GPU whose frames run the split kernels asks the farm for bands of at
// least split_band_pools pools of paths (each band's launch ends in a drain);
// one whose frames run the megakernel, or with 0 pools, for its resident threads.
TEST(CudaGpu, SplitFramesAskForBandsOfSeveralPools) {
    REQUIRE_GPU();
    const TestScene lit = load_test_scene("cornell.yaml", 64, 32, 4);
    CudaOptions megakernel;
    megakernel.integrator = GpuTuning::Integrator::Megakernel;
    megakernel.split_band_pools = 3;
    const uint64_t resident = CudaRenderer(lit.description.scene.view(), megakernel).min_band_items();
    EXPECT_GT(resident, 0u);
    for (const int pools : {0, 3}) {
        CudaOptions split;
        split.integrator = GpuTuning::Integrator::Split;
        split.split_paths = uint32_t(1) << 20;
        split.split_band_pools = pools;
        EXPECT_EQ(CudaRenderer(lit.description.scene.view(), split).min_band_items(),
                  std::max<uint64_t>(resident, uint64_t(pools) << 20))
            << pools << " pools";
    }
    // The book's scene has no lights: its frames run the megakernel.
    const TestScene unlit = load_test_scene("spheres.yaml", 64, 32, 4);
    CudaOptions automatic;
    automatic.split_band_pools = 3;
    CudaOptions forced = automatic;
    forced.integrator = GpuTuning::Integrator::Megakernel;
    EXPECT_EQ(CudaRenderer(unlit.description.scene.view(), automatic).min_band_items(),
              CudaRenderer(unlit.description.scene.view(), forced).min_band_items());
}

TEST(CudaGpu, AsynchronousBandsCompleteInOrderAndCountProgress) {
    REQUIRE_GPU();
    const TestScene scene = load_test_scene("tiny.yaml", 40, 12, 5);
    CudaOptions options;
    options.samples_per_launch = 40 * 4 * 2;  // several launches per band
    CudaRenderer gpu(scene.description.scene.view(), options);
    std::vector<std::vector<float>> bands(5, std::vector<float>(40 * 3 * 3, 0.0f));
    std::atomic<uint64_t> done{0};
    EXPECT_EQ(gpu.complete_oldest(), nullptr);
    for (size_t b = 0; b < 4; ++b) {
        gpu.submit(scene.frame, RowRange{uint32_t(3 * b), uint32_t(3 * b + 3)}, SampleRange{0, 5}, bands[b].data(),
                   &done);
    }
    for (size_t b = 0; b < 4; ++b) EXPECT_EQ(gpu.complete_oldest(), bands[b].data());
    EXPECT_EQ(gpu.complete_oldest(), nullptr);
    EXPECT_EQ(done.load(), uint64_t(40) * 12 * 5);
    // An empty band completes too.
    gpu.submit(scene.frame, RowRange{3, 3}, SampleRange{0, 5}, bands[4].data(), nullptr);
    EXPECT_EQ(gpu.complete_oldest(), bands[4].data());
}

// oldest_ready() says whether complete_oldest() would return at once: true
// with nothing in flight, true once the oldest band is back (so a render
// thread that polls it never blocks), and the band is then the oldest.
// launches() counts the megakernel's launches: one a band, or one for each
// run of samples that fits CudaOptions::samples_per_launch.
TEST(CudaGpu, OldestReadyOnceTheBandIsBackAndLaunchesCounted) {
    REQUIRE_GPU();
    const TestScene scene = load_test_scene("tiny.yaml", 40, 12, 5);
    CudaOptions options;
    options.integrator = GpuTuning::Integrator::Megakernel;
    CudaRenderer gpu(scene.description.scene.view(), options);
    EXPECT_TRUE(gpu.oldest_ready());
    EXPECT_EQ(gpu.launches(), 0u);
    std::vector<float> sums(40 * 3 * 3, 0.0f);
    gpu.submit(scene.frame, RowRange{0, 3}, SampleRange{0, 5}, sums.data(), nullptr);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!gpu.oldest_ready() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    ASSERT_TRUE(gpu.oldest_ready()) << "a 120-pixel band not back within 20 s";
    EXPECT_EQ(gpu.complete_oldest(), sums.data());
    EXPECT_EQ(gpu.launches(), 1u);
    options.samples_per_launch = 40 * 3 * 2;  // two samples of a 3-row band per launch
    CudaRenderer split_up(scene.description.scene.view(), options);
    split_up.submit(scene.frame, RowRange{0, 3}, SampleRange{0, 5}, sums.data(), nullptr);
    EXPECT_EQ(split_up.complete_oldest(), sums.data());
    EXPECT_TRUE(split_up.oldest_ready());
    EXPECT_EQ(split_up.launches(), 3u);
}

// device_busy_seconds() is the union of the bands' spans on the device's
// clock: at least the longest band's kernels, at most the sum of them all,
// and within the host's time from the first submission to the last completion.
TEST(CudaGpu, DeviceBusySecondsAreTheBandsSpansOnItsClock) {
    REQUIRE_GPU();
    const TestScene scene = load_test_scene("spheres.yaml", 160, 90, 64);
    CudaOptions options;
    options.integrator = GpuTuning::Integrator::Megakernel;
    CudaRenderer gpu(scene.description.scene.view(), options);
    EXPECT_EQ(gpu.device_busy_seconds(), 0.0);
    std::vector<std::vector<float>> bands(
        3, std::vector<float>(size_t(160) * 30 * scene.frame.sampling.record_floats, 0.0f));
    const auto start = std::chrono::steady_clock::now();
    for (size_t b = 0; b < bands.size(); ++b) {
        gpu.submit(scene.frame, RowRange{uint32_t(30 * b), uint32_t(30 * b + 30)}, SampleRange{0, 64}, bands[b].data(),
                   nullptr);
    }
    double longest = 0, total = 0;
    for (size_t b = 0; b < bands.size(); ++b) {
        EXPECT_EQ(gpu.complete_oldest(), bands[b].data());
        longest = std::max(longest, gpu.last_kernel_seconds());
        total += gpu.last_kernel_seconds();
    }
    const double host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GT(longest, 0.0);
    // Events resolve about half a microsecond.
    EXPECT_GE(gpu.device_busy_seconds(), longest - 1e-5);
    EXPECT_LE(gpu.device_busy_seconds(), total + 1e-5);
    EXPECT_LE(gpu.device_busy_seconds(), host_seconds);
}

// A stop in the middle of a band keeps the launches whose sums were added
// before it: every pixel then holds exactly its first k samples, the sums
// of a band rendered with k samples, and the farm checkpoints them.
// Both integrators.
TEST(CudaGpu, StopKeepsTheLaunchesFinishedBeforeIt) {
    REQUIRE_GPU();
    const uint32_t width = 64, height = 32, spp = 4000;
    const TestScene scene = load_test_scene("tiny.yaml", width, height, spp);
    for (const auto integrator : {GpuTuning::Integrator::Megakernel, GpuTuning::Integrator::Split}) {
        SCOPED_TRACE("integrator " + std::to_string(int(integrator)));
        CudaOptions options;
        options.integrator = integrator;
        options.samples_per_launch = width * height;  // one sample per launch
        CudaRenderer gpu(scene.description.scene.view(), options);
        std::vector<float> sums(size_t(width) * height * 3, 0.0f);
        std::atomic<uint64_t> done{0};
        // Started first: the split kernels' submit() returns only once the
        // band's paths are traced.
        std::thread stopper([&done, width, height] {
            while (done.load() < uint64_t(width) * height * 10) std::this_thread::yield();
            request_stop();
        });
        gpu.submit(scene.frame, RowRange{0, height}, SampleRange{0, spp}, sums.data(), &done);
        EXPECT_EQ(gpu.complete_oldest(), sums.data());
        stopper.join();
        const uint32_t kept = gpu.samples_finished_at_stop();
        withdraw_stop_request();
        // The stop came after ten launches were counted: the megakernel's
        // after their sums, the split kernels' once their paths were traced
        // (the sums of all but the last already added).
        EXPECT_GE(kept, 9u);
        ASSERT_LT(kept, spp) << "the band ended before the stop: nothing to test";
        std::vector<float> reference(sums.size(), 0.0f);
        gpu.render(scene.frame, RowRange{0, height}, SampleRange{0, kept}, reference.data(), nullptr);
        EXPECT_TRUE(same_bits(reference, sums)) << kept << " samples kept";
        CpuRenderer cpu(scene.description.scene.view(), 0, 16);
        std::vector<float> on_cpu(sums.size(), 0.0f);
        cpu.render(scene.frame, RowRange{0, height}, SampleRange{0, kept}, on_cpu.data(), nullptr);
        EXPECT_TRUE(same_bits(on_cpu, sums)) << kept << " samples kept";
    }
}

TEST(CudaGpu, ErrorsAreOneLine) {
    REQUIRE_GPU();
    const TestScene scene = load_test_scene("tiny.yaml", 8, 4, 1);
    CudaOptions bad_device;
    bad_device.device = 4096;
    try {
        CudaRenderer gpu(scene.description.scene.view(), bad_device);
        FAIL() << "expected a RenderError";
    } catch (const RenderError& e) {
        EXPECT_NE(std::string(e.what()).find("cuda:4096"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
    // Out of device memory: take nearly all of it, then ask for a band that
    // needs more than is left.
    CudaRenderer gpu(scene.description.scene.view(), CudaOptions{});
    size_t free_bytes = 0, total_bytes = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
    void* hog = nullptr;
    const size_t left = size_t(64) << 20;
    ASSERT_EQ(cudaMalloc(&hog, free_bytes - left), cudaSuccess);
    FrameSettings wide = scene.frame;
    wide.width = 4096;
    const uint32_t rows = uint32_t(2 * left / (size_t(wide.width) * 12));
    std::vector<float> sums(size_t(wide.width) * rows * 3, 0.0f);
    try {
        gpu.submit(wide, RowRange{0, rows}, SampleRange{0, 1}, sums.data(), nullptr);
        FAIL() << "expected a RenderError";
    } catch (const RenderError& e) {
        EXPECT_NE(std::string(e.what()).find("out of GPU memory"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
    // The split kernels' pool of paths (about 190 MiB) where the band itself fits.
    CudaOptions split;
    split.integrator = GpuTuning::Integrator::Split;
    split.sample_buffer_bytes = size_t(1) << 20;
    CudaRenderer split_gpu(scene.description.scene.view(), split);
    std::vector<float> small(size_t(8) * 4 * 3, 0.0f);
    try {
        split_gpu.render(scene.frame, RowRange{0, 4}, SampleRange{0, 1}, small.data(), nullptr);
        FAIL() << "expected a RenderError";
    } catch (const RenderError& e) {
        EXPECT_NE(std::string(e.what()).find("out of GPU memory"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("split kernels"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
    ASSERT_EQ(cudaFree(hog), cudaSuccess);
    // With the memory back, the same renderer renders.
    split_gpu.render(scene.frame, RowRange{0, 4}, SampleRange{0, 1}, small.data(), nullptr);
}

}  // namespace
}  // namespace farmrt
