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
 * and wait at their own cells. An epoch ends when every vertex enqueued in it has been relaxed or
 * dropped (`finished` = `tail`). Two kinds of vertex wait for a later epoch instead: those enqueued
 * past the queue's last cell (dropped), and those whose priority bucket (`simdx_bucket`,
 * delta-stepping's) is above the epoch's. They stay active and go into the far list (or, once it is
 * full, a flag says to scan every vertex instead). Between epochs the grid meets at barriers, finds
 * the lowest bucket among the far list's active vertices, enqueues those of that bucket from the first
 * cell and moves the others to the other far list. So no vertex is lost, the queue never needs more
 * cells than it has, and SSSP relaxes its buckets in order, each one asynchronously. An epoch takes
 * `span` buckets from the lowest: an epoch too small to keep the grid busy doubles the span (the cost of
 * an epoch, a few grid barriers, then buys more work), a big one halves it (asynchronous rounds over a
 * wide range of buckets relax vertices again that a narrower one would have relaxed once). Programs
 * without buckets chain: a lane relaxes one target it improved itself next instead of enqueueing it
 * (SX_Q_CHAIN). Called with a co-resident grid (cooperative launch). */

/* The counter words of `ctl` (u64, each on its own 128-byte line: SX_Q_HEAD, ..., SX_Q_LOG,
 * SX_Q_LOG_EPOCHS, SX_Q_WORDS) are declared in Rust (simdx-cuda/src/device_structs.rs: counter_slots
 * `queue`), which generates their `#define`s (see kernel_source). */
/* Out-degree from which a warp relaxes a vertex's arcs together rather than one lane alone. */
#define SX_Q_WARP_DEGREE 32
/* An epoch that takes fewer vertices than this many per warp of the grid doubles the next one's span of
 * buckets; one that takes SX_Q_SPAN_RANGE times more halves it. A narrow range halves spans that kept
 * the grid busy; a smaller or larger threshold for a small epoch is slower on the grid, and kron and
 * urand do not move (measurements: docs/experiments/gpu-async.md, "Span of the asynchronous epochs"). */
#ifndef SX_Q_SMALL_EPOCH
#define SX_Q_SMALL_EPOCH 4
#endif
#ifndef SX_Q_SPAN_RANGE
#define SX_Q_SPAN_RANGE 64
#endif
/* Vertices a lane relaxes in a row, for programs without buckets (BFS, labels): of the targets a
 * relaxation improves, a lane keeps one and relaxes it next itself instead of enqueueing it, so that one
 * hop of a long path costs a relaxation rather than a round trip through the queue (an enqueue, another
 * warp's poll); the last relaxation of a chain this long enqueues what it improves. 1: every
 * improvement goes through the queue. BFS on a grid gains up to about 32 and is level beyond. Programs
 * with buckets (SSSP) do not chain: a chain follows one path depth first, whose values later and
 * shorter paths improve again, and every chain length is slower there, also keeping the lightest
 * improved target of weight-ordered arcs (measurements: docs/experiments/gpu-async.md, "Chains in
 * asynchronous rounds"). */
#ifndef SX_Q_CHAIN
#define SX_Q_CHAIN 32
#endif
#define SX_Q_CHAINS (SX_Q_CHAIN > 1 && !SIMDX_HAS_BUCKET)
/* Three ways to shorten a hop of a long path, each faster on a large grid (measurements of all three:
 * docs/experiments/gpu-async.md, "Asynchronous rounds: the latency of a hop");
 * SIMDX_NVRTC_DEFINES can set each back (SX_Q_BLIND_ATOMIC=0, SX_Q_BATCH=1, SX_Q_MAX_PAUSE=256).
 *
 * SX_Q_BLIND_ATOMIC: a relaxation combines into its target atomically without reading the target first
 * (only where Compute does not read it; the read is a round trip before the atomic). On by default for
 * aggregation programs only: BFS, whose targets are mostly reached already, is faster with the test,
 * which spares an atomic wherever the target is already as good. */
