// Kernel variants for measurements only (-DFARMRT_CUDA_EXPERIMENTS=ON; the
// benchmark's --quorum and --min-blocks): other leaf quorums and register
// caps, compiled with the fast kernel's flags. Without the option the table
// is empty.
#define FARMRT_PATH_KERNEL_VARIANT path_kernel_experiments
#include "cuda/path_kernel.cuh"

namespace farmrt {

const PathKernelEntry* path_kernel_experiment_entries(size_t& count) {
#if defined(FARMRT_CUDA_EXPERIMENTS)
    using namespace path_kernel_experiments;
    static const PathKernelEntry entries[] = {
        entry<KernelGeometry::Spheres, 1, true>(true),
        entry<KernelGeometry::Spheres, 16, true>(true),
        entry<KernelGeometry::Spheres, 32, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, 8>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, 9>(true),
        entry<KernelGeometry::Spheres, 1, false>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, 7, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, 8, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, 9, true>(true),
        entry<KernelGeometry::Spheres, kLeafQuorum, true, 10, true>(true),
    };
    count = sizeof(entries) / sizeof(entries[0]);
    return entries;
#else
    count = 0;
    return nullptr;
#endif
}

}  // namespace farmrt
