/* The online filter. Newly reached vertices go, warp-aggregated, into the recording warp's bin in shared
 * memory (SX_BIN entries; one shared atomic per warp and ballot). At the end of a recording phase each
 * warp writes its bin out to the next worklist with one global atomic (sx_bin_close). A full bin's extra
 * vertices go straight to the worklist, warp-aggregated. Past the worklist's capacity the overflow flag is
 * raised (once per warp, and not at all once it is up) and the ballot filter takes this iteration. With
 * no capacity (ballot policy, `Every` programs) nothing is recorded: the scan finds the reached vertices
 * by their flags. The next step (select) sorts the worklist into the degree classes. Recording phases
 * are called by every thread of a block (sx_bin_close has a block barrier). */
#define SX_BIN 128
typedef struct {
    simdx_u32 v[SX_WARPS][SX_BIN];
    unsigned len[SX_WARPS]; /* may exceed SX_BIN: the extra vertices went to the worklist */
} sx_bin_mem;

__device__ __forceinline__ sx_bin_mem* sx_bins() {
    __shared__ sx_bin_mem bins;
    return &bins;
}

/* Appends the vertices of the lanes in `want` (of `mask`) to the worklist `next` from `lane`'s position in
 * `want`; leader = the lowest lane of `want`. */
__device__ __forceinline__ void sx_record_global(const sx_state* s, unsigned long long* ctr, simdx_u32* next, unsigned mask,
                                                 unsigned want, bool take, simdx_u32 v) {
    simdx_u32 capacity = s->online_capacity;
    int lane = threadIdx.x & 31;
    int leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) {
        if (*(volatile unsigned long long*)&ctr[SX_OVERFLOW] != 0ull) {
            base = ~0ull;
        } else {
            base = atomicAdd(&ctr[SX_NEXT_LEN], (unsigned long long)__popc(want));
            if (base + __popc(want) > capacity) ctr[SX_OVERFLOW] = 1ull;
        }
    }
    base = __shfl_sync(mask, base, leader);
    if (take && base != ~0ull) {
        unsigned long long at = base + __popc(want & ((1u << lane) - 1u));
        if (at < capacity) next[at] = v;
    }
}

/* Empties the calling warp's bin; called by whole warps at the start of a recording phase (shared memory
 * starts undefined in every launch). */
__device__ __forceinline__ void sx_bin_open() {
    if ((threadIdx.x & 31) == 0) sx_bins()->len[threadIdx.x / 32] = 0u;
    __syncwarp();
}

/* Records v (where `take`) in the calling warp's bin, or in the worklist once the bin is full. Safe with
 * any set of active lanes: the bin's length grows by a shared atomic. */
__device__ __forceinline__ void sx_record(const sx_state* s, unsigned long long* ctr, simdx_u32* next, bool take, simdx_u32 v) {
    if (s->online_capacity == 0u) return;
    unsigned mask = __activemask();
    unsigned want = __ballot_sync(mask, take);
    if (want == 0u) return;
    int lane = threadIdx.x & 31;
    int leader = __ffs(want) - 1;
    sx_bin_mem* bins = sx_bins();
    int w = threadIdx.x / 32;
    unsigned pos = 0;
    if (lane == leader) pos = atomicAdd(&bins->len[w], (unsigned)__popc(want));
    pos = __shfl_sync(mask, pos, leader);
    unsigned at = pos + __popc(want & ((1u << lane) - 1u));
    if (take && at < SX_BIN) bins->v[w][at] = v;
    unsigned spill = __ballot_sync(mask, take && at >= SX_BIN);
    if (spill) sx_record_global(s, ctr, next, mask, spill, take && at >= SX_BIN, v);
}

/* Writes the calling warp's bin out to the worklist with one global atomic and empties it; called by every
 * thread of the block at the end of a recording phase. The block barrier orders this phase's reads of the
 * bins before the next phase (of a fused kernel) refills them. */
__device__ __forceinline__ void sx_bin_close(const sx_state* s, unsigned long long* ctr, simdx_u32* next) {
    __syncwarp();
    sx_bin_mem* bins = sx_bins();
    int lane = threadIdx.x & 31, w = threadIdx.x / 32;
    simdx_u32 capacity = s->online_capacity;
    unsigned count = capacity == 0u ? 0u : min(bins->len[w], (unsigned)SX_BIN);
    if (count != 0u) {
        unsigned long long base = 0;
        if (lane == 0) {
            if (*(volatile unsigned long long*)&ctr[SX_OVERFLOW] != 0ull) {
                base = ~0ull;
            } else {
                base = atomicAdd(&ctr[SX_NEXT_LEN], (unsigned long long)count);
                if (base + count > capacity) ctr[SX_OVERFLOW] = 1ull;
            }
        }
        base = __shfl_sync(SX_FULL, base, 0);
        if (base != ~0ull) {
            for (unsigned i = lane; i < count; i += 32) {
                if (base + i < capacity) next[base + i] = bins->v[w][i];
            }
        }
    }
    __syncthreads();
    if (lane == 0) bins->len[w] = 0u;
    __syncwarp();
}

/* Marks v reached; true the first time in this iteration. The flags are bytes, so that they take a
 * quarter of the L2 that words would (4 MiB at 4M vertices), beside the values that a step reads at
 * random: a flag is set by an atomic OR on its aligned word and cleared by a plain byte store in a later
 * phase (select, the ballot scan), never while flags are being set. */
__device__ __forceinline__ bool sx_touch(const sx_state* s, simdx_u32 v) {
    if (s->touched[v]) return false;
    unsigned bit = 1u << (8u * (v & 3u));
    unsigned* word = (unsigned*)(s->touched + (v & ~3u));
    return (atomicOr(word, bit) & bit) == 0u;
}

__device__ __forceinline__ void sx_add_edges(unsigned long long* ctr, unsigned long long edges) {
    for (int o = 16; o > 0; o >>= 1) edges += __shfl_down_sync(SX_FULL, edges, o);
    if ((threadIdx.x & 31) == 0 && edges) atomicAdd(&ctr[SX_EDGES], edges);
}
