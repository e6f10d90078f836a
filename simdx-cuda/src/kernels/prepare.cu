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
        if (SX_DEFERS) s->settle_mark[v] = 0u;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        s->far_len[0] = 0ull;
        s->far_len[1] = 0ull;
        s->far_len[2] = ~0ull; /* the lists' bucket bounds: nothing waits */
        s->far_len[3] = ~0ull;
        s->far_len[SX_SETTLE_LEN] = 0ull;
    }
}
#ifdef SX_KERNELS_PREPARE
__global__ void sx_init(const sx_state* __restrict__ s) {
    ph_init(s, s->counters);
}
#endif

/* Appends each thread's v to list `which` of `lists` (-1: none) with one atomic per block and list rather
 * than per warp: thousands of warps adding to one counter queue at its L2 slice (a pass over 4M vertices
 * made 131K such atomics per counter). Called by every thread of the block, the same number of times. */
__device__ __forceinline__ void sx_block_append(unsigned long long* const* counts, simdx_u32* const* outs, int lists, int which,
                                                simdx_u32 v) {
    __shared__ unsigned offset[4][SX_WARPS];
    __shared__ unsigned long long base[4];
    int lane = threadIdx.x & 31, w = threadIdx.x / 32;
    unsigned rank = 0;
    for (int c = 0; c < lists; c++) {
        unsigned want = __ballot_sync(SX_FULL, which == c);
        if (lane == 0) offset[c][w] = __popc(want);
        if (which == c) rank = __popc(want & ((1u << lane) - 1u));
    }
    __syncthreads();
    if (threadIdx.x < (unsigned)lists) {
        int c = threadIdx.x;
        unsigned total = 0;
        for (int k = 0; k < SX_WARPS; k++) {
            unsigned n = offset[c][k];
            offset[c][k] = total;
            total += n;
        }
        base[c] = total ? atomicAdd(counts[c], (unsigned long long)total) : 0ull;
    }
    __syncthreads();
    if (which >= 0) outs[which][base[which] + offset[which][w] + rank] = v;
    __syncthreads(); /* offset and base are refilled by the next call */
}

/* Lowers *bound to the block's lowest `lowest` and adds the block's `count` to *total, one atomic each per
 * block. Called by every thread of the block. */
__device__ __forceinline__ void sx_block_lowest(unsigned long long* bound, unsigned long long lowest, unsigned long long* total,
                                                unsigned long long count) {
    __shared__ unsigned long long low[SX_WARPS], sum[SX_WARPS];
    int lane = threadIdx.x & 31, w = threadIdx.x / 32;
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long ol = __shfl_down_sync(SX_FULL, lowest, o);
        lowest = ol < lowest ? ol : lowest;
        count += __shfl_down_sync(SX_FULL, count, o);
    }
    if (lane == 0) {
        low[w] = lowest;
        sum[w] = count;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long l = ~0ull, c = 0;
        for (int k = 0; k < SX_WARPS; k++) {
            l = low[k] < l ? low[k] : l;
            c += sum[k];
        }
        if (l != ~0ull) atomicMin(bound, l);
        if (c && total) atomicAdd(total, c);
    }
    __syncthreads(); /* low and sum are refilled by the next call */
}

/* Appends v (where `take`) to the degree-class list of `d`: thread (< class_warp), warp (< class_cta), CTA
 * (< class_grid), grid. Called by every thread of the block, the same number of times. */
__device__ __forceinline__ void sx_classify_one(const sx_state* s, unsigned long long* ctr, bool take, simdx_u32 v, simdx_u64 d,
                                                simdx_u32* const* classes) {
    int cls = d < s->class_warp ? 0 : d < s->class_cta ? 1 : d < s->class_grid ? 2 : 3;
    unsigned long long* counts[4] = {&ctr[SX_CLASS_LEN], &ctr[SX_CLASS_LEN + 1], &ctr[SX_CLASS_LEN + 2], &ctr[SX_CLASS_LEN + 3]};
    sx_block_append(counts, classes, 4, take ? cls : -1, v);
}

/* Whether the snapshot keeps the seen value it replaces: source_value and global read it. */
#define SX_KEEPS_SENT (SIMDX_HAS_SOURCE_VALUE || SIMDX_USES_GLOBAL)

/* What preparing a frontier adds up, per thread until sx_prepare_flush. */
typedef struct {
    unsigned long long out_edges;
    double global;
} sx_prepared_sums;

/* Prepares frontier vertex v (where `take`) of bucket `bucket` for the iteration tagged `tag` (its count +
 * 1): seen := now (the value it sends), its source_value, its share of the global sum and its out-edges
 * (added to `sums` as sx_counted_out_edges counts them; sx_prepare_flush moves them to ctr[SX_GLOBAL] and
 * ctr[SX_OUT_EDGES]), its pull stamp
 * (`stamp` > 0), with `classes` its push degree class, and under SX_DEFERS its place in the bucket's settle
 * list. Preparing a vertex twice for one iteration (a fused kernel taking over after a direction switch)
 * gives the same result: the replaced seen value is kept in `sent` under the tag. Called by every thread
 * of the block, the same number of times. */
