#include "cuda/cuda_device.h"

#include <cstdlib>

#include "core/errors.h"

namespace farmrt {
namespace {

bool parse_nonnegative(const char* text, int& value) {
    if (!text || !*text) return false;
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (*end != '\0' || v < 0 || v > 1 << 20) return false;
    value = int(v);
    return true;
}

}  // namespace

int node_local_rank() {
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "PMI_LOCAL_RANK"}) {
        int rank = 0;
        if (parse_nonnegative(std::getenv(name), rank)) return rank;
    }
    return 0;
}

int visible_gpu_count(std::string* problem) {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        (void)cudaGetLastError();  // not sticky, but keep later checks clean
        if (problem) *problem = std::string(cudaGetErrorString(error)) + " (" + cudaGetErrorName(error) + ")";
        return 0;
    }
    if (count == 0 && problem) *problem = "no CUDA device is visible";
    return count;
}

std::string gpu_description(int device) {
    cudaDeviceProp properties{};
    check_cuda(cudaGetDeviceProperties(&properties, device), "reading device properties", device);
    return "cuda:" + std::to_string(device) + " " + properties.name + " (sm_" + std::to_string(properties.major) +
           std::to_string(properties.minor) + ", " + std::to_string(properties.multiProcessorCount) + " SMs)";
}

void throw_cuda_error(cudaError_t error, const char* what, int device) {
    (void)cudaGetLastError();
    throw RenderError(std::string("CUDA error while ") + what + " on cuda:" + std::to_string(device) + ": " +
                      cudaGetErrorString(error) + " (" + cudaGetErrorName(error) + ")");
}

void* allocate_device_memory(size_t bytes, int device, const std::string& need, const char* hint) {
    void* pointer = nullptr;
    const cudaError_t error = cudaMalloc(&pointer, bytes);
    if (error == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw RenderError("out of GPU memory on cuda:" + std::to_string(device) + ": " + need + " " +
                          std::to_string(bytes >> 20) + " MiB" + hint);
    }
    check_cuda(error, "allocating device memory", device);
    return pointer;
}

}  // namespace farmrt
