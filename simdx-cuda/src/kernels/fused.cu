/* simdx fused kernels (fusion modes `push-pull` and `all`): persistent kernels that run consecutive
 * iterations with a software grid barrier between steps, calling the same phases as the one-launch-per-
 * step kernels. The grid never exceeds what can be co-resident (blocks per SM from the occupancy API x
 * SMs) and is launched cooperatively, so the driver refuses rather than hangs a grid that could deadlock.
 * `sx_fused_push` stops when an iteration would pull and `sx_fused_pull` when it would push (mode
 * push-pull: the host relaunches the other); `sx_fused_all` switches direction on the device. Under
 * selective fusion (mode auto) a kernel also stops when a frontier's out-edges exceed `host_above`, and
 * the host runs that step with one launch per phase, and once `async_after` iterations have run
 * (`async_early`, if every frontier so far was small and, for a program with buckets, it has reached
 * bucket `async_early_bucket`) it hands the run over to asynchronous rounds (kernels/async.cu). */

#define SX_RING 16 /* counter sets in rotation: each phase takes a fresh, zeroed set */
#define SX_STATUS_DONE 1u
#define SX_STATUS_SWITCH 2u
#define SX_STATUS_HOST 3u /* selective fusion: the frontier grew past host_above; the host runs it */
#define SX_STATUS_ASYNC 4u /* selective fusion: a long run of small steps goes on in asynchronous rounds */

/* What the host and a fused kernel hand each other, `sx_fused`, is declared in Rust
 * (simdx-cuda/src/device_structs.rs: SxFused), which generates its C declaration (see kernel_source). */

/* A counter written by other blocks before the last grid barrier, read once per block (thread 0) and
 * shared: a read by every thread would send thousands of requests for one address to one L2 slice.
 * Called by whole blocks. */
__device__ __forceinline__ unsigned long long sx_read(const unsigned long long* c) {
    __shared__ unsigned long long value;
    __syncthreads(); /* every thread has taken the previous value */
    if (threadIdx.x == 0) value = *(volatile const unsigned long long*)c;
    __syncthreads();
    return value;
}

/* All counters of set c as they stood at the last grid barrier, copied into the block's `local` (shared)
 * in one round trip. Called by whole blocks. */
__device__ __forceinline__ void sx_fetch(unsigned long long* local, const unsigned long long* c) {
    __syncthreads(); /* every thread is done with the previous copy */
    if (threadIdx.x < SX_COUNTERS) local[threadIdx.x] = *(volatile const unsigned long long*)&c[threadIdx.x];
    __syncthreads();
}

/* The next counter set; block 0 zeroes the set SX_RING / 2 uses ahead, which nobody reads any more. */
__device__ __forceinline__ unsigned long long* sx_take(const sx_fused* f, simdx_u32* use) {
    unsigned long long* set = f->ring + (size_t)(*use % SX_RING) * SX_COUNTERS;
    unsigned long long* ahead = f->ring + (size_t)((*use + SX_RING / 2) % SX_RING) * SX_COUNTERS;
    if (blockIdx.x == 0 && threadIdx.x < SX_COUNTERS) ahead[threadIdx.x] = 0ull;
    *use += 1;
    return set;
}

/* The ballot filter inside a fused kernel: count, prefix, write, with barriers between. */
__device__ __forceinline__ simdx_u32 sx_fused_scan(const sx_state* s, const sx_fused* f, simdx_u32* use, simdx_u32 mode,
                                                   simdx_u32 bucket, simdx_u32 fcur, simdx_u32* out) {
    unsigned long long* c = sx_take(f, use);
    simdx_u32 tiles = (s->n + SX_TILE - 1) / SX_TILE;
    ph_scan_count(s, c, mode, bucket, fcur, f->tile_counts);
    sx_grid_sync(f->barrier);
    if (blockIdx.x == 0) ph_scan_offsets(s, c, f->tile_counts, tiles);
    sx_grid_sync(f->barrier);
    ph_scan_write(s, c, mode, bucket, fcur, f->tile_counts, out);
    sx_grid_sync(f->barrier);
    return (simdx_u32)sx_read(&c[SX_NEXT_LEN]);
}

