/* simdx CUDA kernels, one launch per step (fusion mode `none`). Compiled by NVRTC after the device
 * prelude and a program's device code, which define simdx_value, simdx_weight, simdx_params and the
 * simdx_<fn> functions. Every kernel reads the run's state through one sx_state struct. */

#define SX_BLOCK 256
#define SX_WARPS (SX_BLOCK / 32)
#define SX_TILE_ROUNDS 16
#define SX_TILE (SX_BLOCK * SX_TILE_ROUNDS)
#define SX_FULL 0xffffffffu
/* Whether pulls read every source's send slot without a stamp test: the program declares a silent
 * message (simdx-core's `silent_pulls`: an `Every` aggregation program) and has send slots. Every
 * vertex's slot holds the silent message except while the vertex is in the frontier: init writes it
 * everywhere, and the scan that picks the next frontier (which runs over every vertex after each step
 * of an `Every` program, once the step has read the slots) writes it back where a vertex leaves. */
#define SX_SILENT_PULLS (SIMDX_SILENT_PULLS && SIMDX_HAS_SOURCE_VALUE)

/* Counter slots (u64 each) that the host reads after a step. */
#define SX_NEXT_LEN 0
#define SX_OVERFLOW 1
#define SX_PENDING 2
#define SX_MIN_BUCKET 3
#define SX_EDGES 4
#define SX_OUT_EDGES 5
#define SX_GLOBAL 6
#define SX_CHANGE 7
#define SX_CLASS_LEN 8 /* 4 slots: thread, warp, cta, grid */
#define SX_COUNTERS 12

typedef struct {
    const simdx_u64* out_offsets;
    const simdx_u32* out_targets;
    const simdx_weight* out_weights; /* NULL: every edge weighs uniform_weight */
    const simdx_u64* in_offsets;
    const simdx_u32* in_targets;
    const simdx_weight* in_weights;
    simdx_value* now;
    simdx_value* seen;
    simdx_value* acc;
    simdx_u32* touched;     /* 1: reached in this iteration */
    simdx_u32* in_frontier; /* = the iteration's stamp: an active source of this pull step */
    simdx_u32* pending;     /* 1: active, waiting in a later bucket */
    unsigned long long* counters;
    simdx_msg* send;        /* source_value of each frontier vertex (programs that define it) */
    simdx_u32* far[2];      /* the waiting (pending) vertices, each once; far[fcur] is current */
    unsigned long long* far_len; /* [2]: the lengths of far[0] and far[1] */
    simdx_value* sent;      /* the seen value before this iteration's snapshot (programs that read it) */
    simdx_u32* prepared;    /* the tag (iteration + 1) of the last snapshot of each vertex */
    simdx_u32 n;
    simdx_u32 online_capacity;
    simdx_u32 uniform_weight_bits;
    simdx_u32 class_warp;
    simdx_u32 class_cta;
    simdx_u32 class_grid;
    simdx_params params;
} sx_state;

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

__device__ __forceinline__ simdx_vertex sx_vertex(const sx_state* s, simdx_u32 v) {
    simdx_vertex x;
    simdx_u64 od = s->out_offsets[v + 1] - s->out_offsets[v];
    simdx_u64 id = s->in_offsets[v + 1] - s->in_offsets[v];
    x.id = v;
    x.out_degree = od > 0xffffffffull ? 0xffffffffu : (simdx_u32)od;
    x.in_degree = id > 0xffffffffull ? 0xffffffffu : (simdx_u32)id;
    x.num_vertices = s->n;
    return x;
}

__device__ __forceinline__ simdx_u32 sx_out_degree32(const sx_state* s, simdx_u32 v) {
    simdx_u64 d = s->out_offsets[v + 1] - s->out_offsets[v];
    return d > 0xffffffffull ? 0xffffffffu : (simdx_u32)d;
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

/* Values compared as Rust's `==` does (so that NaN differs from itself, as on the CPU). */
__device__ __forceinline__ bool sx_same(simdx_value a, simdx_value b) { return a == b; }

/* The online filter. Newly reached vertices go, warp-aggregated, into the recording warp's bin in shared
 * memory (SX_BIN entries; one shared atomic per warp and ballot). At the end of a recording phase each
 * warp writes its bin out to the next worklist with one global atomic (sx_bin_close). A full bin's extra
 * vertices go straight to the worklist, warp-aggregated. Past the worklist's capacity the overflow flag is
 * raised (once per warp, and not at all once it is up) and the ballot filter takes this iteration. With
 * no capacity (ballot policy, `Every` programs) nothing is recorded: the scan finds the reached vertices
 * by their flags. The next step (select) sorts the worklist into the degree classes. Recording phases
 * are called by every thread of a block (sx_bin_close has a block barrier). */
#define SX_BIN 128
typedef struct {
    simdx_u32 v[SX_WARPS][SX_BIN];
    unsigned len[SX_WARPS]; /* may exceed SX_BIN: the extra vertices went to the worklist */
} sx_bin_mem;

__device__ __forceinline__ sx_bin_mem* sx_bins() {
    __shared__ sx_bin_mem bins;
    return &bins;
}

/* Appends the vertices of the lanes in `want` (of `mask`) to the worklist `next` from `lane`'s position in
 * `want`; leader = the lowest lane of `want`. */
__device__ __forceinline__ void sx_record_global(const sx_state* s, unsigned long long* ctr, simdx_u32* next, unsigned mask,
                                                 unsigned want, bool take, simdx_u32 v) {
    simdx_u32 capacity = s->online_capacity;
    int lane = threadIdx.x & 31;
    int leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) {
        if (*(volatile unsigned long long*)&ctr[SX_OVERFLOW] != 0ull) {
            base = ~0ull;
        } else {
            base = atomicAdd(&ctr[SX_NEXT_LEN], (unsigned long long)__popc(want));
            if (base + __popc(want) > capacity) ctr[SX_OVERFLOW] = 1ull;
        }
    }
    base = __shfl_sync(mask, base, leader);
    if (take && base != ~0ull) {
        unsigned long long at = base + __popc(want & ((1u << lane) - 1u));
        if (at < capacity) next[at] = v;
    }
}

