// CUB peer for `wavekit bench primitives --only chain4`: what a frame does, four primitives in a
// row on the same 2^LOG2 u32 (issue 31): DeviceSelect::If keeps the odd inputs (about half) into
// y; DeviceRadixSort::SortPairs sorts y (all n slots: the count stays on the device, as a frame's
// would) with the inputs as values; DeviceScan::InclusiveSum scans the sorted keys; and
// DeviceHistogram::HistogramEven counts the scan into 256 bins over [0, 2^32 - 1). The same work
// as wavekit's case. Timed in one stream and as one CUDA graph (common.cuh), the faster quoted.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 chain4.cu -o cub_chain4
// Run:   ./cub_chain4 [RUNS] [LOG2_N ...]
#include <cub/cub.cuh>
#include "common.cuh"

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 50;
  std::vector<int> logs;
  for (int i = 2; i < argc; i++) logs.push_back(atoi(argv[i]));
  if (logs.empty()) logs = {20};
  for (int lg : logs) {
    size_t n = (size_t)1 << lg;
    uint32_t *x, *y, *keys, *vals, *z, *count, *hist;
    CHECK(cudaMalloc(&x, n * 4)); CHECK(cudaMalloc(&y, n * 4)); CHECK(cudaMalloc(&keys, n * 4));
    CHECK(cudaMalloc(&vals, n * 4)); CHECK(cudaMalloc(&z, n * 4)); CHECK(cudaMalloc(&count, 4));
    CHECK(cudaMalloc(&hist, 256 * 4));
    fill<<<1024, 256>>>(x, n, 0x9e3779b9u);
    CHECK(cudaMemset(y, 0, n * 4));
    int64_t num = (int64_t)n;
    unsigned lo = 0u, hi = 0xffffffffu;
    size_t t, tmp_bytes = 0;
    cub::DeviceSelect::If(nullptr, t, x, y, count, (int)n, IsOdd()); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceRadixSort::SortPairs(nullptr, t, y, keys, x, vals, num); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceScan::InclusiveSum(nullptr, t, keys, z, (int)n); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceHistogram::HistogramEven(nullptr, t, z, (int *)hist, 257, lo, hi, (int)n); tmp_bytes = std::max(tmp_bytes, t);
    void *tmp;
    CHECK(cudaMalloc(&tmp, tmp_bytes));
    bench("chain4", n, runs, [&](cudaStream_t st) {
      size_t b = tmp_bytes;
      cub::DeviceSelect::If(tmp, b, x, y, count, (int)n, IsOdd(), st);
      b = tmp_bytes;
      cub::DeviceRadixSort::SortPairs(tmp, b, y, keys, x, vals, num, 0, 32, st);
      b = tmp_bytes;
      cub::DeviceScan::InclusiveSum(tmp, b, keys, z, (int)n, st);
      b = tmp_bytes;
      cub::DeviceHistogram::HistogramEven(tmp, b, z, (int *)hist, 257, lo, hi, (int)n, st);
    });
    CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(keys)); CHECK(cudaFree(vals));
    CHECK(cudaFree(z)); CHECK(cudaFree(count)); CHECK(cudaFree(hist)); CHECK(cudaFree(tmp));
  }
  return 0;
}
