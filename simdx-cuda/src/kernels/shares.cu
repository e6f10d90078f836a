/* A partitioned run's exchanges (simdx-cuda/src/engine/share_steps.rs). The frontier: each share marks
 * the vertices it owns of its next frontier in a bitmap, the shares trade the words they own, and each
 * one lists the bitmap's vertices as the whole next frontier. The values a step changed, when they are
 * few: each share packs its reached vertices and their values as pairs, the shares trade their pairs,
 * and each one writes them all into its values. A step that changed few values on every share trades
 * them in one round instead: each share packs its changes and its part of the next frontier in a
 * packet of fixed size (an sx_packet head, then `capacity` vertex ids, `capacity` frontier ids and
 * `capacity` values), the shares trade their packets, and each unpacks the others' (falling back to
 * the two exchanges above when a packet could not hold its share's changes).
 *
 * A share of owned sources (a push from its own frontier reaches any vertex) sends instead the vertices
 * of other shares it reached, with its values for them, to their owners, in a packet while they are few
 * and as pairs otherwise; each owner combines them into its values with the program's combine, and those
 * that improve are reached there as a push would reach them. */

/* A place for each lane of the calling warp where `take` holds, from `counter`: one atomic a warp.
 * Called by every active lane. */
template <typename T>
__device__ __forceinline__ T sx_warp_claim(T* counter, bool take) {
    unsigned mask = __activemask();
    unsigned want = __ballot_sync(mask, take);
    if (want == 0u) return 0;
    int lane = threadIdx.x & 31, leader = __ffs(want) - 1;
    T base = 0;
    if (lane == leader) base = atomicAdd(counter, (T)__popc(want));
    base = __shfl_sync(mask, base, leader);
    return base + (T)__popc(want & ((1u << lane) - 1u));
}

/* Whether `v` is another share's vertex. */
__device__ __forceinline__ bool sx_remote(const sx_state* s, simdx_u32 v) {
    return v < s->owned_begin || v >= s->owned_end;
}

/* A remote update: `value` for vertex v, from another share, combined into v's value if this share owns
 * v. Where it improves, v is reached: touched, and if not yet, appended to `next` after the step's own
 * `reached` vertices (counters[SX_NEXT_LEN] counts the appended ones). */
__device__ __forceinline__ void sx_combine_remote(const sx_state* s, const simdx_params* p, bool take, simdx_u32 v,
                                                  simdx_value value, simdx_u32* next, simdx_u32 reached) {
    bool fresh = false;
    if (take && !sx_remote(s, v)) {
        simdx_value old = sx_atomic(&s->now[v], value, p);
        fresh = !sx_same(simdx_combine(p, old, value), old) && sx_touch(s, v);
    }
    unsigned long long at = sx_warp_claim(&s->counters[SX_NEXT_LEN], fresh);
    if (fresh) next[reached + at] = v;
}

extern "C" {

#ifdef SX_KERNELS_SCAN
/* Sets bit v of `bits` for every vertex v of `list` that the run owns (owned_begin..owned_end); the
 * others are their owners' to mark. */
__global__ void sx_share_mark(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* bits) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        simdx_u32 v = list[i];
        if (v >= s->owned_begin && v < s->owned_end) atomicOr(&bits[v >> 5], 1u << (v & 31u));
    }
}

/* Lists the vertices whose bits are set in `bits` (n bits) into `list`, their count in
 * counters[SX_NEXT_LEN]: a thread a word, one atomic a warp. The order within the list is not fixed.
 * Called by whole warps. */
__global__ void sx_share_collect(const sx_state* __restrict__ s, const simdx_u32* bits, simdx_u32* list) {
    simdx_u32 words = (s->n + 31u) / 32u, lane = threadIdx.x & 31u;
    simdx_u32 stride = gridDim.x * blockDim.x;
    for (simdx_u32 base = blockIdx.x * blockDim.x + (threadIdx.x - lane); base < words; base += stride) {
        simdx_u32 w = base + lane;
        simdx_u32 word = w < words ? bits[w] : 0u;
        simdx_u32 count = __popc(word), before = count;
        for (int o = 1; o < 32; o <<= 1) {
            simdx_u32 y = __shfl_up_sync(SX_FULL, before, o);
            if ((int)lane >= o) before += y;
        }
        simdx_u32 total = __shfl_sync(SX_FULL, before, 31);
        unsigned long long at = 0;
        if (lane == 31u && total) at = atomicAdd(&s->counters[SX_NEXT_LEN], (unsigned long long)total);
        at = __shfl_sync(SX_FULL, at, 31) + before - count;
        while (word) {
            simdx_u32 b = __ffs(word) - 1;
            list[at++] = w * 32u + b;
            word &= word - 1u;
        }
    }
}

