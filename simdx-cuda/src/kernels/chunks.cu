/* Chunked pull: the in-arcs of big in-degree vertices (the CTA and grid classes) in fixed-size chunks
 * spread over the grid, each chunk combined locally and then atomically into its vertex. */

extern "C" {

/* Combines `update` (the combined updates of part of v's in-arcs) into v atomically, as a push would:
 * other parts of v's arcs may be combining at the same time. True if v was reached first here. */
__device__ __forceinline__ bool sx_pull_part(const sx_state* s, const simdx_params* p, simdx_u32 v, simdx_value update) {
    if (SIMDX_APPLY == SIMDX_APPLY_IN_PLACE) {
        simdx_value old = sx_atomic(&s->now[v], update, p);
        if (sx_same(simdx_combine(p, old, update), old)) return false;
    } else {
        sx_atomic(&s->acc[v], update, p);
    }
    return sx_touch(s, v);
}

/* Pull of the vertices of in-degree >= class_cta, in chunks of SX_CHUNK in-arcs: `chunks` lists (vertex,
 * chunk number) as vertex | number << 32, made once per graph, so that a hub's arcs spread over many
 * blocks and every block gets about the same work. A block combines its chunk (each thread SX_ILP arcs at
 * once), then combines the result into the vertex atomically. */
#define SX_CHUNK (SX_ILP * SX_BLOCK)
__device__ __forceinline__ void ph_pull_chunks(const sx_state* s, unsigned long long* ctr, const simdx_u64* chunks, simdx_u32 count,
                                               simdx_u32 stamp, simdx_u32* next) {
    sx_bin_open();
    __shared__ simdx_value part[SX_WARPS];
    __shared__ int part_got[SX_WARPS];
    __shared__ simdx_value chunk_dst;
    simdx_params p = s->params;
    simdx_u32 lane = threadIdx.x & 31, w = threadIdx.x / 32;
    unsigned long long edges = 0;
    for (simdx_u32 c = blockIdx.x; c < count; c += gridDim.x) {
        simdx_u64 item = chunks[c];
        simdx_u32 v = (simdx_u32)item;
        /* Other blocks may be updating v (its other chunks): read its value once for the whole block,
         * so that every thread takes the same path through the barriers below. */
        if (threadIdx.x == 0) chunk_dst = s->now[v];
        __syncthreads();
        simdx_value dst = chunk_dst;
        __syncthreads();
        if (!simdx_can_update(&p, dst)) continue;
        simdx_u64 b = s->in_offsets[v] + (item >> 32) * SX_CHUNK, end = s->in_offsets[v + 1];
        simdx_u64 e = b + SX_CHUNK < end ? b + SX_CHUNK : end;
        /* SX_CHUNK = SX_ILP x SX_BLOCK: each thread takes SX_ILP arcs in one go. */
        simdx_u64 arc[SX_ILP];
        simdx_value dsts[SX_ILP], ups[SX_ILP];
        bool gots[SX_ILP];
#pragma unroll
        for (int j = 0; j < SX_ILP; j++) {
            simdx_u64 k = b + (simdx_u64)j * SX_BLOCK + threadIdx.x;
            arc[j] = k < e ? k : ~0ull;
            dsts[j] = dst;
            edges += k < e ? 1 : 0;
        }
        sx_pull_arcs(s, &p, stamp, arc, dsts, gots, ups);
        bool got = false;
        simdx_value acc = SIMDX_IDENTITY;
#pragma unroll
        for (int j = 0; j < SX_ILP; j++) {
            if (!gots[j]) continue;
            acc = got ? simdx_combine(&p, acc, ups[j]) : ups[j];
            got = true;
        }
        got = sx_warp_combine(&p, got, &acc);
        if (lane == 0) {
            part[w] = acc;
            part_got[w] = got;
        }
        __syncthreads();
        bool take = false;
        if (threadIdx.x == 0) {
            bool g = false;
            simdx_value r = SIMDX_IDENTITY;
            for (int k = 0; k < SX_WARPS; k++) {
                if (!part_got[k]) continue;
                r = g ? simdx_combine(&p, r, part[k]) : part[k];
                g = true;
            }
            take = g && sx_pull_part(s, &p, v, r);
        }
        __syncthreads();
        if (w == 0) sx_record(s, ctr, next, take, v);
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_pull_chunks(const sx_state* __restrict__ s, const simdx_u64* chunks, simdx_u32 count, simdx_u32 stamp,
                               simdx_u32* next) {
    ph_pull_chunks(s, s->counters, chunks, count, stamp, next);
}

} /* extern "C" */
