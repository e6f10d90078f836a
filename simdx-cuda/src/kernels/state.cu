/* The constants and helpers all phases share: value bits, weights, vertex views, atomic combines, the
 * message a source sends. Compiled by NVRTC after the device prelude and a program's device code, which
 * define simdx_value, simdx_weight, simdx_params and the simdx_<fn> functions, and after the run state
 * sx_state and the counter slots, generated from simdx-cuda/src/device_structs.rs; the phase files
 * follow (see kernel_source in engine/mod.rs for the order). */


#define SX_BLOCK 256
#define SX_WARPS (SX_BLOCK / 32)
#define SX_TILE_ROUNDS 16
#define SX_TILE (SX_BLOCK * SX_TILE_ROUNDS)
#define SX_FULL 0xffffffffu
/* Arcs a thread of the edge-balanced and chunked steps handles at once: their loads are all issued
 * before any is used, so that a thread waits for memory once per SX_ILP arcs rather than per arc. */
#define SX_ILP 4
/* Whether pulls read every source's send slot without a stamp test: the program declares a silent
 * message (simdx-core's `silent_pulls`: an `Every` aggregation program) and has send slots. Every
 * vertex's slot holds the silent message except while the vertex is in the frontier: init writes it
 * everywhere, and the scan that picks the next frontier (which runs over every vertex after each step
 * of an `Every` program, once the step has read the slots) writes it back where a vertex leaves. */
#define SX_SILENT_PULLS (SIMDX_SILENT_PULLS && SIMDX_HAS_SOURCE_VALUE)

/* Delta-stepping relaxes light and heavy arcs apart (Meyer and Sanders), decided per source from its
 * value: while a bucket is current, a vertex pushes only the arcs whose update stays in the bucket (kron:22's
 * bucket 0 relaxes 2.6 times the graph's arcs otherwise), and when the bucket is exhausted each of its
 * vertices pushes the others once, from its final value (the settle step). Every frontier vertex goes into
 * the settle list when it is prepared (once per bucket: settle_mark), so any schedule of pulls, pushes and
 * hand-overs stays exact. The engine hands such programs each vertex's out-arcs in order of weight, so that
 * the arcs that stay are a prefix (sx_push_range). For programs with buckets whose updates are applied in
 * place, grow with the weight (SIMDX_UPDATE_GROWS_WITH_WEIGHT) and never read the destination's value (so
 * that an arc's update is known before its destination is loaded). */
#ifndef SIMDX_COMPUTE_READS_DST
#define SIMDX_COMPUTE_READS_DST 1
#endif
#ifndef SIMDX_UPDATE_GROWS_WITH_WEIGHT
#define SIMDX_UPDATE_GROWS_WITH_WEIGHT 0
#endif
#define SX_DEFERS                                                                                                    \
    (SIMDX_HAS_BUCKET && SIMDX_APPLY == SIMDX_APPLY_IN_PLACE && !SIMDX_COMPUTE_READS_DST && SIMDX_UPDATE_GROWS_WITH_WEIGHT)
/* Which arcs of its sources a push step relaxes (the `arcs` argument of the push phases). */
#define SX_ARCS_ALL 0u    /* every arc */
#define SX_ARCS_WITHIN 1u /* under SX_DEFERS: those whose update lands in the current bucket or below */
#define SX_ARCS_BEYOND 2u /* under SX_DEFERS: the others (the settle step) */

/* The run state `sx_state` every kernel takes first, and the counter slots the host reads after a step
 * (SX_NEXT_LEN, ..., SX_COUNTERS; far_len's SX_SETTLE_LEN), are declared in Rust
 * (simdx-cuda/src/device_structs.rs: SxState, counter_slots `step` and `far`), which generates their C
 * declarations and `#define`s in front of this file. */

template <int N> struct sx_bits_of;
template <> struct sx_bits_of<4> { typedef unsigned int T; };
template <> struct sx_bits_of<8> { typedef unsigned long long T; };
typedef sx_bits_of<sizeof(simdx_value)>::T sx_vbits;