/* Empties the calling warp's bin; called by whole warps at the start of a recording phase (shared memory
 * starts undefined in every launch). */
__device__ __forceinline__ void sx_bin_open() {
    if ((threadIdx.x & 31) == 0) sx_bins()->len[threadIdx.x / 32] = 0u;
    __syncwarp();
}

/* Records v (where `take`) in the calling warp's bin, or in the worklist once the bin is full. Safe with
 * any set of active lanes: the bin's length grows by a shared atomic. */
__device__ __forceinline__ void sx_record(const sx_state* s, unsigned long long* ctr, simdx_u32* next, bool take, simdx_u32 v) {
    if (s->online_capacity == 0u) return;
    unsigned mask = __activemask();
    unsigned want = __ballot_sync(mask, take);
    if (want == 0u) return;
    int lane = threadIdx.x & 31;
    int leader = __ffs(want) - 1;
    sx_bin_mem* bins = sx_bins();
    int w = threadIdx.x / 32;
    unsigned pos = 0;
    if (lane == leader) pos = atomicAdd(&bins->len[w], (unsigned)__popc(want));
    pos = __shfl_sync(mask, pos, leader);
    unsigned at = pos + __popc(want & ((1u << lane) - 1u));
    if (take && at < SX_BIN) bins->v[w][at] = v;
    unsigned spill = __ballot_sync(mask, take && at >= SX_BIN);
    if (spill) sx_record_global(s, ctr, next, mask, spill, take && at >= SX_BIN, v);
}

/* Writes the calling warp's bin out to the worklist with one global atomic and empties it; called by every
 * thread of the block at the end of a recording phase. The block barrier orders this phase's reads of the
 * bins before the next phase (of a fused kernel) refills them. */
__device__ __forceinline__ void sx_bin_close(const sx_state* s, unsigned long long* ctr, simdx_u32* next) {
    __syncwarp();
    sx_bin_mem* bins = sx_bins();
    int lane = threadIdx.x & 31, w = threadIdx.x / 32;
    simdx_u32 capacity = s->online_capacity;
    unsigned count = capacity == 0u ? 0u : min(bins->len[w], (unsigned)SX_BIN);
    if (count != 0u) {
        unsigned long long base = 0;
        if (lane == 0) {
            if (*(volatile unsigned long long*)&ctr[SX_OVERFLOW] != 0ull) {
                base = ~0ull;
            } else {
                base = atomicAdd(&ctr[SX_NEXT_LEN], (unsigned long long)count);
                if (base + count > capacity) ctr[SX_OVERFLOW] = 1ull;
            }
        }
        base = __shfl_sync(SX_FULL, base, 0);
        if (base != ~0ull) {
            for (unsigned i = lane; i < count; i += 32) {
                if (base + i < capacity) next[base + i] = bins->v[w][i];
            }
        }
    }
    __syncthreads();
    if (lane == 0) bins->len[w] = 0u;
    __syncwarp();
}

/* Marks v reached; true the first time in this iteration. */
__device__ __forceinline__ bool sx_touch(const sx_state* s, simdx_u32 v) {
    if (s->touched[v]) return false;
    return atomicExch(&s->touched[v], 1u) == 0u;
}

__device__ __forceinline__ void sx_add_edges(unsigned long long* ctr, unsigned long long edges) {
    for (int o = 16; o > 0; o >>= 1) edges += __shfl_down_sync(SX_FULL, edges, o);
    if ((threadIdx.x & 31) == 0 && edges) atomicAdd(&ctr[SX_EDGES], edges);
}

/* Push along out-arc i to v, whose value was dst when loaded: compute, combine at the destination; true
 * if v was reached first here. */
__device__ __forceinline__ bool sx_push_loaded(const sx_state* s, const simdx_params* p, simdx_msg src, simdx_u32 src_deg,
                                               simdx_u64 i, simdx_u32 v, simdx_value dst) {
    if (!simdx_can_update(p, dst)) return false;
    simdx_edge e;
    e.src = src;
    e.dst = dst;
    e.weight = sx_weight(s, s->out_weights, i);
    e.src_out_degree = src_deg;
    simdx_value update = simdx_compute(p, e);
    bool reached;
    if (SIMDX_APPLY == SIMDX_APPLY_IN_PLACE) {
        if (sx_same(simdx_combine(p, dst, update), dst)) return false;
        simdx_value old = sx_atomic(&s->now[v], update, p);
        reached = !sx_same(simdx_combine(p, old, update), old);
    } else {
        sx_atomic(&s->acc[v], update, p);
        reached = true;
    }
    return reached && sx_touch(s, v);
}

/* Push along one out-arc i of a source: loads, then sx_push_loaded. */
__device__ __forceinline__ bool sx_push_arc(const sx_state* s, const simdx_params* p, simdx_msg src,
                                            simdx_u32 src_deg, simdx_u64 i, simdx_u32* vout) {
    simdx_u32 v = s->out_targets[i];
    *vout = v;
    return sx_push_loaded(s, p, src, src_deg, i, v, s->now[v]);
}

/* Arcs a thread of the edge-balanced and chunked steps handles at once: their loads are all issued
 * before any is used, so that a thread waits for memory once per SX_ILP arcs rather than per arc. */
#define SX_ILP 4

