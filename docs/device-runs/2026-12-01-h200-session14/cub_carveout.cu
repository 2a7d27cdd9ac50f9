// Session 14 (measurement only): CUB's radix sort with its Onesweep kernels held to a smaller
// shared-memory carveout, so that an SM holds one of their blocks instead of two, as Vulkan's
// 48 KiB a SM would (call 1: NVIDIA's Vulkan driver gives compute 48 KiB of workgroup memory an
// SM; CUB's Onesweep blocks take 31.7 + 1 KB each). Prints the blocks an SM the occupancy API
// reports for each kernel and carveout, then the sorts' times as sort.cu does.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I../../../peer/cub cub_carveout.cu -o cc
// Run:   ./cc RUNS LOG2_N CARVEOUT_PERCENT
#include <cub/cub.cuh>
#include "common.cuh"

template <class V>
const void *onesweep() {
  using Hub = cub::detail::radix::policy_hub<unsigned, V, unsigned>;
  return (const void *)&cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<
      typename Hub::Policy1000, cub::SortOrder::Ascending, unsigned, V, unsigned, int, int,
      cub::detail::identity_decomposer_t>;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 10;
  int lg = argc > 2 ? atoi(argv[2]) : 28;
  int carveout = argc > 3 ? atoi(argv[3]) : -1;
  const void *k[2] = {onesweep<cub::NullType>(), onesweep<unsigned>()};
  for (int i = 0; i < 2; i++) {
    if (carveout >= 0)
      CHECK(cudaFuncSetAttribute(k[i], cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k[i], 384, 0));
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, k[i]));
    fprintf(stderr, "%s: carveout %d%%, %d regs, %zu B shared, %d blocks of 384 an SM\n",
            i ? "pairs" : "keys", carveout, a.numRegs, a.sharedSizeBytes, blocks);
  }
  size_t n = (size_t)1 << lg;
  uint32_t *keys, *keys_out, *vals, *vals_out;
  CHECK(cudaMalloc(&keys, n * 4)); CHECK(cudaMalloc(&keys_out, n * 4));
  CHECK(cudaMalloc(&vals, n * 4)); CHECK(cudaMalloc(&vals_out, n * 4));
  fill<<<1024, 256>>>(keys, n, 0x9e3779b9u);
  fill<<<1024, 256>>>(vals, n, 0x9e3779b9u);
  void *tmp = nullptr; size_t tmp_bytes = 0, t;
  int num = (int)n;
  cub::DeviceRadixSort::SortKeys(nullptr, t, keys, keys_out, num); tmp_bytes = std::max(tmp_bytes, t);
  cub::DeviceRadixSort::SortPairs(nullptr, t, keys, keys_out, vals, vals_out, num); tmp_bytes = std::max(tmp_bytes, t);
  CHECK(cudaMalloc(&tmp, tmp_bytes));
  bench("sort_keys", n, runs, [&] { size_t b = tmp_bytes; cub::DeviceRadixSort::SortKeys(tmp, b, keys, keys_out, num); });
  bench("sort_pairs", n, runs, [&] { size_t b = tmp_bytes; cub::DeviceRadixSort::SortPairs(tmp, b, keys, keys_out, vals, vals_out, num); });
  return 0;
}