#ifndef SX_Q_BLIND_ATOMIC
#define SX_Q_BLIND_ATOMIC (SIMDX_KIND != SIMDX_KIND_VOTING)
#endif
#define SX_Q_TESTS_FIRST (!SX_Q_BLIND_ATOMIC || SIMDX_COMPUTE_READS_DST)
/* SX_Q_BATCH: arcs a lane of a small vertex relaxes at once (sx_q_arcs): their loads, then their atomics,
 * in flight together, and their targets routed with one atomic per warp (1: one arc at a time, through
 * sx_q_route). Four is fastest for SSSP (eight is slower than one) and makes BFS faster too. */
#ifndef SX_Q_BATCH
#define SX_Q_BATCH 4
#endif
/* SX_Q_MAX_PAUSE: the longest sleep (ns) of a warp between polls of its cells, reached by doubling from 32:
 * thousands of idle warps polling slow the L2 for the working ones, so a longer sleep pays, up to about
 * a microsecond. */
#ifndef SX_Q_MAX_PAUSE
#define SX_Q_MAX_PAUSE 1024
#endif
/* Idle polls of a warp's cells between two readings of the epoch's shared counters (sx_q_over): SSSP is
 * fastest at the fewest polls tried, BFS a little faster at more (measurements:
 * docs/experiments/gpu-async.md, "Asynchronous rounds: the latency of a hop"). */
#ifndef SX_Q_POLLS_PER_CHECK
#define SX_Q_POLLS_PER_CHECK 8
#endif
/* A warp that waits this long (ns) while the epoch is not over but nothing is enqueued anywhere aborts
 * the kernel (an error the host reports) rather than hang the GPU, as the grid barrier does. */
#define SX_Q_WATCHDOG 10000000000ull

/* The queue as the kernel sees it, `sx_queue`, is declared in Rust (device_structs.rs: SxQueue). */

/* A vertex's priority bucket (0 for programs without buckets). */
__device__ __forceinline__ simdx_u32 sx_q_bucket(const simdx_params* p, simdx_value value) {
    return SIMDX_HAS_BUCKET ? simdx_bucket(p, value) : 0u;
}

/* Defers v (where `take`; active) to a later epoch: appended to far[cur], or, past its end, flagged for
 * a scan of every vertex. Called by whole warps. */
__device__ __forceinline__ void sx_q_defer(const sx_queue* q, simdx_u32 cur, bool take, simdx_u32 v) {
    unsigned want = __ballot_sync(SX_FULL, take);
    if (!want) return;
    int lane = threadIdx.x & 31, leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(&q->ctl[SX_Q_FAR_LEN + cur], (unsigned long long)__popc(want));
    base = __shfl_sync(SX_FULL, base, leader);
    unsigned long long pos = base + __popc(want & ((1u << lane) - 1u));
    if (take && pos < q->far_capacity) q->far[cur][pos] = v;
    if (take && pos >= q->far_capacity) {
        volatile unsigned long long* full = &q->ctl[SX_Q_FAR_FULL];
        if (*full == 0ull) *full = 1ull;
    }
}

/* The device clock, in ns. */
__device__ __forceinline__ unsigned long long sx_q_clock() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Appends v (where `take`) to the queue in `epoch`; past the last cell it is dropped instead and
 * deferred to a later epoch (far[cur]). Called by whole warps. */
__device__ __forceinline__ void sx_q_push(const sx_queue* q, unsigned int epoch, simdx_u32 cur, bool take, simdx_u32 v) {
    unsigned want = __ballot_sync(SX_FULL, take);
    if (!want) return;
    int lane = threadIdx.x & 31, leader = __ffs(want) - 1;
    unsigned long long base = 0;
    if (lane == leader) {
        unsigned long long count = __popc(want);
        base = atomicAdd(&q->ctl[SX_Q_TAIL], count);
        if (base + count > q->capacity) atomicAdd(&q->ctl[SX_Q_FINISHED], base + count - max(base, (unsigned long long)q->capacity));
    }
    base = __shfl_sync(SX_FULL, base, leader);
    unsigned long long pos = base + __popc(want & ((1u << lane) - 1u));
    if (take && pos < q->capacity) {
        /* A release store: the improvement is visible before the entry that announces it (cheaper than
         * a full fence before a plain store, and on the path of every hop of a long path; the latency of
         * a hop: docs/experiments/gpu-async.md, "The grid's hand-over to asynchronous rounds"). */
        unsigned long long cell = ((unsigned long long)epoch << 32) | v;
        asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(&q->cells[pos]), "l"(cell) : "memory");
    }
    sx_q_defer(q, cur, take && pos >= q->capacity, v);
}

