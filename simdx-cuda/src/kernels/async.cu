/* simdx asynchronous rounds (fusion mode `async`, and selective fusion's hand-over on high-diameter
 * graphs): one persistent kernel relaxes the out-arcs of each vertex whose value improved as soon as a
 * warp takes it from a device work queue, with no grid barrier per level. For in-place min or max
 * programs, whose result is the best value over all paths whatever the order (see FusionPolicy::Async).
 *
 * Every improvement of a vertex's value enqueues the vertex; a warp that takes it relaxes its arcs if
 * it is still active (its value differs from the one it last sent, `seen`), so an entry made stale by
 * a later improvement costs one test. The queue is an array of `capacity` cells of 64 bits,
 * (epoch << 32) | vertex: a cell is full when it carries the current epoch's number (zeroed memory:
 * empty for every epoch from 1). Warps take positions 32 at a time, ahead of what has been written,
 * and wait at their own cells. An epoch ends when every vertex enqueued in it has been relaxed
 * (`finished` = `tail` - `dropped`). Two kinds of vertex wait for a later epoch instead of entering the
 * queue: those enqueued past its last cell (dropped), and those whose priority bucket
 * (`simdx_bucket`, delta-stepping's) is above the epoch's; they stay active. When an epoch ends with
 * any, the grid meets at a barrier, finds the lowest bucket among the active vertices, and starts a new
 * epoch at the first cell with the active vertices of that bucket. So no vertex is lost, the queue
 * never needs more cells than it has, and SSSP relaxes its buckets in order, each one asynchronously.
 * Called with a co-resident grid (cooperative launch). */

/* Counter words of `ctl` (u64), each on its own 128-byte line. */
#define SX_Q_HEAD 0
#define SX_Q_TAIL 16
#define SX_Q_FINISHED 32
#define SX_Q_ITEMS 48
#define SX_Q_EDGES 64
#define SX_Q_DROPPED 80   /* enqueued past the last cell */
#define SX_Q_EPOCHS 96
#define SX_Q_DEFERRED 100 /* 1: some vertex improved to a bucket above the epoch's */
#define SX_Q_BUCKET 104   /* the lowest bucket of an active vertex, found between epochs */
#define SX_Q_LOG 112      /* per epoch: items and edges so far, end time (ns); SX_Q_LOG_EPOCHS rows */
#define SX_Q_LOG_EPOCHS 64
#define SX_Q_WORDS (SX_Q_LOG + 3 * SX_Q_LOG_EPOCHS + 1) /* the last word: the start time */
/* Out-degree from which a warp relaxes a vertex's arcs together rather than one lane alone. */
#define SX_Q_WARP_DEGREE 32
/* Idle polls of a warp's cells between two readings of the epoch's shared counters. */
#define SX_Q_POLLS_PER_CHECK 8
/* A warp that waits this long (ns) while the epoch is not over but nothing is enqueued anywhere aborts
 * the kernel (an error the host reports) rather than hang the GPU, as the grid barrier does. */
#define SX_Q_WATCHDOG 10000000000ull

typedef struct {
    unsigned long long* cells;  /* the queue */
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

/* Appends v (where `take`) to the queue in `epoch`; past the last cell it is dropped instead (it stays
 * active for a later epoch). Called by whole warps. */
__device__ __forceinline__ void sx_q_push(const sx_queue* q, unsigned int epoch, bool take, simdx_u32 v) {
    unsigned want = __ballot_sync(SX_FULL, take);
    if (!want) return;
    int lane = threadIdx.x & 31, leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) {
        unsigned long long count = __popc(want);
        base = atomicAdd(&q->ctl[SX_Q_TAIL], count);
        if (base + count > q->capacity) atomicAdd(&q->ctl[SX_Q_DROPPED], base + count - max(base, (unsigned long long)q->capacity));
    }
    base = __shfl_sync(SX_FULL, base, leader);
    unsigned long long pos = base + __popc(want & ((1u << lane) - 1u));
    if (take && pos < q->capacity) {
        __threadfence(); /* the improvement is visible before the entry that announces it */
        *(volatile unsigned long long*)&q->cells[pos] = ((unsigned long long)epoch << 32) | v;
    }
}

/* Relaxes out-arc i (from a source sending `src`, out-degree `deg`); true if its target, returned in
 * *t, improved within the epoch's bucket (the caller enqueues it). An improvement above that bucket
 * is deferred: the target stays active for a later epoch. `can_update` is not read: it prunes
 * synchronous rounds only (an improvement is never refused here). */
__device__ __forceinline__ bool sx_q_arc(const sx_state* s, const sx_queue* q, const simdx_params* p, simdx_u32 bucket,
                                         simdx_msg src, simdx_u32 deg, simdx_u64 i, simdx_u32* t) {
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
    if (SIMDX_HAS_BUCKET && simdx_bucket(p, update) > bucket) {
        volatile unsigned long long* deferred = &q->ctl[SX_Q_DEFERRED];
        if (*deferred == 0ull) *deferred = 1ull;
        return false;
    }
    return true;
}

