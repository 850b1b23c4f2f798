// The path kernel with fused multiply-add and approximate division and square
// root (-fmad=true -prec-div=false -prec-sqrt=false -ftz=true): faster, and
// statistically (not bitwise) equal to the CPU tracer.
#define FARMRT_PATH_KERNEL_VARIANT path_kernel_fast
#include "cuda/path_kernel.cuh"
#include "cuda/wavefront.cuh"

namespace farmrt {

const PathKernelEntry* path_kernel_fast_entries(size_t& count) {
    using namespace path_kernel_fast;
    constexpr MaterialTypes kBook = kBookMaterialTypes;
    static const PathKernelEntry entries[] = {
        entry<KernelGeometry::General, kLeafQuorum, false>(true),
        entry<KernelGeometry::NoInstances, kLeafQuorum, false>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, false>(true),
        entry<KernelGeometry::General, kLeafQuorum, true>(true),
        entry<KernelGeometry::NoInstances, kLeafQuorum, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true>(true),
        // The 4-wide BVH (scenes without instances), capped at 64 registers
        // (8 blocks of 128 per multiprocessor instead of 6 at 76 registers:
        // +3% on spheres.yaml), and without the cap for comparison.
        entry<KernelGeometry::NoInstances, kLeafQuorum, true, kRegisterCap64, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, kRegisterCap64, true>(true),
        entry<KernelGeometry::NoInstances, kLeafQuorum, false, kRegisterCap64, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, false, kRegisterCap64, true>(true),
        entry<KernelGeometry::NoInstances, kLeafQuorum, true, 0, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, 0, true>(true),
        // Per-pixel work items (CudaOptions::sample_items = false), for comparison.
        entry<KernelGeometry::Spheres, kLeafQuorum, true, kRegisterCap64, true, false>(true),
        // The book's estimator alone (PathKernelVariant::naive_only), for the default options.
        entry<KernelGeometry::General, kLeafQuorum, true, 0, false, true, true>(true),
        entry<KernelGeometry::NoInstances, kLeafQuorum, true, kRegisterCap64, true, true, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, kRegisterCap64, true, true, true>(true),
        // Scenes of spheres of the book's material types (as for exact math).
        entry<KernelGeometry::Spheres, kLeafQuorum, true, kRegisterCap64, true, true, false, kBook, false>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, kRegisterCap64, true, true, true, kBook>(true),
    };
    count = sizeof(entries) / sizeof(entries[0]);
    return entries;
}

// The split kernels for the fast path kernel's default options (fused slabs;
// the 4-wide BVH where the scene has no instances and its BVH fits).
const WavefrontEntry* wavefront_fast_entries(size_t& count) {
    using namespace path_kernel_fast;
    static const WavefrontEntry entries[] = {
        wavefront_entry<KernelGeometry::General, false, true>(true),
        wavefront_entry<KernelGeometry::NoInstances, true, true>(true),
        wavefront_entry<KernelGeometry::Spheres, true, true>(true),
        wavefront_entry<KernelGeometry::NoInstances, false, true>(true),
        wavefront_entry<KernelGeometry::Spheres, false, true>(true),
    };
    count = sizeof(entries) / sizeof(entries[0]);
    return entries;
}

}  // namespace farmrt
