/* Select: the next frontier from the recorded vertices, by bucket (delta-stepping), with label
 * shortcuts for programs whose values are labels. */

extern "C" {

/* A length written by other blocks before this phase, read once per block and shared (see sx_read in
 * fused.cu). Called by whole blocks. */
__device__ __forceinline__ simdx_u32 sx_block_len(const unsigned long long* len) {
    __shared__ simdx_u32 value;
    __syncthreads();
    if (threadIdx.x == 0) value = (simdx_u32)*(volatile const unsigned long long*)len;
    __syncthreads();
    return value;
}

#if SIMDX_LABELS
/* A program whose values are labels (vertex ids; Program::VALUES_ARE_LABELS): v, holding `label`, follows
 * its chain of labels (label = combine(label, now[label])) while it improves, and keeps the end. Runs in
 * select, when no update is in flight; other followers store with the same atomic combine, so a label
 * only improves, and a concurrent read sees an old or a new label, both valid. */
__device__ __forceinline__ simdx_value sx_follow_labels(const sx_state* s, const simdx_params* p, simdx_u32 v, simdx_value label) {
    simdx_value start = label;
    for (;;) {
        /* Negative labels wrap to large ones: only vertex ids are followed. */
        unsigned long long named = (unsigned long long)label;
        if (named >= (unsigned long long)s->n) break;
        simdx_value better = simdx_combine(p, label, *(volatile simdx_value*)&s->now[named]);
        if (better == label) break;
        label = better;
    }
    if (label != start) label = simdx_combine(p, label, sx_atomic(&s->now[v], label, p));
    return label;
}
#endif

/* Picks the next frontier from the reached vertices: the active ones in buckets up to `bucket`; the
 * others wait (pending flag, appended to far[fcur], whose bound they lower: kernels/buckets.cu); only
 * those the run lists (listed_begin..listed_end). Clears the reached vertices' touched flags on the way. With `prepare`, also prepares the new frontier for the
 * next iteration (sx_prepare with `stamp` and `classes`), which saves the fused kernels a phase and a
 * grid barrier per iteration. */
__device__ __forceinline__ void ph_select(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 bucket,
                                          simdx_u32* next, simdx_u32 fcur, bool prepare, simdx_u32 tag, simdx_u32 stamp,
                                          simdx_u32* const* classes) {
    simdx_params p = s->params;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    unsigned long long waiting = 0, lowest = ~0ull;
    sx_prepared_sums sums = {0ull, 0.0};
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = false, wait = false;
        simdx_u32 v = 0;
        /* A share of owned sources also reaches other shares' vertices: their owners select them. */
        if (i < len) {
            v = list[i];
            s->touched[v] = 0u; /* the reached flag is spent: clear it for the next iteration */
        }
        if (i < len && v >= s->listed_begin && v < s->listed_end) {
            simdx_value now = s->now[v];
#if SIMDX_LABELS
            now = sx_follow_labels(s, &p, v, now);
#endif
            if (simdx_active(&p, now, s->seen[v])) {
                unsigned long long b = simdx_bucket(&p, now);
                if (b <= bucket) {
                    take = true;
                } else {
                    /* It waits (appended now, or already waiting, perhaps in a higher bucket before). */
                    lowest = b < lowest ? b : lowest;
                    if (!s->pending[v]) {
                        s->pending[v] = 1u;
                        wait = true;
                        waiting++;
                    }
                }
            }
        }
        unsigned long long* counts[2] = {&s->far_len[fcur], &ctr[SX_NEXT_LEN]};
        simdx_u32* outs[2] = {s->far[fcur], next};
        sx_block_append(counts, outs, 2, wait ? 0 : take ? 1 : -1, v);
        if (prepare) sx_prepare(s, &p, ctr, take, v, bucket, tag, stamp, classes, &sums);
    }
    if (prepare) sx_prepare_flush(ctr, sums);
    sx_block_lowest(&s->far_len[2 + fcur], lowest, &ctr[SX_PENDING], waiting);
}
/* Select, and prepare the new frontier for the iteration tagged `tag` with pull stamp `stamp`: the
 * snapshot the next iteration would otherwise launch, in the same pass over the reached vertices; with
 * c0 (not NULL), also its split into the push's degree classes c0..c3. */
#ifdef SX_KERNELS_PREPARE
__global__ void sx_select_prepare(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 bucket,
                                  simdx_u32* next, simdx_u32 fcur, simdx_u32 tag, simdx_u32 stamp, simdx_u32* c0,
                                  simdx_u32* c1, simdx_u32* c2, simdx_u32* c3) {
    simdx_u32* classes[4] = {c0, c1, c2, c3};
    ph_select(s, s->counters, list, len, bucket, next, fcur, true, tag, stamp, c0 ? classes : 0);
}
#endif

} /* extern "C" */