__device__ __forceinline__ void sx_prepare(const sx_state* s, const simdx_params* p, unsigned long long* ctr, bool take, simdx_u32 v,
                                           simdx_u32 bucket, simdx_u32 tag, simdx_u32 stamp, simdx_u32* const* classes,
                                           sx_prepared_sums* sums) {
    if (SX_DEFERS) {
        /* Once per bucket (a bucket of ~0 defers nothing: every update stays within it). */
        bool owes = take && bucket != ~0u && s->settle_mark[v] != bucket + 1u;
        if (owes) s->settle_mark[v] = bucket + 1u;
        unsigned long long* counts[1] = {&s->far_len[SX_SETTLE_LEN]};
        simdx_u32* outs[1] = {s->settle};
        sx_block_append(counts, outs, 1, owes ? 0 : -1, v);
    }
    unsigned long long d = 0;
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
        if (SIMDX_USES_GLOBAL) sums->global += simdx_global(p, sx_vertex(s, v), value, sent);
        if (stamp && stamp != SX_LIVE) s->in_frontier[v] = stamp;
        d = s->out_offsets[v + 1] - s->out_offsets[v];
        sums->out_edges += sx_counted_out_edges(s, v, d);
    }
    if (classes) sx_classify_one(s, ctr, take, v, d, classes);
}

/* Adds the block's prepared sums to ctr[SX_OUT_EDGES] and ctr[SX_GLOBAL], one atomic each per block.
 * Called by every thread of the block once, after its last sx_prepare of the phase. */
__device__ __forceinline__ void sx_prepare_flush(unsigned long long* ctr, sx_prepared_sums sums) {
    __shared__ unsigned long long edges[SX_WARPS];
    __shared__ double global[SX_WARPS];
    int lane = threadIdx.x & 31, w = threadIdx.x / 32;
    for (int o = 16; o > 0; o >>= 1) {
        sums.out_edges += __shfl_down_sync(SX_FULL, sums.out_edges, o);
        if (SIMDX_USES_GLOBAL) sums.global += __shfl_down_sync(SX_FULL, sums.global, o);
    }
    if (lane == 0) {
        edges[w] = sums.out_edges;
        global[w] = sums.global;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long e = 0;
        double g = 0.0;
        for (int k = 0; k < SX_WARPS; k++) {
            e += edges[k];
            g += global[k];
        }
        if (e) atomicAdd(&ctr[SX_OUT_EDGES], e);
        if (SIMDX_USES_GLOBAL && g != 0.0) atomicAdd((double*)&ctr[SX_GLOBAL], g);
    }
    __syncthreads(); /* edges and global are refilled by the next flush */
}

/* Prepares every vertex of a frontier list (sx_prepare); `classes` may be NULL. */
__device__ __forceinline__ void ph_snapshot(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 bucket,
                                            simdx_u32 tag, simdx_u32 stamp, simdx_u32* const* classes) {
    simdx_params p = s->params;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    sx_prepared_sums sums = {0ull, 0.0};
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool live = i < len;
        sx_prepare(s, &p, ctr, live, live ? list[i] : 0u, bucket, tag, stamp, classes, &sums);
    }
    sx_prepare_flush(ctr, sums);
}
#ifdef SX_KERNELS_PREPARE
/* The snapshot; with c0 (not NULL), also the split into the push's degree classes c0..c3. */
__global__ void sx_snapshot(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 bucket, simdx_u32 tag,
                            simdx_u32 stamp, simdx_u32* c0, simdx_u32* c1, simdx_u32* c2, simdx_u32* c3) {
    simdx_u32* classes[4] = {c0, c1, c2, c3};
    ph_snapshot(s, s->counters, list, len, bucket, tag, stamp, c0 ? classes : 0);
}
#endif

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
#ifdef SX_KERNELS_PREPARE
__global__ void sx_classify(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 all,
                            simdx_u32 in_degree, simdx_u32* c0, simdx_u32* c1, simdx_u32* c2, simdx_u32* c3) {
    simdx_u32* classes[4] = {c0, c1, c2, c3};
    ph_classify(s, s->counters, list, len, all, in_degree, classes);
}
#endif

/* The settle step's frontier (SX_DEFERS): the settle list's `len` vertices by push degree class, their
 * out-edges added up in ctr[SX_OUT_EDGES], and (`stamp` > 0) their pull stamp, for a settle step that
 * pulls. They send what they sent last (seen, or their source_value): the value their bucket ended with. */
__device__ __forceinline__ void ph_settle_classify(const sx_state* s, unsigned long long* ctr, simdx_u32 len, simdx_u32 stamp,
                                                   simdx_u32* const* classes) {
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    sx_prepared_sums sums = {0ull, 0.0};
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool live = i < len;
        simdx_u32 v = live ? s->settle[i] : 0u;
        simdx_u64 d = live ? s->out_offsets[v + 1] - s->out_offsets[v] : 0;
        if (live && stamp != 0u) s->in_frontier[v] = stamp;
        if (live) sums.out_edges += sx_counted_out_edges(s, v, d);
        sx_classify_one(s, ctr, live, v, d, classes);
    }
    sx_prepare_flush(ctr, sums);
}
#ifdef SX_KERNELS_PREPARE
__global__ void sx_settle_classify(const sx_state* __restrict__ s, simdx_u32 len, simdx_u32 stamp, simdx_u32* c0, simdx_u32* c1,
                                   simdx_u32* c2, simdx_u32* c3) {
    simdx_u32* classes[4] = {c0, c1, c2, c3};
    ph_settle_classify(s, s->counters, len, stamp, classes);
}
#endif

} /* extern "C" */
