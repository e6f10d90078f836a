/* simdx asynchronous rounds (fusion mode `async`, and selective fusion's hand-over on high-diameter
 * graphs): one persistent kernel relaxes the out-arcs of each vertex whose value improved as soon as a
 * warp takes it from a device work queue, with no grid barrier per level. For in-place min or max
 * programs, whose result is the best value over all paths whatever the order (see FusionPolicy::Async).
 *
 * The queue is a ring of `capacity` (= n) cells of 64 bits: (tag << 32) | vertex, where for position
 * pos in lap L = pos / capacity the tag 2L means free and 2L + 1 full (zeroed memory: every cell free for
 * lap 0). A vertex waits in the queue at most once (`queued` flag, set by whoever improved it, cleared by
 * the warp that takes it, before it reads the value), so fewer than `capacity` positions are ever taken
 * and not yet read, and a writer waiting for its cell to be read in an earlier lap always gets it: the
 * ring cannot overflow. Warps take positions 32 at a time, ahead of what has been written, and wait at
 * their own cells; `outstanding` counts the vertices enqueued and not yet relaxed (an enqueue counts
 * before it publishes, a relaxation uncounts after its own enqueues), so when it reads 0 every vertex
 * is done and the waiting warps leave. Called with a co-resident grid (cooperative launch). */

/* Counter words of `ctl` (u64), each on its own 128-byte line. */
#define SX_Q_HEAD 0
#define SX_Q_TAIL 16
#define SX_Q_OUTSTANDING 32
#define SX_Q_ITEMS 48
#define SX_Q_EDGES 64
#define SX_Q_WORDS 80
/* Out-degree from which a warp relaxes a vertex's arcs together rather than one lane alone. */
#define SX_Q_WARP_DEGREE 32
/* A wait that makes no progress for this long (ns) aborts the kernel (an error the host reports)
 * rather than hang the GPU, as the grid barrier does; the queue's waits cannot deadlock. */
#define SX_Q_WATCHDOG 10000000000ull

/* The device clock, in ns. */
__device__ __forceinline__ unsigned long long sx_q_clock() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

typedef struct {
    unsigned long long* cells;  /* the ring */
    simdx_u32* queued;          /* 1 while the vertex waits in the ring */
    unsigned long long* ctl;    /* SX_Q_WORDS counters, zeroed before the launch */
    unsigned int* barrier;      /* SX_BARRIER_WORDS, zeroed */
    const simdx_u32* list;      /* a frontier handed over from synchronous rounds, already prepared */
    simdx_u32 len;
    simdx_u32 capacity;
} sx_queue;

/* Appends v (where `take`) to the ring, counting it outstanding first. Called by whole warps. */
__device__ __forceinline__ void sx_q_push(const sx_queue* q, bool take, simdx_u32 v) {
    unsigned want = __ballot_sync(SX_FULL, take);
    if (!want) return;
    int lane = threadIdx.x & 31, leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) {
        atomicAdd(&q->ctl[SX_Q_OUTSTANDING], (unsigned long long)__popc(want));
        base = atomicAdd(&q->ctl[SX_Q_TAIL], (unsigned long long)__popc(want));
        __threadfence(); /* counted before anyone can take it */
    }
    base = __shfl_sync(SX_FULL, base, leader);
    if (take) {
        unsigned long long pos = base + __popc(want & ((1u << lane) - 1u));
        unsigned long long* cell = &q->cells[pos % q->capacity];
        unsigned int free_tag = (unsigned int)(2ull * (pos / q->capacity));
        unsigned int pause = 32;
        unsigned long long since = 0;
        while ((unsigned int)(*(volatile unsigned long long*)cell >> 32) != free_tag) {
            __nanosleep(pause); /* the reader of the previous lap has not come yet */
            pause = min(pause * 2u, 1024u);
            unsigned long long t = sx_q_clock();
            if (!since) since = t;
            else if (t - since > SX_Q_WATCHDOG) __trap();
        }
        atomicExch(cell, ((unsigned long long)(free_tag + 1u) << 32) | v);
    }
}

