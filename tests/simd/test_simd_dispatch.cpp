// Which SIMD path a render takes, and how it is chosen: the wide BVH only
// where it pays, environment switches and --simd checked, the widest level
// by default, CPU work units covering every pixel once.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "cmd/command_line_parser.h"
#include "core/errors.h"
#include "io/scene_loader.h"
#include "render/render_job.h"
#include "render/tuning.h"
#include "simd/cpu_renderer.h"
#include "simd/simd_level.h"
#include "simd/simd_test_scenes.h"
#include "simd/wide_accelerator.h"

namespace farmrt {
namespace {

TEST(SimdDispatch, WideTraversalOnlyWhereItPays) {
    Scene few;
    few.materials.push_back(Material{});
    for (uint32_t i = 0; i + 1 < kWideTraversalMinPrimitives; ++i)
        few.spheres.push_back(Sphere{Vec3(float(i), 0, 0), 0.4f, Vec3(0.0f), 0});
    few.build_acceleration();
    ASSERT_EQ(few.primitive_count(), kWideTraversalMinPrimitives - 1);
    EXPECT_FALSE(wide_traversal_pays(few.view()));
    Scene many = random_mixed_scene(2, 300);
    many.build_acceleration();
    EXPECT_TRUE(wide_traversal_pays(many.view()));
    if (simd_level_supported(SimdLevel::Sse42) && simd_level_compiled(SimdLevel::Sse42)) {
        EXPECT_FALSE(CpuRenderer(few.view(), 1, 16, SimdLevel::Sse42).wide_traversal());
        EXPECT_TRUE(CpuRenderer(many.view(), 1, 16, SimdLevel::Sse42).wide_traversal());
    }
}

// The measurement switches (render/tuning.h) reach the CPU tracer typed, and
// their environment variables take only the values they document: anything
// else is one InputError naming the variable and the value.
TEST(SimdDispatch, TuningSwitchesTakeOnlyTheirValues) {
    Scene many = random_mixed_scene(2, 300);
    many.build_acceleration();
    const SimdLevel level = SimdLevel::Sse42;
    if (!simd_level_supported(level) || !simd_level_compiled(level)) GTEST_SKIP() << "no SSE4.2 kernels here";
    const auto tuning_of = [](std::map<std::string, std::string> environment) {
        return read_tuning([&environment](const char* name) -> const char* {
            const auto found = environment.find(name);
            return found == environment.end() ? nullptr : found->second.c_str();
        });
    };
    EXPECT_FALSE(
        CpuRenderer(many.view(), 1, 16, level, tuning_of({{"FARMRT_SIMD_TRAVERSAL", "scalar"}}).cpu).wide_traversal());
    EXPECT_TRUE(
        CpuRenderer(many.view(), 1, 16, level, tuning_of({{"FARMRT_SIMD_TRAVERSAL", "auto"}}).cpu).wide_traversal());
    for (const char* collapse : {"sah", "largest_area"}) {
        const Tuning tuning = tuning_of({{"FARMRT_SIMD_COLLAPSE", collapse}});
        EXPECT_EQ(tuning.cpu.largest_area_collapse, std::string(collapse) == "largest_area");
        EXPECT_TRUE(CpuRenderer(many.view(), 1, 16, level, tuning.cpu).wide_traversal()) << collapse;
    }
    EXPECT_FALSE(tuning_of({{"FARMRT_CPU_TAIL_SPLIT", "0"}}).cpu.tail_split);
    EXPECT_TRUE(tuning_of({}).cpu.tail_split);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_SAMPLE_BUFFER_MIB", "64"}}).gpu.sample_buffer_bytes, size_t(64) << 20);
    EXPECT_EQ(tuning_of({{"FARMRT_FARM_BAND_DIVISOR", "4"}}).dealer.band_divisor, 4.0);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_INTEGRATOR", "split"}}).gpu.integrator, GpuTuning::Integrator::Split);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_INTEGRATOR", "megakernel"}}).gpu.integrator, GpuTuning::Integrator::Megakernel);
    EXPECT_FALSE(tuning_of({}).gpu.integrator.has_value());
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_PATHS", "4096"}}).gpu.split_paths, 4096);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_SPLIT_BAND_POOLS", "0"}}).gpu.split_band_pools, 0);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_SPLIT_BAND_POOLS", "8"}}).gpu.split_band_pools, 8);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_QUEUE_FETCH", "0"}}).gpu.queue_fetch, 0);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_QUEUE_FETCH", "4"}}).gpu.queue_fetch, 4);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_SPLIT_STREAMS", "2"}}).gpu.split_streams, 2);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_BANDS", "3"}}).gpu.bands_in_flight, 3);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_LOOKAHEAD", "0"}}).gpu.adaptive_lookahead, 0);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_ADAPTIVE_FILL", "200"}}).gpu.adaptive_fill, 200);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_LEAF_SIZE", "0"}}).gpu.gpu_leaf_size, 0);
    EXPECT_FALSE(tuning_of({{"FARMRT_CUDA_EXACT_WIDE", "0"}}).gpu.exact_wide_bvh.value());
    EXPECT_TRUE(tuning_of({{"FARMRT_CUDA_EXACT_LEAVES", "1"}}).gpu.exact_gpu_leaves.value());
    EXPECT_FALSE(tuning_of({{"FARMRT_CUDA_TRIANGLE_CORNERS", "0"}}).gpu.triangle_corners.value());
    EXPECT_TRUE(tuning_of({{"FARMRT_CUDA_TRIANGLE_CORNERS", "1"}}).gpu.triangle_corners.value());
    EXPECT_FALSE(tuning_of({{"FARMRT_CUDA_GPU_BVH", "rebuild"}}).gpu.split_leaves.value());
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_SHADING", "all"}}).gpu.shading, GpuTuning::Shading::AllTypes);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_SHADING", "scene"}}).gpu.shading, GpuTuning::Shading::SceneTypes);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_SHADING", "sorted"}}).gpu.shading, GpuTuning::Shading::Sorted);
    EXPECT_FALSE(tuning_of({{"FARMRT_CUDA_SHADING", "auto"}}).gpu.shading.has_value());
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_BLOCK", "64"}}).gpu.block_size, 64);
    EXPECT_EQ(tuning_of({{"FARMRT_CUDA_GRID_DIVISOR", "2"}}).gpu.grid_divisor, 2);
    EXPECT_DOUBLE_EQ(*tuning_of({{"FARMRT_FARM_MIN_BAND_MS", "20"}}).dealer.min_band_seconds, 0.02);
    for (const auto& [name, value] : {std::pair{"FARMRT_SIMD_TRAVERSAL", "fast"},
                                      std::pair{"FARMRT_CPU_TAIL_SPLIT", "no"},
                                      std::pair{"FARMRT_SIMD_COLLAPSE", "greedy"},
                                      std::pair{"FARMRT_CUDA_ITEMS", "rows"},
                                      std::pair{"FARMRT_CUDA_CHUNK_SAMPLES", "0"},
                                      std::pair{"FARMRT_CUDA_SAMPLE_BUFFER_MIB", "1.5"},
                                      std::pair{"FARMRT_FARM_WEIGHTS", "fair"},
                                      std::pair{"FARMRT_CUDA_SPLIT_STREAMS", "0"},
                                      std::pair{"FARMRT_FARM_TAIL", "-1"},
                                      std::pair{"FARMRT_FARM_BAND_DIVISOR", "0.5"},
                                      std::pair{"FARMRT_FARM_ENDGAME", "never"},
                                      std::pair{"FARMRT_CUDA_INTEGRATOR", "wavefront"},
                                      std::pair{"FARMRT_CUDA_PATHS", "100"},
                                      std::pair{"FARMRT_CUDA_SPLIT_BAND_POOLS", "65"},
                                      std::pair{"FARMRT_CUDA_QUEUE_FETCH", "65"},
                                      std::pair{"FARMRT_CUDA_BANDS", "0"},
                                      std::pair{"FARMRT_CUDA_BLOCK", "48"},
                                      std::pair{"FARMRT_CUDA_GRID_DIVISOR", "9"},
                                      std::pair{"FARMRT_FARM_MIN_BAND_MS", "-1"},
                                      std::pair{"FARMRT_CUDA_LOOKAHEAD", "401"},
                                      std::pair{"FARMRT_CUDA_ADAPTIVE_FILL", "1001"},
                                      std::pair{"FARMRT_CUDA_LEAF_SIZE", "17"},
                                      std::pair{"FARMRT_CUDA_EXACT_WIDE", "yes"},
                                      std::pair{"FARMRT_CUDA_EXACT_LEAVES", "2"},
                                      std::pair{"FARMRT_CUDA_TRIANGLE_CORNERS", "on"},
                                      std::pair{"FARMRT_CUDA_GPU_BVH", "sah"},
                                      std::pair{"FARMRT_CUDA_SHADING", "single"}}) {
        try {
            tuning_of({{name, value}});
            ADD_FAILURE() << name << "=" << value << " was accepted";
        } catch (const InputError& error) {
            EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
            EXPECT_NE(std::string(error.what()).find(value), std::string::npos) << error.what();
        }
    }
}

