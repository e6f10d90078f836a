/* simdx asynchronous rounds (fusion mode `async`, and selective fusion's hand-over on high-diameter
 * graphs): one persistent kernel relaxes the out-arcs of each vertex whose value improved as soon as a
 * warp takes it from a device work queue, with no grid barrier per level. For in-place min or max
 * programs, whose result is the best value over all paths whatever the order (see FusionPolicy::Async).
 *
 * The queue is an array of `capacity` cells of 64 bits, (epoch << 32) | vertex: a cell is full when it
 * carries the current epoch's number (zeroed memory: empty for every epoch from 1). A vertex waits in
 * the queue at most once (its `queued` flag, set by whoever improved it and cleared by the warp that
 * takes it, before that warp reads the value). Warps take positions 32 at a time, ahead of what has
 * been written, and wait at their own cells; `outstanding` counts the vertices enqueued and not yet
 * relaxed (an enqueue counts before it publishes, a relaxation uncounts after its own enqueues), so
 * when it reads 0 every vertex is done and the waiting warps leave. An enqueue past the last cell is
 * not written: its vertex keeps its flag and counts as dropped. When an epoch ends with drops, the grid
 * meets at a barrier, starts a new epoch at position 0 and enqueues every vertex still flagged, so the
 * queue never loses a vertex and never needs more cells than it has. Called with a co-resident grid
 * (cooperative launch). */

/* Counter words of `ctl` (u64), each on its own 128-byte line. */
#define SX_Q_HEAD 0
#define SX_Q_TAIL 16
#define SX_Q_OUTSTANDING 32
#define SX_Q_ITEMS 48
#define SX_Q_EDGES 64
#define SX_Q_DROPPED 80
#define SX_Q_EPOCHS 96
#define SX_Q_LOG 112 /* per epoch: items and edges so far, end time (ns); SX_Q_LOG_EPOCHS rows */
#define SX_Q_LOG_EPOCHS 64
#define SX_Q_WORDS (SX_Q_LOG + 3 * SX_Q_LOG_EPOCHS + 1) /* the last word: the start time */
/* Out-degree from which a warp relaxes a vertex's arcs together rather than one lane alone. */
#define SX_Q_WARP_DEGREE 32
/* A warp that waits this long (ns) while vertices are outstanding but none is enqueued anywhere aborts
 * the kernel (an error the host reports) rather than hang the GPU, as the grid barrier does. */
#define SX_Q_WATCHDOG 10000000000ull

typedef struct {
    unsigned long long* cells;  /* the queue */
    simdx_u32* queued;          /* 1 while the vertex waits in the queue (or was dropped) */
    unsigned long long* ctl;    /* SX_Q_WORDS counters, zeroed before the launch */
    unsigned int* barrier;      /* SX_BARRIER_WORDS, zeroed */
    const simdx_u32* list;      /* a frontier handed over from synchronous rounds, already prepared */
    simdx_u32 len;
    simdx_u32 capacity;
} sx_queue;

/* The device clock, in ns. */
__device__ __forceinline__ unsigned long long sx_q_clock() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Appends v (where `take`; its flag already set) to the queue in `epoch`, counting it outstanding first;
 * past the last cell it is dropped instead. Called by whole warps. */
__device__ __forceinline__ void sx_q_push(const sx_queue* q, unsigned int epoch, bool take, simdx_u32 v) {
    unsigned want = __ballot_sync(SX_FULL, take);
    if (!want) return;
    int lane = threadIdx.x & 31, leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) {
        unsigned long long count = __popc(want);
        atomicAdd(&q->ctl[SX_Q_OUTSTANDING], count);
        base = atomicAdd(&q->ctl[SX_Q_TAIL], count);
        if (base + count > q->capacity) {
            unsigned long long dropped = base + count - max(base, (unsigned long long)q->capacity);
            atomicAdd(&q->ctl[SX_Q_DROPPED], dropped);
            atomicAdd(&q->ctl[SX_Q_OUTSTANDING], (unsigned long long)(-(long long)dropped));
        }
        __threadfence(); /* counted before anyone can take it */
    }
    base = __shfl_sync(SX_FULL, base, leader);
    unsigned long long pos = base + __popc(want & ((1u << lane) - 1u));
    if (take && pos < q->capacity) atomicExch(&q->cells[pos], ((unsigned long long)epoch << 32) | v);
}

/* Relaxes out-arc i (from a source sending `src`, out-degree `deg`); true if its target, returned in
 * *t, improved and was not waiting in the queue already (the caller enqueues it). `can_update` is not
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

/* Relaxes the out-arcs of each lane's vertex v (where `take`): a vertex from the queue clears its flag,
 * then relaxes if it is active (seen := now, as a snapshot would); a `handed` vertex (from a prepared
 * frontier) sends what it was prepared with. Lanes relax their own small vertices; the warp relaxes
 * each big one together. Adds the arcs read to *edges. Called by whole warps. */
__device__ __forceinline__ void sx_q_relax(const sx_state* s, const sx_queue* q, unsigned int epoch, bool take,
                                           simdx_u32 v, bool handed, unsigned long long* edges) {
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
        sx_q_push(q, epoch, improved, t);
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
            sx_q_push(q, epoch, improved, t);
        }
    }
}

/* Takes positions 32 at a time and relaxes each vertex as its cell fills, until nothing is outstanding.
 * Called by whole warps. */