/* The `len` vertices of `list` (a share's reached vertices) and their values, as pairs: ids[i], vals[i]. */
__global__ void sx_share_pack(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* ids,
                              simdx_value* vals) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        simdx_u32 v = list[i];
        ids[i] = v;
        vals[i] = s->now[v];
    }
}

/* Every share's pairs (`len` in all) into the values. */
__global__ void sx_share_unpack(const sx_state* __restrict__ s, const simdx_u32* ids, const simdx_value* vals, simdx_u32 len) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) s->now[ids[i]] = vals[i];
}

/* The ids, frontier ids and values of a packet of room for `capacity` vertices (its head first). */
__device__ __forceinline__ simdx_u32* sx_packet_ids(sx_packet* packet) { return (simdx_u32*)(packet + 1); }
__device__ __forceinline__ simdx_u32* sx_packet_frontier(sx_packet* packet, simdx_u32 capacity) {
    return sx_packet_ids(packet) + capacity;
}
__device__ __forceinline__ simdx_value* sx_packet_values(sx_packet* packet, simdx_u32 capacity) {
    return (simdx_value*)(sx_packet_frontier(packet, capacity) + capacity);
}

/* This share's packet: its `reached` vertices (`list`) and their values, its part of the next frontier
 * (`frontier`, `len` vertices) and whether a vertex of it waits in a later bucket, in a packet of room
 * for `capacity` vertices; only the head when they do not fit. */
__global__ void sx_share_pack_packet(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 reached,
                                     const simdx_u32* frontier, simdx_u32 len, simdx_u32 pending,
                                     simdx_u32 capacity, sx_packet* packet) {
    simdx_u32 first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    if (first == 0) {
        packet->changed = reached;
        packet->frontier = len;
        packet->pending = pending;
        packet->capacity = capacity;
    }
    if (reached > capacity || len > capacity) return;
    simdx_u32* ids = sx_packet_ids(packet);
    simdx_u32* next = sx_packet_frontier(packet, capacity);
    simdx_value* values = sx_packet_values(packet, capacity);
    for (simdx_u32 i = first; i < reached; i += stride) {
        simdx_u32 v = list[i];
        ids[i] = v;
        values[i] = s->now[v];
    }
    for (simdx_u32 i = first; i < len; i += stride) next[i] = frontier[i];
}

/* Every other share's packet (`parts` packets of `stride_bytes` bytes each from `packets`; this share's
 * is `part`) into the values, and their frontier ids after this share's `len` in `frontier`; the whole
 * frontier's length into counters[SX_NEXT_LEN], 1 into counters[SX_PENDING] when a vertex of some share
 * waits. When some packet could not hold its share's changes, nothing but counters[SX_PACKETS_FULL]. */
__global__ void sx_share_unpack_packets(const sx_state* __restrict__ s, unsigned char* packets, simdx_u32 parts,
                                        simdx_u32 part, unsigned long long stride_bytes, simdx_u32 len,
                                        simdx_u32* frontier) {
    simdx_u32 first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    simdx_u32 at = len, pending = 0;
    for (simdx_u32 p = 0; p < parts; ++p) {
        const sx_packet* head = (const sx_packet*)(packets + p * stride_bytes);
        if (head->changed > head->capacity || head->frontier > head->capacity) {
            if (first == 0) s->counters[SX_PACKETS_FULL] = 1;
            return;
        }
        pending |= head->pending;
    }
    for (simdx_u32 p = 0; p < parts; ++p) {
        sx_packet* packet = (sx_packet*)(packets + p * stride_bytes);
        if (p == part) continue;
        const simdx_u32* ids = sx_packet_ids(packet);
        const simdx_u32* next = sx_packet_frontier(packet, packet->capacity);
        const simdx_value* values = sx_packet_values(packet, packet->capacity);
        for (simdx_u32 i = first; i < packet->changed; i += stride) s->now[ids[i]] = values[i];
        for (simdx_u32 i = first; i < packet->frontier; i += stride) frontier[at + i] = next[i];
        at += packet->frontier;
    }
    if (first == 0) {
        s->counters[SX_NEXT_LEN] = at;
        s->counters[SX_PENDING] = pending;
    }
}

/* A share of owned sources: its reached vertices (`list`, `len`) that other shares own, with its values
 * for them, into `packet` (room for `capacity`; its head zeroed before), all counted in
 * packet->changed, those beyond `capacity` only counted. */
