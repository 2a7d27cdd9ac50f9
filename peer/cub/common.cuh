// Shared by the CUB and CUDA peer benchmarks: error check, the input every benchmark uses (a
// hash of the index, as wavekit's `bench::primitives::input`), and the timing loop (CUDA events,
// warm-up by time: at least 200 ms of the case's own load right before it is timed, as wavekit's
// protocol does; then the median and spread of RUNS, one JSON line per case, in a stream and as a
// CUDA graph, the faster quoted; and, where the caller says which words, a fingerprint of the
// output).
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

// The select and partition benchmarks' predicate: about half the inputs are odd.
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

// The times of `runs` calls of f after at least `warm_ms` of its own load (the GPU's clock falls
// when it idles), in milliseconds, sorted (CUDA events).
template <class F>
std::vector<float> timed_ms(int runs, F f, float warm_ms = 200.0f) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
  // Learn the call's cost from a few calls, then keep the GPU busy for warm_ms.
  CHECK(cudaEventRecord(a));
  for (int i = 0; i < 3; i++) f();
  CHECK(cudaEventRecord(b)); CHECK(cudaEventSynchronize(b));
  float probe; CHECK(cudaEventElapsedTime(&probe, a, b));
  long calls = (long)(warm_ms / std::max(probe / 3.0f, 0.001f)) + 1;
  for (long i = 0; i < std::min(calls, 2000000L); i++) f();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < runs; i++) {
    CHECK(cudaEventRecord(a)); f(); CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t; CHECK(cudaEventElapsedTime(&t, a, b)); ms.push_back(t);
  }
  CHECK(cudaEventDestroy(a)); CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms;
}

// The median of sorted times in milliseconds, in nanoseconds.
inline double median_ns(const std::vector<float> &ms) {
  return ms.size() % 2 ? ms[ms.size() / 2] * 1e6 : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) * 0.5e6;
}

// One case, timed two ways, as a user would call it: `f(stream)` launched into the legacy default
// stream, and the same calls captured once into a CUDA graph and launched as one (what a frame
// that repeats its work would do: each launch costs less). median_ns is the faster of the two;
// stream_ns and graph_ns are both. f must launch only into its stream (no host synchronisation,
// no allocation), as CUB's calls with caller-provided scratch do.
// FNV-1a (64-bit) over u32 words: the fingerprint of an output, as wavekit's bench computes
// it (wavekit_bench::primitives::fingerprint), so that the peer is checked to compute the same.
inline uint64_t fingerprint(const std::vector<uint32_t> &words) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t w : words) { h ^= w; h *= 0x100000001b3ull; }
  return h;
}

// n words of device memory, on the host.
inline std::vector<uint32_t> host(const void *dev, size_t n) {
  std::vector<uint32_t> v(n);
  if (n) CHECK(cudaMemcpy(v.data(), dev, n * 4, cudaMemcpyDeviceToHost));
  return v;
}

// One case, timed as below, then `check()` (the words of its output, read after the timed
// runs) fingerprinted into the line as "check" (in the order wavekit_bench's
// reference_words documents).
template <class F, class C>
void bench_checked(const char *name, size_t n, int runs, F f, C check);

template <class F>
void bench(const char *name, size_t n, int runs, F f) {
  bench_checked(name, n, runs, f, [] { return std::vector<uint32_t>(); });
}

template <class F, class C>
void bench_checked(const char *name, size_t n, int runs, F f, C check) {
  std::vector<float> ms = timed_ms(runs, [&] { f((cudaStream_t)0); });
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  f(s);
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  std::vector<float> gms = timed_ms(runs, [&] { CHECK(cudaGraphLaunch(ge, 0)); });
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
  double stream_ns = median_ns(ms), graph_ns = median_ns(gms);
  const std::vector<float> &best = graph_ns < stream_ns ? gms : ms;
  auto q = [&](double p) { return best[(size_t)((best.size() - 1) * p + 0.5)] * 1e6; };
  CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> words = check();
  char fp[48] = "";
  if (!words.empty()) snprintf(fp, sizeof fp, ", \"check\": \"%016llx\"", (unsigned long long)fingerprint(words));
  printf("{\"primitive\": \"%s\", \"n\": %zu, \"median_ns\": %.1f, \"p10_ns\": %.1f, \"p90_ns\": %.1f, "
         "\"stream_ns\": %.1f, \"graph_ns\": %.1f, \"mode\": \"%s\"%s}\n",
         name, n, std::min(stream_ns, graph_ns), q(0.1), q(0.9), stream_ns, graph_ns,
         graph_ns < stream_ns ? "graph" : "stream", fp);
  fflush(stdout);
}
