/* Triangle counting and Jaccard similarity on the GPU (host side: intersect.rs), by sorted-list
 * intersections, as the CPU's simdx-core/src/intersect.rs computes them.
 *
 * Orientation: each undirected edge is kept once, from its end of lower (degree, id) rank to its end of
 * higher rank, repeated arcs and self-loops left out; the lists stay sorted by id. ix_orient counts each
 * vertex's kept arcs (a warp per vertex), ix_scan_tiles / ix_scan_sums / ix_scan_write turn the counts
 * into offsets (per tile of IX_TILE vertices a block sum, one block scanning the tile sums, then each
 * tile's own scan), and ix_orient again, with fill set, writes the kept arcs in order (a ballot per 32
 * arcs keeps them sorted) and each arc's source.
 *
 * Items: an oriented arc (u, v) for the triangles (its common higher-ranked neighbours close a triangle
 * found once, from its lowest-ranked vertex), a given pair (u, v) for Jaccard (over the whole lists).
 * An item intersects its two lists: each element of the shorter one is searched for in the longer one
 * (binary search from where the last search ended). ix_items takes 32 consecutive items per warp: an
 * item whose shorter list is under IX_WARP_FROM is a lane's alone, one under IX_BLOCK_FROM the whole
 * warp's (lanes striding over the shorter list), and a bigger one is listed (up to big_cap; past it
 * the warp takes it too) for ix_big, where a block takes each listed item. The total is summed per
 * block and added with one 64-bit atomic per block; per-vertex counts add the item's count to u and v
 * and 1 to each common neighbour w (each triangle adds 1 to its three vertices); a Jaccard item writes
 * common / (|N(u)| + |N(v)| - common), 0 for an empty union: the CPU's division. */

