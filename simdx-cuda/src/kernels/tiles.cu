/* Edge-balanced tiles (push of the thread class; pull of aggregation programs): a block takes SX_BLOCK
 * vertices, an exclusive scan of their degrees in shared memory numbers their arcs 0..total, and the
 * threads walk that range together, so that consecutive threads read consecutive arcs of one list and
 * no thread idles while a neighbour finishes a longer list. */

extern "C" {

typedef struct {
    simdx_u64 start[SX_BLOCK];      /* first arc of each vertex of the tile */
    simdx_u64 prefix[SX_BLOCK];     /* exclusive prefix of the arcs taken per vertex */
    union {
        simdx_msg send[SX_BLOCK];    /* push: what the source sends */
        simdx_value value[SX_BLOCK]; /* pull: the vertex's own value */
    };
    simdx_value acc[SX_BLOCK];      /* pull: the combined updates */
    simdx_u32 degree[SX_BLOCK];     /* push: out-degree of the source */
    union {
        simdx_u32 got[SX_BLOCK];    /* pull: 1 once an update arrived */
        simdx_u32 vertex[SX_BLOCK]; /* push: the source */
    };
    simdx_u64 warp_sums[SX_WARPS + 1];
} sx_tile_mem;

__device__ __forceinline__ sx_tile_mem* sx_tile_shared() {
    __shared__ sx_tile_mem tile;
    return &tile;
}

/* Exclusive prefix sum of x over the block, and the block's total. Called by the whole block. */
__device__ __forceinline__ simdx_u64 sx_block_scan(sx_tile_mem* t, simdx_u64 x, simdx_u64* total) {
    simdx_u32 lane = threadIdx.x & 31, w = threadIdx.x / 32;
    simdx_u64 inc = x;
    for (int o = 1; o < 32; o <<= 1) {
        simdx_u64 y = __shfl_up_sync(SX_FULL, inc, o);
        if (lane >= (simdx_u32)o) inc += y;
    }
    __syncthreads(); /* warp_sums may still be read from the previous tile */
    if (lane == 31) t->warp_sums[w] = inc;
    __syncthreads();
    if (w == 0) {
        simdx_u64 own = lane < SX_WARPS ? t->warp_sums[lane] : 0ull, sum = own;
        for (int o = 1; o < 32; o <<= 1) {
            simdx_u64 y = __shfl_up_sync(SX_FULL, sum, o);
            if (lane >= (simdx_u32)o) sum += y;
        }
        if (lane < SX_WARPS) t->warp_sums[lane] = sum - own;
        if (lane == 31) t->warp_sums[SX_WARPS] = sum;
    }
    __syncthreads();
    *total = t->warp_sums[SX_WARPS];
    return t->warp_sums[w] + inc - x;
}

/* The tile vertex whose arcs include arc number `pos`: the last one whose prefix is <= pos. */
__device__ __forceinline__ simdx_u32 sx_tile_owner(const sx_tile_mem* t, simdx_u64 pos) {
    simdx_u32 lo = 0, hi = SX_BLOCK - 1;
    while (lo < hi) {
        simdx_u32 mid = (lo + hi + 1) >> 1;
        if (t->prefix[mid] <= pos) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Where the arcs of tile vertex o end (prefix of the next one, or the tile's total for the last). */
__device__ __forceinline__ simdx_u64 sx_tile_bound(const sx_tile_mem* t, simdx_u32 o, simdx_u64 total) {
    return o + 1 < SX_BLOCK ? t->prefix[o + 1] : total;
}

/* The CSR arc at tile position `pos` of a thread's run (~0 past `total`): moves the owner `*o`, whose arcs
 * end at `*bound`, on to the vertex that holds `pos` (positions of a run only grow). */
__device__ __forceinline__ simdx_u64 sx_tile_arc(const sx_tile_mem* t, simdx_u64 pos, simdx_u64 total, simdx_u32* o,
                                                 simdx_u64* bound) {
    if (pos >= total) return ~0ull;
    while (pos >= *bound) {
        *o += 1;
        *bound = sx_tile_bound(t, *o, total);
    }
    return t->start[*o] + (pos - t->prefix[*o]);
}

/* Vertices per push tile for a worklist of `len` (as sx_push_tile_vertices in engine.rs): SX_BLOCK, halved
 * down to 32 while the tiles would number fewer than `blocks`, so that a small frontier (a few thousand
 * vertices of ~30 arcs) is spread over the whole grid, several threads a vertex, rather than over
 * len / SX_BLOCK blocks whose threads each walk a whole list. */
__device__ __forceinline__ simdx_u32 sx_push_tile_vertices(simdx_u32 len, simdx_u32 blocks) {
    simdx_u32 per_tile = SX_BLOCK;
    while (per_tile > 32u && (len + per_tile - 1u) / per_tile < blocks) per_tile >>= 1;
    return per_tile;
}

/* Push over edge-balanced tiles of a worklist (used for the thread class), `per_tile` vertices a tile
 * (sx_push_tile_vertices), along the arcs of each source that `arcs` picks in `bucket` (sx_push_range). */
__device__ __forceinline__ void ph_push_tiles(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32* next,
                                              simdx_u32 per_tile, simdx_u32 arcs, simdx_u32 bucket) {
    sx_bin_open();
    sx_tile_mem* t = sx_tile_shared();
    simdx_params p = s->params;
    simdx_u32 tiles = (len + per_tile - 1) / per_tile;
    unsigned long long edges = 0;
    for (simdx_u32 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        simdx_u32 i = tile * per_tile + threadIdx.x;
        simdx_u64 b = 0, d = 0;
        if (threadIdx.x < per_tile && i < len) {
            simdx_u32 u = list[i];
            b = s->out_offsets[u];
            simdx_u64 e = s->out_offsets[u + 1];
            simdx_msg src = sx_src(s, u);
            simdx_u32 deg = e - b > 0xffffffffull ? 0xffffffffu : (simdx_u32)(e - b);
            sx_push_range(s, &p, src, deg, arcs, bucket, &b, &e);
            d = e - b;
            t->send[threadIdx.x] = src;
            t->degree[threadIdx.x] = deg;
            t->vertex[threadIdx.x] = u;
        }
        simdx_u64 total;
        simdx_u64 before = sx_block_scan(t, d, &total);
        t->start[threadIdx.x] = b;
        t->prefix[threadIdx.x] = before;
        __syncthreads();
        /* Each thread takes runs of SX_ILP consecutive arcs: one search finds the owner of a run's
         * first arc, the next ones follow by comparing with the next vertex's prefix. */
        for (simdx_u64 first = (simdx_u64)threadIdx.x * SX_ILP; first < total; first += (simdx_u64)SX_BLOCK * SX_ILP) {
            simdx_u32 o = sx_tile_owner(t, first);
            simdx_u64 bound = sx_tile_bound(t, o, total);
            simdx_u32 owner[SX_ILP], v[SX_ILP];
            simdx_u64 arc[SX_ILP];
            simdx_value dst[SX_ILP];
#pragma unroll
            for (int j = 0; j < SX_ILP; j++) {
                arc[j] = sx_tile_arc(t, first + j, total, &o, &bound);
                owner[j] = o;
                v[j] = arc[j] != ~0ull ? s->out_targets[arc[j]] : 0u;
            }
#pragma unroll
            for (int j = 0; j < SX_ILP; j++) dst[j] = arc[j] != ~0ull ? s->now[v[j]] : SIMDX_IDENTITY;
#pragma unroll
            for (int j = 0; j < SX_ILP; j++) {
                bool take = arc[j] != ~0ull && sx_push_loaded(s, &p, t->vertex[owner[j]], t->send[owner[j]], t->degree[owner[j]], arc[j], v[j], dst[j]);
                sx_record(s, ctr, next, take, v[j]);
            }
        }
        if (threadIdx.x == 0) edges += total;
        __syncthreads(); /* the next tile rewrites the shared arrays */
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
#ifdef SX_KERNELS_PUSH_TILES
__global__ void sx_push_tiles(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* next,
                              simdx_u32 per_tile, simdx_u32 arcs, simdx_u32 bucket) {
    ph_push_tiles(s, s->counters, list, len, next, per_tile, arcs, bucket);
}
#endif

/* Arcs of a tile that one thread of an aggregation pull combines in a row. */
#define SX_RUN (2 * SX_ILP)

/* Pull of aggregation programs over edge-balanced tiles of consecutive vertices: every vertex of in-degree
 * below class_cta that can still be updated (the CTA and grid classes pull in ph_pull_chunks). Each thread
 * takes a run of SX_RUN consecutive arcs of the tile: one search finds the owner of the run's first arc,
 * the owners of the next ones follow by comparing with the next vertex's prefix, and the thread combines
 * its updates for one vertex in registers, then once into the vertex's slot in shared memory (a vertex of
 * in-degree d gets about d / SX_RUN + 1 such combines). Nothing stops early, so voting programs keep the
 * per-class kernels. `settled`: see sx_pull_wants. */
__device__ __forceinline__ void ph_pull_tiles(const sx_state* s, unsigned long long* ctr, simdx_u32 stamp, simdx_u32 settled,
                                              simdx_u32* next) {
    sx_bin_open();
    sx_tile_mem* t = sx_tile_shared();
    simdx_params p = s->params;
    simdx_u32 tiles = (s->n + SX_BLOCK - 1) / SX_BLOCK;
    unsigned long long edges = 0;
    for (simdx_u32 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        simdx_u32 v = tile * SX_BLOCK + threadIdx.x;
        bool live = v < s->n;
        simdx_u64 b = 0, d = 0;
        if (live) {
            b = s->in_offsets[v];
            simdx_u64 deg = s->in_offsets[v + 1] - b;
            simdx_value dst = s->now[v];
            t->value[threadIdx.x] = dst;
            if (deg < s->class_cta && sx_pull_wants(&p, dst, settled)) d = deg;
        }
        simdx_u64 total;
        simdx_u64 before = sx_block_scan(t, d, &total);
        t->start[threadIdx.x] = b;
        t->prefix[threadIdx.x] = before;
        t->acc[threadIdx.x] = SIMDX_IDENTITY;
        t->got[threadIdx.x] = 0u;
        __syncthreads();
        for (simdx_u64 first = (simdx_u64)threadIdx.x * SX_RUN; first < total; first += (simdx_u64)SX_BLOCK * SX_RUN) {
            /* o owns arcs prefix[o] .. bound - 1 of the tile (vertices with no arcs to pull are skipped). */
            simdx_u32 o = sx_tile_owner(t, first), cur = o;
            simdx_u64 bound = sx_tile_bound(t, o, total);
            bool got = false;
            simdx_value x = SIMDX_IDENTITY;
#pragma unroll
            for (int h = 0; h < SX_RUN; h += SX_ILP) {
                simdx_u32 owner[SX_ILP];
                simdx_u64 arc[SX_ILP];
                simdx_value dst[SX_ILP], up[SX_ILP];
                simdx_u32 from[SX_ILP];
                bool gots[SX_ILP];
#pragma unroll
                for (int j = 0; j < SX_ILP; j++) {
                    arc[j] = sx_tile_arc(t, first + h + j, total, &o, &bound);
                    owner[j] = o;
                    dst[j] = t->value[o];
                }
                sx_pull_arcs(s, &p, stamp, arc, dst, gots, up, from);
#pragma unroll
                for (int j = 0; j < SX_ILP; j++) {
                    if (arc[j] == ~0ull) continue;
                    if (owner[j] != cur) {
                        if (got) {
                            sx_atomic(&t->acc[cur], x, &p);
                            t->got[cur] = 1u;
                        }
                        cur = owner[j];
                        got = false;
                    }
                    if (gots[j]) {
                        x = got ? simdx_combine(&p, x, up[j]) : up[j];
                        got = true;
                    }
                }
            }
            if (got) {
                sx_atomic(&t->acc[cur], x, &p);
                t->got[cur] = 1u;
            }
        }
        __syncthreads();
        bool take = live && t->got[threadIdx.x] && sx_pull_finish(s, &p, v, true, t->acc[threadIdx.x], SX_NO_VERTEX);
        sx_record(s, ctr, next, take, v);
        if (threadIdx.x == 0) edges += total;
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
#ifdef SX_KERNELS_PULL_WIDE
__global__ void sx_pull_tiles(const sx_state* __restrict__ s, simdx_u32 stamp, simdx_u32 settled, simdx_u32* next) {
    ph_pull_tiles(s, s->counters, stamp, settled, next);
}
#endif

} /* extern "C" */
