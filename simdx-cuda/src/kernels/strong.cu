/* Strongly connected components on the GPU (host side: strong.rs), by the Multistep method of the
 * CPU's simdx-core/src/strong.rs: trim, forward-backward from a pivot, colouring. Each kernel takes a
 * thread per vertex (grid-striding) over the whole graph, topology-driven; the host launches a step's
 * kernel round after round and reads the counters after each, until SC_CHANGED stays 0.
 *
 * comp[v] is v's component (SC_OPEN while it has none); a kernel only ever reads and writes open
 * vertices, so what earlier steps placed is out of the graph for later ones.
 *
 * Trim (sc_trim): an open vertex without an open in- or out-neighbour other than itself is its own
 * component. Forward-backward: sc_pivot takes the open vertex of largest in-degree x out-degree (a warp
 * max-reduction, one atomicMax per warp); sc_seed enters it in both searches (stamp 1); sc_expand
 * with which 0 expands the vertices entered in the round (fw[v] == round) over out-arcs into open
 * vertices, with which 1 the backward search over in-arcs into open vertices the forward one entered;
 * sc_fb_name takes the smallest id both entered (atomicMin) and sc_fb_place names them by it.
 * Colouring: sc_colour_init gives each open vertex its id as colour; sc_colour pushes the colours of
 * the vertices whose colour fell in the last round (fw[v] == round) along out-arcs between open
 * vertices (atomicMin); sc_roots enters the vertices whose colour is their own id in the backward
 * search, sc_expand with which 2 goes over in-arcs into open vertices of the same colour, and
 * sc_colour_place names what it entered by its colour (the root's id: the smallest id reaching every
 * vertex of the colour, itself in the component, so its smallest id). On an undirected graph the
 * in-CSR is the out-CSR, and the components are the connected components.
 *
 * The kernels that walk arcs (trim, search, colour) take a vertex per lane, but a list of at least
 * SC_WIDE arcs is walked by the lane's whole warp in turn: a hub's list walked by one thread would
 * hold up the round (kron's largest lists hold tens of thousands of arcs). */