/* What a relaxation asks of the queue for its target. */
#define SX_Q_NOTHING 0
#define SX_Q_ENQUEUE 1 /* improved within the epoch's bucket */
#define SX_Q_DEFER 2   /* improved into a later bucket: it waits, active, in the far list */

/* Relaxes out-arc i (from a source sending `src`, out-degree `deg`) and says what its target, returned
 * in *t, needs. `can_update` is not read: it prunes synchronous rounds only (an improvement is never
 * refused here). */
__device__ __forceinline__ int sx_q_arc(const sx_state* s, const simdx_params* p, simdx_u32 bucket, simdx_u32 u, simdx_msg src,
                                        simdx_u32 deg, simdx_u64 i, simdx_u32* t) {
    simdx_u32 v = s->out_targets[i];
    *t = v;
    simdx_value dst = SX_Q_TESTS_FIRST ? *(volatile simdx_value*)&s->now[v] : (simdx_value)0;
    simdx_edge e;
    e.src = src;
    e.dst = dst;
    e.weight = sx_weight(s, s->out_weights, i);
    e.src_out_degree = deg;
    simdx_value update = simdx_compute(p, e);
    if (SX_Q_TESTS_FIRST && sx_same(simdx_combine(p, dst, update), dst)) return SX_Q_NOTHING;
    simdx_value old = sx_atomic(&s->now[v], update, p);
    if (sx_same(simdx_combine(p, old, update), old)) return SX_Q_NOTHING;
    sx_sent_min(s, v, u, update);
    return sx_q_bucket(p, update) > bucket ? SX_Q_DEFER : SX_Q_ENQUEUE;
}

/* Enqueues t where `need` says so, or defers it; with `chain`, a lane that keeps no vertex yet (*keep
 * == ~0u, never a vertex id) keeps an enqueue for itself instead. Called by whole warps. */
__device__ __forceinline__ void sx_q_route(const sx_queue* q, unsigned int epoch, simdx_u32 cur, int need, simdx_u32 t,
                                           bool chain, simdx_u32* keep) {
    bool kept = chain && need == SX_Q_ENQUEUE && *keep == ~0u;
    if (kept) *keep = t;
    sx_q_push(q, epoch, cur, need == SX_Q_ENQUEUE && !kept, t);
    sx_q_defer(q, cur, need == SX_Q_DEFER, t);
}

/* Relaxes the out-arcs [i, end) of a source sending `src` (out-degree `deg`), SX_Q_BATCH at most, and
 * says in need[] what each target, in t[], needs (SX_Q_NOTHING past `end`). The arcs' loads, then
 * their atomics, are issued together, so that a lane waits for one round trip of each rather than one
 * per arc: a hop along a high-diameter graph's paths is a chain of such waits. */
__device__ __forceinline__ void sx_q_arcs(const sx_state* s, const simdx_params* p, simdx_u32 bucket, simdx_u32 u, simdx_msg src,
                                          simdx_u32 deg, simdx_u64 i, simdx_u64 end, simdx_u32* t, int* need) {
    simdx_value update[SX_Q_BATCH], old[SX_Q_BATCH];
    bool live[SX_Q_BATCH];
#pragma unroll
    for (int j = 0; j < SX_Q_BATCH; j++) {
        live[j] = i + j < end;
        t[j] = live[j] ? s->out_targets[i + j] : 0u;
        simdx_edge e;
        e.src = src;
        e.dst = (simdx_value)0;
        e.weight = live[j] ? sx_weight(s, s->out_weights, i + j) : (simdx_weight)0;
        e.src_out_degree = deg;
        if (SX_Q_TESTS_FIRST) {
            e.dst = live[j] ? *(volatile simdx_value*)&s->now[t[j]] : (simdx_value)0;
            update[j] = simdx_compute(p, e);
            live[j] = live[j] && !sx_same(simdx_combine(p, e.dst, update[j]), e.dst);
        } else {
            update[j] = simdx_compute(p, e);
        }
    }
#pragma unroll
    for (int j = 0; j < SX_Q_BATCH; j++) old[j] = live[j] ? sx_atomic(&s->now[t[j]], update[j], p) : update[j];
#pragma unroll
    for (int j = 0; j < SX_Q_BATCH; j++) {
        bool improved = live[j] && !sx_same(simdx_combine(p, old[j], update[j]), old[j]);
        if (improved) sx_sent_min(s, t[j], u, update[j]);
        need[j] = !improved ? SX_Q_NOTHING : sx_q_bucket(p, update[j]) > bucket ? SX_Q_DEFER : SX_Q_ENQUEUE;
    }
}

