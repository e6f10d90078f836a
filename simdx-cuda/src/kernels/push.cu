/* Push along the out-arcs of the frontier, by degree class (thread, warp, CTA): combine at the
 * destination, record vertices reached first. `arcs` and `bucket` pick the arcs of each source a step
 * relaxes (sx_push_range in kernels/state.cu: all, or under delta-stepping's split those that stay within
 * the bucket or the others). */

/* Push along out-arc i of u to v, whose value was dst when loaded: compute, combine at the destination;
 * true if v was reached first here. */
__device__ __forceinline__ bool sx_push_loaded(const sx_state* s, const simdx_params* p, simdx_u32 u, simdx_msg src,
                                               simdx_u32 src_deg, simdx_u64 i, simdx_u32 v, simdx_value dst) {
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
        if (reached) sx_sent_by(s, v, u);
    } else {
        sx_atomic(&s->acc[v], update, p);
        reached = true;
    }
    return reached && sx_touch(s, v);
}

/* Push along one out-arc i of source u: loads, then sx_push_loaded. */
__device__ __forceinline__ bool sx_push_arc(const sx_state* s, const simdx_params* p, simdx_u32 u, simdx_msg src, simdx_u32 src_deg,
                                            simdx_u64 i, simdx_u32* vout) {
    simdx_u32 v = s->out_targets[i];
    *vout = v;
    return sx_push_loaded(s, p, u, src, src_deg, i, v, s->now[v]);
}

extern "C" {

/* Push, thread class: one thread per frontier vertex. */
__device__ __forceinline__ void ph_push_thread(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32* next,
                                               simdx_u32 arcs, simdx_u32 bucket) {
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
        if (live) sx_push_range(s, &p, src, deg, arcs, bucket, &b, &e);
        edges += e - b;
        simdx_u32 most = (simdx_u32)(e - b);
        for (int o = 16; o > 0; o >>= 1) most = max(most, __shfl_xor_sync(SX_FULL, most, o));
        for (simdx_u32 k = 0; k < most; k++) {
            simdx_u32 v = 0;
            bool take = (b + k < e) && sx_push_arc(s, &p, u, src, deg, b + k, &v);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
#ifdef SX_KERNELS_PUSH
__global__ void sx_push_thread(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* next, simdx_u32 arcs,
                               simdx_u32 bucket) {
    ph_push_thread(s, s->counters, list, len, next, arcs, bucket);
}
#endif

/* Push, warp class: one warp per vertex, lanes over its arcs. */
__device__ __forceinline__ void ph_push_warp(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32* next,
                                             simdx_u32 arcs, simdx_u32 bucket) {
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
        sx_push_range(s, &p, src, deg, arcs, bucket, &b, &e); /* the same loads in every lane */
        if (lane == 0) edges += e - b;
        for (simdx_u64 k = b; k < e; k += 32) {
            simdx_u32 v = 0;
            bool take = (k + lane < e) && sx_push_arc(s, &p, u, src, deg, k + lane, &v);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
#ifdef SX_KERNELS_PUSH
__global__ void sx_push_warp(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* next, simdx_u32 arcs,
                             simdx_u32 bucket) {
    ph_push_warp(s, s->counters, list, len, next, arcs, bucket);
}
#endif

/* Push, CTA class: one block per vertex. With `grid_split` > 1 (grid class), `grid_split` blocks
 * share each vertex, each taking an interleaved part of its arcs. */
__device__ __forceinline__ void ph_push_cta(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32* next,
                            simdx_u32 grid_split, simdx_u32 arcs, simdx_u32 bucket) {
    sx_bin_open();
    simdx_params p = s->params;
    unsigned long long edges = 0;
    simdx_u32 part = blockIdx.x % grid_split;
    for (simdx_u32 i = blockIdx.x / grid_split; i < len; i += gridDim.x / grid_split) {
        /* The vertex and what it sends, written by other blocks before the last grid barrier, are read
         * with volatile loads. With plain loads, a persistent kernel whose grid class shares a hub among
         * every block sometimes pushed the hub's arcs from a wrong value or not at all: f32 delta-stepping
         * on kron:11 (tests/gpu_weight_order.rs) gave too-long distances or hung in 2-4 of 150 runs on the
         * H200, none in 600 runs with either load volatile (the mechanism, a stale cached line or the
         * loads' scheduling, was not established). Two loads per vertex and block. */
        simdx_u32 u = *(volatile const simdx_u32*)&list[i];
        simdx_u64 b = s->out_offsets[u], e = s->out_offsets[u + 1];
        simdx_msg src = sx_src_volatile(s, u);
        simdx_u32 deg = sx_out_degree32(s, u);
        sx_push_range(s, &p, src, deg, arcs, bucket, &b, &e); /* the same loads in every thread */
        if (threadIdx.x == 0 && part == 0) edges += e - b;
        for (simdx_u64 k = b + (simdx_u64)part * blockDim.x; k < e; k += (simdx_u64)blockDim.x * grid_split) {
            simdx_u32 v = 0;
            bool take = (k + threadIdx.x < e) && sx_push_arc(s, &p, u, src, deg, k + threadIdx.x, &v);
            sx_record(s, ctr, next, take, v);
        }
    }
    sx_add_edges(ctr, edges);
    sx_bin_close(s, ctr, next);
}
#ifdef SX_KERNELS_PUSH
__global__ void sx_push_cta(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32* next,
                            simdx_u32 grid_split, simdx_u32 arcs, simdx_u32 bucket) {
    ph_push_cta(s, s->counters, list, len, next, grid_split, arcs, bucket);
}
#endif

} /* extern "C" */