extern "C" {

typedef unsigned int sc_u32;
typedef unsigned long long sc_u64;

/* Not yet in a component. */
#define SC_OPEN 0xffffffffu
#define SC_FULL 0xffffffffu

/* The state `sc_state` (device pointers and sizes) and the counter slots (SC_CHANGED, SC_PLACED,
 * SC_PIVOT, SC_NAME) are declared in Rust (simdx-cuda/src/device_structs.rs: ScState, counter_slots
 * `strong`), which generates their C declarations and `#define`s in front of this file. */

/* This thread's first vertex, and the grid's stride. */
__device__ __forceinline__ sc_u64 sc_first() { return (sc_u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ sc_u64 sc_stride() { return (sc_u64)gridDim.x * blockDim.x; }
/* This thread's lane, and its warp's first vertex (whole warps stride together). */
__device__ __forceinline__ sc_u32 sc_lane() { return threadIdx.x & 31u; }
__device__ __forceinline__ sc_u64 sc_warp_first() { return sc_first() - sc_lane(); }

/* Arcs from which a list is walked by the whole warp. */
#define SC_WIDE 32

/* Runs BODY for every arc `si` in [b, e) of vertex `vv` of each `live` lane, as `sv`: lists of at least
 * SC_WIDE arcs by the whole warp in turn, the others by their own lane. Called by whole warps. */
#define SC_WARP_ARCS(live, vv, b, e, BODY)                                                                \
    do {                                                                                                 \
        bool sc_wide_ = (live) && (e) - (b) >= SC_WIDE;                                                  \
        unsigned sc_wides_ = __ballot_sync(SC_FULL, sc_wide_);                                           \
        while (sc_wides_) {                                                                              \
            int sc_l_ = __ffs(sc_wides_) - 1;                                                            \
            sc_wides_ &= sc_wides_ - 1u;                                                                 \
            sc_u32 sv = __shfl_sync(SC_FULL, (vv), sc_l_);                                               \
            sc_u64 sc_b_ = __shfl_sync(SC_FULL, (b), sc_l_), sc_e_ = __shfl_sync(SC_FULL, (e), sc_l_);   \
            for (sc_u64 si = sc_b_ + sc_lane(); si < sc_e_; si += 32) { BODY; }                          \
        }                                                                                                \
        if ((live) && !sc_wide_) {                                                                       \
            sc_u32 sv = (vv);                                                                            \
            for (sc_u64 si = (b); si < (e); si++) { BODY; }                                              \
        }                                                                                                \
    } while (0)

/* Whether v has no component yet. */
__device__ __forceinline__ bool sc_open(const sc_state* s, sc_u32 v) { return s->comp[v] == SC_OPEN; }

/* Adds what a thread placed to SC_PLACED and flags the round as changed. */
__device__ __forceinline__ void sc_placed(const sc_state* s, sc_u64 placed) {
    if (placed) {
        atomicAdd(&s->ctr[SC_PLACED], placed);
        s->ctr[SC_CHANGED] = 1ull;
    }
}

/* Whether the `live` lane's vertex v has an open neighbour other than itself in its list of off / adj
 * (a wide list searched by the whole warp, 32 arcs at a time). Called by whole warps. */
__device__ bool sc_linked(const sc_state* s, const sc_u64* off, const sc_u32* adj, bool live, sc_u32 v) {
    sc_u64 b = live ? off[v] : 0ull, e = live ? off[v + 1] : 0ull;
    bool wide = live && e - b >= SC_WIDE, found = false;
    unsigned wides = __ballot_sync(SC_FULL, wide);
    while (wides) {
        int l = __ffs(wides) - 1;
        wides &= wides - 1u;
        sc_u32 lv = __shfl_sync(SC_FULL, v, l);
        sc_u64 lb = __shfl_sync(SC_FULL, b, l), le = __shfl_sync(SC_FULL, e, l);
        bool any = false;
        for (sc_u64 base = lb; base < le && !any; base += 32) {
            sc_u64 i = base + sc_lane();
            sc_u32 u = i < le ? adj[i] : lv;
            any = __ballot_sync(SC_FULL, u != lv && sc_open(s, u)) != 0u;
        }
        if (sc_lane() == (sc_u32)l) found = any;
    }
    if (live && !wide) {
        for (sc_u64 i = b; i < e && !found; i++) {
            sc_u32 u = adj[i];
            found = u != v && sc_open(s, u);
        }
    }
    return found;
}

/* One round of trimming: every open vertex without an open in- or out-neighbour is placed alone. */
__global__ void sc_trim(const sc_state* s) {
    sc_u64 placed = 0;
    for (sc_u64 base = sc_warp_first(); base < s->n; base += sc_stride()) {
        sc_u64 v = base + sc_lane();
        sc_u32 u = (sc_u32)v;
        bool live = v < s->n && sc_open(s, u);
        bool out = sc_linked(s, s->off, s->tgt, live, u);
        bool in = sc_linked(s, s->ioff, s->isrc, live, u);
        if (live && (!out || !in)) {
            s->comp[u] = u;
            placed++;
        }
    }
    sc_placed(s, placed);
}

/* The pivot into SC_PIVOT: the largest (in-degree x out-degree saturated to 32 bits, complement of the
 * id) over the open vertices; 0 when none is open. */
__global__ void sc_pivot(const sc_state* s) {
    sc_u64 best = 0;
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride()) {
        if (!sc_open(s, (sc_u32)v)) continue;
        sc_u64 key = (s->ioff[v + 1] - s->ioff[v]) * (s->off[v + 1] - s->off[v]);
        if (key > 0xffffffffull) key = 0xffffffffull;
        sc_u64 packed = (key << 32) | (sc_u64)(SC_OPEN - (sc_u32)v);
        if (packed > best) best = packed;
    }
    for (int o = 16; o > 0; o >>= 1) {
        sc_u64 other = __shfl_xor_sync(SC_FULL, best, o);
        if (other > best) best = other;
    }
    if ((threadIdx.x & 31u) == 0u && best) atomicMax(&s->ctr[SC_PIVOT], best);
}

/* Enters v in the forward and the backward search (one thread). */
__global__ void sc_seed(const sc_state* s, sc_u32 v) {
    if (sc_first() == 0ull) {
        s->fw[v] = 1u;
        s->bw[v] = 1u;
    }
}

/* Whether the search `which` goes from v into u (u open and not yet entered): 0 forward, 1 backward
 * within the forward search's vertices, 2 backward within v's colour. */
__device__ __forceinline__ bool sc_admit(const sc_state* s, sc_u32 which, sc_u32 v, sc_u32 u) {
    if (!sc_open(s, u)) return false;
    if (which == 1u) return s->fw[u] != 0u;
    if (which == 2u) return s->colour[u] == s->colour[v];
    return true;
}

/* One round of search `which` (sc_admit): the vertices entered at `round` enter their admitted
 * neighbours (out-arcs forward, in-arcs backward) at round + 1. */
__global__ void sc_expand(const sc_state* s, sc_u32 which, sc_u32 round) {
    sc_u32* mark = which == 0u ? s->fw : s->bw;
    const sc_u64* off = which == 0u ? s->off : s->ioff;
    const sc_u32* adj = which == 0u ? s->tgt : s->isrc;
    bool changed = false;
    for (sc_u64 base = sc_warp_first(); base < s->n; base += sc_stride()) {
        sc_u64 v = base + sc_lane();
        bool live = v < s->n && mark[v] == round;
        sc_u64 b = live ? off[v] : 0ull, e = live ? off[v + 1] : 0ull;
        SC_WARP_ARCS(live, (sc_u32)v, b, e, {
            sc_u32 u = adj[si];
            if (mark[u] == 0u && sc_admit(s, which, sv, u)) {
                mark[u] = round + 1u;
                changed = true;
            }
        });
    }
    if (changed) s->ctr[SC_CHANGED] = 1ull;
}

/* The smallest vertex both searches entered, into SC_NAME (a thread's first such vertex is its
 * smallest). */
__global__ void sc_fb_name(const sc_state* s) {
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride()) {
        if (s->bw[v] != 0u) {
            atomicMin(&s->ctr[SC_NAME], v);
            return;
        }
    }
}

/* The vertices both searches entered take SC_NAME as their component. */
__global__ void sc_fb_place(const sc_state* s) {
    sc_u32 name = (sc_u32)s->ctr[SC_NAME];
    sc_u64 placed = 0;
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride()) {
        if (s->bw[v] != 0u) {
            s->comp[v] = name;
            placed++;
        }
    }
    sc_placed(s, placed);
}