__device__ __forceinline__ void sx_q_work(const sx_state* s, const sx_queue* q, unsigned int epoch,
                                          unsigned long long* items, unsigned long long* edges) {
    int lane = threadIdx.x & 31;
    for (;;) {
        unsigned long long base = 0;
        if (lane == 0) base = atomicAdd(&q->ctl[SX_Q_HEAD], 32ull);
        base = __shfl_sync(SX_FULL, base, 0);
        unsigned long long pos = base + lane;
        /* Positions past the last cell are never written: they only wait for the epoch's end. */
        unsigned waiting = __ballot_sync(SX_FULL, pos < q->capacity), pause = 32;
        unsigned long long since = 0, tail = ~0ull; /* when the queue's tail was last seen to move */
        for (;;) {
            bool mine = (waiting >> lane) & 1u;
            unsigned long long word = mine ? *(volatile unsigned long long*)&q->cells[pos] : 0ull;
            bool ready = mine && (unsigned int)(word >> 32) == epoch;
            unsigned got = __ballot_sync(SX_FULL, ready);
            if (got) {
                sx_q_relax(s, q, epoch, ready, (simdx_u32)word, false, edges);
                waiting &= ~got;
                if (lane == 0) *items += __popc(got);
                /* Uncounted after the enqueues of the relaxations (the same thread made them, or a
                 * leader that fenced before the ballot that brought the warp here). */
                if (lane == 0) atomicAdd(&q->ctl[SX_Q_OUTSTANDING], (unsigned long long)(-(long long)__popc(got)));
                pause = 32;
                if (!waiting) break;
            } else {
                unsigned long long left = 0, now_tail = 0;
                if (lane == 0) {
                    left = *(volatile unsigned long long*)&q->ctl[SX_Q_OUTSTANDING];
                    now_tail = *(volatile unsigned long long*)&q->ctl[SX_Q_TAIL];
                }
                if (__shfl_sync(SX_FULL, left, 0) == 0ull) return;
                if (lane == 0) {
                    unsigned long long t = sx_q_clock();
                    if (now_tail != tail) {
                        tail = now_tail;
                        since = t;
                    } else if (t - since > SX_Q_WATCHDOG) {
                        __trap();
                    }
                }
                __nanosleep(pause);
                pause = min(pause * 2u, 512u);
            }
        }
    }
}

/* Block 0 records the end of an epoch: items and edges so far, and the time (epochs past the last row
 * write over it). */
__device__ __forceinline__ void sx_q_log(const sx_queue* q, unsigned int epoch) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    epoch = min(epoch, (unsigned int)SX_Q_LOG_EPOCHS);
    unsigned long long* row = &q->ctl[SX_Q_LOG + 3 * (epoch - 1)];
    row[0] = *(volatile unsigned long long*)&q->ctl[SX_Q_ITEMS];
    row[1] = *(volatile unsigned long long*)&q->ctl[SX_Q_EDGES];
    row[2] = sx_q_clock();
}

extern "C" __global__ void __launch_bounds__(SX_BLOCK) sx_async(const sx_state* s, const sx_queue* q) {
    simdx_params p = s->params;
    simdx_u32 lane = threadIdx.x & 31;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warps = gridDim.x * blockDim.x / 32;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (s->n + stride - 1) / stride;
    unsigned int epoch = 1;
    if (blockIdx.x == 0 && threadIdx.x == 0) q->ctl[SX_Q_WORDS - 1] = sx_q_clock();
    unsigned long long items = 0, edges = 0;
    /* The handed-over frontier sends what it was prepared with. */
    for (simdx_u32 i = warp * 32; i < q->len; i += warps * 32) {
        bool take = i + lane < q->len;
        sx_q_relax(s, q, epoch, take, take ? q->list[i + lane] : 0u, true, &edges);
    }
    /* Every other active vertex (all of them at the start of a run; those waiting in later buckets
     * after a hand-over) goes into the queue. */
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 v = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = v < s->n &&
                    simdx_active(&p, *(volatile simdx_value*)&s->now[v], *(volatile simdx_value*)&s->seen[v]) &&
                    atomicExch(&q->queued[v], 1u) == 0u;
        sx_q_push(q, epoch, take, v);
    }
    for (;;) {
        sx_grid_sync(q->barrier); /* `outstanding` counts every vertex enqueued so far */
        sx_q_work(s, q, epoch, &items, &edges);
        for (int o = 16; o > 0; o >>= 1) {
            items += __shfl_down_sync(SX_FULL, items, o);
            edges += __shfl_down_sync(SX_FULL, edges, o);
        }
        if (lane == 0) {
            atomicAdd(&q->ctl[SX_Q_ITEMS], items);
            atomicAdd(&q->ctl[SX_Q_EDGES], edges);
        }
        items = 0;
        edges = 0;
        sx_grid_sync(q->barrier); /* every warp is done: nothing is outstanding */
        sx_q_log(q, epoch);
        if (*(volatile unsigned long long*)&q->ctl[SX_Q_DROPPED] == 0ull) break;
        sx_grid_sync(q->barrier); /* everyone has read the drops */
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            q->ctl[SX_Q_HEAD] = 0ull;
            q->ctl[SX_Q_TAIL] = 0ull;
            q->ctl[SX_Q_DROPPED] = 0ull;
            q->ctl[SX_Q_EPOCHS] = epoch;
        }
        sx_grid_sync(q->barrier);
        /* A new epoch: every vertex dropped (still flagged) goes in from position 0. */
        epoch += 1;
        for (simdx_u32 r = 0; r < rounds; r++) {
            simdx_u32 v = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
            bool take = v < s->n && *(volatile simdx_u32*)&q->queued[v] != 0u;
            sx_q_push(q, epoch, take, v);
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) q->ctl[SX_Q_EPOCHS] = epoch;
}