/* A warp's claim of `count` consecutive slots per lane on `counter`, with one atomic: this lane's first
 * slot; *total: the warp's. Called by whole warps. */
__device__ __forceinline__ unsigned long long sx_q_claim(unsigned long long* counter, unsigned count,
                                                         unsigned* total) {
    int lane = threadIdx.x & 31;
    unsigned upto = count;
    for (int o = 1; o < 32; o <<= 1) {
        unsigned below = __shfl_up_sync(SX_FULL, upto, o);
        if (lane >= o) upto += below;
    }
    *total = __shfl_sync(SX_FULL, upto, 31);
    unsigned long long base = 0;
    if (lane == 31 && *total) base = atomicAdd(counter, (unsigned long long)*total);
    return __shfl_sync(SX_FULL, base, 31) + (upto - count);
}

/* Routes each lane's SX_Q_BATCH targets t[] by need[]: enqueued, or deferred (into far[cur]; past the
 * queue's last cell as well), with one atomic per warp for each; with `chain`, a lane that keeps no
 * vertex yet (*keep == ~0u) keeps its first enqueue for itself instead. Called by whole warps. */
__device__ __forceinline__ void sx_q_route_batch(const sx_queue* q, unsigned int epoch, simdx_u32 cur, int* need,
                                                 const simdx_u32* t, bool chain, simdx_u32* keep) {
    unsigned enqueue = 0, total = 0;
#pragma unroll
    for (int j = 0; j < SX_Q_BATCH; j++) {
        if (chain && need[j] == SX_Q_ENQUEUE && *keep == ~0u) {
            *keep = t[j];
            need[j] = SX_Q_NOTHING;
        }
        enqueue += need[j] == SX_Q_ENQUEUE;
    }
    unsigned long long pos = sx_q_claim(&q->ctl[SX_Q_TAIL], enqueue, &total);
    /* Slots past the last cell are dropped (counted by each lane that has some: a count that lands after
     * the warp's relaxations count as finished only delays the epoch's end) and deferred below. */
    unsigned long long end = pos + enqueue;
    if (end > q->capacity) atomicAdd(&q->ctl[SX_Q_FINISHED], end - max(pos, (unsigned long long)q->capacity));
    unsigned defer = 0;
#pragma unroll
    for (int j = 0; j < SX_Q_BATCH; j++) {
        if (need[j] == SX_Q_ENQUEUE) {
            if (pos < q->capacity) {
                /* A release store, as in sx_q_push. */
                unsigned long long cell = ((unsigned long long)epoch << 32) | t[j];
                asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(&q->cells[pos]), "l"(cell) : "memory");
            } else {
                need[j] = SX_Q_DEFER;
            }
            pos += 1;
        }
        defer += need[j] == SX_Q_DEFER;
    }
    unsigned long long at = sx_q_claim(&q->ctl[SX_Q_FAR_LEN + cur], defer, &total);
#pragma unroll
    for (int j = 0; j < SX_Q_BATCH; j++) {
        if (need[j] == SX_Q_DEFER) {
            if (at < q->far_capacity) {
                q->far[cur][at] = t[j];
            } else {
                volatile unsigned long long* full = &q->ctl[SX_Q_FAR_FULL];
                if (*full == 0ull) *full = 1ull;
            }
            at += 1;
        }
    }
}