extern "C" {

typedef unsigned int ix_u32;
typedef unsigned long long ix_u64;

#define IX_FULL 0xffffffffu
/* An item's shorter list from which a warp intersects it, and from which a block does. */
#ifndef IX_WARP_FROM
#define IX_WARP_FROM 32u
#endif
#ifndef IX_BLOCK_FROM
#define IX_BLOCK_FROM 4096u
#endif
/* Counts a thread sums in the scan's tile passes; the tile is IX_PER_THREAD counts of each thread of a
 * block. */
#define IX_PER_THREAD 8u

/* The state `ix_state` (device pointers and sizes) and the counter slots (IX_TOTAL, IX_BIG) are declared
 * in Rust (simdx-cuda/src/device_structs.rs: IxState, counter_slots `intersect`), which generates
 * their C declarations and `#define`s in front of this file. */

__device__ __forceinline__ ix_u32 ix_lane() { return threadIdx.x & 31u; }

/* Sum over the warp, in every lane (every lane calls it, converged). */
__device__ __forceinline__ ix_u64 ix_warp_sum(ix_u64 x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(IX_FULL, x, o);
    return x;
}

/* The exclusive prefix sum of x over the block, and the block's total in *total (every thread of the
 * block calls it). */
__device__ ix_u64 ix_block_scan(ix_u64 x, ix_u64* total) {
    __shared__ ix_u64 sums[33];
    ix_u32 lane = ix_lane(), warp = threadIdx.x / 32u, warps = blockDim.x / 32u;
    ix_u64 inc = x;
    for (ix_u32 o = 1; o < 32u; o <<= 1) {
        ix_u64 y = __shfl_up_sync(IX_FULL, inc, o);
        if (lane >= o) inc += y;
    }
    if (lane == 31u) sums[warp] = inc;
    __syncthreads();
    if (warp == 0u) {
        ix_u64 w = lane < warps ? sums[lane] : 0ull;
        ix_u64 winc = w;
        for (ix_u32 o = 1; o < 32u; o <<= 1) {
            ix_u64 y = __shfl_up_sync(IX_FULL, winc, o);
            if (lane >= o) winc += y;
        }
        sums[lane] = winc - w;
        if (lane == 31u) sums[32] = winc;
    }
    __syncthreads();
    ix_u64 before = sums[warp] + inc - x;
    *total = sums[32];
    __syncthreads();
    return before;
}

/* Whether the arc u -> v (u of degree du) is kept: v ranks above u in (degree, id). */
__device__ __forceinline__ bool ix_higher(const ix_state* s, ix_u32 u, ix_u64 du, ix_u32 v) {
    ix_u64 dv = s->off[v + 1] - s->off[v];
    return dv > du || (dv == du && v > u);
}

/* A warp per vertex: with fill 0, each vertex's kept arcs into cnt; with fill 1, the kept arcs
 * themselves into otgt (and their source into osrc) from ooff[u], in the list's order. */
__global__ void ix_orient(const ix_state* s, ix_u32 fill) {
    ix_u64 warps = (ix_u64)gridDim.x * (blockDim.x / 32u);
    ix_u32 lane = ix_lane();
    for (ix_u64 u = ((ix_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32u; u < s->n; u += warps) {
        ix_u64 from = s->off[u], to = s->off[u + 1], du = to - from;
        ix_u64 at = fill ? s->ooff[u] : 0ull;
        for (ix_u64 base = from; base < to; base += 32u) {
            ix_u64 e = base + lane;
            bool keep = false;
            ix_u32 v = 0;
            if (e < to) {
                v = s->tgt[e];
                keep = ix_higher(s, (ix_u32)u, du, v) && (e == from || s->tgt[e - 1] != v);
            }
            ix_u32 mask = __ballot_sync(IX_FULL, keep);
            if (fill && keep) {
                ix_u64 slot = at + __popc(mask & ((1u << lane) - 1u));
                s->otgt[slot] = v;
                s->osrc[slot] = (ix_u32)u;
            }
            at += __popc(mask);
        }
        if (!fill && lane == 0u) s->cnt[u] = (ix_u32)at;
    }
}

/* The first vertex of tile t, and the tiles. */
__device__ __forceinline__ ix_u64 ix_tile_size() { return (ix_u64)blockDim.x * IX_PER_THREAD; }

/* Scan, pass 1: each tile's sum of counts into tiles[t]. */
__global__ void ix_scan_tiles(const ix_state* s) {
    ix_u64 size = ix_tile_size(), count = (s->n + size - 1) / size;
    for (ix_u64 t = blockIdx.x; t < count; t += gridDim.x) {
        ix_u64 first = t * size + (ix_u64)threadIdx.x * IX_PER_THREAD, sum = 0;
        for (ix_u32 j = 0; j < IX_PER_THREAD; j++)
            if (first + j < s->n) sum += s->cnt[first + j];
        ix_u64 total;
        ix_block_scan(sum, &total);
        if (threadIdx.x == 0u) s->tiles[t] = total;
    }
}

/* Scan, pass 2 (one block): the tile sums become each tile's first offset; ooff[n] and the oriented
 * arcs (ctr[IX_ARCS]) get the total. */
__global__ void ix_scan_sums(const ix_state* s) {
    ix_u64 size = ix_tile_size(), count = (s->n + size - 1) / size, carry = 0;
    for (ix_u64 base = 0; base < count; base += blockDim.x) {
        ix_u64 t = base + threadIdx.x;
        ix_u64 x = t < count ? s->tiles[t] : 0ull, total;
        ix_u64 before = ix_block_scan(x, &total);
        if (t < count) s->tiles[t] = carry + before;
        carry += total;
    }
    if (threadIdx.x == 0u) {
        s->ooff[s->n] = carry;
        s->ctr[IX_ARCS] = carry;
    }
}

/* Scan, pass 3: each tile's offsets, from its first one. */
__global__ void ix_scan_write(const ix_state* s) {
    ix_u64 size = ix_tile_size(), count = (s->n + size - 1) / size;
    for (ix_u64 t = blockIdx.x; t < count; t += gridDim.x) {
        ix_u64 first = t * size + (ix_u64)threadIdx.x * IX_PER_THREAD, sum = 0;
        for (ix_u32 j = 0; j < IX_PER_THREAD; j++)
            if (first + j < s->n) sum += s->cnt[first + j];
        ix_u64 total;
        ix_u64 at = s->tiles[t] + ix_block_scan(sum, &total);
        for (ix_u32 j = 0; j < IX_PER_THREAD; j++)
            if (first + j < s->n) {
                s->ooff[first + j] = at;
                at += s->cnt[first + j];
            }
    }
}

/* One item: its two ends, and its lists (shorter first) as ranges of `list` (otgt or tgt). */
typedef struct {
    ix_u32 u, v;
    ix_u64 s_from, s_len, l_from, l_len;
} ix_item;

/* Item i: oriented arc i (jac 0) or pair i (jac 1). */
__device__ __forceinline__ ix_item ix_load(const ix_state* s, ix_u64 i, ix_u32 jac) {
    ix_item it;
    const ix_u64* off = jac ? s->off : s->ooff;
    it.u = jac ? s->pairs[2 * i] : s->osrc[i];
    it.v = jac ? s->pairs[2 * i + 1] : s->otgt[i];
    ix_u64 a = off[it.u], alen = off[it.u + 1] - a, b = off[it.v], blen = off[it.v + 1] - b;
    bool swap = blen < alen;
    it.s_from = swap ? b : a;
    it.s_len = swap ? blen : alen;
    it.l_from = swap ? a : b;
    it.l_len = swap ? alen : blen;
    return it;
}

/* The elements of the shorter list at start, start + stride, ... found in the longer one; each found
 * element w gets 1 in tri when tri is not null. */
__device__ ix_u64 ix_count(const ix_u32* list, const ix_item* it, ix_u64 start, ix_u64 stride, ix_u64* tri) {
    ix_u64 found = 0, lo = 0;
    const ix_u32* longer = list + it->l_from;
    for (ix_u64 j = start; j < it->s_len && lo < it->l_len; j += stride) {
        ix_u32 x = list[it->s_from + j];
        ix_u64 a = lo, b = it->l_len;
        while (a < b) {
            ix_u64 mid = a + (b - a) / 2u;
            if (longer[mid] < x) a = mid + 1u;
            else b = mid;
        }
        lo = a;
        if (a < it->l_len && longer[a] == x) {
            found++;
            if (tri) atomicAdd(&tri[x], 1ull);
        }
    }
    return found;
}

/* Item i's result from its count c: a Jaccard coefficient written, or the triangles through an arc
 * added to its ends; what the triangle total gets. */
__device__ __forceinline__ ix_u64 ix_finish(const ix_state* s, ix_u64 i, const ix_item* it, ix_u64 c, ix_u32 jac) {
    if (jac) {
        ix_u64 uni = it->s_len + it->l_len - c;
        s->out[i] = uni == 0u ? 0.0 : (double)c / (double)uni;
        return 0;
    }
    if (s->tri && c) {
        atomicAdd(&s->tri[it->u], c);
        atomicAdd(&s->tri[it->v], c);
    }
    return c;
}

/* The items' list: the oriented targets for the triangles, the whole lists for Jaccard. */
__device__ __forceinline__ const ix_u32* ix_list(const ix_state* s, ix_u32 jac) { return jac ? s->tgt : s->otgt; }

/* Adds a block's share of the triangle total (every thread calls it). */
__device__ __forceinline__ void ix_add_total(const ix_state* s, ix_u64 mine) {
    ix_u64 total;
    ix_block_scan(mine, &total);
    if (threadIdx.x == 0u && total) atomicAdd(&s->ctr[IX_TOTAL], total);
}

/* Every item: 32 consecutive ones per warp, each a lane's, the warp's, or listed for ix_big. */
__global__ void ix_items(const ix_state* s, ix_u32 jac) {
    ix_u64 items = jac ? s->k : s->m, warps = (ix_u64)gridDim.x * (blockDim.x / 32u), mine = 0;
    ix_u32 lane = ix_lane();
    const ix_u32* list = ix_list(s, jac);
    ix_u64* tri = jac ? (ix_u64*)0 : s->tri;
    for (ix_u64 base = ((ix_u64)blockIdx.x * blockDim.x + threadIdx.x) / 32u * 32u; base < items; base += warps * 32u) {
        ix_u64 i = base + lane, c = 0;
        bool have = i < items, big = false, shared = false;
        ix_item it = {0, 0, 0, 0, 0, 0};
        if (have) {
            it = ix_load(s, i, jac);
            if (it.s_len >= IX_BLOCK_FROM) {
                ix_u64 slot = atomicAdd(&s->ctr[IX_BIG], 1ull);
                if (slot < s->big_cap) s->big[slot] = i;
                big = slot < s->big_cap;
            }
            shared = !big && it.s_len >= IX_WARP_FROM;
            if (!big && !shared) c = ix_count(list, &it, 0, 1, tri);
        }
        ix_u32 mask = __ballot_sync(IX_FULL, shared);
        while (mask) {
            ix_u32 src = __ffs(mask) - 1u;
            mask &= mask - 1u;
            ix_item w;
            w.u = __shfl_sync(IX_FULL, it.u, src);
            w.v = __shfl_sync(IX_FULL, it.v, src);
            w.s_from = __shfl_sync(IX_FULL, it.s_from, src);
            w.s_len = __shfl_sync(IX_FULL, it.s_len, src);
            w.l_from = __shfl_sync(IX_FULL, it.l_from, src);
            w.l_len = __shfl_sync(IX_FULL, it.l_len, src);
            ix_u64 part = ix_warp_sum(ix_count(list, &w, lane, 32u, tri));
            if (lane == src) c = part;
        }
        if (have && !big) mine += ix_finish(s, i, &it, c, jac);
    }
    if (!jac) ix_add_total(s, mine);
}

/* The listed items, a block each. */
__global__ void ix_big(const ix_state* s, ix_u32 jac) {
    ix_u64 listed = s->ctr[IX_BIG], mine = 0;
    if (listed > s->big_cap) listed = s->big_cap;
    const ix_u32* list = ix_list(s, jac);
    ix_u64* tri = jac ? (ix_u64*)0 : s->tri;
    for (ix_u64 b = blockIdx.x; b < listed; b += gridDim.x) {
        ix_u64 i = s->big[b];
        ix_item it = ix_load(s, i, jac);
        ix_u64 c;
        ix_block_scan(ix_count(list, &it, threadIdx.x, blockDim.x, tri), &c);
        if (threadIdx.x == 0u) mine += ix_finish(s, i, &it, c, jac);
    }
    if (!jac) ix_add_total(s, mine);
}

}