/* A colouring round's start: each open vertex coloured with its id and due to push it (stamp 1); no
 * vertex in the backward search; a placed vertex neither pushes nor is entered. */
__global__ void sc_colour_init(const sc_state* s) {
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride()) {
        bool open = sc_open(s, (sc_u32)v);
        s->colour[v] = (sc_u32)v;
        s->fw[v] = open ? 1u : 0u;
        s->bw[v] = 0u;
    }
}

/* One round of colour propagation: each open vertex whose colour fell at `round` pushes it to its
 * open out-neighbours (atomicMin); one whose colour falls is due at round + 1. */
__global__ void sc_colour(const sc_state* s, sc_u32 round) {
    bool changed = false;
    for (sc_u64 base = sc_warp_first(); base < s->n; base += sc_stride()) {
        sc_u64 v = base + sc_lane();
        bool live = v < s->n && s->fw[v] == round && sc_open(s, (sc_u32)v);
        sc_u32 c = live ? s->colour[v] : SC_OPEN;
        sc_u64 b = live ? s->off[v] : 0ull, e = live ? s->off[v + 1] : 0ull;
        SC_WARP_ARCS(live, c, b, e, {
            sc_u32 u = s->tgt[si];
            if (s->colour[u] > sv && sc_open(s, u) && atomicMin(&s->colour[u], sv) > sv) {
                s->fw[u] = round + 1u;
                changed = true;
            }
        });
    }
    if (changed) s->ctr[SC_CHANGED] = 1ull;
}

/* The roots (open vertices whose colour is their id) enter the backward search at stamp 1. */
__global__ void sc_roots(const sc_state* s) {
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride())
        if (sc_open(s, (sc_u32)v) && s->colour[v] == (sc_u32)v) s->bw[v] = 1u;
}

/* The vertices the backward search entered take their colour (their root's id) as component. */
__global__ void sc_colour_place(const sc_state* s) {
    sc_u64 placed = 0;
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride()) {
        if (s->bw[v] != 0u && sc_open(s, (sc_u32)v)) {
            s->comp[v] = s->colour[v];
            placed++;
        }
    }
    sc_placed(s, placed);
}

}
