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
            for (simdx_u64 k = b; k < e; k += 32) {
                simdx_value up;
                if (k + lane < e) {
                    edges++;
                    if (sx_pull_arc(s, &p, stamp, dst, k + lane, &up)) {
                        acc = got ? simdx_combine(&p, acc, up) : up;
                        got = true;
                    }
                }
                if (__any_sync(SX_FULL, got)) break;
            }
            got = sx_warp_combine(&p, got, &acc);
            bool take = false;
            if (lane == 0) take = got && sx_pull_part(s, &p, v, acc);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
}

/* Pull of the vertices of in-degree >= class_cta, in chunks of SX_CHUNK in-arcs: `chunks` lists (vertex,
 * chunk number) as vertex | number << 32, made once per graph with every vertex's first chunk before any
 * second one, so that a hub's arcs spread over many blocks and every block gets about the same work, and
 * so that a voting program's later chunks find their vertex already reached and are skipped (voting
 * programs: ph_pull_chunks_voting). A block takes its chunks a page (SX_BLOCK of them) at a time, checks
 * in parallel which of them can still update their vertex, then works those: it combines a chunk (each
 * thread SX_ILP arcs at once) and combines the result into the vertex atomically. */
__device__ __forceinline__ void ph_pull_chunks(const sx_state* s, unsigned long long* ctr, const simdx_u64* chunks, simdx_u32 count,
                                               simdx_u32 stamp, simdx_u32* next) {
    sx_bin_open();
    if (SIMDX_KIND == SIMDX_KIND_VOTING) {
        ph_pull_chunks_voting(s, ctr, chunks, count, stamp, next);
        sx_bin_close(s, ctr, next);
        return;
    }
    __shared__ simdx_value part[SX_WARPS];
    __shared__ int part_got[SX_WARPS];
    __shared__ simdx_value chunk_dst;
    __shared__ simdx_u64 todo[SX_BLOCK];
    __shared__ simdx_u32 todo_len;
    simdx_params p = s->params;
    simdx_u32 lane = threadIdx.x & 31, w = threadIdx.x / 32;
    unsigned long long edges = 0;
    /* This block's chunks are blockIdx.x, blockIdx.x + gridDim.x, ...: `page` counts them by SX_BLOCK. */
    simdx_u32 mine = count > blockIdx.x ? (count - blockIdx.x + gridDim.x - 1) / gridDim.x : 0u;
    for (simdx_u32 page = 0; page < mine; page += SX_BLOCK) {
        if (threadIdx.x == 0) todo_len = 0u;
        __syncthreads();
        if (page + threadIdx.x < mine) {
            simdx_u64 item = chunks[blockIdx.x + (simdx_u64)(page + threadIdx.x) * gridDim.x];
            if (simdx_can_update(&p, s->now[(simdx_u32)item])) todo[atomicAdd(&todo_len, 1u)] = item;
        }
        __syncthreads();
        simdx_u32 todo_count = todo_len;
        for (simdx_u32 t = 0; t < todo_count; t++) {
            simdx_u64 item = todo[t];
            simdx_u32 v = (simdx_u32)item;
            /* Other blocks may be updating v (its other chunks): read its value again, once for the whole
             * block, so that every thread takes the same path through the barriers below. */
            if (threadIdx.x == 0) chunk_dst = s->now[v];
            __syncthreads();
            simdx_value dst = chunk_dst;
            __syncthreads();
            if (!simdx_can_update(&p, dst)) continue;
            simdx_u64 b = s->in_offsets[v] + (item >> 32) * SX_CHUNK, end = s->in_offsets[v + 1];
            simdx_u64 e = b + SX_CHUNK < end ? b + SX_CHUNK : end;
            bool got = false;
            simdx_value acc = SIMDX_IDENTITY;
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
        __syncthreads(); /* todo and todo_len are refilled for the next page */
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_pull_chunks(const sx_state* __restrict__ s, const simdx_u64* chunks, simdx_u32 count, simdx_u32 stamp,
                               simdx_u32* next) {
    ph_pull_chunks(s, s->counters, chunks, count, stamp, next);
}

} /* extern "C" */
