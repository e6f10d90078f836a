/* Apply the combined updates of the reached vertices (`all`: every vertex the run owns, whose reached
 * flags it also clears); sums |new - old|. Called by every thread of a block. */

extern "C" {

/* Adds the sum of every thread's `x` over the block to the double at `total`, with one atomic per block
 * (one per warp puts tens of thousands of atomics on one address in an apply over every vertex;
 * measurements: docs/experiments/gpu-pagerank.md, "One atomic per block in the apply"). Called by every
 * thread of the block. */
__device__ __forceinline__ void sx_block_add(unsigned long long* total, double x) {
    __shared__ double part[SX_WARPS];
    int lane = threadIdx.x & 31, w = threadIdx.x / 32;
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(SX_FULL, x, o);
    if (lane == 0) part[w] = x;
    __syncthreads();
    if (threadIdx.x == 0) {
        double sum = 0.0;
        for (int k = 0; k < SX_WARPS; k++) sum += part[k];
        if (sum != 0.0) atomicAdd((double*)total, sum);
    }
    __syncthreads(); /* part is refilled by the next call */
}

__device__ __forceinline__ void ph_apply(const sx_state* s, unsigned long long* ctr, const simdx_u32* list, simdx_u32 len, simdx_u32 all, double global) {
    simdx_params p = s->params;
    simdx_u32 count = all ? s->owned_end - s->owned_begin : len;
    double change = 0.0;
    for (simdx_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        simdx_u32 v = all ? s->owned_begin + i : list[i];
        if (all) s->touched[v] = 0u; /* `Every`: no list of reached vertices follows to clear the flags */
        simdx_value old = s->now[v];
        simdx_value combined = s->acc[v];
        s->acc[v] = SIMDX_IDENTITY;
        simdx_value nv = simdx_apply(&p, sx_vertex(s, v), old, combined, global);
        s->now[v] = nv;
        if (!sx_same(nv, old)) change += fabs((double)nv - (double)old);
    }
    sx_block_add(&ctr[SX_CHANGE], change);
}
#ifdef SX_KERNELS_PREPARE
__global__ void sx_apply(const sx_state* __restrict__ s, const simdx_u32* list, simdx_u32 len, simdx_u32 all, double global) {
    ph_apply(s, s->counters, list, len, all, global);
}
#endif

} /* extern "C" */