/* Iterations until the program finishes or, unless `dir` is 2 (any), the direction differs from `dir`.
 * A plain iteration costs two grid barriers: one after compute, one after select, which also prepares
 * the next frontier (snapshot, pull stamp, out-edge count, push classes) so that the direction is known
 * right after it. */
__device__ __forceinline__ void sx_fused_run(const sx_state* s, sx_fused* f, int dir) {
    simdx_params p = s->params;
    bool every = SIMDX_APPLY == SIMDX_APPLY_EVERY;
    bool aggregate = SIMDX_KIND == SIMDX_KIND_AGGREGATE;
    bool may_pull = f->direction_policy != 0u, may_push = f->direction_policy != 1u;
    simdx_u32 len = f->len, bucket = f->bucket, iterations = f->iterations, cur = f->cur, fcur = f->fcur;
    bool pending_maybe = f->pending_maybe != 0u;
    /* Whether every frontier of the run so far was small (a high-diameter graph from its first levels);
     * known only to a launch that began the run. Delta-stepping's first buckets are small on any graph,
     * so a program with buckets hands over early only once it has also reached bucket
     * `async_early_bucket` (a grid's frontiers stay small there; kron's and urand's are large by then). */
    bool small_so_far = iterations == 0u && (SIMDX_KIND == SIMDX_KIND_VOTING || SIMDX_HAS_BUCKET);
    simdx_u32 use = 0, status = 0;
    simdx_u32* frontier = f->lists[cur];
    simdx_u32* next = f->lists[cur ^ 1u];
    /* The counters of the phase that prepared the current frontier (NULL until one has), and the block's
     * copies of that set (cp), of the compute step's (cw) and of others (cx). */
    unsigned long long* prep = 0;
    /* All arcs, read once for the block. */
    unsigned long long arcs = sx_read((const unsigned long long*)&s->out_offsets[s->n]);
    __shared__ unsigned long long cp[SX_COUNTERS], cw[SX_COUNTERS], cx[SX_COUNTERS];
    /* Under SX_DEFERS, whether the settle list is empty, known alike to every block: a block reading the
     * list's length while another appends to it (ph_far_take prepares a bucket's frontier into it) would
     * take another branch and wait at a barrier the others never reach. So the length is read only when
     * it cannot be 0: once a prepare of the current bucket has taken a vertex, which the list holds until
     * the bucket settles (kernels/prepare.cu: the first prepare of a vertex in a bucket appends it); then
     * no block appends before the settle step's barrier. At the start it is read once, before a barrier. */
    bool settle_empty = true;
    if (SX_DEFERS) {
        settle_empty = sx_read(&s->far_len[SX_SETTLE_LEN]) == 0ull;
        sx_grid_sync(f->barrier);
    }
    for (;;) {
        /* Under SX_DEFERS, an exhausted bucket first settles: its vertices push the arcs they deferred
         * (kernels/state.cu). `owed` is the settle list's length (0: a plain iteration or a bucket change). */
        simdx_u32 owed = 0;
        if (SX_DEFERS && len == 0 && !settle_empty) owed = (simdx_u32)sx_read(&s->far_len[SX_SETTLE_LEN]);
        bool settle = owed != 0u;
        if (len == 0 && !settle && pending_maybe) {
            /* The current bucket is exhausted: the lowest bucket still waiting becomes current, from the
             * waiting list's bound (kernels/buckets.cu). */
            unsigned long long lowest = sx_read(&s->far_len[2 + fcur]);
            pending_maybe = false;
            if (lowest != ~0ull) {
                bucket = (simdx_u32)lowest;
                bool prepare = !SIMDX_USES_GLOBAL;
                unsigned long long* t = sx_take(f, &use);
                ph_far_take(s, t, fcur, bucket, frontier, prepare, iterations + 1u, may_pull ? iterations + 1u : 0u,
                            may_push ? f->push_classes : 0);
                sx_grid_sync(f->barrier);
                sx_fetch(cp, t);
                settle_empty = settle_empty && !(prepare && cp[SX_NEXT_LEN] != 0ull && bucket != ~0u);
                fcur ^= 1u;
                /* The list just emptied is the next change's to fill: its length and bound start over. A
                 * grid barrier comes between this and that change (the iteration's, or the one below). */
                if (blockIdx.x == 0 && threadIdx.x == 0) {
                    s->far_len[fcur ^ 1u] = 0ull;
                    s->far_len[2 + (fcur ^ 1u)] = ~0ull;
                }
                len = (simdx_u32)cp[SX_NEXT_LEN];
                prep = prepare ? t : 0;
                pending_maybe = cp[SX_PENDING] > 0;
                if (len == 0 && pending_maybe) {
                    /* The bound was stale (its vertices were relaxed in an earlier bucket); the list
                     * now has its exact one. */
                    sx_grid_sync(f->barrier);
                    continue;
                }
            }
        }
        if ((len == 0 && !settle) || iterations >= f->max_iterations) {
            status = SX_STATUS_DONE;
            break;
        }
        unsigned long long start_ns = 0;
        if (blockIdx.x == 0 && threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start_ns));
        bool all_active = every && len == s->n;
        /* Pull steps find their active sources by this stamp (0: every vertex is one, or every vertex
         * that is not holds the silent message). */
        simdx_u32 stamp = (may_pull && !all_active && !f->silent_pulls) ? iterations + 1u : 0u;
        if (settle) {
            /* The settle step pushes from the settle list; its degree classes and out-edges stand in for
             * a prepared frontier's. */
            prep = sx_take(f, &use);
            ph_settle_classify(s, prep, owed, stamp, f->push_classes);
            sx_grid_sync(f->barrier);
            sx_fetch(cp, prep);
        } else if (!prep) {
            prep = sx_take(f, &use);
            ph_snapshot(s, prep, frontier, len, bucket, iterations + 1u, stamp, (may_push && !all_active) ? f->push_classes : 0);
            sx_grid_sync(f->barrier);
            sx_fetch(cp, prep);
            settle_empty = settle_empty && !(len != 0u && bucket != ~0u);
        }
        double global = __longlong_as_double((long long)cp[SX_GLOBAL]);
        /* When the frontier holds every vertex with out-edges, every in-arc's source is active. */
        if (cp[SX_OUT_EDGES] == arcs) stamp = 0u;
        /* A settle step pulls (aggregation programs) when its sources' arcs are many: the vertices not
         * settled yet then read their in-arcs, fewer than the settled ones' out-arcs (kron:22's bucket 0). */
        bool settle_pulls = settle && aggregate &&
                            (f->direction_policy == 1u ||
                             (f->direction_policy == 2u && cp[SX_OUT_EDGES] > (arcs >> f->settle_pull_shift)));
        int want = settle ? (settle_pulls ? 1 : 0)
                 : f->direction_policy == 0u ? 0
                 : f->direction_policy == 1u ? 1
                 : ((double)cp[SX_OUT_EDGES] > f->threshold_arcs ? 1 : 0);
        /* A push whose frontier averages under `spread_arcs` out-arcs a vertex (a uniform graph's) runs as
         * fast in the persistent grid, which saves the hand-back and the relaunch, and so does a settle
         * step's pull (it reads the in-arcs of the vertices not settled yet, however many out-arcs its
         * sources have); pushes from hubs and other pulls run faster with a launch per phase. */
        bool spread = !every && ((want == 0 && cp[SX_OUT_EDGES] < (unsigned long long)f->spread_arcs * (settle ? owed : len)) ||
                                 settle_pulls);
        if (f->host_above && !spread && cp[SX_OUT_EDGES] + f->every_work > f->host_above) {
            /* A step big enough to fill the GPU (an `Every` program also applies and tests every vertex,
             * a streaming pass weighed in `every_work`): one launch per phase costs less than the
             * persistent grid. */
            status = SX_STATUS_HOST;
            break;
        }
        small_so_far = small_so_far && len < f->async_early_len;
        if (f->async_after && want == 0 && !settle &&
            (iterations >= f->async_after ||
             (small_so_far && iterations >= f->async_early && (!SIMDX_HAS_BUCKET || bucket >= f->async_early_bucket)))) {
            /* Many small steps (a high-diameter graph), or a run whose frontiers all stayed small:
             * asynchronous rounds finish it without a grid barrier per level, from this prepared
             * frontier and every vertex still active. Under SX_DEFERS they start from the settle list
             * instead, which holds the frontier and every vertex of the bucket that may owe arcs: they
             * push all their arcs, from the value they last sent. */
            if (SX_DEFERS) {
                simdx_u32 listed = (simdx_u32)sx_read(&s->far_len[SX_SETTLE_LEN]);
                for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < listed; i += gridDim.x * blockDim.x)
                    frontier[i] = s->settle[i];
                len = listed;
                /* Every block has read the length before it is cleared. */
                sx_grid_sync(f->barrier);
                if (blockIdx.x == 0 && threadIdx.x == 0) s->far_len[SX_SETTLE_LEN] = 0ull;
            }
            status = SX_STATUS_ASYNC;
            break;
        }
        if (dir != 2 && want != dir) {
            /* The other kernel takes over; it prepares the frontier again (to the same result). */
            status = SX_STATUS_SWITCH;
            break;
        }
        /* The settle list is spent: ph_settle_classify read it before the last grid barrier, and no block
         * hands the step back (to the host, the other kernel or asynchronous rounds) from here on. The
         * next prepare, in the select after the compute step's barrier, starts it over. */
        if (settle) {
            settle_empty = true;
            if (blockIdx.x == 0 && threadIdx.x == 0) s->far_len[SX_SETTLE_LEN] = 0ull;
        }
        simdx_u32 capacity = s->online_capacity; /* fixed for the run by the host (0 for `Every`) */
        const unsigned long long* lens = cp;
        unsigned long long* work = sx_take(f, &use);
        if (want == 0 && all_active) {
            /* Every vertex is active (`Every` programs): classify now, the snapshot did not. */
            unsigned long long* cls = sx_take(f, &use);
            ph_classify(s, cls, frontier, len, 0u, 0u, f->push_classes);
            sx_grid_sync(f->barrier);
            sx_fetch(cx, cls);
            lens = cx;
        }
        if (want == 0) {
            simdx_u32 l0 = (simdx_u32)lens[SX_CLASS_LEN], l1 = (simdx_u32)lens[SX_CLASS_LEN + 1];
            simdx_u32 l2 = (simdx_u32)lens[SX_CLASS_LEN + 2], l3 = (simdx_u32)lens[SX_CLASS_LEN + 3];
            simdx_u32 arcs = settle ? SX_ARCS_BEYOND : SX_ARCS_WITHIN;
            if (l0) ph_push_tiles(s, work, f->push_classes[0], l0, next, sx_push_tile_vertices(l0, gridDim.x), arcs, bucket);
            if (l1) ph_push_warp(s, work, f->push_classes[1], l1, next, arcs, bucket);
            if (l2) ph_push_cta(s, work, f->push_classes[2], l2, next, 1u, arcs, bucket);
            if (l3) ph_push_cta(s, work, f->push_classes[3], l3, next, gridDim.x, arcs, bucket); /* every block shares each hub */
        } else {
            if (stamp != 0u && stamp != SX_LIVE) {
                ph_frontier_bits(s, stamp);
                sx_grid_sync(f->barrier);
            }
            /* Aggregation: edge-balanced tiles; voting: the thread and warp classes, which stop early. */
            simdx_u32 settled = settle ? bucket + 1u : 0u;
            if (aggregate) {
                ph_pull_tiles(s, work, stamp, settled, next);
            } else {
                if (f->pull_lens[0]) ph_pull_thread(s, work, f->pull_classes[0], f->pull_lens[0], stamp, next);
                if (f->pull_lens[1]) ph_pull_warp(s, work, f->pull_classes[1], f->pull_lens[1], stamp, next);
            }
            if (f->pull_chunk_count) ph_pull_chunks(s, work, f->pull_chunks, f->pull_chunk_count, stamp, settled, next);
        }
        sx_grid_sync(f->barrier);
        sx_fetch(cw, work);
        prep = 0;
        unsigned long long edges = cw[SX_EDGES];
        simdx_u32 reached;
        simdx_u32 filter;
        if (every) {
            reached = s->n; /* apply clears the reached flags */
            filter = 2u;
        } else if (capacity == 0u || cw[SX_OVERFLOW] != 0ull) {
            reached = sx_fused_scan(s, f, &use, 0u, 0u, fcur, next);
            filter = 1u;
        } else {
            /* The online list; select clears the touched flags of its vertices. */
            reached = (simdx_u32)cw[SX_NEXT_LEN];
            filter = 0u;
        }
        double change = 0.0;
        if (SIMDX_APPLY != SIMDX_APPLY_IN_PLACE) {
            unsigned long long* a = sx_take(f, &use);
            ph_apply(s, a, next, reached, every ? 1u : 0u, global);
            sx_grid_sync(f->barrier);
            change = __longlong_as_double((long long)sx_read(&a[SX_CHANGE]));
        }
        if (blockIdx.x == 0 && threadIdx.x == 0 && iterations < f->log_capacity) {
            unsigned long long* row = f->log + (size_t)iterations * 5;
            row[0] = (unsigned long long)want | ((unsigned long long)filter << 8);
            row[1] = settle ? owed : len;
            row[2] = edges;
            row[3] = bucket;
            row[4] = start_ns;
        }
        iterations += 1;
        if (simdx_done(&p, iterations, change)) {
            status = SX_STATUS_DONE;
            break;
        }
        /* The next frontier: the active reached vertices of the current bucket; the rest wait. */
        if (every) {
            len = sx_fused_scan(s, f, &use, 1u, bucket, fcur, frontier);
        } else {
            bool prepare = !SIMDX_USES_GLOBAL;
            unsigned long long* sel = sx_take(f, &use);
            ph_select(s, sel, next, reached, bucket, frontier, fcur, prepare, iterations + 1u, may_pull ? iterations + 1u : 0u,
                      may_push ? f->push_classes : 0);
            sx_grid_sync(f->barrier);
            sx_fetch(cp, sel);
            len = (simdx_u32)cp[SX_NEXT_LEN];
            settle_empty = settle_empty && !(prepare && len != 0u && bucket != ~0u);
            pending_maybe = pending_maybe || cp[SX_PENDING] > 0;
            prep = prepare ? sel : 0;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (iterations <= f->log_capacity) {
            unsigned long long end_ns;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(end_ns));
            f->log[(size_t)iterations * 5 + 4] = end_ns;
        }
        f->len = len;
        f->bucket = bucket;
        f->iterations = iterations;
        f->cur = cur;
        f->pending_maybe = pending_maybe ? 1u : 0u;
        f->status = status;
        f->fcur = fcur;
    }
}

#ifdef SX_KERNELS_FUSED_PUSH
extern "C" __global__ void __launch_bounds__(SX_BLOCK) sx_fused_push(const sx_state* s, sx_fused* f) { sx_fused_run(s, f, 0); }
#endif
#ifdef SX_KERNELS_FUSED_PULL
extern "C" __global__ void __launch_bounds__(SX_BLOCK) sx_fused_pull(const sx_state* s, sx_fused* f) { sx_fused_run(s, f, 1); }
#endif
#ifdef SX_KERNELS_FUSED_ALL
extern "C" __global__ void __launch_bounds__(SX_BLOCK) sx_fused_all(const sx_state* s, sx_fused* f) { sx_fused_run(s, f, 2); }
#endif
