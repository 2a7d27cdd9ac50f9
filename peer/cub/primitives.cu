// CUB peer benchmark for wavekit's primitives (issue 3): DeviceReduce::Sum,
// DeviceScan::InclusiveSum / ExclusiveSum, DeviceSelect::If and DevicePartition::If on u32,
// the same inputs as `wavekit bench primitives` (random u32; the predicate keeps odd values,
// about half). Times with CUDA events: at least 200 ms of warm-up (common.cuh), then the median of RUNS.
// Prints one JSON object per line: {"primitive", "n", "median_ns", "p10_ns", "p90_ns",
// "stream_ns", "graph_ns", "mode", "check"} (median_ns: the faster of a stream launch and a CUDA
// graph; check: the output's fingerprint, common.cuh).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 primitives.cu -o cub_primitives
// Run:   ./cub_primitives [RUNS] [LOG2_N ...]
#include <cub/cub.cuh>
#include "common.cuh"

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
    bench_checked("reduce", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DeviceReduce::Sum(tmp, b, in, out, (int)n, st); },
                  [&] { return host(out, 1); });
    bench_checked("scan_inclusive", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DeviceScan::InclusiveSum(tmp, b, in, out, (int)n, st); },
                  [&] { return host(out, n); });
    bench_checked("scan_exclusive", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DeviceScan::ExclusiveSum(tmp, b, in, out, (int)n, st); },
                  [&] { return host(out, n); });
    // Select: the count, then the kept values. Partition: the count, the kept values, then the
    // others, which CUB writes from the end backwards: put back in input order first.
    auto counted = [&](bool all) {
      uint32_t c = host(count, 1)[0];
      std::vector<uint32_t> o = host(out, n), w{c};
      w.insert(w.end(), o.begin(), o.begin() + c);
      if (all) w.insert(w.end(), o.rbegin(), o.rbegin() + (n - c));
      return w;
    };
    bench_checked("select", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DeviceSelect::If(tmp, b, in, out, count, (int)n, IsOdd(), st); },
                  [&] { return counted(false); });
    bench_checked("partition", n, runs, [&](cudaStream_t st) { size_t b = tmp_bytes; cub::DevicePartition::If(tmp, b, in, out, count, (int)n, IsOdd(), st); },
                  [&] { return counted(true); });
    CHECK(cudaFree(in)); CHECK(cudaFree(out)); CHECK(cudaFree(count)); CHECK(cudaFree(tmp));
  }
  return 0;
}
