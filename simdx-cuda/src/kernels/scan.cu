/* The ballot filter: a scan over every vertex's flags (count per tile, exclusive offsets, write), which
 * gives a sorted, duplicate-free next frontier. */

extern "C" {

/* The predicate of the ballot scans. mode 0: reached this iteration (clears the flag, but on a share of
 * owned sources); mode 1: active
 * (initial frontier and `Every` programs; of the vertices the run lists), and if in a later bucket than `bucket`, waiting (flagged
 * pending, appended to far[fcur], its bucket in far[fcur]'s bound). */
__device__ __forceinline__ bool sx_scan_pred(const sx_state* s, unsigned long long* ctr, const simdx_params* p, simdx_u32 mode,
                                             simdx_u32 bucket, simdx_u32 fcur, simdx_u32 v, bool write) {
    if (mode == 0) {
        if (!s->touched[v]) return false;
        /* A share of owned sources (listing only its own vertices) keeps the flags until select clears
         * them: the remote updates combined after the filter must not list its vertices again. */
        if (write && s->listed_end - s->listed_begin == s->n) s->touched[v] = 0u;
        return true;
    }
    if (v < s->listed_begin || v >= s->listed_end) return false; /* another share's to list */
    simdx_value now = s->now[v];
    bool active = simdx_active(p, now, s->seen[v]);
    if (active && simdx_bucket(p, now) <= bucket) return true;
    /* Not in the next frontier: its send slot gets the silent message back (see SX_SILENT_PULLS). */
    if (SX_SILENT_PULLS && write) s->send[v] = SIMDX_SILENT;
    if (!active) return false;
    if (write && !s->pending[v]) {
        s->pending[v] = 1u;
        s->far[fcur][atomicAdd(&s->far_len[fcur], 1ull)] = v;
        atomicMin(&s->far_len[2 + fcur], (unsigned long long)simdx_bucket(p, now));
        atomicAdd(&ctr[SX_PENDING], 1ull);
    }
    return false;
}

/* The ballot filter, pass 1: how many vertices of each tile of SX_TILE pass. */
__device__ __forceinline__ void ph_scan_count(const sx_state* s, unsigned long long* ctr, simdx_u32 mode, simdx_u32 bucket, simdx_u32 fcur,
                                              simdx_u32* tile_counts) {
    __shared__ simdx_u32 warp_counts[SX_WARPS];
    simdx_params p = s->params;
    simdx_u32 tiles = (s->n + SX_TILE - 1) / SX_TILE;
    for (simdx_u32 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        simdx_u32 base = tile * SX_TILE;
        simdx_u32 count = 0;
        for (int r = 0; r < SX_TILE_ROUNDS; r++) {
            simdx_u32 v = base + r * SX_BLOCK + threadIdx.x;
            bool hit = v < s->n && sx_scan_pred(s, ctr, &p, mode, bucket, fcur, v, false);
            count += __popc(__ballot_sync(SX_FULL, hit));
        }
        if ((threadIdx.x & 31) == 0) warp_counts[threadIdx.x / 32] = count;
        __syncthreads();
        if (threadIdx.x == 0) {
            simdx_u32 total = 0;
            for (int w = 0; w < SX_WARPS; w++) total += warp_counts[w];
            tile_counts[tile] = total;
        }
        __syncthreads();
    }
}
#ifdef SX_KERNELS_SCAN
__global__ void sx_scan_count(const sx_state* __restrict__ s, simdx_u32 mode, simdx_u32 bucket, simdx_u32 fcur, simdx_u32* tile_counts) {
    ph_scan_count(s, s->counters, mode, bucket, fcur, tile_counts);
}
#endif

/* The ballot filter, pass 2: exclusive prefix of the tile counts (one block); the total goes to
 * counters[SX_NEXT_LEN]. */
__device__ __forceinline__ void ph_scan_offsets(const sx_state* s, unsigned long long* ctr, simdx_u32* tile_counts, simdx_u32 tiles) {
    __shared__ simdx_u32 sums[SX_BLOCK];
    simdx_u32 carry = 0;
    for (simdx_u32 start = 0; start < tiles; start += SX_BLOCK) {
        simdx_u32 i = start + threadIdx.x;
        simdx_u32 x = i < tiles ? tile_counts[i] : 0u;
        sums[threadIdx.x] = x;
        __syncthreads();
        for (int o = 1; o < SX_BLOCK; o <<= 1) {
            simdx_u32 y = threadIdx.x >= (unsigned)o ? sums[threadIdx.x - o] : 0u;
            __syncthreads();
            sums[threadIdx.x] += y;
            __syncthreads();
        }
        if (i < tiles) tile_counts[i] = carry + sums[threadIdx.x] - x;
        simdx_u32 block_total = sums[SX_BLOCK - 1];
        __syncthreads();
        carry += block_total;
    }
    if (threadIdx.x == 0) ctr[SX_NEXT_LEN] = carry;
}
#ifdef SX_KERNELS_SCAN
__global__ void sx_scan_offsets(const sx_state* __restrict__ s, simdx_u32* tile_counts, simdx_u32 tiles) {
    ph_scan_offsets(s, s->counters, tile_counts, tiles);
}
#endif

/* The ballot filter, pass 3: each tile writes its hits in vertex order from its offset: the list is
 * sorted and free of duplicates. */
__device__ __forceinline__ void ph_scan_write(const sx_state* s, unsigned long long* ctr, simdx_u32 mode, simdx_u32 bucket,
                                              simdx_u32 fcur, const simdx_u32* tile_offsets, simdx_u32* out) {
    __shared__ simdx_u32 warp_counts[SX_WARPS];
    simdx_params p = s->params;
    simdx_u32 lane = threadIdx.x & 31, w = threadIdx.x / 32;
    simdx_u32 tiles = (s->n + SX_TILE - 1) / SX_TILE;
    for (simdx_u32 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    simdx_u32 base = tile * SX_TILE;
    simdx_u32 offset = tile_offsets[tile];
    for (int r = 0; r < SX_TILE_ROUNDS; r++) {
        simdx_u32 v = base + r * SX_BLOCK + threadIdx.x;
        bool hit = v < s->n && sx_scan_pred(s, ctr, &p, mode, bucket, fcur, v, true);
        unsigned ballot = __ballot_sync(SX_FULL, hit);
        if (lane == 0) warp_counts[w] = __popc(ballot);
        __syncthreads();
        simdx_u32 before = 0, total = 0;
        for (simdx_u32 k = 0; k < SX_WARPS; k++) {
            if (k < w) before += warp_counts[k];
            total += warp_counts[k];
        }
        if (hit) out[offset + before + __popc(ballot & ((1u << lane) - 1u))] = v;
        offset += total;
        __syncthreads();
    }
    }
}
#ifdef SX_KERNELS_SCAN
__global__ void sx_scan_write(const sx_state* __restrict__ s, simdx_u32 mode, simdx_u32 bucket, simdx_u32 fcur,
                              const simdx_u32* tile_offsets, simdx_u32* out) {
    ph_scan_write(s, s->counters, mode, bucket, fcur, tile_offsets, out);
}
#endif

} /* extern "C" */
