//! On a GPU: the runtime pieces under the fused kernels and the compiler.
//!
//! * The grid barrier (`GRID_BARRIER`) really synchronises a co-resident grid: every block counts
//!   itself in before each of 2,000 barriers and checks the full count after it. The test also prints
//!   the cost of one barrier for several grid sizes, beside two alternatives kept here for comparison
//!   (the earlier barrier with counter and generation in one cache line, and a two-level barrier).
//! * The kernel cache: a new source is compiled by NVRTC, then found in memory, and a second process
//!   (this test executable run again) finds the CUBIN on disk under `SIMDX_CACHE_DIR`.
//! * A compile failure returns NVRTC's log and the path of a file holding the source.
//!
//! Without a GPU the tests skip; with `SIMDX_REQUIRE_GPU=1` they fail instead.

use std::process::Command;
use std::time::Instant;

use cudarc::driver::{LaunchConfig, PushKernelArg};
use simdx_cuda::{CacheHit, CudaError, GRID_BARRIER, GRID_BARRIER_WORDS};

use crate::common::gpu;

/// Two alternative barriers, for the cost comparison only.
const ALTERNATIVES: &str = r#"
/* The first barrier: counter and generation in adjacent words. */
__device__ __forceinline__ void sync_adjacent(unsigned int* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned int* gen = bar + 1;
        unsigned int g = *gen;
        __threadfence();
        if (atomicAdd(bar, 1u) == gridDim.x - 1) {
            bar[0] = 0u;
            __threadfence();
            atomicAdd(bar + 1, 1u);
        } else {
            while (*gen == g) {}
        }
        __threadfence();
    }
    __syncthreads();
}
/* Two levels: groups of 32 blocks count in on their own line; each group's last counts in on the top. */
__device__ __forceinline__ void sync_two_level(unsigned int* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned int* gen = bar + 32;
        unsigned int g = *gen;
        __threadfence();
        unsigned int group = blockIdx.x / 32, groups = (gridDim.x + 31) / 32;
        unsigned int members = gridDim.x - group * 32 < 32 ? gridDim.x - group * 32 : 32;
        unsigned int* mine = bar + 64 + 32 * group;
        bool released = false;
        if (atomicAdd(mine, 1u) == members - 1) {
            *mine = 0u;
            __threadfence();
            if (atomicAdd(bar, 1u) == groups - 1) {
                bar[0] = 0u;
                __threadfence();
                atomicAdd((unsigned int*)gen, 1u);
                released = true;
            }
        }
        if (!released) while (*gen == g) {}
        __threadfence();
    }
    __syncthreads();
}
#define BENCH(NAME, SYNC)                                                                                   \
    extern "C" __global__ void NAME(unsigned int* bar, unsigned int* counts, unsigned int rounds,           \
                                    unsigned int* errors) {                                                  \
        for (unsigned int r = 0; r < rounds; r++) {                                                         \
            if (threadIdx.x == 0) atomicAdd(&counts[r & 1u], 1u);                                           \
            SYNC(bar);                                                                                      \
            if (threadIdx.x == 0 && *(volatile unsigned int*)&counts[r & 1u] != gridDim.x * (r / 2u + 1u))  \
                atomicAdd(errors, 1u);                                                                      \
        }                                                                                                   \
    }
BENCH(bench_product, sx_grid_sync)
BENCH(bench_adjacent, sync_adjacent)
BENCH(bench_two_level, sync_two_level)
"#;