__device__ __forceinline__ sx_vbits sx_to_bits(simdx_value v) {
    union { simdx_value v; sx_vbits b; } u;
    u.v = v;
    return u.b;
}
__device__ __forceinline__ simdx_value sx_from_bits(sx_vbits b) {
    union { simdx_value v; sx_vbits b; } u;
    u.b = b;
    return u.v;
}

__device__ __forceinline__ simdx_weight sx_weight(const sx_state* s, const simdx_weight* w, simdx_u64 i) {
    if (w) return w[i];
    union { simdx_u32 b; simdx_weight w; } u;
    u.b = s->uniform_weight_bits;
    return u.w;
}

/* Vertex v's out-degree as programs see it: in the whole graph (a share of a partitioned run holds only
 * some of v's arcs, and its state points to the whole graph's degrees), clamped to 32 bits. */
__device__ __forceinline__ simdx_u32 sx_out_degree32(const sx_state* s, simdx_u32 v) {
    if (s->degrees) return s->degrees[v];
    simdx_u64 d = s->out_offsets[v + 1] - s->out_offsets[v];
    return d > 0xffffffffull ? 0xffffffffu : (simdx_u32)d;
}

/* Vertex v's out-edges as the direction rule counts them, `d` being its out-degree in the graph at hand:
 * in a share of a partitioned run, its out-degree in the whole graph, so that every share (which all
 * hold the whole frontier) counts the same sum without a reduction. */
__device__ __forceinline__ simdx_u64 sx_counted_out_edges(const sx_state* s, simdx_u32 v, simdx_u64 d) {
    return s->degrees ? (simdx_u64)s->degrees[v] : d;
}

/* Vertex v's in-degree as programs see it (as sx_out_degree32). */
__device__ __forceinline__ simdx_u32 sx_in_degree32(const sx_state* s, simdx_u32 v) {
    if (s->degrees) return s->degrees[s->n + v];
    simdx_u64 d = s->in_offsets[v + 1] - s->in_offsets[v];
    return d > 0xffffffffull ? 0xffffffffu : (simdx_u32)d;
}

__device__ __forceinline__ simdx_vertex sx_vertex(const sx_state* s, simdx_u32 v) {
    simdx_vertex x;
    x.id = v;
    x.out_degree = sx_out_degree32(s, v);
    x.in_degree = sx_in_degree32(s, v);
    x.num_vertices = s->n;
    return x;
}

/* A combine at an address, returning the old value: native atomics where the op and type have them,
 * else a compare-and-swap loop over the program's combine. */
