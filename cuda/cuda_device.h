// Which GPU a rank uses, and CUDA error checking that turns every failure into
// one RenderError line (the job's error path, or under MPI the job's abort).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace farmrt {

// The process's rank among the ranks on its node, from the launcher's
// environment (Open MPI, Slurm, MPICH/Hydra); 0 when there is none.
int node_local_rank();

// GPUs this process can see (CUDA_VISIBLE_DEVICES applies); 0 when there is no
// driver or no device. `problem`, when given, receives why there are none.
int visible_gpu_count(std::string* problem = nullptr);

// "cuda:0 NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"
std::string gpu_description(int device);

// Throws RenderError "CUDA error while <what> on cuda:<device>: <message> (<code name>)".
void throw_cuda_error(cudaError_t error, const char* what, int device);

// cudaMalloc of `bytes`; out of memory throws RenderError "out of GPU memory
// on cuda:<device>: <need> <MiB> MiB<hint>" (`need` says what needs it, verb
// included), any other failure as check_cuda.
void* allocate_device_memory(size_t bytes, int device, const std::string& need, const char* hint = "");

inline void check_cuda(cudaError_t error, const char* what, int device) {
    if (error != cudaSuccess) throw_cuda_error(error, what, device);
}

}  // namespace farmrt
