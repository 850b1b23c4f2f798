// The path kernel without fused multiply-add (compiled with -fmad=false):
// every operation rounds as on the CPU, so GPU sums equal CPU sums bit for bit.
#define FARMRT_PATH_KERNEL_VARIANT path_kernel_exact
#include "path_kernel.cuh"

namespace farmrt {

const PathKernelEntry* path_kernel_exact_entries(size_t& count) {
    using namespace path_kernel_exact;
    static const PathKernelEntry entries[] = {
        entry<KernelGeometry::General, kLeafQuorum, false>(false),
        entry<KernelGeometry::NoInstances, kLeafQuorum, false>(false),
        entry<KernelGeometry::Spheres, kLeafQuorum, false>(false),
    };
    count = sizeof(entries) / sizeof(entries[0]);
    return entries;
}

}  // namespace farmrt