TEST(CpuWorkUnits, CoverEveryPixelOnce) {
    for (const uint32_t tile : {1u, 3u, 16u, 64u}) {
        for (const int threads : {1, 2, 16}) {
            for (const bool split : {false, true}) {
                const uint32_t width = 37;
                const RowRange rows{5, 28};
                const std::vector<CpuRenderer::WorkUnit> units = cpu_work_units(width, rows, tile, threads, split);
                std::vector<int> covered(size_t(width) * rows.count(), 0);
                for (const CpuRenderer::WorkUnit& unit : units) {
                    ASSERT_LT(unit.x0, unit.x1);
                    ASSERT_LT(unit.y0, unit.y1);
                    ASSERT_LE(unit.x1, width);
                    ASSERT_GE(unit.y0, rows.begin);
                    ASSERT_LE(unit.y1, rows.end);
                    for (uint32_t y = unit.y0; y < unit.y1; ++y) {
                        for (uint32_t x = unit.x0; x < unit.x1; ++x) ++covered[size_t(y - rows.begin) * width + x];
                    }
                }
                for (const int count : covered) ASSERT_EQ(count, 1) << "tile " << tile << " threads " << threads;
                const size_t tiles = size_t((width + tile - 1) / tile) * ((rows.count() + tile - 1) / tile);
                if (split && threads > 1 && tile > 1) {
                    EXPECT_GT(units.size(), tiles);
                } else {
                    EXPECT_EQ(units.size(), tiles);
                }
            }
        }
    }
}