__device__ __forceinline__ simdx_value sx_cas_combine(simdx_value* a, simdx_value v, const simdx_params* p) {
    sx_vbits* ab = (sx_vbits*)a;
    sx_vbits old = *(volatile sx_vbits*)ab, assumed;
    do {
        assumed = old;
        sx_vbits next = sx_to_bits(simdx_combine(p, sx_from_bits(assumed), v));
        if (next == assumed) break;
        old = atomicCAS(ab, assumed, next);
    } while (old != assumed);
    return sx_from_bits(old);
}
__device__ __forceinline__ simdx_u32 sx_atomic(simdx_u32* a, simdx_u32 v, const simdx_params* p) {
    if (SIMDX_OP == SIMDX_OP_MIN) return atomicMin(a, v);
    if (SIMDX_OP == SIMDX_OP_MAX) return atomicMax(a, v);
    if (SIMDX_OP == SIMDX_OP_SUM) return atomicAdd(a, v);
    if (SIMDX_OP == SIMDX_OP_OR) return atomicOr(a, v);
    return sx_cas_combine((simdx_value*)a, (simdx_value)v, p);
}
__device__ __forceinline__ simdx_i32 sx_atomic(simdx_i32* a, simdx_i32 v, const simdx_params* p) {
    if (SIMDX_OP == SIMDX_OP_MIN) return atomicMin(a, v);
    if (SIMDX_OP == SIMDX_OP_MAX) return atomicMax(a, v);
    if (SIMDX_OP == SIMDX_OP_SUM) return atomicAdd(a, v);
    if (SIMDX_OP == SIMDX_OP_OR) return atomicOr(a, v);
    return sx_cas_combine((simdx_value*)a, (simdx_value)v, p);
}
__device__ __forceinline__ simdx_u64 sx_atomic(simdx_u64* a, simdx_u64 v, const simdx_params* p) {
    if (SIMDX_OP == SIMDX_OP_MIN) return atomicMin(a, v);
    if (SIMDX_OP == SIMDX_OP_MAX) return atomicMax(a, v);
    if (SIMDX_OP == SIMDX_OP_SUM) return atomicAdd(a, v);
    if (SIMDX_OP == SIMDX_OP_OR) return atomicOr(a, v);
    return sx_cas_combine((simdx_value*)a, (simdx_value)v, p);
}
__device__ __forceinline__ simdx_i64 sx_atomic(simdx_i64* a, simdx_i64 v, const simdx_params* p) {
    if (SIMDX_OP == SIMDX_OP_MIN) return atomicMin(a, v);
    if (SIMDX_OP == SIMDX_OP_MAX) return atomicMax(a, v);
    if (SIMDX_OP == SIMDX_OP_SUM) return (simdx_i64)atomicAdd((simdx_u64*)a, (simdx_u64)v);
    if (SIMDX_OP == SIMDX_OP_OR) return (simdx_i64)atomicOr((simdx_u64*)a, (simdx_u64)v);
    return sx_cas_combine((simdx_value*)a, (simdx_value)v, p);
}
__device__ __forceinline__ simdx_f32 sx_atomic(simdx_f32* a, simdx_f32 v, const simdx_params* p) {
    if (SIMDX_OP == SIMDX_OP_SUM) return atomicAdd(a, v);
    return sx_cas_combine((simdx_value*)a, (simdx_value)v, p);
}
__device__ __forceinline__ simdx_f64 sx_atomic(simdx_f64* a, simdx_f64 v, const simdx_params* p) {
    if (SIMDX_OP == SIMDX_OP_SUM) return atomicAdd(a, v);
    return sx_cas_combine((simdx_value*)a, (simdx_value)v, p);
}

/* What source u sends along its edges this iteration: its source_value, or its seen value (then the
 * message type is the value type). */
__device__ __forceinline__ simdx_msg sx_src(const sx_state* s, simdx_u32 u) {
    return SIMDX_HAS_SOURCE_VALUE ? s->send[u] : (simdx_msg)s->seen[u];
}
/* sx_src through volatile loads, for a source that many blocks read (kernels/push.cu, the grid class). */
__device__ __forceinline__ simdx_msg sx_src_volatile(const sx_state* s, simdx_u32 u) {
    return SIMDX_HAS_SOURCE_VALUE ? *(volatile const simdx_msg*)&s->send[u] : (simdx_msg)*(volatile const simdx_value*)&s->seen[u];
}

/* Under SX_DEFERS: whether the update along out-arc i of a source sending `src` (out-degree `deg`) lands
 * beyond `bucket`. */
__device__ __forceinline__ bool sx_arc_leaves(const sx_state* s, const simdx_params* p, simdx_msg src, simdx_u32 deg, simdx_u64 i,
                                              simdx_u32 bucket) {
    simdx_edge e;
    e.src = src;
    e.dst = SIMDX_IDENTITY; /* never read (SX_DEFERS) */
    e.weight = sx_weight(s, s->out_weights, i);
    e.src_out_degree = deg;
    return simdx_bucket(p, simdx_compute(p, e)) > bucket;
}

/* Whether a pull takes a vertex holding `dst` as a candidate: it can still be updated, and, in a settle
 * step that pulls (`settled` = the exhausted bucket + 1, else 0), it is not settled yet (its bucket is
 * not below `settled`: delta-stepping's vertices of exhausted buckets hold their final values). */
__device__ __forceinline__ bool sx_pull_wants(const simdx_params* p, simdx_value dst, simdx_u32 settled) {
    return simdx_can_update(p, dst) && (settled == 0u || simdx_bucket(p, dst) >= settled);
}

