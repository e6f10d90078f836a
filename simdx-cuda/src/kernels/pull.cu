/* Pull along the in-arcs of the candidate vertices, by degree class (thread, warp): combine locally,
 * store once, with an early exit for voting programs. */

extern "C" {

/* Whether source u is active in a pull under `stamp` (0 or SX_LIVE: every source is; else the frontier
 * bitmap, built for this stamp by sx_frontier_bits, says). A bitmap of 4M vertices is 512 KiB: a 32-byte
 * sector covers 256 sources rather than the 8 of their 4-byte stamps, so most tests hit in L1 or L2. */
__device__ __forceinline__ bool sx_pull_active(const sx_state* s, simdx_u32 u, simdx_u32 stamp) {
    return stamp == 0u || stamp == SX_LIVE || ((s->frontier_bits[u >> 5] >> (u & 31u)) & 1u) != 0u;
}

/* Builds the frontier bitmap of `stamp` from the stamps, a warp per 32 vertices and one store a word (no
 * clearing, no atomics). Runs before every pull step whose stamp is neither 0 nor SX_LIVE. */
__device__ __forceinline__ void ph_frontier_bits(const sx_state* s, simdx_u32 stamp) {
    simdx_u32 lane = threadIdx.x & 31u;
    simdx_u64 stride = (simdx_u64)gridDim.x * blockDim.x;
    for (simdx_u64 base = (simdx_u64)(blockIdx.x * blockDim.x + threadIdx.x - lane); base < s->n; base += stride) {
        simdx_u64 v = base + lane;
        unsigned bits = __ballot_sync(SX_FULL, v < s->n && s->in_frontier[v] == stamp);
        if (lane == 0) s->frontier_bits[base >> 5] = bits;
    }
}
#ifdef SX_KERNELS_PREPARE
__global__ void sx_frontier_bits(const sx_state* __restrict__ s, simdx_u32 stamp) { ph_frontier_bits(s, stamp); }
#endif

/* The pull side of one vertex, after its in-arcs were combined into `update`, sent by `from`: store and
 * record. */
__device__ __forceinline__ bool sx_pull_finish(const sx_state* s, const simdx_params* p, simdx_u32 v, bool got,
                                               simdx_value update, simdx_u32 from) {
    if (!got) return false;
    if (SIMDX_APPLY == SIMDX_APPLY_IN_PLACE) {
        simdx_value old = s->now[v];
        simdx_value nv = simdx_combine(p, old, update);
        if (sx_same(nv, old)) return false;
        s->now[v] = nv;
        sx_sent_by(s, v, from);
    } else {
        s->acc[v] = update;
    }
    return sx_touch(s, v);
}

/* One in-arc i of v during pull: whether its source (*from) is active (sx_pull_active; SX_LIVE: with its
 * live value), and its update. */
__device__ __forceinline__ bool sx_pull_arc(const sx_state* s, const simdx_params* p, simdx_u32 stamp, simdx_value dst,
                                            simdx_u64 i, simdx_value* update, simdx_u32* from) {
    simdx_u32 u = s->in_targets[i];
    *from = u;
    if (!sx_pull_active(s, u, stamp)) return false;
    simdx_edge e;
    e.src = sx_pull_src(s, u, stamp);
    e.dst = dst;
    e.weight = sx_weight(s, s->in_weights, i);
    e.src_out_degree = sx_out_degree32(s, u);
    *update = simdx_compute(p, e);
    return true;
}

/* SX_ILP in-arcs of one thread (arc[j] == ~0: none) towards vertices of values dst[j]: whether each
 * one's source (from[j]) is active, and its update; every load is issued before any is used. */
__device__ __forceinline__ void sx_pull_arcs(const sx_state* s, const simdx_params* p, simdx_u32 stamp, const simdx_u64* arc,
                                             const simdx_value* dst, bool* got, simdx_value* update, simdx_u32* from) {
    simdx_u32 u[SX_ILP];
    simdx_msg src[SX_ILP];
    bool active[SX_ILP];
#pragma unroll
    for (int j = 0; j < SX_ILP; j++) u[j] = arc[j] != ~0ull ? s->in_targets[arc[j]] : 0u;
#pragma unroll
    for (int j = 0; j < SX_ILP; j++) from[j] = u[j];
#pragma unroll
    for (int j = 0; j < SX_ILP; j++) {
        src[j] = arc[j] != ~0ull ? sx_pull_src(s, u[j], stamp) : (simdx_msg)0;
        active[j] = arc[j] != ~0ull && sx_pull_active(s, u[j], stamp);
    }
#pragma unroll
    for (int j = 0; j < SX_ILP; j++) {
        got[j] = active[j];
        update[j] = SIMDX_IDENTITY;
        if (active[j]) {
            simdx_edge e;
            e.src = src[j];
            e.dst = dst[j];
            e.weight = sx_weight(s, s->in_weights, arc[j]);
            e.src_out_degree = sx_out_degree32(s, u[j]);
            update[j] = simdx_compute(p, e);
        }
    }
}

/* Whether `update` (got: there was one) changes `acc` when combined into it: it sends the result. */
__device__ __forceinline__ bool sx_wins(const simdx_params* p, bool got, simdx_value acc, simdx_value update) {
    return !got || !sx_same(simdx_combine(p, acc, update), acc);
}

/* Warp-wide combine of (got, value, sender) triples over `width` lanes; lane 0 of each ends with the
 * result. */
__device__ __forceinline__ bool sx_warp_combine(const simdx_params* p, bool got, simdx_value* value, simdx_u32* from,
                                                int width = 32) {
    for (int o = width / 2; o > 0; o >>= 1) {
        bool og = __shfl_down_sync(SX_FULL, (int)got, o, width) != 0;
        simdx_value ov = __shfl_down_sync(SX_FULL, *value, o, width);
        simdx_u32 of = __shfl_down_sync(SX_FULL, *from, o, width);
        if (og) {
            if (sx_wins(p, got, *value, ov)) *from = of;
            *value = got ? simdx_combine(p, *value, ov) : ov;
            got = true;
        }
    }
    return got;
}

/* Pull, thread class: one thread per candidate vertex; voting stops at the first update. */
__device__ __forceinline__ void ph_pull_thread(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 stamp,
                               simdx_u32* next) {
    sx_bin_open();
    simdx_params p = s->params;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    unsigned long long edges = 0;
    /* SX_ILP rounds at a time: their candidates and values are loaded together, so that a thread waits
     * one memory round trip for SX_ILP candidates (most of which a voting program's later pulls find
     * reached already) rather than one each. */
    for (simdx_u32 r0 = 0; r0 < rounds; r0 += SX_ILP) {
        simdx_u32 vs[SX_ILP];
        simdx_value now[SX_ILP];
#pragma unroll
        for (int j = 0; j < SX_ILP; j++) {
            simdx_u32 i = (r0 + j) * stride + blockIdx.x * blockDim.x + threadIdx.x;
            vs[j] = r0 + j < rounds && i < len ? list[i] : SX_NO_VERTEX;
        }
#pragma unroll
        for (int j = 0; j < SX_ILP; j++) now[j] = vs[j] != SX_NO_VERTEX ? s->now[vs[j]] : SIMDX_IDENTITY;
        for (int j = 0; j < SX_ILP && r0 + j < rounds; j++) {
            simdx_u32 v = vs[j];
            simdx_value dst = now[j];
            bool take = false;
            if (v != SX_NO_VERTEX && simdx_can_update(&p, dst)) {
                bool got = false;
                simdx_value acc = SIMDX_IDENTITY;
                simdx_u32 sender = SX_NO_VERTEX;
                /* SX_ILP arcs at a time, their loads issued together: a list is walked in a quarter of
                 * the dependent memory round trips (a voting program may read up to SX_ILP - 1 arcs
                 * past its first update, from the same cache line). */
                simdx_u64 b = s->in_offsets[v], e = s->in_offsets[v + 1];
                simdx_value dsts[SX_ILP];
#pragma unroll
                for (int a = 0; a < SX_ILP; a++) dsts[a] = dst;
                for (simdx_u64 k = b; k < e; k += SX_ILP) {
                    simdx_u64 arc[SX_ILP];
                    simdx_value ups[SX_ILP];
                    simdx_u32 froms[SX_ILP];
                    bool gots[SX_ILP];
#pragma unroll
                    for (int a = 0; a < SX_ILP; a++) arc[a] = k + a < e ? k + a : ~0ull;
                    sx_pull_arcs(s, &p, stamp, arc, dsts, gots, ups, froms);
#pragma unroll
                    for (int a = 0; a < SX_ILP; a++) {
                        if (!gots[a]) continue;
                        if (sx_wins(&p, got, acc, ups[a])) sender = froms[a];
                        acc = got ? simdx_combine(&p, acc, ups[a]) : ups[a];
                        got = true;
                    }
                    edges += e - k < SX_ILP ? e - k : SX_ILP;
                    if (SIMDX_KIND == SIMDX_KIND_VOTING && got) break;
                }
                take = sx_pull_finish(s, &p, v, got, acc, sender);
            }
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
#ifdef SX_KERNELS_PULL
__global__ void sx_pull_thread(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 stamp,
                               simdx_u32* next) {
    ph_pull_thread(s, s->counters, list, len, stamp, next);
}
#endif

/* Lanes per vertex in the warp class's pull, and vertices a warp pulls at once. */
#define SX_GROUP 8
#define SX_GROUPS (32 / SX_GROUP)

/* Pull, warp class (in-degree class_warp..class_cta): a group of SX_GROUP lanes per vertex, SX_GROUPS
 * vertices per warp at once, so that a warp waits on the memory round trips of several vertices together;
 * voting stops a group once any of its lanes found an update. A warp takes its vertices 32 at a time:
 * each lane checks one of them, and only those that can still be updated are worked. */
__device__ __forceinline__ void ph_pull_warp(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 stamp,
                             simdx_u32* next) {
    sx_bin_open();
    simdx_params p = s->params;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    simdx_u32 warps = gridDim.x * blockDim.x / 32;
    simdx_u32 group = lane / SX_GROUP, glane = lane % SX_GROUP;
    unsigned group_mask = ((1u << SX_GROUP) - 1u) << (group * SX_GROUP);
    unsigned long long edges = 0;
    /* This warp's vertices are list[warp], list[warp + warps], ...: `page` counts them by 32. */
    simdx_u32 owned = len > warp ? (len - warp + warps - 1) / warps : 0u;
    for (simdx_u32 page = 0; page < owned; page += 32) {
        bool live = page + lane < owned;
        simdx_u32 mine = live ? list[warp + (simdx_u64)(page + lane) * warps] : 0u;
        simdx_value mine_dst = s->now[mine];
        unsigned todo = __ballot_sync(SX_FULL, live && simdx_can_update(&p, mine_dst));
        while (todo) {
            /* Group g takes the g-th of the next SX_GROUPS candidates (every lane walks `todo` alike). */
            int at = -1;
            for (int g = 0; g < SX_GROUPS; g++) {
                int first = todo ? __ffs(todo) - 1 : -1;
                todo &= todo ? todo - 1 : 0u;
                if ((simdx_u32)g == group) at = first;
            }
            bool has = at >= 0;
            simdx_u32 v = __shfl_sync(SX_FULL, mine, has ? at : 0);
            simdx_value dst = __shfl_sync(SX_FULL, mine_dst, has ? at : 0);
            bool got = false;
            simdx_value acc = SIMDX_IDENTITY;
            simdx_u32 sender = SX_NO_VERTEX;
            simdx_u64 b = has ? s->in_offsets[v] : 0, e = has ? s->in_offsets[v + 1] : 0;
            for (simdx_u64 k = b;; k += SX_GROUP) {
                bool group_got = (__ballot_sync(SX_FULL, got) & group_mask) != 0u;
                bool go = k < e && !(SIMDX_KIND == SIMDX_KIND_VOTING && group_got);
                if (!__any_sync(SX_FULL, go)) break;
                simdx_value up;
                simdx_u32 from;
                if (go && k + glane < e) {
                    edges++;
                    if (sx_pull_arc(s, &p, stamp, dst, k + glane, &up, &from)) {
                        if (sx_wins(&p, got, acc, up)) sender = from;
                        acc = got ? simdx_combine(&p, acc, up) : up;
                        got = true;
                    }
                }
            }
            got = sx_warp_combine(&p, got, &acc, &sender, SX_GROUP);
            bool take = false;
            if (glane == 0 && has) take = sx_pull_finish(s, &p, v, got, acc, sender);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
#ifdef SX_KERNELS_PULL
__global__ void sx_pull_warp(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 stamp,
                             simdx_u32* next) {
    ph_pull_warp(s, s->counters, list, len, stamp, next);
}
#endif

} /* extern "C" */