extern "C" {

__device__ __forceinline__ void ph_init(const sx_state* s, unsigned long long* ctr) {
    simdx_params p = s->params;
    for (simdx_u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < s->n; v += gridDim.x * blockDim.x) {
        s->now[v] = simdx_init(&p, sx_vertex(s, v));
        s->seen[v] = SIMDX_UNSEEN;
        s->prepared[v] = 0u;
        if (s->acc) s->acc[v] = SIMDX_IDENTITY;
        if (SX_SILENT_PULLS) s->send[v] = SIMDX_SILENT;
        s->touched[v] = 0u;
        s->in_frontier[v] = 0u;
        s->pending[v] = 0u;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        s->far_len[0] = 0ull;
        s->far_len[1] = 0ull;
    }
}
__global__ void sx_init(const sx_state* __restrict__ s) {
    ph_init(s, s->counters);
}

/* Appends v (where `take`) to `out` at the position counted by *count, with one atomic per warp. Called
 * by whole warps. */
__device__ __forceinline__ void sx_warp_append(unsigned long long* count, simdx_u32* out, bool take, simdx_u32 v) {
    unsigned want = __ballot_sync(SX_FULL, take);
    if (!want) return;
    int lane = threadIdx.x & 31, leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(count, (unsigned long long)__popc(want));
    base = __shfl_sync(SX_FULL, base, leader);
    if (take) out[base + __popc(want & ((1u << lane) - 1u))] = v;
}

/* Appends v (where `take`) to the degree-class list of `d`, warp-aggregated: thread (< class_warp), warp
 * (< class_cta), CTA (< class_grid), grid. Called by whole warps. */
__device__ __forceinline__ void sx_classify_one(const sx_state* s, unsigned long long* ctr, bool take, simdx_u32 v, simdx_u64 d,
                                                simdx_u32* const* classes) {
    int cls = d < s->class_warp ? 0 : d < s->class_cta ? 1 : d < s->class_grid ? 2 : 3;
    for (int c = 0; c < 4; c++) sx_warp_append(&ctr[SX_CLASS_LEN + c], classes[c], take && cls == c, v);
}

/* Whether the snapshot keeps the seen value it replaces: source_value and global read it. */
#define SX_KEEPS_SENT (SIMDX_HAS_SOURCE_VALUE || SIMDX_USES_GLOBAL)

/* Prepares frontier vertex v (where `take`) for the iteration tagged `tag` (its count + 1): seen := now
 * (the value it sends), its source_value, its share of the global sum in ctr[SX_GLOBAL], its pull stamp
 * (`stamp` > 0), its out-edges counted in ctr[SX_OUT_EDGES], and with `classes` its push degree class.
 * Preparing a vertex twice for one iteration (a fused kernel taking over after a direction switch) gives
 * the same result: the replaced seen value is kept in `sent` under the tag. Called by whole warps. */
__device__ __forceinline__ void sx_prepare(const sx_state* s, const simdx_params* p, unsigned long long* ctr, bool take, simdx_u32 v,
                                           simdx_u32 tag, simdx_u32 stamp, simdx_u32* const* classes) {
    unsigned long long d = 0;
    double global = 0.0;
    if (take) {
        simdx_value value = s->now[v];
        simdx_value sent = value;
        if (SX_KEEPS_SENT) {
            if (s->prepared[v] != tag) {
                sent = s->seen[v];
                s->sent[v] = sent;
                s->prepared[v] = tag;
            } else {
                sent = s->sent[v];
            }
        }
        s->seen[v] = value;
        if (SIMDX_HAS_SOURCE_VALUE) s->send[v] = simdx_source_value(p, sx_vertex(s, v), value, sent);
        if (SIMDX_USES_GLOBAL) global = simdx_global(p, sx_vertex(s, v), value, sent);
        if (stamp) s->in_frontier[v] = stamp;
        d = s->out_offsets[v + 1] - s->out_offsets[v];
    }
    if (classes) sx_classify_one(s, ctr, take, v, d, classes);
    for (int o = 16; o > 0; o >>= 1) d += __shfl_down_sync(SX_FULL, d, o);
    if ((threadIdx.x & 31) == 0 && d) atomicAdd(&ctr[SX_OUT_EDGES], d);
    if (SIMDX_USES_GLOBAL) {
        for (int o = 16; o > 0; o >>= 1) global += __shfl_down_sync(SX_FULL, global, o);
        if ((threadIdx.x & 31) == 0 && global != 0.0) atomicAdd((double*)&ctr[SX_GLOBAL], global);
    }
}

/* Prepares every vertex of a frontier list (sx_prepare); `classes` may be NULL. */
__device__ __forceinline__ void ph_snapshot(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 tag,
                                            simdx_u32 stamp, simdx_u32* const* classes) {
    simdx_params p = s->params;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool live = i < len;
        sx_prepare(s, &p, ctr, live, live ? list[i] : 0u, tag, stamp, classes);
    }
}
__global__ void sx_snapshot(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 tag, simdx_u32 stamp) {
    ph_snapshot(s, s->counters, list, len, tag, stamp, 0);
}

/* Splits a worklist (`all`: every vertex) into degree classes (sx_classify_one); `in_degree` picks the
 * in-CSR (pull). */
__device__ __forceinline__ void ph_classify(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 all,
                            simdx_u32 in_degree, simdx_u32* const* classes) {
    simdx_u32 count = all ? s->n : len;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (count + stride - 1) / stride;
    const simdx_u64* off = in_degree ? s->in_offsets : s->out_offsets;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool live = i < count;
        simdx_u32 v = live ? (all ? i : list[i]) : 0u;
        simdx_u64 d = live ? off[v + 1] - off[v] : 0;
        sx_classify_one(s, ctr, live, v, d, classes);
    }
}
__global__ void sx_classify(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 all,
                            simdx_u32 in_degree, simdx_u32* c0, simdx_u32* c1, simdx_u32* c2, simdx_u32* c3) {
    simdx_u32* classes[4] = {c0, c1, c2, c3};
    ph_classify(s, s->counters, list, len, all, in_degree, classes);
}

