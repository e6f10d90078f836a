/* Many breadth-first searches at once (host side: multi_source.rs), after iBFS: a batch of up to 64
 * searches keeps one 64-bit word per vertex of "seen" bits, one of "frontier" bits (the searches that
 * reached the vertex at the last level) and one of "next" bits (this level's discoveries), so that one
 * OR carries a vertex's news to a neighbour for every search at once. The searches share one joint
 * frontier, kept as a queue in three degree classes (a thread, a warp, or blocks taking chunks of its
 * arcs per vertex). A level either pushes along the queue's out-arcs (ms_push_*) or pulls bottom-up over
 * every vertex that some search has not reached, stopping at the first in-arcs that bring every bit it
 * lacks (ms_pull); both list the vertices reached, except a push with many arcs, after which ms_settle
 * scans every vertex instead (appending to one list from millions of arcs costs more than the scan).
 * ms_clear empties the old frontier words; ms_settle moves each reached vertex's next bits into seen
 * and frontier, writes the levels (if asked), counts the discoveries per search and builds the next
 * queue. The CPU runs the same steps (simdx-core/src/multi_source.rs).
 *
 * With a search program (simdx_core::search_program) compiled in front of this file (SIMDX_ACC_BYTES
 * defined), ms_start and ms_settle also fold each discovery into its search's accumulator: a lane
 * calls the program's simdx_discovered once per vertex reached and hands the value to the lanes of its
 * searches (lane i keeps searches i and i + 32 through the kernel); at its end each block combines its
 * warps' accumulators into its own row of ms_state.acc, and ms_acc_reduce combines the rows once per
 * batch. No atomics: every block of ms_settle owns its row. */

