// CUDA peer for `wavekit bench copy`: device-to-device copies of BYTES bytes, by
// cudaMemcpyAsync and by a grid-stride 16-byte copy kernel (as wavekit's copy kernel), timed
// with CUDA events: 5 warm-up runs, then the median of RUNS (common.cuh). Prints one JSON object per line:
// {"primitive": "memcpy" | "copy_kernel", "n": BYTES, "median_ns", "gbps"} (read + write).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I../cub copy.cu -o copy
// Run:   ./copy [RUNS] [BYTES ...]
#include "common.cuh"

__global__ void copy16(const uint4 *src, uint4 *dst, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 50;
  std::vector<size_t> sizes;
  for (int i = 2; i < argc; i++) sizes.push_back(strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {33177600, (size_t)1 << 30};
  for (size_t bytes : sizes) {
    bytes = (bytes + 15) / 16 * 16;
    void *src, *dst;
    CHECK(cudaMalloc(&src, bytes)); CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaMemset(src, 1, bytes));
    double t = median_ns(timed_ms(runs, [&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); }));
    printf("{\"primitive\": \"memcpy\", \"n\": %zu, \"median_ns\": %.1f, \"gbps\": %.1f}\n", bytes, t, 2.0 * bytes / t);
    size_t n = bytes / 16;
    int blocks = (int)std::min<size_t>((n + 255) / 256, 132 * 16);
    t = median_ns(timed_ms(runs, [&] { copy16<<<blocks, 256>>>((const uint4 *)src, (uint4 *)dst, n); }));
    printf("{\"primitive\": \"copy_kernel\", \"n\": %zu, \"median_ns\": %.1f, \"gbps\": %.1f}\n", bytes, t, 2.0 * bytes / t);
    fflush(stdout);
    CHECK(cudaFree(src)); CHECK(cudaFree(dst));
  }
  return 0;
}
