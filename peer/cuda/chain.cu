// CUDA peer for `wavekit bench chain`: the time of 0 to N dependent launches of a trivial
// kernel (each invocation steps its word of a buffer with the same linear congruential
// generator), in one stream and as one CUDA graph, for each launch size. CUDA events: 5 warm-up
// runs, then the median of RUNS (common.cuh). Prints one JSON object per line:
// {"primitive": "chain_stream" | "chain_graph", "n": WORKGROUPS, "dispatches": D, "median_ns"}
// (no graph line for 0 launches).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I../cub chain.cu -o chain
// Run:   ./chain [RUNS] [MAX_DISPATCHES] [WORKGROUPS ...]
#include "common.cuh"

__global__ void step(uint32_t *data, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 1664525u + 1013904223u;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 50;
  int max_d = argc > 2 ? atoi(argv[2]) : 8;
  std::vector<int> sizes;
  for (int i = 3; i < argc; i++) sizes.push_back(atoi(argv[i]));
  if (sizes.empty()) sizes = {1, 132, 1056, 8448};
  for (int w : sizes) {
    size_t n = (size_t)w * 256;
    uint32_t *data;
    CHECK(cudaMalloc(&data, n * 4));
    CHECK(cudaMemset(data, 0, n * 4));
    for (int d = 0; d <= max_d; d++) {
      double t = median_ns(timed_ms(runs, [&] { for (int k = 0; k < d; k++) step<<<w, 256>>>(data, n); }));
      printf("{\"primitive\": \"chain_stream\", \"n\": %d, \"dispatches\": %d, \"median_ns\": %.1f}\n", w, d, t);
      if (d == 0) continue;
      cudaGraph_t g;
      cudaGraphExec_t ge;
      cudaStream_t s;
      CHECK(cudaStreamCreate(&s));
      CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      for (int k = 0; k < d; k++) step<<<w, 256, 0, s>>>(data, n);
      CHECK(cudaStreamEndCapture(s, &g));
      CHECK(cudaGraphInstantiate(&ge, g, 0));
      t = median_ns(timed_ms(runs, [&] { CHECK(cudaGraphLaunch(ge, 0)); }));
      printf("{\"primitive\": \"chain_graph\", \"n\": %d, \"dispatches\": %d, \"median_ns\": %.1f}\n", w, d, t);
      fflush(stdout);
      CHECK(cudaGraphExecDestroy(ge));
      CHECK(cudaGraphDestroy(g));
      CHECK(cudaStreamDestroy(s));
    }
    CHECK(cudaFree(data));
  }
  return 0;
}
