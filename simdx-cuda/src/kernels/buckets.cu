/* Buckets (delta-stepping): the waiting vertices far[] of later buckets, and the change to the next
 * non-empty bucket. */

extern "C" {

/* A bucket change, pass 1, over the waiting vertices far[fcur]: drops those no longer active, finds the
 * lowest bucket (ctr[SX_MIN_BUCKET], which starts at ~0) and counts the rest (ctr[SX_PENDING]). Also
 * empties far[fcur ^ 1] for pass 2. */
__device__ __forceinline__ void ph_far_min(const sx_state* s, unsigned long long* ctr, simdx_u32 fcur) {
    simdx_params p = s->params;
    simdx_u32 len = sx_block_len(&s->far_len[fcur]);
    if (blockIdx.x == 0 && threadIdx.x == 0) s->far_len[fcur ^ 1u] = 0ull;
    const simdx_u32* far = s->far[fcur];
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    unsigned long long lowest = ~0ull, live = 0;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= len) break;
        simdx_u32 v = far[i];
        if (!s->pending[v]) continue;
        simdx_value now = s->now[v];
        if (!simdx_active(&p, now, s->seen[v])) {
            s->pending[v] = 0u;
            continue;
        }
        unsigned long long b = simdx_bucket(&p, now);
        lowest = b < lowest ? b : lowest;
        live++;
    }
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long ol = __shfl_down_sync(SX_FULL, lowest, o);
        lowest = ol < lowest ? ol : lowest;
        live += __shfl_down_sync(SX_FULL, live, o);
    }
    if ((threadIdx.x & 31) == 0 && live) {
        atomicMin(&ctr[SX_MIN_BUCKET], lowest);
        atomicAdd(&ctr[SX_PENDING], live);
    }
}
__global__ void sx_far_min(const sx_state* __restrict__ s, simdx_u32 fcur) {
    ph_far_min(s, s->counters, fcur);
}

/* A bucket change, pass 2: the waiting vertices of buckets up to `bucket` become the frontier `out`
 * (ctr[SX_NEXT_LEN]); the others move to far[fcur ^ 1], which becomes current. `prepare` as for
 * ph_select. */
__device__ __forceinline__ void ph_far_take(const sx_state* s, unsigned long long* ctr, simdx_u32 fcur, simdx_u32 bucket, simdx_u32* out,
                                            bool prepare, simdx_u32 tag, simdx_u32 stamp, simdx_u32* const* classes) {
    simdx_params p = s->params;
    simdx_u32 len = sx_block_len(&s->far_len[fcur]);
    const simdx_u32* far = s->far[fcur];
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    sx_prepared_sums sums = {0ull, 0.0};
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = false, keep = false;
        simdx_u32 v = 0;
        if (i < len) {
            v = far[i];
            if (s->pending[v]) {
                if (simdx_bucket(&p, s->now[v]) <= bucket) {
                    s->pending[v] = 0u;
                    take = true;
                } else {
                    keep = true;
                }
            }
        }
        unsigned long long* counts[2] = {&s->far_len[fcur ^ 1u], &ctr[SX_NEXT_LEN]};
        simdx_u32* outs[2] = {s->far[fcur ^ 1u], out};
        sx_block_append(counts, outs, 2, keep ? 0 : take ? 1 : -1, v);
        if (prepare) sx_prepare(s, &p, ctr, take, v, tag, stamp, classes, &sums);
    }
    if (prepare) sx_prepare_flush(ctr, sums);
}
__global__ void sx_far_take(const sx_state* __restrict__ s, simdx_u32 fcur, simdx_u32 bucket, simdx_u32* out) {
    ph_far_take(s, s->counters, fcur, bucket, out, false, 0u, 0u, 0);
}

} /* extern "C" */
