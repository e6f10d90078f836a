/* Buckets (delta-stepping): the waiting vertices far[] of later buckets, and the change to the next
 * non-empty bucket. far_len[f] counts far[f], and far_len[2 + f] is a lower bound on the bucket of every
 * active vertex waiting in far[f] (~0: none waits). Select and the ballot scan lower it for each waiting
 * vertex they append or see improve; a bucket change sets it exactly for the list it fills. So a bucket
 * change is one pass over the waiting vertices, from the bound, rather than one pass to find the lowest
 * bucket and a second to take it. A bound that has gone stale (its vertices since relaxed in an earlier
 * bucket) costs one pass that takes nothing and finds the exact bound. */

extern "C" {

/* A bucket change over far[fcur], from its bound `bucket`: the active waiting vertices of buckets up to
 * `bucket` become the frontier `out` (ctr[SX_NEXT_LEN]); the other active ones move to far[fcur ^ 1] (its
 * length 0 and its bound ~0 beforehand), counted in ctr[SX_PENDING], and their lowest bucket becomes its
 * bound; inactive ones stop waiting. `prepare` as for ph_select. Called by whole blocks. */
__device__ __forceinline__ void ph_far_take(const sx_state* s, unsigned long long* ctr, simdx_u32 fcur, simdx_u32 bucket, simdx_u32* out,
                                            bool prepare, simdx_u32 tag, simdx_u32 stamp, simdx_u32* const* classes) {
    simdx_params p = s->params;
    simdx_u32 len = sx_block_len(&s->far_len[fcur]);
    const simdx_u32* far = s->far[fcur];
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    sx_prepared_sums sums = {0ull, 0.0};
    unsigned long long lowest = ~0ull, kept = 0;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = false, keep = false;
        simdx_u32 v = 0;
        if (i < len) {
            v = far[i];
            if (s->pending[v]) {
                simdx_value now = s->now[v];
                unsigned long long b = simdx_bucket(&p, now);
                if (!simdx_active(&p, now, s->seen[v])) {
                    s->pending[v] = 0u;
                } else if (b <= bucket) {
                    s->pending[v] = 0u;
                    take = true;
                } else {
                    keep = true;
                    kept++;
                    lowest = b < lowest ? b : lowest;
                }
            }
        }
        unsigned long long* counts[2] = {&s->far_len[fcur ^ 1u], &ctr[SX_NEXT_LEN]};
        simdx_u32* outs[2] = {s->far[fcur ^ 1u], out};
        sx_block_append(counts, outs, 2, keep ? 0 : take ? 1 : -1, v);
        if (prepare) sx_prepare(s, &p, ctr, take, v, bucket, tag, stamp, classes, &sums);
    }
    if (prepare) sx_prepare_flush(ctr, sums);
    sx_block_lowest(&s->far_len[2 + (fcur ^ 1u)], lowest, &ctr[SX_PENDING], kept);
}
#ifdef SX_KERNELS_PREPARE
__global__ void sx_far_take(const sx_state* __restrict__ s, simdx_u32 fcur, simdx_u32 bucket, simdx_u32* out) {
    ph_far_take(s, s->counters, fcur, bucket, out, false, 0u, 0u, 0);
}
#endif

} /* extern "C" */