/* Relaxes the out-arcs of each lane's vertex v (where `take`): a vertex from the queue relaxes if it
 * is still active (seen := now, as a snapshot would); a `handed` vertex (from a prepared frontier)
 * sends what it was prepared with. Lanes relax their own small vertices; the warp relaxes each big one
 * together. Adds the arcs read to *edges. Called by whole warps. */
__device__ __forceinline__ void sx_q_relax(const sx_state* s, const sx_queue* q, unsigned int epoch, simdx_u32 bucket,
                                           bool take, simdx_u32 v, bool handed, unsigned long long* edges) {
    simdx_params p = s->params;
    simdx_msg src = (simdx_msg)0;
    simdx_u64 b = 0, e = 0;
    simdx_u32 deg = 0;
    if (take) {
        if (handed) {
            src = sx_src(s, v);
        } else {
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
        bool improved = !big && b + k < e && sx_q_arc(s, q, &p, bucket, src, deg, b + k, &t);
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
            bool improved = k + lane < ee && sx_q_arc(s, q, &p, bucket, ss, dd, k + lane, &t);
            sx_q_push(q, epoch, improved, t);
        }
    }
}

/* Whether the epoch is over: every vertex enqueued and not dropped has been relaxed. The counters only
 * grow within an epoch and are read in the order finished, dropped, tail: a drop counts after its
 * position, and a relaxation after the enqueues it made, so equality means that nothing was in
 * progress when `finished` was read. */
__device__ __forceinline__ bool sx_q_over(const sx_queue* q, unsigned long long* tail) {
    unsigned long long finished = *(volatile unsigned long long*)&q->ctl[SX_Q_FINISHED];
    unsigned long long dropped = *(volatile unsigned long long*)&q->ctl[SX_Q_DROPPED];
    *tail = *(volatile unsigned long long*)&q->ctl[SX_Q_TAIL];
    return finished + dropped == *tail;
}

/* Takes positions 32 at a time and relaxes each vertex as its cell fills, until the epoch is over.
 * Called by whole warps. */
