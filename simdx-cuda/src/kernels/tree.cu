/* BFS parent trees from levels (host side: tree.rs). After a breadth-first search has left each
 * vertex's level (TR_NONE where unreached), tr_parents gives every reached vertex other than the
 * source the first of its in-neighbours one level closer to the source, the source itself, and
 * TR_NONE to the unreached: a tree that holds Graph500's rules, since a vertex at level L > 0 was
 * reached from one at level L - 1. A thread per vertex (grid-striding in whole warps) walks a short
 * list four arcs at a time; a list of at least TR_WIDE in-arcs is walked by the lane's whole warp, 32
 * arcs at a time with a ballot, so that a hub's list does not hold up its warp. On an undirected graph the in-arcs are the out-arcs.
 * With `mend`, only the reached vertices without a parent yet get one (the senders that a search's
 * asynchronous rounds did not record, CudaEngine::run_bfs_with_senders). */

extern "C" {

typedef unsigned int tr_u32;
typedef unsigned long long tr_u64;

#define TR_NONE 0xffffffffu
#define TR_FULL 0xffffffffu
#define TR_WIDE 32ull

__device__ __forceinline__ tr_u32 tr_lane() { return threadIdx.x & 31u; }

/* The first in-neighbour of the vertex with in-arcs [lb, le) whose level is one below `level`, walked
 * by the whole warp (every lane calls it with the same arguments); TR_NONE when there is none. */
__device__ tr_u32 tr_wide_parent(tr_state s, tr_u64 lb, tr_u64 le, tr_u32 level) {
    for (tr_u64 base = lb; base < le; base += 32ull) {
        tr_u64 i = base + tr_lane();
        tr_u32 u = i < le ? s.isrc[i] : 0u;
        unsigned hits = __ballot_sync(TR_FULL, i < le && s.level[u] + 1u == level);
        if (hits) return __shfl_sync(TR_FULL, u, __ffs(hits) - 1);
    }
    return TR_NONE;
}

/* The first of in-arcs [b, e) whose source's level is one below `level`, walked by one lane four arcs at
 * a time, their four reads in flight together (the walk is bound by the latency of the random level
 * reads); TR_NONE when there is none. An unreached source's TR_NONE + 1 wraps to 0, below every
 * searching vertex's level. */
__device__ __forceinline__ tr_u32 tr_narrow_parent(const tr_u32* __restrict__ levels, const tr_u32* __restrict__ isrc,
                                                    tr_u64 b, tr_u64 e, tr_u32 level) {
    for (tr_u64 i = b; i < e; i += 4ull) {
        tr_u32 u[4];
        bool hit[4];
#pragma unroll
        for (int k = 0; k < 4; k++) u[k] = i + k < e ? isrc[i + k] : 0u;
#pragma unroll
        for (int k = 0; k < 4; k++) hit[k] = i + k < e && levels[u[k]] + 1u == level;
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (hit[k]) return u[k];
    }
    return TR_NONE;
}

__global__ void tr_parents(tr_state s) {
    tr_u64 stride = (tr_u64)gridDim.x * blockDim.x;
    tr_u64 whole_warps = (s.n + 31ull) & ~31ull;
    for (tr_u64 v = (tr_u64)blockIdx.x * blockDim.x + threadIdx.x; v < whole_warps; v += stride) {
        bool live = v < s.n;
        tr_u32 level = live ? s.level[v] : TR_NONE;
        /* Mending, a vertex that has a parent keeps it. */
        bool kept = live && s.mend && s.parent[v] != TR_NONE;
        /* The source is its own parent and the only vertex of level 0, so every vertex of level 1 is its
         * child: a hub next to the source would otherwise walk its list up to the source. */
        bool search = live && !kept && level != TR_NONE && level > 1u;
        tr_u32 parent = live && (v == s.source || level == 1u) ? (tr_u32)s.source : TR_NONE;
        tr_u64 b = search ? s.ioff[v] : 0ull, e = search ? s.ioff[v + 1] : 0ull;
        bool wide = search && e - b >= TR_WIDE;
        unsigned wides = __ballot_sync(TR_FULL, wide);
        while (wides) {
            int l = __ffs(wides) - 1;
            wides &= wides - 1u;
            tr_u32 lw = __shfl_sync(TR_FULL, level, l);
            tr_u64 lb = __shfl_sync(TR_FULL, b, l), le = __shfl_sync(TR_FULL, e, l);
            tr_u32 found = tr_wide_parent(s, lb, le, lw);
            if (tr_lane() == (tr_u32)l) parent = found;
        }
        if (search && !wide) parent = tr_narrow_parent(s.level, s.isrc, b, e, level);
        if (live && !kept && (!s.mend || parent != TR_NONE)) s.parent[v] = parent;
    }
}

} /* extern "C" */
