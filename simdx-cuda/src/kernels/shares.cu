/* A partitioned run's exchanges (simdx-cuda/src/engine/share_steps.rs). The frontier: each share marks
 * the vertices it owns of its next frontier in a bitmap, the shares trade the words they own, and each
 * one lists the bitmap's vertices as the whole next frontier. The values a step changed, when they are
 * few: each share packs its reached vertices and their values as pairs, the shares trade their pairs,
 * and each one writes them all into its values. */

extern "C" {

#ifdef SX_KERNELS_SCAN
/* Sets bit v of `bits` for every vertex v of `list` that the run owns (owned_begin..owned_end); the
 * others are their owners' to mark. */
__global__ void sx_share_mark(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* bits) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        simdx_u32 v = list[i];
        if (v >= s->owned_begin && v < s->owned_end) atomicOr(&bits[v >> 5], 1u << (v & 31u));
    }
}

/* Lists the vertices whose bits are set in `bits` (n bits) into `list`, their count in
 * counters[SX_NEXT_LEN]: a thread a word, one atomic a warp. The order within the list is not fixed.
 * Called by whole warps. */
__global__ void sx_share_collect(const sx_state* __restrict__ s, const simdx_u32* bits, simdx_u32* list) {
    simdx_u32 words = (s->n + 31u) / 32u, lane = threadIdx.x & 31u;
    simdx_u32 stride = gridDim.x * blockDim.x;
    for (simdx_u32 base = blockIdx.x * blockDim.x + (threadIdx.x - lane); base < words; base += stride) {
        simdx_u32 w = base + lane;
        simdx_u32 word = w < words ? bits[w] : 0u;
        simdx_u32 count = __popc(word), before = count;
        for (int o = 1; o < 32; o <<= 1) {
            simdx_u32 y = __shfl_up_sync(SX_FULL, before, o);
            if ((int)lane >= o) before += y;
        }
        simdx_u32 total = __shfl_sync(SX_FULL, before, 31);
        unsigned long long at = 0;
        if (lane == 31u && total) at = atomicAdd(&s->counters[SX_NEXT_LEN], (unsigned long long)total);
        at = __shfl_sync(SX_FULL, at, 31) + before - count;
        while (word) {
            simdx_u32 b = __ffs(word) - 1;
            list[at++] = w * 32u + b;
            word &= word - 1u;
        }
    }
}

/* The `len` vertices of `list` (a share's reached vertices) and their values, as pairs: ids[i], vals[i]. */
__global__ void sx_share_pack(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* ids,
                              simdx_value* vals) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        simdx_u32 v = list[i];
        ids[i] = v;
        vals[i] = s->now[v];
    }
}

/* Every share's pairs (`len` in all) into the values. */
__global__ void sx_share_unpack(const sx_state* __restrict__ s, const simdx_u32* ids, const simdx_value* vals, simdx_u32 len) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) s->now[ids[i]] = vals[i];
}
#endif

} /* extern "C" */