/* Relaxes the out-arcs of each lane's vertex v (where `take`): a vertex from the queue relaxes if it
 * is still active (seen := now, as a snapshot would); a `handed` vertex (from a prepared frontier)
 * sends what it was prepared with. Lanes relax their own small vertices; the warp relaxes each big one
 * together. Adds the arcs read to *edges. With `chain` (*keep ~0u in every lane), a lane keeps one
 * target it improved within the epoch's buckets in *keep instead of enqueueing it (see SX_Q_CHAIN).
 * Called by whole warps. */
__device__ __forceinline__ void sx_q_relax(const sx_state* s, const sx_queue* q, unsigned int epoch, simdx_u32 bucket,
                                           simdx_u32 cur, bool take, simdx_u32 v, bool handed, unsigned long long* edges,
                                           bool chain, simdx_u32* keep) {
    simdx_params p = s->params;
    simdx_msg src = (simdx_msg)0;
    simdx_u64 b = 0, e = 0;
    simdx_u32 deg = 0;
    if (take) {
        /* Read before the activity test, so that its loads and these overlap (a stale entry wastes them). */
        b = s->out_offsets[v];
        e = s->out_offsets[v + 1];
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
            deg = e - b > 0xffffffffull ? 0xffffffffu : (simdx_u32)(e - b);
            *edges += e - b;
        } else {
            b = e = 0;
        }
    }
    bool big = take && e - b >= SX_Q_WARP_DEGREE;
    simdx_u32 most = (take && !big) ? (simdx_u32)(e - b) : 0u;
    for (int o = 16; o > 0; o >>= 1) most = max(most, __shfl_xor_sync(SX_FULL, most, o));
#if SX_Q_BATCH > 1
    for (simdx_u32 k = 0; k < most; k += SX_Q_BATCH) {
        simdx_u32 t[SX_Q_BATCH];
        int need[SX_Q_BATCH];
        sx_q_arcs(s, &p, bucket, v, src, deg, b + k, big ? b + k : e, t, need);
        sx_q_route_batch(q, epoch, cur, need, t, chain, keep);
    }
#else
    for (simdx_u32 k = 0; k < most; k++) {
        simdx_u32 t = 0;
        int need = (!big && b + k < e) ? sx_q_arc(s, &p, bucket, v, src, deg, b + k, &t) : SX_Q_NOTHING;
        sx_q_route(q, epoch, cur, need, t, chain, keep);
    }
#endif
    int lane = threadIdx.x & 31;
    for (unsigned bigs = __ballot_sync(SX_FULL, big); bigs; bigs &= bigs - 1u) {
        int owner = __ffs(bigs) - 1;
        simdx_u64 bb = __shfl_sync(SX_FULL, b, owner), ee = __shfl_sync(SX_FULL, e, owner);
        simdx_msg ss = __shfl_sync(SX_FULL, src, owner);
        simdx_u32 dd = __shfl_sync(SX_FULL, deg, owner);
        simdx_u32 uu = __shfl_sync(SX_FULL, v, owner);
        for (simdx_u64 k = bb; k < ee; k += 32) {
            simdx_u32 t = 0;
            int need = k + lane < ee ? sx_q_arc(s, &p, bucket, uu, ss, dd, k + lane, &t) : SX_Q_NOTHING;
            sx_q_route(q, epoch, cur, need, t, chain, keep);
        }
    }
}

/* Whether the epoch is over: every vertex enqueued has been relaxed or dropped. Both counters only grow
 * within an epoch, and `finished` is read first, with an acquire load (so that `tail` cannot be sampled
 * before it): a drop counts as finished after its position was taken, and a relaxation after the
 * enqueues it made, so equality means that nothing was in progress when `finished` was read. (Two
 * volatile loads may be performed out of order: a tail sampled first, then a count that includes a
 * relaxation whose enqueue it missed, would end the epoch with that vertex unrelaxed. Ordering the reads
 * costs some time, the acquire load less than full fences between volatile loads of three counters,
 * drops counted apart;
 * measurements: docs/experiments/gpu-async.md, "Asynchronous rounds: the latency of a hop".) */
__device__ __forceinline__ bool sx_q_over(const sx_queue* q, unsigned long long* tail) {
    unsigned long long finished;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(finished) : "l"(&q->ctl[SX_Q_FINISHED]) : "memory");
    *tail = *(volatile unsigned long long*)&q->ctl[SX_Q_TAIL];
    return finished == *tail;
}