__device__ __forceinline__ void sx_q_work(const sx_state* s, const sx_queue* q, unsigned int epoch, simdx_u32 bucket,
                                          unsigned long long* items, unsigned long long* edges) {
    int lane = threadIdx.x & 31;
    unsigned long long since = 0, seen_tail = ~0ull; /* when the queue's tail was last seen to move */
    for (;;) {
        unsigned long long base = 0;
        if (lane == 0) base = atomicAdd(&q->ctl[SX_Q_HEAD], 32ull);
        base = __shfl_sync(SX_FULL, base, 0);
        unsigned long long pos = base + lane;
        /* Positions past the last cell are never written: they only wait for the epoch's end. */
        unsigned waiting = __ballot_sync(SX_FULL, pos < q->capacity), pause = 32, polls = 0;
        for (;;) {
            bool mine = (waiting >> lane) & 1u;
            unsigned long long word = mine ? *(volatile unsigned long long*)&q->cells[pos] : 0ull;
            bool ready = mine && (unsigned int)(word >> 32) == epoch;
            unsigned got = __ballot_sync(SX_FULL, ready);
            if (got) {
                sx_q_relax(s, q, epoch, bucket, ready, (simdx_u32)word, false, edges);
                waiting &= ~got;
                /* Counted after the enqueues of the relaxations (their leaders' atomics returned
                 * before the ballots that brought the warp here). */
                if (lane == 0) {
                    *items += __popc(got);
                    atomicAdd(&q->ctl[SX_Q_FINISHED], (unsigned long long)__popc(got));
                }
                pause = 32;
                if (!waiting) break;
            } else {
                polls += 1;
                if (polls % SX_Q_POLLS_PER_CHECK == 0) {
                    bool over = false;
                    if (lane == 0) {
                        unsigned long long tail;
                        over = sx_q_over(q, &tail);
                        unsigned long long t = sx_q_clock();
                        if (tail != seen_tail) {
                            seen_tail = tail;
                            since = t;
                        } else if (!over && t - since > SX_Q_WATCHDOG) {
                            __trap();
                        }
                    }
                    if (__shfl_sync(SX_FULL, over, 0)) return;
                }
                __nanosleep(pause);
                pause = min(pause * 2u, 256u);
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

/* The lowest bucket of an active vertex into ctl[SX_Q_BUCKET] (preset to ~0). Whole blocks. */
__device__ __forceinline__ void sx_q_lowest_bucket(const sx_state* s, const sx_queue* q) {
    if (!SIMDX_HAS_BUCKET) return;
    simdx_params p = s->params;
    __shared__ unsigned int lowest;
    if (threadIdx.x == 0) lowest = 0xffffffffu;
    __syncthreads();
    for (simdx_u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < s->n; v += gridDim.x * blockDim.x) {
        simdx_value now = *(volatile simdx_value*)&s->now[v];
        if (simdx_active(&p, now, *(volatile simdx_value*)&s->seen[v])) atomicMin(&lowest, simdx_bucket(&p, now));
    }
    __syncthreads();
    if (threadIdx.x == 0 && lowest != 0xffffffffu) atomicMin(&q->ctl[SX_Q_BUCKET], (unsigned long long)lowest);
}

/* Enqueues every active vertex of bucket `bucket` or below. Whole blocks. */
__device__ __forceinline__ void sx_q_enqueue_active(const sx_state* s, const sx_queue* q, unsigned int epoch, simdx_u32 bucket) {
    simdx_params p = s->params;
    simdx_u32 stride = gridDim.x * blockDim.x;
    simdx_u32 rounds = (s->n + stride - 1) / stride;
    for (simdx_u32 r = 0; r < rounds; r++) {
        simdx_u32 v = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool take = false;
        if (v < s->n) {
            simdx_value now = *(volatile simdx_value*)&s->now[v];
            take = simdx_active(&p, now, *(volatile simdx_value*)&s->seen[v]) &&
                   (!SIMDX_HAS_BUCKET || simdx_bucket(&p, now) <= bucket);
        }
        sx_q_push(q, epoch, take, v);
    }
}

extern "C" __global__ void __launch_bounds__(SX_BLOCK) sx_async(const sx_state* s, const sx_queue* q) {
    simdx_u32 lane = threadIdx.x & 31;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warps = gridDim.x * blockDim.x / 32;
    unsigned int epoch = 1;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        q->ctl[SX_Q_WORDS - 1] = sx_q_clock();
        q->ctl[SX_Q_BUCKET] = ~0ull;
    }
    unsigned long long items = 0, edges = 0;
    /* The first epoch's bucket: the lowest of an active vertex, the handed-over frontier's included
     * (prepared, so no longer active, but all of one bucket). */
    if (SIMDX_HAS_BUCKET) {
        sx_grid_sync(q->barrier);
        if (blockIdx.x == 0 && threadIdx.x == 0 && q->len)
            atomicMin(&q->ctl[SX_Q_BUCKET], (unsigned long long)simdx_bucket(&s->params, s->seen[q->list[0]]));
        sx_q_lowest_bucket(s, q);
        sx_grid_sync(q->barrier);
    }
    simdx_u32 bucket = SIMDX_HAS_BUCKET ? (simdx_u32)*(volatile unsigned long long*)&q->ctl[SX_Q_BUCKET] : 0u;
    /* The handed-over frontier sends what it was prepared with. */
    for (simdx_u32 i = warp * 32; i < q->len; i += warps * 32) {
        bool take = i + lane < q->len;
        sx_q_relax(s, q, epoch, bucket, take, take ? q->list[i + lane] : 0u, true, &edges);
    }
    /* Every active vertex of the bucket (all of them at the start of a run without buckets) goes in. */
    sx_q_enqueue_active(s, q, epoch, bucket);
    for (;;) {
        sx_grid_sync(q->barrier); /* `tail` counts every vertex enqueued so far */
        sx_q_work(s, q, epoch, bucket, &items, &edges);
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
        sx_grid_sync(q->barrier); /* every warp is done: the epoch is over */
        sx_q_log(q, epoch);
        if (*(volatile unsigned long long*)&q->ctl[SX_Q_DROPPED] == 0ull &&
            *(volatile unsigned long long*)&q->ctl[SX_Q_DEFERRED] == 0ull)
            break;
        sx_grid_sync(q->barrier); /* everyone has read the drops and deferrals */
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            q->ctl[SX_Q_HEAD] = 0ull;
            q->ctl[SX_Q_TAIL] = 0ull;
            q->ctl[SX_Q_FINISHED] = 0ull;
            q->ctl[SX_Q_DROPPED] = 0ull;
            q->ctl[SX_Q_DEFERRED] = 0ull;
            q->ctl[SX_Q_BUCKET] = ~0ull;
            q->ctl[SX_Q_EPOCHS] = epoch;
        }
        sx_grid_sync(q->barrier);
        /* A new epoch: the lowest bucket still active, its vertices from the first cell. */
        epoch += 1;
        if (SIMDX_HAS_BUCKET) {
            sx_q_lowest_bucket(s, q);
            sx_grid_sync(q->barrier);
            bucket = (simdx_u32)*(volatile unsigned long long*)&q->ctl[SX_Q_BUCKET];
        }
        sx_q_enqueue_active(s, q, epoch, bucket);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) q->ctl[SX_Q_EPOCHS] = epoch;
}
