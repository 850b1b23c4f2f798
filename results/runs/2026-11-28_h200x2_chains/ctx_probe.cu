// Host memory a CUDA context costs: resident set after contexts on 0..N devices.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
static long status_kb(const char* key) {
    FILE* f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) sscanf(line + strlen(key), "%ld", &v);
    fclose(f);
    return v;
}
__global__ void touch(int* p) {
    if (p) *p = 1;
}
int main(int argc, char** argv) {
    int n = 0;
    cudaGetDeviceCount(&n);
    bool launch = argc > 1;
    printf("devices %d launch %d: before rss %ld kB\n", n, launch, status_kb("VmRSS:"));
    for (int d = 0; d < n; ++d) {
        cudaSetDevice(d);
        cudaFree(0);
        if (launch) {
            touch<<<1, 1>>>(nullptr);
            cudaDeviceSynchronize();
        }
        printf("after context %d: rss %ld kB hwm %ld kB\n", d, status_kb("VmRSS:"), status_kb("VmHWM:"));
    }
}
