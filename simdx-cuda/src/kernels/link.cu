/* Link: classes by union-find, in Afforest's order, for programs whose values are labels (SIMDX_LABELS;
 * Program::VALUES_ARE_LABELS): the values are parent pointers (a root names itself, every pointer names
 * a better vertex under the combine), an arc links its destination with the vertex its message names,
 * and a link climbs from both ends until they meet, hooking the worse root under the better with the
 * program's atomic combine. Rounds: each vertex's first out-arc, flatten, its second, flatten; then the
 * other arcs of the vertices outside the largest class (found by sampling on the host), flatten. The
 * CPU does the same (simdx-core/src/cpu/link.rs, whose module doc says why it is exact). */

#if SIMDX_LABELS
extern "C" {

/* The vertex v's value names (v itself for a root, or where the value names no vertex). */
__device__ __forceinline__ simdx_u32 sx_link_parent(const sx_state* s, simdx_u32 v) {
    unsigned long long named = (unsigned long long)*(volatile simdx_value*)&s->now[v];
    return named < s->n ? (simdx_u32)named : v;
}

/* Puts a and b in one class. When the worse root turns out to have been hooked elsewhere meanwhile, the
 * combine keeps the better of its two parents and the link goes on with the other one. */
__device__ __forceinline__ void sx_link(const sx_state* s, const simdx_params* p, simdx_u32 a, simdx_u32 b) {
    while (a != b) {
        bool a_better = sx_same(simdx_combine(p, (simdx_value)a, (simdx_value)b), (simdx_value)a);
        simdx_u32 better = a_better ? a : b, worse = a_better ? b : a;
        simdx_u32 above = sx_link_parent(s, worse);
        if (above == better) return;
        if (above == worse) {
            unsigned long long before = (unsigned long long)sx_atomic(&s->now[worse], (simdx_value)better, p);
            if (before >= s->n || before == worse) return;
            a = (simdx_u32)before;
            b = better;
        } else {
            a = sx_link_parent(s, above);
            b = sx_link_parent(s, better);
        }
    }
}

/* What u sends along its arcs: the program's source_value of its label. */
__device__ __forceinline__ simdx_msg sx_link_src(const sx_state* s, const simdx_params* p, simdx_u32 u) {
    simdx_value label = *(volatile simdx_value*)&s->now[u];
    return simdx_source_value(p, sx_vertex(s, u), label, label);
}

/* Links arc i (to v, with weights w) as its message says. */
__device__ __forceinline__ void sx_link_arc(const sx_state* s, const simdx_params* p, simdx_msg src, simdx_u32 src_deg,
                                            const simdx_weight* w, simdx_u64 i, simdx_u32 v) {
    simdx_edge e;
    e.src = src;
    e.dst = *(volatile simdx_value*)&s->now[v];
    e.weight = sx_weight(s, w, i);
    e.src_out_degree = src_deg;
    unsigned long long named = (unsigned long long)simdx_compute(p, e);
    if (named >= s->n) return;
    unsigned long long above = (unsigned long long)e.dst;
    sx_link(s, p, above < s->n ? (simdx_u32)above : v, (simdx_u32)named);
}

/* Adds a thread's count to a counter slot, one atomic per warp. */
__device__ __forceinline__ void sx_link_count(unsigned long long* slot, unsigned long long count) {
    for (int o = 16; o > 0; o >>= 1) count += __shfl_down_sync(SX_FULL, count, o);
    if ((threadIdx.x & 31) == 0 && count) atomicAdd(slot, count);
}

/* Counts (in SX_CHANGE) the vertices that do not start as their own label: linking needs none. */
#ifdef SX_KERNELS_LINK
__global__ void sx_link_check(const sx_state* __restrict__ s) {
    unsigned long long others = 0;
    for (simdx_u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < s->n; v += gridDim.x * blockDim.x) {
        if ((unsigned long long)s->now[v] != v) others++;
    }
    sx_link_count(&s->counters[SX_CHANGE], others);
}
#endif

/* Links out-arc number `round` of every vertex that has one; counts them in SX_EDGES. */
#ifdef SX_KERNELS_LINK
__global__ void sx_link_round(const sx_state* __restrict__ s, simdx_u32 round) {
    simdx_params p = s->params;
    unsigned long long linked = 0;
    for (simdx_u32 u = blockIdx.x * blockDim.x + threadIdx.x; u < s->n; u += gridDim.x * blockDim.x) {
        simdx_u64 i = s->out_offsets[u] + round;
        if (i >= s->out_offsets[u + 1]) continue;
        sx_link_arc(s, &p, sx_link_src(s, &p, u), sx_out_degree32(s, u), s->out_weights, i, s->out_targets[i]);
        linked++;
    }
    sx_link_count(&s->counters[SX_EDGES], linked);
}
#endif

/* Points every vertex at its root: each replaces its parent by its grandparent until they agree,
 * storing only its own value. */
#ifdef SX_KERNELS_LINK
__global__ void sx_link_flatten(const sx_state* __restrict__ s) {
    for (simdx_u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < s->n; v += gridDim.x * blockDim.x) {
        simdx_u32 parent = sx_link_parent(s, v);
        for (;;) {
            simdx_u32 grandparent = sx_link_parent(s, parent);
            if (grandparent == parent) break;
            *(volatile simdx_value*)&s->now[v] = (simdx_value)grandparent;
            parent = grandparent;
        }
    }
}
#endif

/* out[i] = the root of a vertex drawn by hashing (seed, i), for i < count (after a flatten). */
#ifdef SX_KERNELS_LINK
__global__ void sx_link_sample(const sx_state* __restrict__ s, simdx_u32* out, simdx_u32 count, unsigned long long seed) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        unsigned long long z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        out[i] = sx_link_parent(s, (simdx_u32)(z % s->n));
    }
}
#endif

/* Links the out-arcs from number `from` on (and, on a directed graph, every in-arc) of each vertex whose
 * parent is not `largest`; counts those vertices in SX_NEXT_LEN and their arcs in SX_EDGES. */
#ifdef SX_KERNELS_LINK
__global__ void sx_link_rest(const sx_state* __restrict__ s, simdx_u32 largest, simdx_u32 from, simdx_u32 directed) {
    simdx_params p = s->params;
    unsigned long long outside = 0, linked = 0;
    for (simdx_u32 u = blockIdx.x * blockDim.x + threadIdx.x; u < s->n; u += gridDim.x * blockDim.x) {
        if (sx_link_parent(s, u) == largest) continue;
        outside++;
        simdx_u64 end = s->out_offsets[u + 1];
        simdx_u64 first = s->out_offsets[u] + from;
        if (first < end) {
            simdx_msg src = sx_link_src(s, &p, u);
            simdx_u32 deg = sx_out_degree32(s, u);
            for (simdx_u64 i = first; i < end; i++) sx_link_arc(s, &p, src, deg, s->out_weights, i, s->out_targets[i]);
            linked += end - first;
        }
        if (directed) {
            for (simdx_u64 i = s->in_offsets[u]; i < s->in_offsets[u + 1]; i++) {
                simdx_u32 t = s->in_targets[i];
                sx_link_arc(s, &p, sx_link_src(s, &p, t), sx_out_degree32(s, t), s->in_weights, i, u);
            }
            linked += s->in_offsets[u + 1] - s->in_offsets[u];
        }
    }
    sx_link_count(&s->counters[SX_NEXT_LEN], outside);
    sx_link_count(&s->counters[SX_EDGES], linked);
}
#endif

} /* extern "C" */
#endif
