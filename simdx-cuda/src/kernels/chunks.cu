/* Chunked pull: the in-arcs of big in-degree vertices (the CTA and grid classes) in fixed-size chunks
 * spread over the grid, each chunk combined locally and then atomically into its vertex. */

extern "C" {

/* Combines `update` (the combined updates of part of v's in-arcs, sent by `from`) into v atomically, as a
 * push would: other parts of v's arcs may be combining at the same time. True if v was reached first here. */
__device__ __forceinline__ bool sx_pull_part(const sx_state* s, const simdx_params* p, simdx_u32 v, simdx_value update,
                                             simdx_u32 from) {
    if (SIMDX_APPLY == SIMDX_APPLY_IN_PLACE) {
        simdx_value old = sx_atomic(&s->now[v], update, p);
        if (sx_same(simdx_combine(p, old, update), old)) return false;
        sx_sent_by(s, v, from);
    } else {
        sx_atomic(&s->acc[v], update, p);
    }
    return sx_touch(s, v);
}

/* In-arcs per chunk (PULL_CHUNK in workspace.rs). */
#define SX_CHUNK (SX_ILP * SX_BLOCK)

/* The chunked pull of a voting program: one warp per chunk, 32 arcs at a time, stopping at the first
 * update (a vertex reached in this step usually has a parent among its first arcs), so that a chunk costs
 * a few memory round trips of one warp rather than of a whole block. A warp takes its chunks 32 at a
 * time: each lane checks one of them, and only those whose vertex can still be updated are worked. */
__device__ __forceinline__ void ph_pull_chunks_voting(const sx_state* s, unsigned long long* ctr, const simdx_u64* chunks,
                                                      simdx_u32 count, simdx_u32 stamp, simdx_u32* next) {
    simdx_params p = s->params;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    simdx_u32 warps = gridDim.x * blockDim.x / 32;
    unsigned long long edges = 0;
    /* This warp's chunks are warp, warp + warps, ...: `page` counts them by 32. */
    simdx_u32 owned = count > warp ? (count - warp + warps - 1) / warps : 0u;
    for (simdx_u32 page = 0; page < owned; page += 32) {
        bool live = page + lane < owned;
        simdx_u64 mine = live ? chunks[warp + (simdx_u64)(page + lane) * warps] : 0ull;
        unsigned todo = __ballot_sync(SX_FULL, live && simdx_can_update(&p, s->now[(simdx_u32)mine]));
        while (todo) {
            int at = __ffs(todo) - 1;
            todo &= todo - 1;
            simdx_u64 item = __shfl_sync(SX_FULL, mine, at);
            simdx_u32 v = (simdx_u32)item;
            /* Other warps may have reached v since (its other chunks). */
            simdx_value dst = s->now[v];
            if (!simdx_can_update(&p, dst)) continue;
            simdx_u64 b = s->in_offsets[v] + (item >> 32) * SX_CHUNK, end = s->in_offsets[v + 1];
            simdx_u64 e = b + SX_CHUNK < end ? b + SX_CHUNK : end;
            bool got = false;
            simdx_value acc = SIMDX_IDENTITY;
            simdx_u32 sender = SX_NO_VERTEX;
            for (simdx_u64 k = b; k < e; k += 32) {
                simdx_value up;
                simdx_u32 from;
                if (k + lane < e) {
                    edges++;
                    if (sx_pull_arc(s, &p, stamp, dst, k + lane, &up, &from)) {
                        if (sx_wins(&p, got, acc, up)) sender = from;
                        acc = got ? simdx_combine(&p, acc, up) : up;
                        got = true;
                    }
                }
                if (__any_sync(SX_FULL, got)) break;
            }
            got = sx_warp_combine(&p, got, &acc, &sender);
            bool take = false;
            if (lane == 0) take = got && sx_pull_part(s, &p, v, acc, sender);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
}

/* The chunked pull of an aggregation program: one warp per chunk, each lane SX_ILP arcs at a time (a
 * chunk is 1,024 / (32 x SX_ILP) = 8 rounds), combined across the warp and then atomically into the vertex.
 * No block barrier: every warp of the grid works a chunk of its own, so many chunks' loads are in flight
 * at once (a block per chunk waited for each chunk's chain of loads in turn, at four barriers a chunk). */
__device__ __forceinline__ void ph_pull_chunks_aggregate(const sx_state* s, unsigned long long* ctr, const simdx_u64* chunks,
                                                         simdx_u32 count, simdx_u32 stamp, simdx_u32 settled, simdx_u32* next) {
    simdx_params p = s->params;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    simdx_u32 warps = gridDim.x * blockDim.x / 32;
    unsigned long long edges = 0;
    for (simdx_u32 c = warp; c < count; c += warps) {
        simdx_u64 item = chunks[c];
        simdx_u32 v = (simdx_u32)item;
        /* The same value for the whole warp (one address), so the warp takes one path. */
        simdx_value dst = s->now[v];
        bool take = false;
        if (sx_pull_wants(&p, dst, settled)) {
            simdx_u64 b = s->in_offsets[v] + (item >> 32) * SX_CHUNK, end = s->in_offsets[v + 1];
            simdx_u64 e = b + SX_CHUNK < end ? b + SX_CHUNK : end;
            bool got = false;
            simdx_value acc = SIMDX_IDENTITY;
            simdx_u32 sender = SX_NO_VERTEX;
            for (simdx_u64 k = b; k < e; k += 32 * SX_ILP) {
                simdx_u64 arc[SX_ILP];
                simdx_value dsts[SX_ILP], ups[SX_ILP];
                simdx_u32 froms[SX_ILP];
                bool gots[SX_ILP];
#pragma unroll
                for (int j = 0; j < SX_ILP; j++) {
                    simdx_u64 a = k + (simdx_u64)j * 32 + lane;
                    arc[j] = a < e ? a : ~0ull;
                    dsts[j] = dst;
                    edges += a < e ? 1 : 0;
                }
                sx_pull_arcs(s, &p, stamp, arc, dsts, gots, ups, froms);
#pragma unroll
                for (int j = 0; j < SX_ILP; j++) {
                    if (!gots[j]) continue;
                    if (sx_wins(&p, got, acc, ups[j])) sender = froms[j];
                    acc = got ? simdx_combine(&p, acc, ups[j]) : ups[j];
                    got = true;
                }
            }
            got = sx_warp_combine(&p, got, &acc, &sender);
            if (lane == 0) take = got && sx_pull_part(s, &p, v, acc, sender);
        }
        sx_record(s, ctr, next, take, v);
    }
    sx_add_edges(ctr, edges);
}

/* Pull of the vertices of in-degree >= class_cta, in chunks of SX_CHUNK in-arcs: `chunks` lists (vertex,
 * chunk number) as vertex | number << 32, made once per graph with every vertex's first chunk before any
 * second one, so that a hub's arcs spread over many warps and every warp gets about the same work, and
 * so that a voting program's later chunks find their vertex already reached and are skipped. `settled`:
 * see sx_pull_wants (aggregation programs only: a settle step of a voting program pushes). Called by every
 * thread of a block (the online filter's bins). */
__device__ __forceinline__ void ph_pull_chunks(const sx_state* s, unsigned long long* ctr, const simdx_u64* chunks, simdx_u32 count,
                                               simdx_u32 stamp, simdx_u32 settled, simdx_u32* next) {
    sx_bin_open();
    if (SIMDX_KIND == SIMDX_KIND_VOTING) {
        ph_pull_chunks_voting(s, ctr, chunks, count, stamp, next);
    } else {
        ph_pull_chunks_aggregate(s, ctr, chunks, count, stamp, settled, next);
    }
    sx_bin_close(s, ctr, next);
}
#ifdef SX_KERNELS_PULL_WIDE
__global__ void sx_pull_chunks(const sx_state* __restrict__ s, const simdx_u64* chunks, simdx_u32 count, simdx_u32 stamp,
                               simdx_u32 settled, simdx_u32* next) {
    ph_pull_chunks(s, s->counters, chunks, count, stamp, settled, next);
}
#endif

} /* extern "C" */
