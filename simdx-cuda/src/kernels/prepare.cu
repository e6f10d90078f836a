/* Prepare: the initial values (sx_init), the snapshot of what each frontier vertex sends (sx_snapshot)
 * and the split of a frontier into the degree classes (sx_classify). */

extern "C" {

__device__ __forceinline__ void ph_init(const sx_state* s, unsigned long long* ctr) {
    simdx_params p = s->params;
    for (simdx_u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < s->n; v += gridDim.x * blockDim.x) {
        s->now[v] = simdx_init(&p, sx_vertex(s, v));
        s->seen[v] = SIMDX_UNSEEN;
        s->prepared[v] = 0u;
        if (s->acc) s->acc[v] = SIMDX_IDENTITY;
        if (SX_SILENT_PULLS) s->send[v] = SIMDX_SILENT;
        s->touched[v] = 0u;
        s->in_frontier[v] = 0u;
        s->pending[v] = 0u;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        s->far_len[0] = 0ull;
        s->far_len[1] = 0ull;
    }
}
__global__ void sx_init(const sx_state* __restrict__ s) {
    ph_init(s, s->counters);
}

/* Appends v (where `take`) to `out` at the position counted by *count, with one atomic per warp. Called
 * by whole warps. */
__device__ __forceinline__ void sx_warp_append(unsigned long long* count, simdx_u32* out, bool take, simdx_u32 v) {
    unsigned want = __ballot_sync(SX_FULL, take);
    if (!want) return;
    int lane = threadIdx.x & 31, leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(count, (unsigned long long)__popc(want));
    base = __shfl_sync(SX_FULL, base, leader);
    if (take) out[base + __popc(want & ((1u << lane) - 1u))] = v;
}

/* Appends v (where `take`) to the degree-class list of `d`, warp-aggregated: thread (< class_warp), warp
 * (< class_cta), CTA (< class_grid), grid. Called by whole warps. */
__device__ __forceinline__ void sx_classify_one(const sx_state* s, unsigned long long* ctr, bool take, simdx_u32 v, simdx_u64 d,
                                                simdx_u32* const* classes) {
    int cls = d < s->class_warp ? 0 : d < s->class_cta ? 1 : d < s->class_grid ? 2 : 3;
    for (int c = 0; c < 4; c++) sx_warp_append(&ctr[SX_CLASS_LEN + c], classes[c], take && cls == c, v);
}

/* Whether the snapshot keeps the seen value it replaces: source_value and global read it. */
#define SX_KEEPS_SENT (SIMDX_HAS_SOURCE_VALUE || SIMDX_USES_GLOBAL)

/* Prepares frontier vertex v (where `take`) for the iteration tagged `tag` (its count + 1): seen := now
 * (the value it sends), its source_value, its share of the global sum in ctr[SX_GLOBAL], its pull stamp
 * (`stamp` > 0), its out-edges counted in ctr[SX_OUT_EDGES], and with `classes` its push degree class.
 * Preparing a vertex twice for one iteration (a fused kernel taking over after a direction switch) gives
 * the same result: the replaced seen value is kept in `sent` under the tag. Called by whole warps. */
__device__ __forceinline__ void sx_prepare(const sx_state* s, const simdx_params* p, unsigned long long* ctr, bool take, simdx_u32 v,
                                           simdx_u32 tag, simdx_u32 stamp, simdx_u32* const* classes) {
    unsigned long long d = 0;
    double global = 0.0;
    if (take) {
        simdx_value value = s->now[v];
        simdx_value sent = value;
        if (SX_KEEPS_SENT) {
            if (s->prepared[v] != tag) {
                sent = s->seen[v];
                s->sent[v] = sent;
                s->prepared[v] = tag;
            } else {
                sent = s->sent[v];
            }
        }
        s->seen[v] = value;
        if (SIMDX_HAS_SOURCE_VALUE) s->send[v] = simdx_source_value(p, sx_vertex(s, v), value, sent);
        if (SIMDX_USES_GLOBAL) global = simdx_global(p, sx_vertex(s, v), value, sent);
        if (stamp && stamp != SX_LIVE) s->in_frontier[v] = stamp;
        d = s->out_offsets[v + 1] - s->out_offsets[v];
    }
    if (classes) sx_classify_one(s, ctr, take, v, d, classes);
    for (int o = 16; o > 0; o >>= 1) d += __shfl_down_sync(SX_FULL, d, o);
    if ((threadIdx.x & 31) == 0 && d) atomicAdd(&ctr[SX_OUT_EDGES], d);
    if (SIMDX_USES_GLOBAL) {
        for (int o = 16; o > 0; o >>= 1) global += __shfl_down_sync(SX_FULL, global, o);
        if ((threadIdx.x & 31) == 0 && global != 0.0) atomicAdd((double*)&ctr[SX_GLOBAL], global);
    }
}

/* Prepares every vertex of a frontier list (sx_prepare); `classes` may be NULL. */
__device__ __forceinline__ void ph_snapshot(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 tag,
                                            simdx_u32 stamp, simdx_u32* const* classes) {
    simdx_params p = s->params;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool live = i < len;
        sx_prepare(s, &p, ctr, live, live ? list[i] : 0u, tag, stamp, classes);
    }
}
__global__ void sx_snapshot(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 tag, simdx_u32 stamp) {
    ph_snapshot(s, s->counters, list, len, tag, stamp, 0);
}

/* Splits a worklist (`all`: every vertex) into degree classes (sx_classify_one); `in_degree` picks the
 * in-CSR (pull), whose lists leave out the vertices without in-arcs: a pull can never update them. */
__device__ __forceinline__ void ph_classify(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 all,
                            simdx_u32 in_degree, simdx_u32* const* classes) {
    simdx_u32 count = all ? s->n : len;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (count + stride - 1) / stride;
    const simdx_u64* off = in_degree ? s->in_offsets : s->out_offsets;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool live = i < count;
        simdx_u32 v = live ? (all ? i : list[i]) : 0u;
        simdx_u64 d = live ? off[v + 1] - off[v] : 0;
        sx_classify_one(s, ctr, live && (d > 0 || !in_degree), v, d, classes);
    }
}
__global__ void sx_classify(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 all,
                            simdx_u32 in_degree, simdx_u32* c0, simdx_u32* c1, simdx_u32* c2, simdx_u32* c3) {
    simdx_u32* classes[4] = {c0, c1, c2, c3};
    ph_classify(s, s->counters, list, len, all, in_degree, classes);
}

} /* extern "C" */