/* Relaxes out-arc i (from a source sending `src`, out-degree `deg`); true if its target, returned in
 * *t, improved and was not waiting in the ring already (the caller enqueues it). `can_update` is not
 * read: it prunes synchronous rounds only (an improvement is never refused here). */
__device__ __forceinline__ bool sx_q_arc(const sx_state* s, const sx_queue* q, const simdx_params* p, simdx_msg src,
                                         simdx_u32 deg, simdx_u64 i, simdx_u32* t) {
    simdx_u32 v = s->out_targets[i];
    *t = v;
    simdx_value dst = *(volatile simdx_value*)&s->now[v];
    simdx_edge e;
    e.src = src;
    e.dst = dst;
    e.weight = sx_weight(s, s->out_weights, i);
    e.src_out_degree = deg;
    simdx_value update = simdx_compute(p, e);
    if (sx_same(simdx_combine(p, dst, update), dst)) return false;
    simdx_value old = sx_atomic(&s->now[v], update, p);
    if (sx_same(simdx_combine(p, old, update), old)) return false;
    __threadfence(); /* the improvement is visible before the flag is read (see sx_q_relax) */
    return atomicExch(&q->queued[v], 1u) == 0u;
}

/* Relaxes the out-arcs of each lane's vertex v (where `take`): a vertex from the ring clears its flag,
 * then relaxes if it is active (seen := now, as a snapshot would); a `handed` vertex (from a prepared
 * frontier) sends what it was prepared with. Lanes relax their own small vertices; the warp relaxes
 * each big one together. Adds the arcs read to *edges. Called by whole warps. */
__device__ __forceinline__ void sx_q_relax(const sx_state* s, const sx_queue* q, bool take, simdx_u32 v, bool handed,
                                           unsigned long long* edges) {
    simdx_params p = s->params;
    simdx_msg src = (simdx_msg)0;
    simdx_u64 b = 0, e = 0;
    simdx_u32 deg = 0;
    if (take) {
        if (handed) {
            src = sx_src(s, v);
        } else {
            atomicExch(&q->queued[v], 0u);
            __threadfence(); /* cleared before the value is read: a later improvement enqueues v again */
            simdx_value now = *(volatile simdx_value*)&s->now[v];
            simdx_value seen = *(volatile simdx_value*)&s->seen[v];
            take = simdx_active(&p, now, seen);
            if (take) {
                *(volatile simdx_value*)&s->seen[v] = now;
                src = SIMDX_HAS_SOURCE_VALUE ? simdx_source_value(&p, sx_vertex(s, v), now, seen) : (simdx_msg)now;
            }
        }
        if (take) {
            b = s->out_offsets[v];
            e = s->out_offsets[v + 1];
            deg = sx_out_degree32(s, v);
            *edges += e - b;
        }
    }
    bool big = take && e - b >= SX_Q_WARP_DEGREE;
    simdx_u32 most = (take && !big) ? (simdx_u32)(e - b) : 0u;
    for (int o = 16; o > 0; o >>= 1) most = max(most, __shfl_xor_sync(SX_FULL, most, o));
    for (simdx_u32 k = 0; k < most; k++) {
        simdx_u32 t = 0;
        bool improved = !big && b + k < e && sx_q_arc(s, q, &p, src, deg, b + k, &t);
        sx_q_push(q, improved, t);
    }
    int lane = threadIdx.x & 31;
    for (unsigned bigs = __ballot_sync(SX_FULL, big); bigs; bigs &= bigs - 1u) {
        int owner = __ffs(bigs) - 1;
        simdx_u64 bb = __shfl_sync(SX_FULL, b, owner), ee = __shfl_sync(SX_FULL, e, owner);
        simdx_msg ss = __shfl_sync(SX_FULL, src, owner);
        simdx_u32 dd = __shfl_sync(SX_FULL, deg, owner);
        for (simdx_u64 k = bb; k < ee; k += 32) {
            simdx_u32 t = 0;
            bool improved = k + lane < ee && sx_q_arc(s, q, &p, ss, dd, k + lane, &t);
            sx_q_push(q, improved, t);
        }
    }
}

