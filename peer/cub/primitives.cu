// CUB peer benchmark for wavekit's primitives (issue 3): DeviceReduce::Sum,
// DeviceScan::InclusiveSum / ExclusiveSum, DeviceSelect::If and DevicePartition::If on u32,
// the same inputs as `wavekit bench primitives` (random u32; the predicate keeps odd values,
// about half). Times with CUDA events: 5 warm-up runs, then the median of RUNS.
// Prints one JSON object per line: {"primitive", "n", "median_ns", "p10_ns", "p90_ns"}.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 primitives.cu -o cub_primitives
// Run:   ./cub_primitives [RUNS] [LOG2_N ...]
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct IsOdd {
  __host__ __device__ bool operator()(const uint32_t &x) const { return (x & 1u) != 0u; }
};

__global__ void fill(uint32_t *p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t x = (uint32_t)i * 2654435761u ^ seed;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    p[i] = x;
  }
}

template <class F>
void bench(const char *name, size_t n, int runs, F f) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 5; i++) f();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < runs; i++) {
    CHECK(cudaEventRecord(a)); f(); CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t; CHECK(cudaEventElapsedTime(&t, a, b)); ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  auto q = [&](double p) { return ms[(size_t)((ms.size() - 1) * p + 0.5)] * 1e6; };
  double med = ms.size() % 2 ? ms[ms.size() / 2] * 1e6 : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) * 0.5e6;
  printf("{\"primitive\": \"%s\", \"n\": %zu, \"median_ns\": %.1f, \"p10_ns\": %.1f, \"p90_ns\": %.1f}\n",
         name, n, med, q(0.1), q(0.9));
  fflush(stdout);
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 50;
  std::vector<int> logs;
  for (int i = 2; i < argc; i++) logs.push_back(atoi(argv[i]));
  if (logs.empty()) logs = {16, 20, 24, 28};
  for (int lg : logs) {
    size_t n = (size_t)1 << lg;
    uint32_t *in, *out, *count;
    CHECK(cudaMalloc(&in, n * 4)); CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMalloc(&count, 4));
    fill<<<1024, 256>>>(in, n, 0x9e3779b9u);
    void *tmp = nullptr; size_t tmp_bytes = 0, t;
    // One scratch allocation large enough for every algorithm.
    cub::DeviceReduce::Sum(nullptr, t, in, out, (int)n); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceScan::InclusiveSum(nullptr, t, in, out, (int)n); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceScan::ExclusiveSum(nullptr, t, in, out, (int)n); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceSelect::If(nullptr, t, in, out, count, (int)n, IsOdd()); tmp_bytes = std::max(tmp_bytes, t);
    cub::DevicePartition::If(nullptr, t, in, out, count, (int)n, IsOdd()); tmp_bytes = std::max(tmp_bytes, t);
    CHECK(cudaMalloc(&tmp, tmp_bytes));
    bench("reduce", n, runs, [&] { size_t b = tmp_bytes; cub::DeviceReduce::Sum(tmp, b, in, out, (int)n); });
    bench("scan_inclusive", n, runs, [&] { size_t b = tmp_bytes; cub::DeviceScan::InclusiveSum(tmp, b, in, out, (int)n); });
    bench("scan_exclusive", n, runs, [&] { size_t b = tmp_bytes; cub::DeviceScan::ExclusiveSum(tmp, b, in, out, (int)n); });
    bench("select", n, runs, [&] { size_t b = tmp_bytes; cub::DeviceSelect::If(tmp, b, in, out, count, (int)n, IsOdd()); });
    bench("partition", n, runs, [&] { size_t b = tmp_bytes; cub::DevicePartition::If(tmp, b, in, out, count, (int)n, IsOdd()); });
    CHECK(cudaFree(in)); CHECK(cudaFree(out)); CHECK(cudaFree(count)); CHECK(cudaFree(tmp));
  }
  return 0;
}
