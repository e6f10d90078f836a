/* Brandes' dependency accumulation on the GPU (host side: dependencies.rs), one source at a time over
 * the whole device, as the CPU's simdx-core/src/dependencies.rs does per thread: a breadth-first
 * search level by level that counts shortest paths (sigma), the vertices of each level kept in order
 * (one array, a range per level), then a sweep back from the farthest level in which each vertex pulls
 * its dependency (delta) from its out-neighbours one level further. A warp takes a vertex; vertices of
 * out-degree from BC_LARGE_FROM are listed and then split over every block. At the end the source's
 * deltas are added to the sums and its vertices' slots reset. */

extern "C" {

typedef unsigned int bc_u32;
typedef unsigned long long bc_u64;

#define BC_FULL 0xffffffffu
#define BC_UNREACHED 0xffffffffu
#define BC_LARGE_FROM 4096u

/* The sweeps' state `bc_state` (device pointers) and its counter slots (BC_NEXT, BC_LARGE, BC_ARCS) are
 * declared in Rust (simdx-cuda/src/device_structs.rs: BcState, counter_slots `sweep`), which generates
 * their C declarations and `#define`s in front of this file. */

__device__ __forceinline__ bc_u32 bc_lane() { return threadIdx.x & 31u; }

__device__ __forceinline__ double bc_warp_sum(double x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(BC_FULL, x, o);
    return x;
}

/* The forward step over one arc to w from a vertex of level `depth` with `sigma` paths: w joins the
 * next level if new (appended after `end`), and gets the paths if it is on that level. */
__device__ __forceinline__ void bc_discover(const bc_state* s, bc_u32 w, bc_u32 depth, double sigma, bc_u32 end) {
    bc_u32 seen = s->level[w];
    if (seen == BC_UNREACHED) {
        seen = atomicCAS(&s->level[w], BC_UNREACHED, depth + 1u);
        if (seen == BC_UNREACHED) {
            s->order[end + atomicAdd(&s->ctr[BC_NEXT], 1ull)] = w;
            seen = depth + 1u;
        }
    }
    if (seen == depth + 1u) atomicAdd(&s->sigma[w], sigma);
}

/* Forward, level order[begin, end) at `depth`: a warp per vertex; large vertices are listed instead. */
__global__ void bc_forward(const bc_state* s, bc_u32 begin, bc_u32 end, bc_u32 depth) {
    bc_u32 warps = gridDim.x * (blockDim.x / 32u);
    for (bc_u32 i = begin + (blockIdx.x * blockDim.x + threadIdx.x) / 32u; i < end; i += warps) {
        bc_u32 u = s->order[i];
        bc_u64 from = s->off[u], to = s->off[u + 1];
        if (to - from >= BC_LARGE_FROM) {
            if (bc_lane() == 0u) s->large[atomicAdd(&s->ctr[BC_LARGE], 1ull)] = u;
            continue;
        }
        double sigma = s->sigma[u];
        for (bc_u64 e = from + bc_lane(); e < to; e += 32u) bc_discover(s, s->tgt[e], depth, sigma, end);
    }
}

/* Forward, the listed large vertices: every block takes a share of each one's arcs. */
__global__ void bc_forward_large(const bc_state* s, bc_u32 end, bc_u32 depth) {
    bc_u64 count = *(volatile bc_u64*)&s->ctr[BC_LARGE];
    for (bc_u64 i = 0; i < count; i++) {
        bc_u32 u = s->large[i];
        double sigma = s->sigma[u];
        for (bc_u64 e = s->off[u] + blockIdx.x * blockDim.x + threadIdx.x; e < s->off[u + 1]; e += gridDim.x * blockDim.x)
            bc_discover(s, s->tgt[e], depth, sigma, end);
    }
}

/* u's share of the dependency through the arc to w, u at level `depth` with `sigma` paths. */
__device__ __forceinline__ double bc_share(const bc_state* s, bc_u32 w, bc_u32 depth, double sigma) {
    return s->level[w] == depth + 1u ? sigma / s->sigma[w] * (1.0 + s->delta[w]) : 0.0;
}

/* Backward, level order[begin, end) at `depth`: a warp per vertex sums its share; large vertices are
 * listed instead. */
__global__ void bc_backward(const bc_state* s, bc_u32 begin, bc_u32 end, bc_u32 depth) {
    bc_u32 warps = gridDim.x * (blockDim.x / 32u);
    for (bc_u32 i = begin + (blockIdx.x * blockDim.x + threadIdx.x) / 32u; i < end; i += warps) {
        bc_u32 v = s->order[i];
        bc_u64 from = s->off[v], to = s->off[v + 1];
        if (to - from >= BC_LARGE_FROM) {
            if (bc_lane() == 0u) s->large[atomicAdd(&s->ctr[BC_LARGE], 1ull)] = v;
            continue;
        }
        double sigma = s->sigma[v], dependency = 0.0;
        for (bc_u64 e = from + bc_lane(); e < to; e += 32u) dependency += bc_share(s, s->tgt[e], depth, sigma);
        dependency = bc_warp_sum(dependency);
        if (bc_lane() == 0u) s->delta[v] = dependency;
    }
}

/* Backward, the listed large vertices: every block sums a share of each one's arcs into its delta. */
__global__ void bc_backward_large(const bc_state* s, bc_u32 depth) {
    __shared__ double partial[32];
    bc_u64 count = *(volatile bc_u64*)&s->ctr[BC_LARGE];
    for (bc_u64 i = 0; i < count; i++) {
        bc_u32 v = s->large[i];
        double sigma = s->sigma[v], dependency = 0.0;
        for (bc_u64 e = s->off[v] + blockIdx.x * blockDim.x + threadIdx.x; e < s->off[v + 1]; e += gridDim.x * blockDim.x)
            dependency += bc_share(s, s->tgt[e], depth, sigma);
        dependency = bc_warp_sum(dependency);
        if (bc_lane() == 0u) partial[threadIdx.x / 32u] = dependency;
        __syncthreads();
        if (threadIdx.x == 0) {
            double total = 0.0;
            for (bc_u32 w = 0; w < blockDim.x / 32u; w++) total += partial[w];
            if (total != 0.0) atomicAdd(&s->delta[v], total);
        }
        __syncthreads();
    }
}

/* The end of a source's sweeps: its vertices order[0, count) add their deltas to the sums (not the
 * source itself, order[0]) and get fresh slots; their out-arcs are counted. */
__global__ void bc_finish(const bc_state* s, bc_u32 count) {
    bc_u64 arcs = 0;
    for (bc_u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        bc_u32 v = s->order[i];
        if (i > 0u) s->sums[v] += s->delta[v];
        s->level[v] = BC_UNREACHED;
        s->sigma[v] = 0.0;
        s->delta[v] = 0.0;
        arcs += s->off[v + 1] - s->off[v];
    }
    for (int o = 16; o > 0; o >>= 1) arcs += __shfl_down_sync(BC_FULL, arcs, o);
    if (bc_lane() == 0u && arcs != 0u) atomicAdd(&s->ctr[BC_ARCS], arcs);
}

/* The start of a source's search: it alone on level 0, with one path. */
__global__ void bc_start(const bc_state* s, bc_u32 source) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    s->level[source] = 0u;
    s->sigma[source] = 1.0;
    s->order[0] = source;
}

/* Every vertex unreached (the first use of the slots). */
__global__ void bc_clear(const bc_state* s, bc_u32 n) {
    for (bc_u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) s->level[v] = BC_UNREACHED;
}

} /* extern "C" */