/* Push, thread class: one thread per frontier vertex. */
__device__ __forceinline__ void ph_push_thread(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32* next) {
    sx_bin_open();
    simdx_params p = s->params;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    unsigned long long edges = 0;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool live = i < len;
        simdx_u32 u = live ? list[i] : 0u;
        simdx_u64 b = live ? s->out_offsets[u] : 0, e = live ? s->out_offsets[u + 1] : 0;
        simdx_msg src = live ? sx_src(s, u) : (simdx_msg)0;
        simdx_u32 deg = live ? sx_out_degree32(s, u) : 0u;
        edges += e - b;
        simdx_u32 most = (simdx_u32)(e - b);
        for (int o = 16; o > 0; o >>= 1) most = max(most, __shfl_xor_sync(SX_FULL, most, o));
        for (simdx_u32 k = 0; k < most; k++) {
            simdx_u32 v = 0;
            bool take = (b + k < e) && sx_push_arc(s, &p, src, deg, b + k, &v);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_push_thread(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* next) {
    ph_push_thread(s, s->counters, list, len, next);
}

/* Push, warp class: one warp per vertex, lanes over its arcs. */
__device__ __forceinline__ void ph_push_warp(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32* next) {
    sx_bin_open();
    simdx_params p = s->params;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    simdx_u32 warps = gridDim.x * blockDim.x / 32;
    unsigned long long edges = 0;
    for (simdx_u32 i = warp; i < len; i += warps) {
        simdx_u32 u = list[i];
        simdx_u64 b = s->out_offsets[u], e = s->out_offsets[u + 1];
        simdx_msg src = sx_src(s, u);
        simdx_u32 deg = sx_out_degree32(s, u);
        if (lane == 0) edges += e - b;
        for (simdx_u64 k = b; k < e; k += 32) {
            simdx_u32 v = 0;
            bool take = (k + lane < e) && sx_push_arc(s, &p, src, deg, k + lane, &v);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_push_warp(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* next) {
    ph_push_warp(s, s->counters, list, len, next);
}

/* Push, CTA class: one block per vertex. With `grid_split` > 1 (grid class), `grid_split` blocks
 * share each vertex, each taking an interleaved part of its arcs. */
__device__ __forceinline__ void ph_push_cta(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32* next,
                            simdx_u32 grid_split) {
    sx_bin_open();
    simdx_params p = s->params;
    unsigned long long edges = 0;
    simdx_u32 part = blockIdx.x % grid_split;
    for (simdx_u32 i = blockIdx.x / grid_split; i < len; i += gridDim.x / grid_split) {
        simdx_u32 u = list[i];
        simdx_u64 b = s->out_offsets[u], e = s->out_offsets[u + 1];
        simdx_msg src = sx_src(s, u);
        simdx_u32 deg = sx_out_degree32(s, u);
        if (threadIdx.x == 0 && part == 0) edges += e - b;
        for (simdx_u64 k = b + (simdx_u64)part * blockDim.x; k < e; k += (simdx_u64)blockDim.x * grid_split) {
            simdx_u32 v = 0;
            bool take = (k + threadIdx.x < e) && sx_push_arc(s, &p, src, deg, k + threadIdx.x, &v);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_push_cta(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* next,
                            simdx_u32 grid_split) {
    ph_push_cta(s, s->counters, list, len, next, grid_split);
}

/* The pull side of one vertex, after its in-arcs were combined: store and record. */
__device__ __forceinline__ bool sx_pull_finish(const sx_state* s, const simdx_params* p, simdx_u32 v, bool got,
                                               simdx_value update) {
    if (!got) return false;
    if (SIMDX_APPLY == SIMDX_APPLY_IN_PLACE) {
        simdx_value old = s->now[v];
        simdx_value nv = simdx_combine(p, old, update);
        if (sx_same(nv, old)) return false;
        s->now[v] = nv;
    } else {
        s->acc[v] = update;
    }
    return sx_touch(s, v);
}

/* One in-arc i of v during pull: whether its source is active (its in_frontier stamp is `stamp`; a
 * stamp of 0: every source is), and its update. */
__device__ __forceinline__ bool sx_pull_arc(const sx_state* s, const simdx_params* p, simdx_u32 stamp, simdx_value dst,
                                            simdx_u64 i, simdx_value* update) {
    simdx_u32 u = s->in_targets[i];
    if (stamp != 0u && s->in_frontier[u] != stamp) return false;
    simdx_edge e;
    e.src = sx_src(s, u);
    e.dst = dst;
    e.weight = sx_weight(s, s->in_weights, i);
    e.src_out_degree = sx_out_degree32(s, u);
    *update = simdx_compute(p, e);
    return true;
}

/* SX_ILP in-arcs of one thread (arc[j] == ~0: none) towards vertices of values dst[j]: whether each
 * one's source is active, and its update; every load is issued before any is used. */
__device__ __forceinline__ void sx_pull_arcs(const sx_state* s, const simdx_params* p, simdx_u32 stamp, const simdx_u64* arc,
                                             const simdx_value* dst, bool* got, simdx_value* update) {
    simdx_u32 u[SX_ILP];
    simdx_msg src[SX_ILP];
    bool active[SX_ILP];
#pragma unroll
    for (int j = 0; j < SX_ILP; j++) u[j] = arc[j] != ~0ull ? s->in_targets[arc[j]] : 0u;
#pragma unroll
    for (int j = 0; j < SX_ILP; j++) {
        src[j] = arc[j] != ~0ull ? sx_src(s, u[j]) : (simdx_msg)0;
        active[j] = arc[j] != ~0ull && (stamp == 0u || s->in_frontier[u[j]] == stamp);
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

/* Warp-wide combine of (got, value) pairs; lane 0 ends with the result. */
__device__ __forceinline__ bool sx_warp_combine(const simdx_params* p, bool got, simdx_value* value) {
    for (int o = 16; o > 0; o >>= 1) {
        bool og = __shfl_down_sync(SX_FULL, (int)got, o) != 0;
        simdx_value ov = __shfl_down_sync(SX_FULL, *value, o);
        if (og) {
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
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = false;
        simdx_u32 v = 0;
        if (i < len) {
            v = list[i];
            simdx_value dst = s->now[v];
            if (simdx_can_update(&p, dst)) {
                bool got = false;
                simdx_value acc = SIMDX_IDENTITY;
                for (simdx_u64 k = s->in_offsets[v]; k < s->in_offsets[v + 1]; k++) {
                    edges++;
                    simdx_value up;
                    if (!sx_pull_arc(s, &p, stamp, dst, k, &up)) continue;
                    acc = got ? simdx_combine(&p, acc, up) : up;
                    got = true;
                    if (SIMDX_KIND == SIMDX_KIND_VOTING) break;
                }
                take = sx_pull_finish(s, &p, v, got, acc);
            }
        }
        sx_record(s, ctr, next, take, v);
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_pull_thread(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 stamp,
                               simdx_u32* next) {
    ph_pull_thread(s, s->counters, list, len, stamp, next);
}

/* Pull, warp class: one warp per vertex; voting stops once any lane found an update. */
__device__ __forceinline__ void ph_pull_warp(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 stamp,
                             simdx_u32* next) {
    sx_bin_open();
    simdx_params p = s->params;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    simdx_u32 warps = gridDim.x * blockDim.x / 32;
    unsigned long long edges = 0;
    for (simdx_u32 i = warp; i < len; i += warps) {
        simdx_u32 v = list[i];
        simdx_value dst = s->now[v];
        if (!simdx_can_update(&p, dst)) continue;
        bool got = false;
        simdx_value acc = SIMDX_IDENTITY;
        simdx_u64 b = s->in_offsets[v], e = s->in_offsets[v + 1];
        for (simdx_u64 k = b; k < e; k += 32) {
            simdx_value up;
            if (k + lane < e) {
                edges++;
                if (sx_pull_arc(s, &p, stamp, dst, k + lane, &up)) {
                    acc = got ? simdx_combine(&p, acc, up) : up;
                    got = true;
                }
            }
            if (SIMDX_KIND == SIMDX_KIND_VOTING && __any_sync(SX_FULL, got)) break;
        }
        got = sx_warp_combine(&p, got, &acc);
        bool take = false;
        if (lane == 0) take = sx_pull_finish(s, &p, v, got, acc);
        sx_record(s, ctr, next, take, v);
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_pull_warp(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 stamp,
                             simdx_u32* next) {
    ph_pull_warp(s, s->counters, list, len, stamp, next);
}

/* Edge-balanced tiles (push of the thread class; pull of aggregation programs): a block takes SX_BLOCK
 * vertices, an exclusive scan of their degrees in shared memory numbers their arcs 0..total, and the
 * threads walk that range together, so that consecutive threads read consecutive arcs of one list and
 * no thread idles while a neighbour finishes a longer list. */
typedef struct {
    simdx_u64 start[SX_BLOCK];      /* first arc of each vertex of the tile */
    simdx_u64 prefix[SX_BLOCK];     /* exclusive prefix of the arcs taken per vertex */
    union {
        simdx_msg send[SX_BLOCK];    /* push: what the source sends */
        simdx_value value[SX_BLOCK]; /* pull: the vertex's own value */
    };
    simdx_value acc[SX_BLOCK];      /* pull: the combined updates */
    simdx_u32 degree[SX_BLOCK];     /* push: out-degree of the source */
    simdx_u32 got[SX_BLOCK];        /* pull: 1 once an update arrived */
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

/* Push over edge-balanced tiles of a worklist (used for the thread class). */
__device__ __forceinline__ void ph_push_tiles(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32* next) {
    sx_bin_open();
    sx_tile_mem* t = sx_tile_shared();
    simdx_params p = s->params;
    simdx_u32 tiles = (len + SX_BLOCK - 1) / SX_BLOCK;
    unsigned long long edges = 0;
    for (simdx_u32 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        simdx_u32 i = tile * SX_BLOCK + threadIdx.x;
        simdx_u64 b = 0, d = 0;
        if (i < len) {
            simdx_u32 u = list[i];
            b = s->out_offsets[u];
            d = s->out_offsets[u + 1] - b;
            t->send[threadIdx.x] = sx_src(s, u);
            t->degree[threadIdx.x] = d > 0xffffffffull ? 0xffffffffu : (simdx_u32)d;
        }
        simdx_u64 total;
        simdx_u64 before = sx_block_scan(t, d, &total);
        t->start[threadIdx.x] = b;
        t->prefix[threadIdx.x] = before;
        __syncthreads();
        for (simdx_u64 base = 0; base < total; base += (simdx_u64)SX_BLOCK * SX_ILP) {
            simdx_u32 o[SX_ILP], v[SX_ILP];
            simdx_u64 arc[SX_ILP];
            simdx_value dst[SX_ILP];
#pragma unroll
            for (int j = 0; j < SX_ILP; j++) {
                simdx_u64 pos = base + (simdx_u64)j * SX_BLOCK + threadIdx.x;
                o[j] = pos < total ? sx_tile_owner(t, pos) : 0u;
                arc[j] = pos < total ? t->start[o[j]] + (pos - t->prefix[o[j]]) : ~0ull;
                v[j] = arc[j] != ~0ull ? s->out_targets[arc[j]] : 0u;
            }
#pragma unroll
            for (int j = 0; j < SX_ILP; j++) dst[j] = arc[j] != ~0ull ? s->now[v[j]] : SIMDX_IDENTITY;
#pragma unroll
            for (int j = 0; j < SX_ILP; j++) {
                bool take = arc[j] != ~0ull && sx_push_loaded(s, &p, t->send[o[j]], t->degree[o[j]], arc[j], v[j], dst[j]);
                sx_record(s, ctr, next, take, v[j]);
            }
        }
        if (threadIdx.x == 0) edges += total;
        __syncthreads(); /* the next tile rewrites the shared arrays */
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_push_tiles(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* next) {
    ph_push_tiles(s, s->counters, list, len, next);
}

/* Pull of aggregation programs over edge-balanced tiles of consecutive vertices: every vertex of in-degree
 * below class_cta that can still be updated (the CTA and grid classes pull in ph_pull_chunks). Updates for
 * one vertex are combined across a warp by a segmented shuffle reduction, then across warps in shared
 * memory; nothing stops early, so voting programs keep the per-class kernels. */
__device__ __forceinline__ void ph_pull_tiles(const sx_state* s, unsigned long long* ctr, simdx_u32 stamp, simdx_u32* next) {
    sx_bin_open();
    sx_tile_mem* t = sx_tile_shared();
    simdx_params p = s->params;
    simdx_u32 lane = threadIdx.x & 31;
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
            if (deg < s->class_cta && simdx_can_update(&p, dst)) d = deg;
        }
        simdx_u64 total;
        simdx_u64 before = sx_block_scan(t, d, &total);
        t->start[threadIdx.x] = b;
        t->prefix[threadIdx.x] = before;
        t->acc[threadIdx.x] = SIMDX_IDENTITY;
        t->got[threadIdx.x] = 0u;
        __syncthreads();
        for (simdx_u64 base = 0; base < total; base += (simdx_u64)SX_BLOCK * SX_ILP) {
            simdx_u32 owner[SX_ILP];
            simdx_u64 arc[SX_ILP];
            simdx_value dst[SX_ILP], up[SX_ILP];
            bool got[SX_ILP];
#pragma unroll
            for (int j = 0; j < SX_ILP; j++) {
                simdx_u64 pos = base + (simdx_u64)j * SX_BLOCK + threadIdx.x;
                owner[j] = pos < total ? sx_tile_owner(t, pos) : 0xffffffffu;
                arc[j] = pos < total ? t->start[owner[j]] + (pos - t->prefix[owner[j]]) : ~0ull;
                dst[j] = pos < total ? t->value[owner[j]] : SIMDX_IDENTITY;
            }
            sx_pull_arcs(s, &p, stamp, arc, dst, got, up);
#pragma unroll
            for (int j = 0; j < SX_ILP; j++) {
                /* Lanes of one owner are adjacent: each lane gathers the rest of its owner's run. */
                simdx_u32 o = owner[j];
                bool g = got[j];
                simdx_value x = up[j];
                for (int k = 1; k < 32; k <<= 1) {
                    simdx_u32 ko = __shfl_down_sync(SX_FULL, o, k);
                    bool kg = __shfl_down_sync(SX_FULL, (int)g, k) != 0;
                    simdx_value kv = __shfl_down_sync(SX_FULL, x, k);
                    if (lane + k < 32 && ko == o && kg) {
                        x = g ? simdx_combine(&p, x, kv) : kv;
                        g = true;
                    }
                }
                simdx_u32 prev = __shfl_up_sync(SX_FULL, o, 1);
                if (g && (lane == 0 || prev != o)) {
                    sx_atomic(&t->acc[o], x, &p);
                    t->got[o] = 1u;
                }
            }
        }
        __syncthreads();
        bool take = live && t->got[threadIdx.x] && sx_pull_finish(s, &p, v, true, t->acc[threadIdx.x]);
        sx_record(s, ctr, next, take, v);
        if (threadIdx.x == 0) edges += total;
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_pull_tiles(const sx_state* __restrict__ s, simdx_u32 stamp, simdx_u32* next) {
    ph_pull_tiles(s, s->counters, stamp, next);
}

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

/* Pull of the vertices of in-degree >= class_cta, in chunks of SX_CHUNK in-arcs: `chunks` lists (vertex,
 * chunk number) as vertex | number << 32, made once per graph, so that a hub's arcs spread over many
 * blocks and every block gets about the same work. A block combines its chunk (each thread SX_ILP arcs at
 * once), then combines the result into the vertex atomically. */
#define SX_CHUNK (SX_ILP * SX_BLOCK)
__device__ __forceinline__ void ph_pull_chunks(const sx_state* s, unsigned long long* ctr, const simdx_u64* chunks, simdx_u32 count,
                                               simdx_u32 stamp, simdx_u32* next) {
    sx_bin_open();
    __shared__ simdx_value part[SX_WARPS];
    __shared__ int part_got[SX_WARPS];
    __shared__ simdx_value chunk_dst;
    simdx_params p = s->params;
    simdx_u32 lane = threadIdx.x & 31, w = threadIdx.x / 32;
    unsigned long long edges = 0;
    for (simdx_u32 c = blockIdx.x; c < count; c += gridDim.x) {
        simdx_u64 item = chunks[c];
        simdx_u32 v = (simdx_u32)item;
        /* Other blocks may be updating v (its other chunks): read its value once for the whole block,
         * so that every thread takes the same path through the barriers below. */
        if (threadIdx.x == 0) chunk_dst = s->now[v];
        __syncthreads();
        simdx_value dst = chunk_dst;
        __syncthreads();
        if (!simdx_can_update(&p, dst)) continue;
        simdx_u64 b = s->in_offsets[v] + (item >> 32) * SX_CHUNK, end = s->in_offsets[v + 1];
        simdx_u64 e = b + SX_CHUNK < end ? b + SX_CHUNK : end;
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
        bool got = false;
        simdx_value acc = SIMDX_IDENTITY;
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
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
__global__ void sx_pull_chunks(const sx_state* __restrict__ s, const simdx_u64* chunks, simdx_u32 count, simdx_u32 stamp,
                               simdx_u32* next) {
    ph_pull_chunks(s, s->counters, chunks, count, stamp, next);
}

/* Apply the combined updates of the reached vertices (`all`: every vertex, whose reached flags it also
 * clears); sums |new - old|. */
__device__ __forceinline__ void ph_apply(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 all, double global) {
    simdx_params p = s->params;
    simdx_u32 count = all ? s->n : len;
    double change = 0.0;
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        simdx_u32 v = all ? i : list[i];
        if (all) s->touched[v] = 0u; /* `Every`: no list of reached vertices follows to clear the flags */
        simdx_value old = s->now[v];
        simdx_value combined = s->acc[v];
        s->acc[v] = SIMDX_IDENTITY;
        simdx_value nv = simdx_apply(&p, sx_vertex(s, v), old, combined, global);
        s->now[v] = nv;
        if (!sx_same(nv, old)) change += fabs((double)nv - (double)old);
    }
    for (int o = 16; o > 0; o >>= 1) change += __shfl_down_sync(SX_FULL, change, o);
    if ((threadIdx.x & 31) == 0 && change != 0.0) atomicAdd((double*)&ctr[SX_CHANGE], change);
}
__global__ void sx_apply(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 all, double global) {
    ph_apply(s, s->counters, list, len, all, global);
}

/* A length written by other blocks before this phase, read once per block and shared (see sx_read in
 * fused.cu). Called by whole blocks. */
__device__ __forceinline__ simdx_u32 sx_block_len(const unsigned long long* len) {
    __shared__ simdx_u32 value;
    __syncthreads();
    if (threadIdx.x == 0) value = (simdx_u32)*(volatile const unsigned long long*)len;
    __syncthreads();
    return value;
}

#if SIMDX_LABELS
/* A program whose values are labels (vertex ids; Program::VALUES_ARE_LABELS): v, holding `label`, follows
 * its chain of labels (label = combine(label, now[label])) while it improves, and keeps the end. Runs in
 * select, when no update is in flight; other followers store with the same atomic combine, so a label
 * only improves, and a concurrent read sees an old or a new label, both valid. */
__device__ __forceinline__ simdx_value sx_follow_labels(const sx_state* s, const simdx_params* p, simdx_u32 v, simdx_value label) {
    simdx_value start = label;
    for (;;) {
        /* Negative labels wrap to large ones: only vertex ids are followed. */
        unsigned long long named = (unsigned long long)label;
        if (named >= (unsigned long long)s->n) break;
        simdx_value better = simdx_combine(p, label, *(volatile simdx_value*)&s->now[named]);
        if (better == label) break;
        label = better;
    }
    if (label != start) label = simdx_combine(p, label, sx_atomic(&s->now[v], label, p));
    return label;
}
#endif

/* Picks the next frontier from the reached vertices: the active ones in buckets up to `bucket`; the
 * others wait (pending flag, appended to far[fcur]). Clears the reached vertices' touched flags on the
 * way. With `prepare`, also prepares the new frontier for the next iteration (sx_prepare with `stamp`
 * and `classes`), which saves the fused kernels a phase and a grid barrier per iteration. */
__device__ __forceinline__ void ph_select(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 bucket,
                                          simdx_u32* next, simdx_u32 fcur, bool prepare, simdx_u32 tag, simdx_u32 stamp,
                                          simdx_u32* const* classes) {
    simdx_params p = s->params;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    unsigned long long waiting = 0;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = false, wait = false;
        simdx_u32 v = 0;
        if (i < len) {
            v = list[i];
            s->touched[v] = 0u; /* the reached flag is spent: clear it for the next iteration */
            simdx_value now = s->now[v];
#if SIMDX_LABELS
            now = sx_follow_labels(s, &p, v, now);
#endif
            if (simdx_active(&p, now, s->seen[v])) {
                if (simdx_bucket(&p, now) <= bucket) {
                    take = true;
                } else if (!s->pending[v]) {
                    s->pending[v] = 1u;
                    wait = true;
                    waiting++;
                }
            }
        }
        sx_warp_append(&s->far_len[fcur], s->far[fcur], wait, v);
        sx_warp_append(&ctr[SX_NEXT_LEN], next, take, v);
        if (prepare) sx_prepare(s, &p, ctr, take, v, tag, stamp, classes);
    }
    for (int o = 16; o > 0; o >>= 1) waiting += __shfl_down_sync(SX_FULL, waiting, o);
    if ((threadIdx.x & 31) == 0 && waiting) atomicAdd(&ctr[SX_PENDING], waiting);
}
__global__ void sx_select(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 bucket,
                          simdx_u32* next, simdx_u32 fcur) {
    ph_select(s, s->counters, list, len, bucket, next, fcur, false, 0u, 0u, 0);
}

/* A bucket change, pass 1, over the waiting vertices far[fcur]: drops those no longer active, finds the
 * lowest bucket (ctr[SX_MIN_BUCKET], which starts at ~0) and counts the rest (ctr[SX_PENDING]). Also
 * empties far[fcur ^ 1] for pass 2. */
__device__ __forceinline__ void ph_far_min(const sx_state* s, unsigned long long* ctr, simdx_u32 fcur) {
    simdx_params p = s->params;
    simdx_u32 len = sx_block_len(&s->far_len[fcur]);
    if (blockIdx.x == 0 && threadIdx.x == 0) s->far_len[fcur ^ 1u] = 0ull;
    const simdx_u32* far = s->far[fcur];
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    unsigned long long lowest = ~0ull, live = 0;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= len) break;
        simdx_u32 v = far[i];
        if (!s->pending[v]) continue;
        simdx_value now = s->now[v];
        if (!simdx_active(&p, now, s->seen[v])) {
            s->pending[v] = 0u;
            continue;
        }
        unsigned long long b = simdx_bucket(&p, now);
        lowest = b < lowest ? b : lowest;
        live++;
    }
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long ol = __shfl_down_sync(SX_FULL, lowest, o);
        lowest = ol < lowest ? ol : lowest;
        live += __shfl_down_sync(SX_FULL, live, o);
    }
    if ((threadIdx.x & 31) == 0 && live) {
        atomicMin(&ctr[SX_MIN_BUCKET], lowest);
        atomicAdd(&ctr[SX_PENDING], live);
    }
}
__global__ void sx_far_min(const sx_state* __restrict__ s, simdx_u32 fcur) {
    ph_far_min(s, s->counters, fcur);
}

/* A bucket change, pass 2: the waiting vertices of buckets up to `bucket` become the frontier `out`
 * (ctr[SX_NEXT_LEN]); the others move to far[fcur ^ 1], which becomes current. `prepare` as for
 * ph_select. */
__device__ __forceinline__ void ph_far_take(const sx_state* s, unsigned long long* ctr, simdx_u32 fcur, simdx_u32 bucket, simdx_u32* out,
                                            bool prepare, simdx_u32 tag, simdx_u32 stamp, simdx_u32* const* classes) {
    simdx_params p = s->params;
    simdx_u32 len = sx_block_len(&s->far_len[fcur]);
    const simdx_u32* far = s->far[fcur];
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (len + stride - 1) / stride;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = false, keep = false;
        simdx_u32 v = 0;
        if (i < len) {
            v = far[i];
            if (s->pending[v]) {
                if (simdx_bucket(&p, s->now[v]) <= bucket) {
                    s->pending[v] = 0u;
                    take = true;
                } else {
                    keep = true;
                }
            }
        }
        sx_warp_append(&s->far_len[fcur ^ 1u], s->far[fcur ^ 1u], keep, v);
        sx_warp_append(&ctr[SX_NEXT_LEN], out, take, v);
        if (prepare) sx_prepare(s, &p, ctr, take, v, tag, stamp, classes);
    }
}
__global__ void sx_far_take(const sx_state* __restrict__ s, simdx_u32 fcur, simdx_u32 bucket, simdx_u32* out) {
    ph_far_take(s, s->counters, fcur, bucket, out, false, 0u, 0u, 0);
}

/* The predicate of the ballot scans. mode 0: reached this iteration (clears the flag); mode 1: active
 * (initial frontier and `Every` programs), and if in a later bucket than `bucket`, waiting (flagged
 * pending and appended to far[fcur]). */
__device__ __forceinline__ bool sx_scan_pred(const sx_state* s, unsigned long long* ctr, const simdx_params* p, simdx_u32 mode,
                                             simdx_u32 bucket, simdx_u32 fcur, simdx_u32 v, bool write) {
    if (mode == 0) {
        if (!s->touched[v]) return false;
        if (write) s->touched[v] = 0u;
        return true;
    }
    simdx_value now = s->now[v];
    bool active = simdx_active(p, now, s->seen[v]);
    if (active && simdx_bucket(p, now) <= bucket) return true;
    /* Not in the next frontier: its send slot gets the silent message back (see SX_SILENT_PULLS). */
    if (SX_SILENT_PULLS && write) s->send[v] = SIMDX_SILENT;
    if (!active) return false;
    if (write && !s->pending[v]) {
        s->pending[v] = 1u;
        s->far[fcur][atomicAdd(&s->far_len[fcur], 1ull)] = v;
        atomicAdd(&ctr[SX_PENDING], 1ull);
    }
    return false;
}

/* The ballot filter, pass 1: how many vertices of each tile of SX_TILE pass. */
__device__ __forceinline__ void ph_scan_count(const sx_state* s, unsigned long long* ctr, simdx_u32 mode, simdx_u32 bucket, simdx_u32 fcur,
                                              simdx_u32* tile_counts) {
    __shared__ simdx_u32 warp_counts[SX_WARPS];
    simdx_params p = s->params;
    simdx_u32 tiles = (s->n + SX_TILE - 1) / SX_TILE;
    for (simdx_u32 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        simdx_u32 base = tile * SX_TILE;
        simdx_u32 count = 0;
        for (int r = 0; r < SX_TILE_ROUNDS; r++) {
            simdx_u32 v = base + r * SX_BLOCK + threadIdx.x;
            bool hit = v < s->n && sx_scan_pred(s, ctr, &p, mode, bucket, fcur, v, false);
            count += __popc(__ballot_sync(SX_FULL, hit));
        }
        if ((threadIdx.x & 31) == 0) warp_counts[threadIdx.x / 32] = count;
        __syncthreads();
        if (threadIdx.x == 0) {
            simdx_u32 total = 0;
            for (int w = 0; w < SX_WARPS; w++) total += warp_counts[w];
            tile_counts[tile] = total;
        }
        __syncthreads();
    }
}
__global__ void sx_scan_count(const sx_state* __restrict__ s, simdx_u32 mode, simdx_u32 bucket, simdx_u32 fcur, simdx_u32* tile_counts) {
    ph_scan_count(s, s->counters, mode, bucket, fcur, tile_counts);
}

/* The ballot filter, pass 2: exclusive prefix of the tile counts (one block); the total goes to
 * counters[SX_NEXT_LEN]. */
__device__ __forceinline__ void ph_scan_offsets(const sx_state* s, unsigned long long* ctr, simdx_u32* tile_counts, simdx_u32 tiles) {
    __shared__ simdx_u32 sums[SX_BLOCK];
    simdx_u32 carry = 0;
    for (simdx_u32 start = 0; start < tiles; start += SX_BLOCK) {
        simdx_u32 i = start + threadIdx.x;
        simdx_u32 x = i < tiles ? tile_counts[i] : 0u;
        sums[threadIdx.x] = x;
        __syncthreads();
        for (int o = 1; o < SX_BLOCK; o <<= 1) {
            simdx_u32 y = threadIdx.x >= (unsigned)o ? sums[threadIdx.x - o] : 0u;
            __syncthreads();
            sums[threadIdx.x] += y;
            __syncthreads();
        }
        if (i < tiles) tile_counts[i] = carry + sums[threadIdx.x] - x;
        simdx_u32 block_total = sums[SX_BLOCK - 1];
        __syncthreads();
        carry += block_total;
    }
    if (threadIdx.x == 0) ctr[SX_NEXT_LEN] = carry;
}
__global__ void sx_scan_offsets(const sx_state* __restrict__ s, simdx_u32* tile_counts, simdx_u32 tiles) {
    ph_scan_offsets(s, s->counters, tile_counts, tiles);
}

/* The ballot filter, pass 3: each tile writes its hits in vertex order from its offset: the list is
 * sorted and free of duplicates. */
__device__ __forceinline__ void ph_scan_write(const sx_state* s, unsigned long long* ctr, simdx_u32 mode, simdx_u32 bucket,
                                              simdx_u32 fcur, const simdx_u32* tile_offsets, simdx_u32* out) {
    __shared__ simdx_u32 warp_counts[SX_WARPS];
    simdx_params p = s->params;
    simdx_u32 lane = threadIdx.x & 31, w = threadIdx.x / 32;
    simdx_u32 tiles = (s->n + SX_TILE - 1) / SX_TILE;
    for (simdx_u32 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    simdx_u32 base = tile * SX_TILE;
    simdx_u32 offset = tile_offsets[tile];
    for (int r = 0; r < SX_TILE_ROUNDS; r++) {
        simdx_u32 v = base + r * SX_BLOCK + threadIdx.x;
        bool hit = v < s->n && sx_scan_pred(s, ctr, &p, mode, bucket, fcur, v, true);
        unsigned ballot = __ballot_sync(SX_FULL, hit);
        if (lane == 0) warp_counts[w] = __popc(ballot);
        __syncthreads();
        simdx_u32 before = 0, total = 0;
        for (simdx_u32 k = 0; k < SX_WARPS; k++) {
            if (k < w) before += warp_counts[k];
            total += warp_counts[k];
        }
        if (hit) out[offset + before + __popc(ballot & ((1u << lane) - 1u))] = v;
        offset += total;
        __syncthreads();
    }
    }
}
__global__ void sx_scan_write(const sx_state* __restrict__ s, simdx_u32 mode, simdx_u32 bucket, simdx_u32 fcur,
                              const simdx_u32* tile_offsets, simdx_u32* out) {
    ph_scan_write(s, s->counters, mode, bucket, fcur, tile_offsets, out);
}

} /* extern "C" */