/* Takes positions 32 at a time and relaxes each vertex as its cell fills, until nothing is outstanding.
 * Called by whole warps. */
__device__ __forceinline__ void sx_q_work(const sx_state* s, const sx_queue* q, unsigned long long* items,
                                          unsigned long long* edges) {
    int lane = threadIdx.x & 31;
    for (;;) {
        unsigned long long base = 0;
        if (lane == 0) base = atomicAdd(&q->ctl[SX_Q_HEAD], 32ull);
        base = __shfl_sync(SX_FULL, base, 0);
        unsigned long long pos = base + lane;
        unsigned long long* cell = &q->cells[pos % q->capacity];
        unsigned int full_tag = (unsigned int)(2ull * (pos / q->capacity)) + 1u;
        unsigned waiting = SX_FULL, pause = 32;
        unsigned long long since = 0; /* when this warp last found nothing to do (0: it just did) */
        while (waiting) {
            bool mine = (waiting >> lane) & 1u;
            unsigned long long word = mine ? *(volatile unsigned long long*)cell : 0ull;
            bool ready = mine && (unsigned int)(word >> 32) == full_tag;
            unsigned got = __ballot_sync(SX_FULL, ready);
            if (got) {
                if (ready) atomicExch(cell, (unsigned long long)(full_tag + 1u) << 32); /* free for the next lap */
                sx_q_relax(s, q, ready, (simdx_u32)word, false, edges);
                waiting &= ~got;
                if (lane == 0) *items += __popc(got);
                /* Uncounted after the enqueues of the relaxations (the same thread made them, or a
                 * leader that fenced before the ballot that brought the warp here). */
                if (lane == 0) atomicAdd(&q->ctl[SX_Q_OUTSTANDING], (unsigned long long)(-(long long)__popc(got)));
                pause = 32;
                since = 0;
            } else {
                unsigned long long left = 0;
                if (lane == 0) left = *(volatile unsigned long long*)&q->ctl[SX_Q_OUTSTANDING];
                if (__shfl_sync(SX_FULL, left, 0) == 0ull) return;
                unsigned long long t = sx_q_clock();
                if (!since) since = t;
                else if (t - since > SX_Q_WATCHDOG) __trap();
                __nanosleep(pause);
                pause = min(pause * 2u, 512u);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(SX_BLOCK) sx_async(const sx_state* s, const sx_queue* q) {
    simdx_params p = s->params;
    unsigned long long items = 0, edges = 0;
    simdx_u32 lane = threadIdx.x & 31;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warps = gridDim.x * blockDim.x / 32;
    /* The handed-over frontier sends what it was prepared with. */
    for (simdx_u32 i = warp * 32; i < q->len; i += warps * 32) {
        bool take = i + lane < q->len;
        sx_q_relax(s, q, take, take ? q->list[i + lane] : 0u, true, &edges);
    }
    /* Every other active vertex (all of them at the start of a run; those waiting in later buckets
     * after a hand-over) goes into the ring. */
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (s->n + stride - 1) / stride;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 v = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = v < s->n &&
                    simdx_active(&p, *(volatile simdx_value*)&s->now[v], *(volatile simdx_value*)&s->seen[v]) &&
                    atomicExch(&q->queued[v], 1u) == 0u;
        sx_q_push(q, take, v);
    }
    sx_grid_sync(q->barrier); /* `outstanding` counts every vertex enqueued so far */
    sx_q_work(s, q, &items, &edges);
    for (int o = 16; o > 0; o >>= 1) {
        items += __shfl_down_sync(SX_FULL, items, o);
        edges += __shfl_down_sync(SX_FULL, edges, o);
    }
    if (lane == 0) {
        atomicAdd(&q->ctl[SX_Q_ITEMS], items);
        atomicAdd(&q->ctl[SX_Q_EDGES], edges);
    }
}