extern "C" {

typedef unsigned int ms_u32;
typedef unsigned long long ms_u64;

#define MS_FULL 0xffffffffu
/* Out-degree from which a warp pushes a frontier vertex, and from which blocks do, a chunk of
 * MS_CHUNK arcs each. */
#define MS_WARP_FROM 32u
#define MS_BLOCK_FROM 2048u
#define MS_CHUNK 2048u
/* Warps of a block, at most (the search program's per-warp accumulators in shared memory). */
#define MS_MAX_WARPS 32u
/* In-degree from which a warp pulls for one vertex together. */
#define MS_PULL_WARP_FROM 32u


/* The traversal's state `ms_state` (device pointers and sizes) and its counter slots (MS_LEN, ...,
 * MS_COUNTS: read by multi_source.rs after every level) are declared in Rust
 * (simdx-cuda/src/device_structs.rs: MsState, counter_slots `multi_source`), which generates their C
 * declarations and `#define`s in front of this file. */

__device__ __forceinline__ ms_u32 ms_lane() { return threadIdx.x & 31u; }

/* Appends v to list (length at *len) where want holds, one atomic per group of converged threads. */
__device__ __forceinline__ void ms_append(ms_u32* list, ms_u64* len, bool want, ms_u32 v) {
    ms_u32 active = __activemask();
    ms_u32 mask = __ballot_sync(active, want);
    if (mask == 0u) return;
    ms_u32 leader = __ffs(mask) - 1u;
    ms_u64 base = 0;
    if (ms_lane() == leader) base = atomicAdd(len, (ms_u64)__popc(mask));
    base = __shfl_sync(active, base, leader);
    if (want) list[base + __popc(mask & ((1u << ms_lane()) - 1u))] = v;
}

/* Adds a thread's count to a counter, one atomic per warp (every lane calls it, converged). */
__device__ __forceinline__ void ms_add(ms_u64* slot, ms_u64 count) {
    for (int o = 16; o > 0; o >>= 1) count += __shfl_down_sync(MS_FULL, count, o);
    if (ms_lane() == 0u && count != 0u) atomicAdd(slot, count);
}

/* The OR of every lane's word. */
__device__ __forceinline__ ms_u64 ms_warp_or(ms_u64 x) {
    ms_u32 lo = __reduce_or_sync(MS_FULL, (ms_u32)x);
    ms_u32 hi = __reduce_or_sync(MS_FULL, (ms_u32)(x >> 32));
    return ((ms_u64)hi << 32) | lo;
}

/* Offers the searches `bits` to v: whether this call was the first to give v news this level. */
__device__ __forceinline__ bool ms_offer(const ms_state* s, ms_u64 bits, ms_u32 v) {
    ms_u64 fresh = bits & ~s->seen[v];
    if (fresh == 0u) return false;
    ms_u64* slot = &s->next[v];
    if ((*(volatile ms_u64*)slot & fresh) == fresh) return false;
    return atomicOr(slot, fresh) == 0u;
}

/* Pushes u's frontier bits along its out-arcs [from, to) in steps of `step`, listing the vertices
 * it gives news first when `list` (otherwise ms_settle scans for them). */
__device__ __forceinline__ void ms_push_arcs(const ms_state* s, ms_u64 bits, ms_u64 from, ms_u64 to, ms_u32 step, ms_u32 list) {
    for (ms_u64 e = from; e < to; e += step) {
        ms_u32 v = s->fwd_tgt[e];
        bool first = ms_offer(s, bits, v);
        if (list) ms_append(s->reached, &s->ctr[MS_REACHED], first, v);
    }
}

/* Push, small class: a thread per frontier vertex. */
__global__ void ms_push_thread(const ms_state* s, ms_u32 cur, ms_u32 len, ms_u32 list) {
    const ms_u32* q = s->queue[cur];
    for (ms_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        ms_u32 u = q[i];
        ms_push_arcs(s, s->frontier[u], s->fwd_off[u], s->fwd_off[u + 1], 1u, list);
    }
}

/* Push, middle class: a warp per frontier vertex. */
__global__ void ms_push_warp(const ms_state* s, ms_u32 cur, ms_u32 len, ms_u32 list) {
    const ms_u32* q = s->queue[cur] + s->n;
    ms_u32 warps = gridDim.x * (blockDim.x / 32u);
    for (ms_u32 i = (blockIdx.x * blockDim.x + threadIdx.x) / 32u; i < len; i += warps) {
        ms_u32 u = q[i];
        ms_push_arcs(s, s->frontier[u], s->fwd_off[u] + ms_lane(), s->fwd_off[u + 1], 32u, list);
    }
}

/* Large class, before its push (one block): chunk_end[i] = the chunks of MS_CHUNK arcs of the queue's
 * first i + 1 large vertices. */
__global__ void ms_chunks(const ms_state* s, ms_u32 cur, ms_u32 len) {
    __shared__ ms_u32 warp_sums[32];
    __shared__ ms_u32 carry;
    const ms_u32* q = s->queue[cur] + 2u * s->n;
    ms_u32 lane = ms_lane(), warp = threadIdx.x / 32u, warps = blockDim.x / 32u;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    for (ms_u32 base = 0; base < len; base += blockDim.x) {
        ms_u32 i = base + threadIdx.x, x = 0;
        if (i < len) {
            ms_u32 u = q[i];
            x = (ms_u32)((s->fwd_off[u + 1] - s->fwd_off[u] + MS_CHUNK - 1u) / MS_CHUNK);
        }
        for (int o = 1; o < 32; o <<= 1) {
            ms_u32 y = __shfl_up_sync(MS_FULL, x, o);
            if (lane >= (ms_u32)o) x += y;
        }
        if (lane == 31u) warp_sums[warp] = x;
        __syncthreads();
        ms_u32 before = carry;
        for (ms_u32 w = 0; w < warp; w++) before += warp_sums[w];
        if (i < len) s->chunk_end[i] = before + x;
        __syncthreads();
        if (threadIdx.x == blockDim.x - 1u) {
            ms_u32 total = carry;
            for (ms_u32 w = 0; w < warps; w++) total += warp_sums[w];
            carry = total;
        }
        __syncthreads();
    }
}

/* Push, large class: blocks take chunks of MS_CHUNK arcs of the large vertices (ms_chunks first). */
__global__ void ms_push_block(const ms_state* s, ms_u32 cur, ms_u32 len, ms_u32 list) {
    __shared__ ms_u32 vertex, chunk;
    const ms_u32* q = s->queue[cur] + 2u * s->n;
    ms_u32 total = s->chunk_end[len - 1u];
    for (ms_u32 k = blockIdx.x; k < total; k += gridDim.x) {
        if (threadIdx.x == 0) {
            ms_u32 lo = 0, hi = len - 1u; /* the first i with chunk_end[i] > k */
            while (lo < hi) {
                ms_u32 mid = (lo + hi) / 2u;
                if (s->chunk_end[mid] > k) hi = mid;
                else lo = mid + 1u;
            }
            vertex = q[lo];
            chunk = k - (lo ? s->chunk_end[lo - 1u] : 0u);
        }
        __syncthreads();
        ms_u32 u = vertex;
        ms_u64 from = s->fwd_off[u] + (ms_u64)chunk * MS_CHUNK, end = s->fwd_off[u + 1];
        ms_u64 to = from + MS_CHUNK < end ? from + MS_CHUNK : end;
        ms_push_arcs(s, s->frontier[u], from + threadIdx.x, to, blockDim.x, list);
        __syncthreads();
    }
}

/* Pull: every vertex that some search has not reached ORs its in-neighbours' frontier bits until it
 * has every bit it lacks (a thread per vertex; a warp together for in-degrees from
 * MS_PULL_WARP_FROM). Warps take 32 consecutive vertices at a time. */
__global__ void ms_pull(const ms_state* s) {
    ms_u64 all = s->all, edges = 0;
    ms_u32 n = (ms_u32)s->n, lane = ms_lane();
    ms_u32 warps = gridDim.x * (blockDim.x / 32u);
    for (ms_u32 base = (blockIdx.x * blockDim.x + threadIdx.x) / 32u * 32u; base < n; base += warps * 32u) {
        ms_u32 v = base + lane;
        ms_u64 had = v < n ? s->seen[v] : all;
        bool need = had != all;
        ms_u64 from = need ? s->bwd_off[v] : 0, to = need ? s->bwd_off[v + 1] : 0;
        bool big = to - from >= MS_PULL_WARP_FROM;
        ms_u64 got = 0;
        if (need && !big) {
            for (ms_u64 e = from; e < to; e++) {
                edges++;
                got |= s->frontier[s->bwd_tgt[e]];
                if ((got | had) == all) break;
            }
        }
        for (ms_u32 bigs = __ballot_sync(MS_FULL, big); bigs; bigs &= bigs - 1u) {
            ms_u32 leader = __ffs(bigs) - 1u;
            ms_u64 h = __shfl_sync(MS_FULL, had, leader);
            ms_u64 b0 = __shfl_sync(MS_FULL, from, leader), b1 = __shfl_sync(MS_FULL, to, leader);
            ms_u64 g = 0;
            for (ms_u64 e0 = b0; e0 < b1; e0 += 32u) {
                ms_u64 e = e0 + lane;
                ms_u64 mine = 0;
                if (e < b1) {
                    edges++;
                    mine = s->frontier[s->bwd_tgt[e]];
                }
                g |= ms_warp_or(mine);
                if ((g | h) == all) break;
            }
            if (lane == leader) got = g;
        }
        ms_u64 fresh = got & ~had;
        if (fresh != 0u) s->next[v] = fresh;
        ms_append(s->reached, &s->ctr[MS_REACHED], fresh != 0u, v);
    }
    ms_add(&s->ctr[MS_EDGES], edges);
}

/* Empties the frontier words of the queue `cur` (lengths per class). */
__global__ void ms_clear(const ms_state* s, ms_u32 cur, ms_u32 len0, ms_u32 len1, ms_u32 len2) {
    const ms_u32* q = s->queue[cur];
    ms_u64 total = (ms_u64)len0 + len1 + len2;
    for (ms_u64 i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        ms_u64 at = i < len0 ? i : i < (ms_u64)len0 + len1 ? s->n + (i - len0) : 2u * s->n + (i - len0 - len1);
        s->frontier[q[at]] = 0u;
    }
}

/* The class of a vertex of out-degree d. */
#ifdef SIMDX_ACC_BYTES
__device__ __forceinline__ ms_u32 ms_saturate(ms_u64 d) { return d > 0xffffffffull ? 0xffffffffu : (ms_u32)d; }

/* The program's value for v, discovered at `level` (what simdx_discovered sees of the vertex). */
__device__ __forceinline__ simdx_acc ms_discovered(const ms_state* s, ms_u32 v, ms_u32 level) {
    simdx_vertex x;
    x.id = v;
    x.out_degree = ms_saturate(s->out_off[v + 1] - s->out_off[v]);
    x.in_degree = ms_saturate(s->in_off[v + 1] - s->in_off[v]);
    x.num_vertices = (ms_u32)s->n;
    return simdx_discovered((const simdx_params*)s->params, x, level);
}

/* Folds the warp's discoveries into the lanes' accumulators: lane i keeps searches i (`lo`) and
 * i + 32 (`hi`) for the whole kernel. Each lane that discovered a vertex computes its value once, then
 * hands it and its bits to every lane in turn (every lane calls it, converged). */
__device__ __forceinline__ void ms_fold(const ms_state* s, ms_u32 v, ms_u32 level, ms_u64 fresh, simdx_acc* lo, simdx_acc* hi) {
    simdx_acc x = SIMDX_ACC_IDENTITY;
    if (fresh != 0u) x = ms_discovered(s, v, level);
    ms_u32 lane = ms_lane();
    for (ms_u32 found = __ballot_sync(MS_FULL, fresh != 0u); found != 0u; found &= found - 1u) {
        int k = __ffs((int)found) - 1;
        simdx_acc y = __shfl_sync(MS_FULL, x, k);
        ms_u64 bits = __shfl_sync(MS_FULL, fresh, k);
        if ((bits >> lane) & 1u) *lo = simdx_combine((const simdx_params*)0, *lo, y);
        if ((bits >> (lane + 32u)) & 1u) *hi = simdx_combine((const simdx_params*)0, *hi, y);
    }
}
#endif

__device__ __forceinline__ ms_u32 ms_class(ms_u64 d) { return d >= MS_BLOCK_FROM ? 2u : d >= MS_WARP_FROM ? 1u : 0u; }

/* Settles the level `level`'s discoveries into the queue `nxt`: the vertices listed as reached, or
 * when `scan`, every vertex with next bits. */
__global__ void ms_settle(const ms_state* s, ms_u32 nxt, ms_u32 level, ms_u32 scan) {
    ms_u64 len = scan ? s->n : *(volatile ms_u64*)&s->ctr[MS_REACHED];
    ms_u64 all = s->all, out_arcs = 0, finished = 0;
    ms_u64 count_lo = 0, count_hi = 0; /* discoveries of search `lane` and `lane + 32` */
    ms_u32 lane = ms_lane();
    ms_u64 warps = gridDim.x * (blockDim.x / 32u);
    ms_u32* q = s->queue[nxt];
#ifdef SIMDX_ACC_BYTES
    simdx_acc acc_lo = SIMDX_ACC_IDENTITY, acc_hi = SIMDX_ACC_IDENTITY; /* searches lane and lane + 32 */
#endif
    for (ms_u64 base = (blockIdx.x * blockDim.x + threadIdx.x) / 32u * 32u; base < len; base += warps * 32u) {
        ms_u64 i = base + lane;
        ms_u64 fresh = 0;
        ms_u32 v = 0;
        if (i < len) {
            v = scan ? (ms_u32)i : s->reached[i];
            fresh = s->next[v];
        }
        if (!__any_sync(MS_FULL, fresh != 0u)) continue;
        ms_u32 cls = 3u;
        if (fresh != 0u) {
            s->next[v] = 0u;
            ms_u64 now = s->seen[v] | fresh;
            s->seen[v] = now;
            s->frontier[v] = fresh;
            if (now == all) finished += s->bwd_off[v + 1] - s->bwd_off[v];
            ms_u64 d = s->fwd_off[v + 1] - s->fwd_off[v];
            out_arcs += d;
            cls = ms_class(d);
            if (s->levels) {
                for (ms_u64 bits = fresh; bits; bits &= bits - 1u) s->levels[(ms_u64)v * s->width + __ffsll(bits) - 1] = level + 1u;
            }
        }
        for (ms_u32 c = 0; c < 3u; c++) ms_append(q + c * s->n, &s->ctr[MS_LEN + c], cls == c, v);
#ifdef SIMDX_ACC_BYTES
        ms_fold(s, v, level, fresh, &acc_lo, &acc_hi);
#endif
        for (ms_u32 b = 0; b < 64u; b++) {
            ms_u32 got = __popc(__ballot_sync(MS_FULL, (fresh >> b) & 1u));
            if (lane == (b & 31u)) {
                if (b < 32u) count_lo += got;
                else count_hi += got;
            }
        }
    }
    if (count_lo) atomicAdd(&s->ctr[MS_COUNTS + lane], count_lo);
    if (count_hi) atomicAdd(&s->ctr[MS_COUNTS + 32 + lane], count_hi);
    ms_add(&s->ctr[MS_OUT_ARCS], out_arcs);
    ms_add(&s->ctr[MS_FINISHED], finished);
#ifdef SIMDX_ACC_BYTES
    /* The block's warps' accumulators, combined in warp order into the block's own row (no atomics). */
    __shared__ simdx_acc warp_acc[MS_MAX_WARPS][64];
    warp_acc[threadIdx.x / 32u][lane] = acc_lo;
    warp_acc[threadIdx.x / 32u][lane + 32u] = acc_hi;
    __syncthreads();
    if (threadIdx.x < 64u) {
        simdx_acc* row = (simdx_acc*)s->acc + (ms_u64)blockIdx.x * 64u;
        simdx_acc x = row[threadIdx.x];
        for (ms_u32 w = 0; w < blockDim.x / 32u; w++) x = simdx_combine((const simdx_params*)0, x, warp_acc[w][threadIdx.x]);
        row[threadIdx.x] = x;
    }
#endif
}

/* Starts a batch: search i from sources[i] (one thread; repeated sources share a queue entry). */
__global__ void ms_start(const ms_state* s, const ms_u32* sources, ms_u32 count, ms_u32 cur) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (ms_u32 i = 0; i < count; i++) {
        ms_u32 v = sources[i];
        ms_u64 bit = 1ull << i;
        ms_u64 had = s->seen[v];
        s->seen[v] = had | bit;
        s->frontier[v] |= bit;
        if (s->levels) s->levels[(ms_u64)v * s->width + i] = 1u;
#ifdef SIMDX_ACC_BYTES
        simdx_acc* acc = (simdx_acc*)s->acc + i;
        *acc = simdx_combine((const simdx_params*)0, *acc, ms_discovered(s, v, 0u));
#endif
        if (had == 0u) {
            ms_u64 d = s->fwd_off[v + 1] - s->fwd_off[v];
            ms_u32 c = ms_class(d);
            s->queue[cur][c * s->n + s->ctr[MS_LEN + c]++] = v;
            s->ctr[MS_OUT_ARCS] += d;
        }
    }
}