#[test]
fn grid_barrier_synchronises_and_its_cost_is_reported() {
    let Some(gpu) = gpu() else { return };
    let (module, _) = gpu.compile(&format!("{GRID_BARRIER}\n{ALTERNATIVES}")).expect("compiles");
    let stream = gpu.stream().clone();
    let rounds = 2000u32;
    println!("grid barrier on {} ({} SMs), 256 threads per block, {rounds} rounds:", gpu.name, gpu.sm_count);
    for name in ["bench_product", "bench_adjacent", "bench_two_level"] {
        let f = module.load_function(name).expect("kernel");
        let per_sm = f.occupancy_max_active_blocks_per_multiprocessor(256, 0, None).expect("occupancy");
        assert!(per_sm >= 1);
        let mut row = format!("  {name:<16}");
        for blocks in [per_sm * gpu.sm_count, 2.min(per_sm) * gpu.sm_count, gpu.sm_count] {
            let bar = stream.alloc_zeros::<u32>(GRID_BARRIER_WORDS.max(64 + 32 * 64)).expect("alloc");
            let counts = stream.alloc_zeros::<u32>(2).expect("alloc");
            let errors = stream.alloc_zeros::<u32>(1).expect("alloc");
            let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
            let mut b = stream.launch_builder(&f);
            b.arg(&bar).arg(&counts).arg(&rounds).arg(&errors);
            let t = Instant::now();
            // SAFETY: the arguments match the kernel; the buffers outlive the synchronised launch.
            unsafe { b.launch_cooperative(cfg) }.expect("cooperative launch");
            stream.synchronize().expect("barrier kernel finished");
            let us = t.elapsed().as_secs_f64() * 1e6 / rounds as f64;
            let errors = stream.clone_dtoh(&errors).expect("copy")[0];
            assert_eq!(errors, 0, "{name} with {blocks} blocks let blocks through early");
            row += &format!("  {blocks:>5} blocks {us:6.2} us");
        }
        println!("{row}");
    }
}

#[test]
fn kernels_are_cached_in_memory_and_on_disk() {
    let Some(gpu) = gpu() else { return };
    let child = std::env::var("SIMDX_CACHE_CHILD").ok();
    let source = match &child {
        Some(s) => s.clone(),
        None => format!(
            "/* {} */ extern \"C\" __global__ void probe(int* x) {{ x[threadIdx.x] += 1; }}",
            std::process::id()
        ),
    };
    if child.is_some() {
        // The second process: the first one's CUBIN is on disk.
        let (_, hit) = gpu.compile(&source).expect("compiles");
        assert_eq!(hit, CacheHit::Disk);
        return;
    }
    let dir = std::env::temp_dir().join(format!("simdx-cache-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // SAFETY (of the environment change): this test is the only one in this executable that reads or
    // writes SIMDX_CACHE_DIR, and the barrier test's compile is unaffected by which cache it uses.
    std::env::set_var("SIMDX_CACHE_DIR", &dir);
    let (_, first) = gpu.compile(&source).expect("compiles");
    assert_eq!(first, CacheHit::Compiled);
    let (_, second) = gpu.compile(&source).expect("compiles");
    assert_eq!(second, CacheHit::Memory);
    let files: Vec<_> = std::fs::read_dir(&dir).expect("cache dir").flatten().collect();
    assert!(files.iter().any(|f| f.file_name().to_string_lossy().ends_with(".cubin")), "no CUBIN in {dir:?}");
    let status = Command::new(std::env::current_exe().expect("test executable"))
        .args(["--exact", "runtime::kernels_are_cached_in_memory_and_on_disk", "--nocapture"])
        .env("SIMDX_CACHE_DIR", &dir)
        .env("SIMDX_CACHE_CHILD", &source)
        .status()
        .expect("second process runs");
    assert!(status.success(), "the second process did not find the CUBIN on disk");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_compile_failure_shows_the_log_and_keeps_the_source() {
    let Some(gpu) = gpu() else { return };
    let source = "extern \"C\" __global__ void broken(int* x) { x[0] = not_declared_anywhere; }";
    let err = match gpu.compile(source) {
        Ok(_) => panic!("an undeclared identifier compiled"),
        Err(e) => e,
    };
    let CudaError::Compile { log, source_path } = &err else { panic!("not a compile error: {err}") };
    assert!(log.contains("not_declared_anywhere"), "the log does not name the error: {log}");
    assert_eq!(std::fs::read_to_string(source_path).expect("source kept"), source);
    let shown = err.to_string();
    assert!(shown.contains(source_path.as_str()) && shown.contains("not_declared_anywhere"), "{shown}");
}
