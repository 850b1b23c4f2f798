// Switches for measuring alternatives on real machines (scripts/bench/ sets
// them); none changes an image's bytes. They are read once, from FARMRT_*
// environment variables, by the command layer (read_tuning), checked there
// (an unknown value is one error naming the variable), and handed down typed:
// to the backends in RendererOptions, to rank 0's dealer in CommandLine.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace farmrt {

struct CpuTuning {
    enum class Traversal { Auto, Wide, Scalar };
    // FARMRT_SIMD_TRAVERSAL=auto|wide|scalar: the SIMD levels' closest-hit
    // query (auto: the wide BVH where the scene has enough primitives).
    Traversal traversal = Traversal::Auto;
    // FARMRT_SIMD_COLLAPSE=sah|largest_area: how the wide BVH is collapsed
    // (largest_area: the earlier rule, for comparisons).
    bool largest_area_collapse = false;
    // FARMRT_CPU_TAIL_SPLIT=1|0: the last tiles of a band split among idle threads.
    bool tail_split = true;
};

struct GpuTuning {
    std::optional<bool> sample_items;  // FARMRT_CUDA_ITEMS=samples|pixels
    std::optional<int> chunk_samples;  // FARMRT_CUDA_CHUNK_SAMPLES=N (1-1024)
    // FARMRT_CUDA_LOOKAHEAD=P (0-400): with adaptive sampling, how far a launch
    // traces past the pixels' next decision, in percent of the samples the
    // band has already positioned (0: every launch ends at a decision).
    std::optional<int> adaptive_lookahead;
    // FARMRT_CUDA_ADAPTIVE_FILL=P (0-1000): with adaptive sampling on the
    // split kernels, a launch looks further past decisions while the pixels
    // still sampling times its samples stay within P percent of the pool of
    // paths (0: the lookahead alone).
    std::optional<int> adaptive_fill;
    std::optional<bool> exact_wide_bvh;         // FARMRT_CUDA_EXACT_WIDE=0|1
    std::optional<bool> exact_gpu_leaves;       // FARMRT_CUDA_EXACT_LEAVES=0|1
    std::optional<bool> triangle_corners;       // FARMRT_CUDA_TRIANGLE_CORNERS=0|1
    std::optional<int> gpu_leaf_size;           // FARMRT_CUDA_LEAF_SIZE=N (0-16; 0: the scene's BVH)
    std::optional<bool> split_leaves;           // FARMRT_CUDA_GPU_BVH=rebuild|split
    std::optional<bool> warp_fetch;             // FARMRT_CUDA_WARP_FETCH=0|1
    std::optional<size_t> sample_buffer_bytes;  // FARMRT_CUDA_SAMPLE_BUFFER_MIB=N (1-65536)
    // FARMRT_CUDA_INTEGRATOR=auto|megakernel|split: the GPU's path tracer
    // (auto: the one measured faster for the frame's kind).
    enum class Integrator { Auto, Megakernel, Split };
    std::optional<Integrator> integrator;
    std::optional<int> split_paths;  // FARMRT_CUDA_PATHS=N (1024-67108864): the split kernels' pool
    // FARMRT_CUDA_SPLIT_BAND_POOLS=K (0-64): the shortest band the farm deals
    // a GPU whose frames run the split kernels, in pools of paths (0: its
    // resident threads, as for the megakernel).
    std::optional<int> split_band_pools;
    // FARMRT_CUDA_QUEUE_FETCH=N (0-64): how the split kernels' intersect and
    // shadow warps share their queues (0: a fixed share each; N: N * 32
    // entries at a time from a counter).
    std::optional<int> queue_fetch;
    // FARMRT_CUDA_SPLIT_STREAMS=N (1-8): the split kernels' paths in N pools,
    // each traced on a stream of its own.
    std::optional<int> split_streams;
    // FARMRT_CUDA_SHADING=auto|all|scene|sorted: the split kernels' shading
    // (all: one kernel for every material type; scene: one for the scene's
    // types; sorted: a queue and a kernel per surface type; auto: the one
    // measured faster for the scene's types).
    enum class Shading { Auto, AllTypes, SceneTypes, Sorted };
    std::optional<Shading> shading;
    std::optional<int> bands_in_flight;  // FARMRT_CUDA_BANDS=N (1-8): bands submitted to a GPU at once
    std::optional<int> block_size;       // FARMRT_CUDA_BLOCK=N (32-1024, a multiple of 32): threads a block
    // FARMRT_CUDA_GRID_DIVISOR=N (1-8): a megakernel launch takes 1/N of the
    // blocks that fit on the device, so that bands in flight share it and a
    // queued band starts on the blocks of one ending.
    std::optional<int> grid_divisor;
};

struct DealerTuning {
    std::optional<bool> measured_weights;     // FARMRT_FARM_WEIGHTS=pooled|measured
    std::optional<int> tail_samples;          // FARMRT_FARM_TAIL=N (0: no tail round)
    std::optional<double> band_divisor;       // FARMRT_FARM_BAND_DIVISOR=D (>= 1)
    std::optional<double> min_band_seconds;   // FARMRT_FARM_MIN_BAND_MS=M (0-10000): a GPU's shortest band
    std::optional<bool> endgame_every_round;  // FARMRT_FARM_ENDGAME=every|last
};

struct Tuning {
    CpuTuning cpu;
    GpuTuning gpu;
    DealerTuning dealer;
};

// The value of an environment variable, or null.
using EnvironmentLookup = std::function<const char*(const char* name)>;
// Throws InputError naming the variable and its value when one is not valid.
Tuning read_tuning(const EnvironmentLookup& lookup);
Tuning read_tuning();  // from this process's environment

}  // namespace farmrt