#ifdef SIMDX_ACC_BYTES
/* Sets the accumulators of a batch, `rows` rows of 64 (one per block of ms_settle), to the identity. */
__global__ void ms_acc_reset(const ms_state* s, ms_u32 rows) {
    for (ms_u64 i = blockIdx.x * blockDim.x + threadIdx.x; i < (ms_u64)rows * 64u; i += gridDim.x * blockDim.x)
        ((simdx_acc*)s->acc)[i] = SIMDX_ACC_IDENTITY;
}

/* Combines the `rows` rows of accumulators into the first, in row order (one block). */
__global__ void ms_acc_reduce(const ms_state* s, ms_u32 rows) {
    if (threadIdx.x >= 64u) return;
    simdx_acc* acc = (simdx_acc*)s->acc;
    simdx_acc x = acc[threadIdx.x];
    for (ms_u32 r = 1; r < rows; r++) x = simdx_combine((const simdx_params*)0, x, acc[(ms_u64)r * 64u + threadIdx.x]);
    acc[threadIdx.x] = x;
}
#endif

/* GroupBy's key: each of `count` sources is replaced by its neighbour of highest degree (the highest
 * id among equals), or kept when it has none. */
__global__ void ms_hubs(const ms_state* s, ms_u32* sources, ms_u32 count) {
    ms_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    ms_u32 v = sources[i], best = v;
    ms_u64 best_degree = 0;
    bool any = false;
    for (ms_u64 e = s->fwd_off[v]; e < s->fwd_off[v + 1]; e++) {
        ms_u32 u = s->fwd_tgt[e];
        ms_u64 d = s->fwd_off[u + 1] - s->fwd_off[u];
        if (!any || d > best_degree || (d == best_degree && u > best)) {
            any = true;
            best = u;
            best_degree = d;
        }
    }
    sources[i] = best;
}

} /* extern "C" */
