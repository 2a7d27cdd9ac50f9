// Session 13, calls 7 to 10 (8 added CUB's other warp ranking, atomicOr masks; 9 the same with
// block barriers, in blocks of 256 and of one warp; 10 four blocks an SM): what does ranking 2^28 keys by their 8-bit digit cost on the H200 in CUDA,
// with the scatter's algorithm (a validity ballot and eight digit-bit ballots a key, the lowest
// lane of each digit group adds the group to its warp's counter in shared memory, one shuffle)
// and with __match_any_sync? Keys are made from their index (no memory traffic); each thread
// ranks 16 keys in 16 warp-wide steps and writes one checksum, so nothing is optimised away.
// Occupancy: natural, and forced to two blocks of 256 an SM (the WGSL scatter's) with padding
// in dynamic shared memory (reserved at launch, never touched). Measurement only; not a peer benchmark.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

constexpr int ITEMS = 16;

__device__ __forceinline__ uint32_t hash(uint32_t x) {
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16; return x;
}

// MODE 0: no ranking, 1: ballots, 2: match_any, 3: atomicOr masks + __syncwarp, 4: atomicOr
// masks + __syncthreads (what WGSL's workgroupBarrier gives; with WG = 32, one warp a block).
template <int MODE, int WG>
__global__ void __launch_bounds__(WG) rank(uint32_t n, uint32_t shift, uint32_t* out) {
    constexpr int WARPS = WG / 32;
    __shared__ uint32_t counts[WARPS * 256];
    __shared__ uint32_t masks[MODE >= 3 ? WARPS * 256 : 1];
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < WARPS * 256; i += WG) counts[i] = 0;
    if (MODE >= 3) for (int i = threadIdx.x; i < WARPS * 256; i += WG) masks[i] = 0;
    __syncthreads();
    const uint32_t below = (1u << lane) - 1u;
    uint32_t acc = 0;
    const uint32_t base = blockIdx.x * (WG * ITEMS) + warp * (ITEMS * 32) + lane;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const uint32_t i = base + k * 32;
        const bool valid = i < n;
        const uint32_t d = (hash(i) >> shift) & 0xffu;
        uint32_t same;
        if (MODE == 0) {
            acc += d;
            continue;
        } else if (MODE == 1) {
            same = __ballot_sync(0xffffffffu, valid);
#pragma unroll
            for (int b = 0; b < 8; b++) {
                const bool bit = (d >> b) & 1u;
                const uint32_t ones = __ballot_sync(0xffffffffu, bit);
                same &= bit ? ones : ~ones;
            }
        } else if (MODE == 2) {
            same = __match_any_sync(0xffffffffu, valid ? d : 0x100u);
            if (!valid) same = 0;
        } else {
            // Each lane sets its bit in its digit's mask (a table per warp), the warp meets,
            // reads the mask, meets again, and each group's lowest lane clears it.
            if (valid) atomicOr(&masks[warp * 256 + d], 1u << lane);
            if (MODE == 3) __syncwarp(); else __syncthreads();
            same = valid ? masks[warp * 256 + d] : 0u;
            if (MODE == 3) __syncwarp(); else __syncthreads();
            if (valid && lane == (uint32_t)(__ffs(same) - 1)) masks[warp * 256 + d] = 0;
            if (MODE == 3) __syncwarp(); else __syncthreads();
        }
        const int leader = __ffs(same) - 1;
        const uint32_t count = __popc(same);
        const uint32_t lower = __popc(same & below);
        uint32_t old = 0;
        if (valid && (int)lane == leader) old = atomicAdd(&counts[warp * 256 + d], count);
        const uint32_t b0 = __shfl_sync(0xffffffffu, old, max(leader, 0));
        acc += b0 + lower;
    }
    if (MODE != 0) __syncthreads();
    out[blockIdx.x * WG + threadIdx.x] = acc;
}

template <int MODE, int WG>
float time_it(uint32_t n, uint32_t* out, int pad_bytes, int runs, int* regs) {
    const uint32_t blocks = (n + WG * ITEMS - 1) / (WG * ITEMS);
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, rank<MODE, WG>);
    *regs = attr.numRegs;
    cudaFuncSetAttribute(rank<MODE, WG>, cudaFuncAttributeMaxDynamicSharedMemorySize, pad_bytes);
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < runs + 3; r++) {
        cudaEventRecord(a);
        rank<MODE, WG><<<blocks, WG, pad_bytes>>>(n, (r % 4) * 8, out);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        if (r >= 3) t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); }
    return t[t.size() / 2];
}

template <int MODE, int WG>
void report(const char* name, uint32_t n, uint32_t* out) {
    int regs = 0;
    // Two blocks of 256 an SM: a block takes its static shared memory plus 100 KB of padding.
    const float nat = time_it<MODE, WG>(n, out, 0, 20, &regs);
    const float two = WG == 256 ? time_it<MODE, WG>(n, out, 100 * 1024, 20, &regs) : 0.0f;
    const float four = WG == 256 ? time_it<MODE, WG>(n, out, 48 * 1024, 20, &regs) : 0.0f;
    printf("%-34s block %3d registers %3d  natural occupancy %8.1f us   two blocks an SM %8.1f us   four %8.1f us  (2^28 keys, one pass)\n",
           name, WG, regs, nat, two, four);
}

int main() {
    const uint32_t n = 1u << 28;
    uint32_t* out;
    cudaMalloc(&out, (size_t)n / ITEMS * 4 + 4096);
    report<0, 256>("no ranking", n, out);
    report<1, 256>("ballots (8 + 1 a key)", n, out);
    report<2, 256>("__match_any_sync", n, out);
    report<3, 256>("atomicOr + __syncwarp", n, out);
    report<4, 256>("atomicOr + __syncthreads", n, out);
    report<4, 32>("atomicOr + __syncthreads", n, out);
    report<1, 32>("ballots (8 + 1 a key)", n, out);
    return 0;
}
