/* simdx software grid barrier for the persistent (fused) kernels. No cooperative_groups.h (NVRTC lacks
 * it). Safe only in a co-resident grid, which the host guarantees by a cooperative launch of at most the
 * occupancy API's blocks per SM x SMs (the driver refuses a larger grid rather than letting it hang).
 *
 * Layout of `bar` (SX_BARRIER_WORDS u32, zeroed before the launch): [0] arrivals, [SX_BARRIER_GEN] the
 * generation, each on its own 128-byte line, so that the blocks spinning on the generation do not
 * contend with the atomic arrivals on the counter. The last block to arrive resets the counter and
 * bumps the generation; the others wait for the bump, then everyone goes on. Thread 0 of each block
 * fences before arriving and after leaving, so that writes before the barrier are visible after it. */

#define SX_BARRIER_GEN 32
#define SX_BARRIER_WORDS 64
/* How long a block waits at a barrier before the kernel traps (ns). Tools that slow every access, such as
 * compute-sanitizer's racecheck, raise it through SIMDX_NVRTC_DEFINES. */
#ifndef SX_BARRIER_WATCHDOG_NS
#define SX_BARRIER_WATCHDOG_NS 10000000000ull
#endif

__device__ __forceinline__ void sx_grid_sync(unsigned int* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned int* gen = bar + SX_BARRIER_GEN;
        unsigned int g = *gen;
        __threadfence();
        if (atomicAdd(bar, 1u) == gridDim.x - 1) {
            bar[0] = 0u;
            __threadfence();
            atomicAdd((unsigned int*)gen, 1u);
        } else {
            /* A barrier cannot deadlock in a co-resident grid; should one ever wait SX_BARRIER_WATCHDOG_NS
             * (10 s), abort the kernel (an error the host reports) rather than hang the GPU. */
            unsigned long long t0, t;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
            while (*gen == g) {
                asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
                if (t - t0 > SX_BARRIER_WATCHDOG_NS) __trap();
            }
        }
        __threadfence();
    }
    __syncthreads();
}