// ---- choosing a level -----------------------------------------------------------

TEST(SimdDispatch, AutoPicksTheWidestSupportedLevel) {
    EXPECT_EQ(resolve_simd_level("auto", {SimdLevel::Off, SimdLevel::Sse42, SimdLevel::Avx2}), SimdLevel::Avx2);
    EXPECT_EQ(resolve_simd_level("auto", {SimdLevel::Off}), SimdLevel::Off);
    EXPECT_EQ(resolve_simd_level("off", {SimdLevel::Off, SimdLevel::Avx512}), SimdLevel::Off);
    EXPECT_EQ(resolve_simd_level("auto"), best_simd_level());
    EXPECT_EQ(supported_simd_levels().front(), SimdLevel::Off);
}

TEST(SimdDispatch, UnsupportedLevelIsAnInputErrorNamingTheOption) {
    try {
        resolve_simd_level("avx512", {SimdLevel::Off, SimdLevel::Sse42, SimdLevel::Avx2});
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("--simd avx512"), std::string::npos) << message;
        EXPECT_NE(message.find("AVX-512"), std::string::npos) << message;
        EXPECT_NE(message.find("off, sse4.2, avx2"), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
    EXPECT_THROW(resolve_simd_level("avx3"), InputError);
}

TEST(SimdDispatch, CommandLineChecksTheLevelName) {
    EXPECT_EQ(parse_command_line({"scene.yaml", "--simd", "avx2"}).simd, "avx2");
    EXPECT_EQ(parse_command_line({"scene.yaml"}).simd, "auto");
    try {
        parse_command_line({"scene.yaml", "--simd", "avx"});
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--simd: unknown level 'avx'"), std::string::npos) << e.what();
    }
}

TEST(SimdDispatch, RendererDescriptionNamesTheLevel) {
    Scene scene;
    scene.build_acceleration();
    EXPECT_EQ(CpuRenderer(scene.view(), 1, 16, SimdLevel::Off).description(), "cpu-scalar");
    for (SimdLevel level : kSimdLevels) {
        if (!simd_level_supported(level)) continue;
        RendererOptions options;
        options.backend = "cpu";  // the CPU tracer even where a GPU is visible
        options.simd = simd_level_name(level);
        EXPECT_EQ(make_band_renderer(scene, options)->description(), std::string("cpu-") + simd_level_name(level));
    }
}

}  // namespace
}  // namespace farmrt