/* Narrows a source's out-arcs [*b, *e) to those a push step's `arcs` (SX_ARCS_*) relaxes in `bucket`: all
 * of them without SX_DEFERS or for SX_ARCS_ALL; else those whose update stays within the bucket
 * (SX_ARCS_WITHIN) or the others (SX_ARCS_BEYOND). The arcs lie in order of weight and the update grows
 * with it, so the first kind is a prefix: its end is found by galloping from the first arc (the usual
 * prefix is a few arcs, read from one cache line), then by bisection. */
__device__ __forceinline__ void sx_push_range(const sx_state* s, const simdx_params* p, simdx_msg src, simdx_u32 deg, simdx_u32 arcs,
                                              simdx_u32 bucket, simdx_u64* b, simdx_u64* e) {
#if SX_DEFERS
    if (arcs == SX_ARCS_ALL) return;
    /* Arcs before lo stay, arcs from hi leave. */
    simdx_u64 lo = *b, hi = *e;
    for (simdx_u64 step = 1; lo < hi; step *= 2) {
        simdx_u64 probe = lo + step - 1 < hi ? lo + step - 1 : hi - 1;
        if (sx_arc_leaves(s, p, src, deg, probe, bucket)) {
            hi = probe;
            break;
        }
        lo = probe + 1;
    }
    while (lo < hi) {
        simdx_u64 mid = lo + (hi - lo) / 2;
        if (sx_arc_leaves(s, p, src, deg, mid, bucket)) hi = mid;
        else lo = mid + 1;
    }
    if (arcs == SX_ARCS_WITHIN) *e = lo;
    else *b = lo;
#else
    (void)s, (void)p, (void)src, (void)deg, (void)arcs, (void)bucket, (void)b, (void)e;
#endif
}

/* A pull stamp meaning "every source is active; read its live value": for in-place min and max programs
 * without a source_value once every vertex has been in a frontier (a live value is never worse). */
#define SX_LIVE 0xffffffffu

/* An empty slot in a thread's list of candidates (vertex ids are below it). */
#define SX_NO_VERTEX 0xffffffffu

/* What source u offers a pull under `stamp`. */
__device__ __forceinline__ simdx_msg sx_pull_src(const sx_state* s, simdx_u32 u, simdx_u32 stamp) {
    return stamp == SX_LIVE ? (simdx_msg)*(volatile const simdx_value*)&s->now[u] : sx_src(s, u);
}

/* SX_SENDERS (1 in the kernels of a run that keeps senders: voting min programs of 32-bit unsigned
 * values, CudaEngine::run_with_senders): every update that lands records its sender. SX_ASYNC_SENDERS
 * (SX_SENDERS unless set): whether asynchronous rounds record theirs too; a breadth-first search's
 * run leaves them out and names the missing senders after the run (CudaEngine::run_bfs_with_senders). */
#ifndef SX_SENDERS
#define SX_SENDERS 0
#endif
#ifndef SX_ASYNC_SENDERS
#define SX_ASYNC_SENDERS SX_SENDERS
#endif
/* Records u as the sender of v's new value: a plain store, for level-synchronous steps, where every
 * update a vertex gets in a step is alike. */
__device__ __forceinline__ void sx_sent_by(const sx_state* s, simdx_u32 v, simdx_u32 u) {
    if (SX_SENDERS) s->senders[v] = u;
}
/* As sx_sent_by, for asynchronous rounds, which can lower a value twice at once: the value u's update
 * set goes above u in a word of its own, and the least word (the least value's sender) wins. */
__device__ __forceinline__ void sx_sent_min(const sx_state* s, simdx_u32 v, simdx_u32 u, simdx_value value) {
    if (SX_ASYNC_SENDERS) atomicMin(&s->sender_words[v], ((unsigned long long)(simdx_u32)sx_to_bits(value) << 32) | u);
}

/* Values compared as Rust's `==` does (so that NaN differs from itself, as on the CPU). */
__device__ __forceinline__ bool sx_same(simdx_value a, simdx_value b) { return a == b; }