/* Takes positions 32 at a time and relaxes each vertex as its cell fills, until the epoch is over.
 * Called by whole warps. */
__device__ __forceinline__ void sx_q_work(const sx_state* s, const sx_queue* q, unsigned int epoch, simdx_u32 bucket,
                                          simdx_u32 cur, unsigned long long* items, unsigned long long* edges) {
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
                /* Each lane relaxes its vertex, then (SX_Q_CHAINS) the vertices it keeps, one after
                 * the other, SX_Q_CHAIN relaxations at most. */
                bool have = ready;
                simdx_u32 v = (simdx_u32)word;
                for (int hop = 1;; hop++) {
                    simdx_u32 keep = ~0u;
                    sx_q_relax(s, q, epoch, bucket, cur, have, v, false, edges, SX_Q_CHAINS && hop < SX_Q_CHAIN, &keep);
                    if (!SX_Q_CHAINS) break;
                    have = keep != ~0u;
                    v = keep;
                    unsigned more = __ballot_sync(SX_FULL, have);
                    if (!more) break;
                    if (lane == 0) *items += __popc(more);
                }
                waiting &= ~got;
                /* Counted once the chains are done and after the enqueues of their relaxations (their
                 * leaders' atomics returned before the ballots that brought the warp here): a kept
                 * vertex is never in the queue, and the epoch cannot end while its chain runs. */
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
                pause = min(pause * 2u, (unsigned)SX_Q_MAX_PAUSE);
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

/* The candidates for the next epoch: the far list far[cur] (`count` entries), or every vertex when it
 * overflowed (`all`). Whole blocks call `sx_q_candidates` with a callback per active candidate. */
template <typename F>
__device__ __forceinline__ void sx_q_candidates(const sx_state* s, const sx_queue* q, simdx_u32 cur, bool all,
                                                unsigned long long count, F f) {
    simdx_params p = s->params;
    unsigned long long total = all ? (unsigned long long)s->n : count;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long rounds = (total + stride - 1) / stride;
    for (unsigned long long r = 0; r < rounds; r++) {
        unsigned long long i = r * stride + blockIdx.x * blockDim.x + threadIdx.x;
        bool live = i < total;
        simdx_u32 v = live ? (all ? (simdx_u32)i : q->far[cur][i]) : 0u;
        simdx_value now = live ? *(volatile simdx_value*)&s->now[v] : (simdx_value)0;
        bool active = live && simdx_active(&p, now, *(volatile simdx_value*)&s->seen[v]);
        f(active, v, active ? sx_q_bucket(&p, now) : 0u);
    }
}

/* The lowest bucket among the active candidates into ctl[SX_Q_BUCKET] (preset to ~0). Whole blocks. */
__device__ __forceinline__ void sx_q_lowest_bucket(const sx_state* s, const sx_queue* q, simdx_u32 cur, bool all,
                                                   unsigned long long count) {
    __shared__ unsigned int lowest;
    if (threadIdx.x == 0) lowest = 0xffffffffu;
    __syncthreads();
    sx_q_candidates(s, q, cur, all, count, [&](bool active, simdx_u32 v, simdx_u32 b) {
        (void)v;
        if (active) atomicMin(&lowest, b);
    });
    __syncthreads();
    if (threadIdx.x == 0 && lowest != 0xffffffffu) atomicMin(&q->ctl[SX_Q_BUCKET], (unsigned long long)lowest);
}

/* Starts an epoch: the active candidates of bucket `bucket` or below into the queue, the other active
 * ones into far[next]. Whole blocks. */
__device__ __forceinline__ void sx_q_start(const sx_state* s, const sx_queue* q, unsigned int epoch, simdx_u32 bucket,
                                           simdx_u32 cur, bool all, unsigned long long count, simdx_u32 next) {
    sx_q_candidates(s, q, cur, all, count, [&](bool active, simdx_u32 v, simdx_u32 b) {
        sx_q_push(q, epoch, next, active && b <= bucket, v);
        sx_q_defer(q, next, active && b > bucket, v);
    });
}

#ifdef SX_KERNELS_ASYNC
extern "C" __global__ void __launch_bounds__(SX_BLOCK) sx_async(const sx_state* s, const sx_queue* q) {
    simdx_u32 lane = threadIdx.x & 31;
    simdx_u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warps = gridDim.x * blockDim.x / 32;
    unsigned int epoch = 1;
    simdx_u32 cur = 0; /* the far list that fills during the epoch */
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        q->ctl[SX_Q_WORDS - 1] = sx_q_clock();
        q->ctl[SX_Q_BUCKET] = ~0ull;
    }
    unsigned long long items = 0, edges = 0;
    /* The first epoch's bucket: the lowest of an active vertex, the handed-over frontier's included
     * (prepared, so no longer active, but all of one bucket). */
    sx_grid_sync(q->barrier);
    if (blockIdx.x == 0 && threadIdx.x == 0 && q->len)
        atomicMin(&q->ctl[SX_Q_BUCKET], (unsigned long long)sx_q_bucket(&s->params, s->seen[q->list[0]]));
    sx_q_lowest_bucket(s, q, 0, true, 0);
    sx_grid_sync(q->barrier);
    /* The epoch takes buckets up to `bucket` (lowest + span - 1). */
    simdx_u32 bucket = (simdx_u32)*(volatile unsigned long long*)&q->ctl[SX_Q_BUCKET], span = 1;
    unsigned long long before = 0; /* vertices taken before this epoch */
    unsigned long long small = (unsigned long long)warps * SX_Q_SMALL_EPOCH;
    /* The handed-over frontier sends what it was prepared with. */
    for (simdx_u32 i = warp * 32; i < q->len; i += warps * 32) {
        bool take = i + lane < q->len;
        simdx_u32 none = ~0u;
        sx_q_relax(s, q, epoch, bucket, cur, take, take ? q->list[i + lane] : 0u, true, &edges, false, &none);
    }
    /* Every active vertex (the source, at the start of a run) goes in, or waits in the far list. */
    sx_q_start(s, q, epoch, bucket, 0, true, 0, cur);
    for (;;) {
        sx_grid_sync(q->barrier); /* `tail` counts every vertex enqueued so far */
        sx_q_work(s, q, epoch, bucket, cur, &items, &edges);
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
        unsigned long long taken = *(volatile unsigned long long*)&q->ctl[SX_Q_ITEMS];
        if (taken - before < small) span = min(span * 2u, 1u << 30);
        else if (taken - before > small * SX_Q_SPAN_RANGE) span = max(span / 2u, 1u);
        before = taken;
        bool all = *(volatile unsigned long long*)&q->ctl[SX_Q_FAR_FULL] != 0ull;
        unsigned long long count = *(volatile unsigned long long*)&q->ctl[SX_Q_FAR_LEN + cur];
        if (!all && count == 0ull) break; /* nothing was deferred */
        sx_grid_sync(q->barrier); /* everyone has read the far list's state */
        simdx_u32 next = cur ^ 1u;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            q->ctl[SX_Q_HEAD] = 0ull;
            q->ctl[SX_Q_TAIL] = 0ull;
            q->ctl[SX_Q_FINISHED] = 0ull;
            q->ctl[SX_Q_FAR_FULL] = 0ull;
            q->ctl[SX_Q_FAR_LEN + next] = 0ull;
            q->ctl[SX_Q_BUCKET] = ~0ull;
            q->ctl[SX_Q_EPOCHS] = epoch;
        }
        sx_grid_sync(q->barrier);
        sx_q_lowest_bucket(s, q, cur, all, count);
        sx_grid_sync(q->barrier);
        unsigned long long lowest = *(volatile unsigned long long*)&q->ctl[SX_Q_BUCKET];
        if (lowest == ~0ull) break; /* every deferred vertex was relaxed since */
        bucket = (simdx_u32)min(lowest + span - 1ull, 0xffffffffull);
        /* A new epoch: the deferred vertices of the lowest bucket from the first cell, the rest to the
         * other far list. */
        epoch += 1;
        sx_q_start(s, q, epoch, bucket, cur, all, count, next);
        cur = next;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) q->ctl[SX_Q_EPOCHS] = epoch;
}
#endif
