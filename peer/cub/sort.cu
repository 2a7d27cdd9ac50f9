// CUB peer benchmark for wavekit's sort and histogram (issue 4): DeviceRadixSort::SortKeys and
// SortPairs on u32 (all 32 bits), DeviceHistogram::HistogramEven with 256 and 4096 bins over
// [0, 2^32 - 1) of u32 samples; the same inputs as `wavekit bench primitives --only
// sort_keys,sort_pairs,histogram256,histogram4096` (a hash of the index). CUB sorts from an
// input buffer into an output buffer, so every run sorts the same random keys (wavekit sorts in
// place and restores its input before each run, outside the timed part). The item count is 64-bit
// (CUB's faster path). CUDA events: warm-up by time (200 ms of the case's own load), then the
// median of RUNS, in a stream and as a CUDA graph (common.cuh). Prints one JSON object per line:
// {"primitive", "n", "median_ns", "p10_ns", "p90_ns", "stream_ns", "graph_ns", "mode", "check"}
// (check: the output's fingerprint, common.cuh).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 sort.cu -o cub_sort
// Run:   ./cub_sort [RUNS] [LOG2_N ...]
#include <cub/cub.cuh>
#include "common.cuh"

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 30;
  std::vector<int> logs;
  for (int i = 2; i < argc; i++) logs.push_back(atoi(argv[i]));
  if (logs.empty()) logs = {16, 20, 24, 28};
  for (int lg : logs) {
    size_t n = (size_t)1 << lg;
    uint32_t *keys, *keys_out, *vals, *vals_out, *hist;
    CHECK(cudaMalloc(&keys, n * 4)); CHECK(cudaMalloc(&keys_out, n * 4));
    CHECK(cudaMalloc(&vals, n * 4)); CHECK(cudaMalloc(&vals_out, n * 4));
    CHECK(cudaMalloc(&hist, 4096 * 4));
    fill<<<1024, 256>>>(keys, n, 0x9e3779b9u);
    fill<<<1024, 256>>>(vals, n, 0x9e3779b9u);
    void *tmp = nullptr; size_t tmp_bytes = 0, t;
    // A 64-bit item count: CUB's SortKeys runs faster with it on the H200 (5.42 ms at 2^28
    // against 6.32 ms with an int); the faster CUB is the one quoted.
    int64_t num = (int64_t)n;
    int num_samples = (int)n;
    unsigned lo = 0u, hi = 0xffffffffu;
    cub::DeviceRadixSort::SortKeys(nullptr, t, keys, keys_out, num); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceRadixSort::SortPairs(nullptr, t, keys, keys_out, vals, vals_out, num); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceHistogram::HistogramEven(nullptr, t, keys, (int *)hist, 257, lo, hi, num_samples); tmp_bytes = std::max(tmp_bytes, t);
    cub::DeviceHistogram::HistogramEven(nullptr, t, keys, (int *)hist, 4097, lo, hi, num_samples); tmp_bytes = std::max(tmp_bytes, t);
    CHECK(cudaMalloc(&tmp, tmp_bytes));
    bench_checked("sort_keys", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DeviceRadixSort::SortKeys(tmp, b, keys, keys_out, num, 0, 32, st); },
                  [&] { return host(keys_out, n); });
    bench_checked("sort_pairs", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DeviceRadixSort::SortPairs(tmp, b, keys, keys_out, vals, vals_out, num, 0, 32, st); },
                  [&] { std::vector<uint32_t> w = host(keys_out, n), v = host(vals_out, n); w.insert(w.end(), v.begin(), v.end()); return w; });
    bench_checked("histogram256", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DeviceHistogram::HistogramEven(tmp, b, keys, (int *)hist, 257, lo, hi, num_samples, st); },
                  [&] { return host(hist, 256); });
    bench_checked("histogram4096", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DeviceHistogram::HistogramEven(tmp, b, keys, (int *)hist, 4097, lo, hi, num_samples, st); },
                  [&] { return host(hist, 4096); });
    CHECK(cudaFree(keys)); CHECK(cudaFree(keys_out)); CHECK(cudaFree(vals)); CHECK(cudaFree(vals_out));
    CHECK(cudaFree(hist)); CHECK(cudaFree(tmp));
  }
  return 0;
}
