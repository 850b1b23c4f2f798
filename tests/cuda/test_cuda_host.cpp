// The CUDA backend's host side: which rank uses which GPU, the backend
// choice, the compiled kernel variants and the wide BVH's build. It runs
// wherever CUDA is built, without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cmd/backends.h"
#include "core/errors.h"
#include "core/stop_flag.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_renderer.h"
#include "cuda/wavefront.h"
#include "cuda/wide_bvh_gpu.h"
#include "io/scene_loader.h"
#include "render/render_job.h"
#include "cuda/cuda_test_scenes.h"
#include "scoped_environment.h"
#include "simd/cpu_renderer.h"

namespace farmrt {
namespace {

using namespace testing;

TEST(CudaHost, NodeLocalRankFromLauncherEnvironment) {
    ScopedEnvironment ompi("OMPI_COMM_WORLD_LOCAL_RANK", nullptr);
    ScopedEnvironment slurm("SLURM_LOCALID", nullptr);
    ScopedEnvironment mpich("MPI_LOCALRANKID", nullptr);
    ScopedEnvironment pmi("PMI_LOCAL_RANK", nullptr);
    EXPECT_EQ(node_local_rank(), 0);
    {
        ScopedEnvironment s("SLURM_LOCALID", "3");
        EXPECT_EQ(node_local_rank(), 3);
        ScopedEnvironment o("OMPI_COMM_WORLD_LOCAL_RANK", "2");  // Open MPI's wins
        EXPECT_EQ(node_local_rank(), 2);
    }
    ScopedEnvironment bad("SLURM_LOCALID", "x1");
    EXPECT_EQ(node_local_rank(), 0);
}

TEST(CudaHost, BackendChoiceFollowsGpuCount) {
    std::string problem;
    const int count = visible_gpu_count(&problem);
    EXPECT_EQ(choose_cuda_device("cpu"), -1);
    ScopedEnvironment rank("OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(count).c_str());
    // The rank just past the last GPU takes the CPU under auto...
    EXPECT_EQ(choose_cuda_device("auto"), -1);
    if (count == 0) {
        // ...and --backend cuda without a GPU is one clear line.
        try {
            choose_cuda_device("cuda");
            FAIL() << "expected a RenderError";
        } catch (const RenderError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("--backend cuda: no usable GPU"), std::string::npos) << message;
            EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        }
    } else {
        // ...while --backend cuda shares the GPUs round-robin.
        EXPECT_EQ(choose_cuda_device("cuda"), 0);
        ScopedEnvironment first("OMPI_COMM_WORLD_LOCAL_RANK", "0");
        EXPECT_EQ(choose_cuda_device("auto"), 0);
    }
}

TEST(CudaHost, AutoBackendWithoutGpuRendersOnCpu) {
    std::string problem;
    if (visible_gpu_count(&problem) > 0) GTEST_SKIP() << "a GPU is visible: auto picks it";
    const TestScene scene = load_test_scene("tiny.yaml", 16, 8, 2);
    RendererOptions options;
    options.backend = "auto";
    const auto renderer = make_band_renderer(scene.description.scene, options);
    EXPECT_EQ(renderer->description().rfind("cpu", 0), 0u) << renderer->description();
}

// Every kernel the renderer may pick with default options is compiled in.
TEST(CudaHost, DefaultKernelVariantsAreCompiled) {
    for (const bool fast_math : {false, true}) {
        for (const KernelGeometry geometry :
             {KernelGeometry::General, KernelGeometry::NoInstances, KernelGeometry::Spheres}) {
            for (const bool fused : {false, true}) {
                PathKernelVariant variant;
                variant.fast_math = fast_math;
                variant.geometry = geometry;
                variant.fused_slabs = fused && fast_math;  // the exact kernel never fuses
                const PathKernelEntry* entry = find_path_kernel(variant);
                ASSERT_NE(entry, nullptr)
                    << "fast " << fast_math << " geometry " << int(geometry) << " fused " << fused;
                EXPECT_NE(entry->function, nullptr);
                EXPECT_TRUE(entry->variant == variant);
            }
        }
    }
    // The fast kernels with the wide BVH, capped at 64 registers (the default) or not.
    for (const KernelGeometry geometry : {KernelGeometry::NoInstances, KernelGeometry::Spheres}) {
        for (const bool fused : {false, true}) {
            PathKernelVariant variant;
            variant.fast_math = true;
            variant.geometry = geometry;
            variant.fused_slabs = fused;
            variant.wide_bvh = true;
            variant.min_blocks = kRegisterCap64;
            EXPECT_NE(find_path_kernel(variant), nullptr) << int(geometry) << " fused " << fused;
        }
    }
    // Exact math on the wide BVH (the default): every kernel a frame may ask
    // for, the book's estimator's, per-pixel items' and the split kernels.
    for (const KernelGeometry geometry : {KernelGeometry::NoInstances, KernelGeometry::Spheres}) {
        PathKernelVariant variant;
        variant.geometry = geometry;
        variant.wide_bvh = true;
        variant.min_blocks = kRegisterCap64;
        EXPECT_NE(find_path_kernel(variant), nullptr) << int(geometry);
        EXPECT_NE(find_wavefront(variant), nullptr) << int(geometry);
        PathKernelVariant naive = variant;
        naive.naive_only = true;
        EXPECT_NE(find_path_kernel(naive), nullptr) << int(geometry);
        PathKernelVariant per_pixel = variant;
        per_pixel.sample_items = false;
        EXPECT_NE(find_path_kernel(per_pixel), nullptr) << int(geometry);
    }
    // The exact spheres kernel with per-sample items, capped at 64 registers
    // (the default), and the per-pixel kernels CudaOptions::sample_items = false picks.
    PathKernelVariant capped_exact;
    capped_exact.geometry = KernelGeometry::Spheres;
    capped_exact.min_blocks = kRegisterCap64;
    EXPECT_NE(find_path_kernel(capped_exact), nullptr);
    for (const KernelGeometry geometry : {KernelGeometry::NoInstances, KernelGeometry::Spheres}) {
        PathKernelVariant per_pixel;
        per_pixel.geometry = geometry;
        per_pixel.sample_items = false;
        EXPECT_NE(find_path_kernel(per_pixel), nullptr) << int(geometry);
    }
    PathKernelVariant fused_exact;
    fused_exact.fused_slabs = true;
    EXPECT_EQ(find_path_kernel(fused_exact), nullptr);
    // The default spheres kernels for the book's material types (the book's
    // scenes): exact on the binary BVH, fast on the 4-wide one with fused
    // slabs; without lights, and for its estimator alone.
    PathKernelVariant fast_spheres;
    fast_spheres.fast_math = true;
    fast_spheres.geometry = KernelGeometry::Spheres;
    fast_spheres.fused_slabs = true;
    fast_spheres.wide_bvh = true;
    fast_spheres.min_blocks = kRegisterCap64;
    for (PathKernelVariant variant : {capped_exact, fast_spheres}) {
        variant.material_types = kBookMaterialTypes;
        PathKernelVariant naive = variant;
        naive.naive_only = true;
        EXPECT_NE(find_path_kernel(naive), nullptr) << "fast " << variant.fast_math;
        variant.samples_lights = false;
        const PathKernelEntry* entry = find_path_kernel(variant);
        ASSERT_NE(entry, nullptr) << "fast " << variant.fast_math;
        EXPECT_TRUE(entry->variant == variant);
        PathKernelVariant general = variant;
        general.material_types = kAllMaterialTypes;
        general.samples_lights = true;
        EXPECT_NE(find_path_kernel(general), entry);
    }
}

// The GPU's 4-wide BVH (run here on the CPU: the traversal is host/device
// code) finds the binary BVH's hits: same primitive, same t, for random rays
// from inside and outside the scene, over BVHs with leaves of 1 and of 4.
TEST(CudaHost, WideBvhFindsTheBinaryBvhHits) {
    using Traits = TraversalTraits<false, false, kLeafQuorum, true>;
    for (const char* name : {"spheres.yaml", "cornell.yaml", "many_spheres.yaml", "textured.yaml"}) {
        for (const int leaf_size : {1, 4}) {
            TestScene scene = load_test_scene(name, 16, 9, 1);
            BvhBuildOptions options;
            options.max_leaf_size = leaf_size;
            scene.description.scene.build_acceleration(options);
            const SceneView view = scene.description.scene.view();
            std::vector<WideBvhNode> wide;
            ASSERT_TRUE(build_wide_bvh(view.nodes, view.node_count, view.primitives, wide)) << name;
            EXPECT_LE(wide.size(), size_t(view.node_count));
            // Ray origins around random leaves, so that most rays start among the objects.
            std::vector<Aabb> leaves;
            for (uint32_t i = 0; i < view.node_count; ++i) {
                if (view.nodes[i].is_leaf()) leaves.push_back(view.nodes[i].bounds);
            }
            std::mt19937 random(7);
            std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
            size_t differing = 0, hits = 0;
            const int rays = 4000;
            for (int r = 0; r < rays; ++r) {
                const Aabb& leaf = leaves[random() % leaves.size()];
                const Vec3 extent = leaf.upper - leaf.lower;
                const float reach = std::min(1.5f * std::max(extent.x, std::max(extent.y, extent.z)), 50.0f);
                const Vec3 origin = leaf.centroid() + reach * Vec3(unit(random), unit(random), unit(random));
                const Vec3 direction(unit(random), unit(random), unit(random));
                const Ray ray{origin, direction, 0.5f * (unit(random) + 1.0f)};
                Hit binary, wide_hit;
                const bool found_binary = intersect_closest<Traits>(view, ray, kMinHitDistance, binary);
                const bool found_wide =
                    intersect_closest_wide<Traits>(view, wide.data(), ray, kMinHitDistance, wide_hit);
                hits += found_binary;
                const bool same =
                    found_binary == found_wide &&
                    (!found_binary || (binary.t == wide_hit.t && binary.primitive.bits == wide_hit.primitive.bits &&
                                       binary.u == wide_hit.u && binary.v == wide_hit.v));
                differing += !same;
            }
            EXPECT_GT(hits, size_t(rays / 10)) << name;
            // Only near-ties may differ (the visiting order differs); none were seen.
            EXPECT_LE(differing, size_t(rays / 1000)) << name << " leaf size " << leaf_size;
        }
    }
}

}  // namespace
}  // namespace farmrt