__global__ void sx_share_pack_remote(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len,
                                     simdx_u32 capacity, sx_packet* packet) {
    simdx_u32 first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    if (first == 0) packet->capacity = capacity;
    simdx_u32* ids = sx_packet_ids(packet);
    simdx_value* values = sx_packet_values(packet, capacity);
    for (simdx_u32 base = 0; base < len; base += stride) {
        simdx_u32 i = base + first;
        simdx_u32 v = i < len ? list[i] : 0u;
        bool take = i < len && sx_remote(s, v);
        simdx_u32 at = sx_warp_claim(&packet->changed, take);
        if (take && at < capacity) {
            ids[at] = v;
            values[at] = s->now[v];
        }
    }
}

/* As sx_share_pack_remote, as pairs (ids[i], vals[i]), counted in counters[SX_NEXT_LEN]: the step's
 * remote updates when a packet cannot hold them (`ids` and `vals` have room for all). */
__global__ void sx_share_pack_remote_pairs(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len,
                                           simdx_u32* ids, simdx_value* vals) {
    simdx_u32 first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    for (simdx_u32 base = 0; base < len; base += stride) {
        simdx_u32 i = base + first;
        simdx_u32 v = i < len ? list[i] : 0u;
        bool take = i < len && sx_remote(s, v);
        unsigned long long at = sx_warp_claim(&s->counters[SX_NEXT_LEN], take);
        if (take) {
            ids[at] = v;
            vals[at] = s->now[v];
        }
    }
}

/* The other shares' packets of remote updates (`parts` packets of `stride_bytes` bytes from `packets`;
 * this share's is `part`) combined into the values (sx_combine_remote), after the step's `reached`
 * vertices in `next`. When some packet could not hold its share's updates, nothing but
 * counters[SX_PACKETS_FULL]. */
__global__ void sx_share_combine_packets(const sx_state* __restrict__ s, unsigned char* packets, simdx_u32 parts,
                                         simdx_u32 part, unsigned long long stride_bytes, simdx_u32* next,
                                         simdx_u32 reached) {
    simdx_u32 first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    for (simdx_u32 q = 0; q < parts; ++q) {
        const sx_packet* head = (const sx_packet*)(packets + q * stride_bytes);
        if (head->changed > head->capacity) {
            if (first == 0) s->counters[SX_PACKETS_FULL] = 1;
            return;
        }
    }
    simdx_params p = s->params;
    for (simdx_u32 q = 0; q < parts; ++q) {
        sx_packet* packet = (sx_packet*)(packets + q * stride_bytes);
        if (q == part) continue;
        const simdx_u32* ids = sx_packet_ids(packet);
        const simdx_value* values = sx_packet_values(packet, packet->capacity);
        for (simdx_u32 base = 0; base < packet->changed; base += stride) {
            simdx_u32 i = base + first;
            bool take = i < packet->changed;
            sx_combine_remote(s, &p, take, take ? ids[i] : 0u, take ? values[i] : simdx_value(), next, reached);
        }
    }
}

/* Every share's remote updates as pairs (`len` in all) combined into the values (sx_combine_remote),
 * after the step's `reached` vertices in `next`; those of other shares' vertices pass. */
__global__ void sx_share_combine_pairs(const sx_state* __restrict__ s, const simdx_u32* ids, const simdx_value* vals,
                                       simdx_u32 len, simdx_u32* next, simdx_u32 reached) {
    simdx_u32 first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    simdx_params p = s->params;
    for (simdx_u32 base = 0; base < len; base += stride) {
        simdx_u32 i = base + first;
        bool take = i < len;
        sx_combine_remote(s, &p, take, take ? ids[i] : 0u, take ? vals[i] : simdx_value(), next, reached);
    }
}

/* A share of owned sources, before a settle step that pulls: its settle list (`len` vertices) with what
 * each sends (its seen value: programs without a source_value), as pairs. */
__global__ void sx_share_pack_settle(const sx_state* __restrict__ s, simdx_u32 len, simdx_u32* ids, simdx_value* vals) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        simdx_u32 v = s->settle[i];
        ids[i] = v;
        vals[i] = s->seen[v];
    }
}

/* Every share's settle pairs (`len` in all): those of other shares' vertices become what they send and
 * are stamped with the pull's `stamp` (this share stamped its own when it classified them). */
__global__ void sx_share_unpack_settle(const sx_state* __restrict__ s, const simdx_u32* ids, const simdx_value* vals,
                                       simdx_u32 len, simdx_u32 stamp) {
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        simdx_u32 v = ids[i];
        if (!sx_remote(s, v)) continue;
        s->seen[v] = vals[i];
        s->in_frontier[v] = stamp;
    }
}
#endif

} /* extern "C" */
