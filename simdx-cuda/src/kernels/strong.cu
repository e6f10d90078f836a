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
 * in-CSR is the out-CSR, and the components are the connected components. */

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

/* Whether v has no component yet. */
__device__ __forceinline__ bool sc_open(const sc_state* s, sc_u32 v) { return s->comp[v] == SC_OPEN; }

/* Adds what a thread placed to SC_PLACED and flags the round as changed. */
__device__ __forceinline__ void sc_placed(const sc_state* s, sc_u64 placed) {
    if (placed) {
        atomicAdd(&s->ctr[SC_PLACED], placed);
        s->ctr[SC_CHANGED] = 1ull;
    }
}

/* Whether v has an open neighbour other than itself in its list of off / adj. */
__device__ bool sc_linked(const sc_state* s, const sc_u64* off, const sc_u32* adj, sc_u32 v) {
    for (sc_u64 e = off[v]; e < off[v + 1]; e++) {
        sc_u32 u = adj[e];
        if (u != v && sc_open(s, u)) return true;
    }
    return false;
}

/* One round of trimming: every open vertex without an open in- or out-neighbour is placed alone. */
__global__ void sc_trim(const sc_state* s) {
    sc_u64 placed = 0;
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride()) {
        sc_u32 u = (sc_u32)v;
        if (!sc_open(s, u)) continue;
        if (!sc_linked(s, s->off, s->tgt, u) || !sc_linked(s, s->ioff, s->isrc, u)) {
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
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride()) {
        if (mark[v] != round) continue;
        for (sc_u64 e = off[v]; e < off[v + 1]; e++) {
            sc_u32 u = adj[e];
            if (mark[u] == 0u && sc_admit(s, which, (sc_u32)v, u)) {
                mark[u] = round + 1u;
                changed = true;
            }
        }
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
    for (sc_u64 v = sc_first(); v < s->n; v += sc_stride()) {
        if (s->fw[v] != round || !sc_open(s, (sc_u32)v)) continue;
        sc_u32 c = s->colour[v];
        for (sc_u64 e = s->off[v]; e < s->off[v + 1]; e++) {
            sc_u32 u = s->tgt[e];
            if (s->colour[u] > c && sc_open(s, u) && atomicMin(&s->colour[u], c) > c) {
                s->fw[u] = round + 1u;
                changed = true;
            }
        }
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
