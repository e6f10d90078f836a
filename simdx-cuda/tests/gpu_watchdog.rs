//! The grid barrier's watchdog: a fused kernel whose blocks can never all meet (here one block leaves
//! before the barrier) must not hang the GPU. After ten seconds of waiting the barrier traps, and the
//! host reads the fault as simdx's one sentence. In a test executable of its own, since a trap ends
//! the device's context for the whole process. Without a GPU it prints that it was skipped; with
//! `SIMDX_REQUIRE_GPU=1` it fails.

use std::time::{Duration, Instant};

use cudarc::driver::{LaunchConfig, PushKernelArg};
use simdx_cuda::{CudaError, GRID_BARRIER, GRID_BARRIER_WORDS};

mod common;
use common::gpu;

/// The barrier's own timeout (kernels/barrier.cu waits 10 s before it traps).
const WATCHDOG: Duration = Duration::from_secs(10);

#[test]
fn a_barrier_that_can_never_complete_traps_after_its_timeout() {
    let Some(gpu) = gpu() else { return };
    let kernel = format!(
        "{GRID_BARRIER}\nextern \"C\" __global__ void simdx_test_stuck_barrier(unsigned int* bar) {{\n    \
         if (blockIdx.x == 0) return;\n    sx_grid_sync(bar);\n}}\n"
    );
    let (module, _) = gpu.compile(&kernel).unwrap();
    let f = module.load_function("simdx_test_stuck_barrier").unwrap();
    let barrier = gpu.stream().alloc_zeros::<u32>(GRID_BARRIER_WORDS).unwrap();
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&barrier);
    let config = LaunchConfig { grid_dim: (4, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    let started = Instant::now();
    // SAFETY: the kernel takes one device pointer to GRID_BARRIER_WORDS zeroed u32s, which `barrier`
    // is; four blocks of 32 threads are co-resident on any GPU the engine accepts.
    let launched = unsafe { launch.launch(config) };
    let error = match launched.and_then(|_| gpu.stream().synchronize()) {
        Ok(()) => panic!("a grid barrier that one block never reached returned normally"),
        Err(e) => CudaError::from_driver("running a stuck barrier", e),
    };
    let waited = started.elapsed();
    let sentence = error.to_string();
    assert!(matches!(error, CudaError::KernelFault { .. }), "{sentence}");
    assert!(sentence.contains("watchdog") && !sentence.contains('\n'), "{sentence}");
    assert!(waited >= WATCHDOG - Duration::from_millis(500), "trapped after {waited:?}, before the watchdog's time");
    eprintln!("watchdog trapped after {waited:.1?}: {sentence}");
}
