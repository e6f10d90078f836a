//! A kernel that traps on the device: the driver's error reads as simdx's one sentence (a GPU kernel
//! failed, what was running, that the GPU is lost for the process and what to do), and the engine,
//! asked to run on the faulted device afterwards, returns an error instead of hanging or aborting. In
//! a test executable of its own, since a trap ends the device's context for the whole process.
//! Without a GPU it prints that it was skipped; with `SIMDX_REQUIRE_GPU=1` it fails.

use cudarc::driver::{LaunchConfig, PushKernelArg};
use simdx_core::engine::RunOptions;
use simdx_core::gen::GeneratorSpec;
use simdx_cuda::{CudaEngine, CudaError, DeviceGraph};

mod common;
use common::gpu;

#[test]
fn a_trap_reads_as_one_sentence_and_later_runs_fail_cleanly() {
    let Some(gpu) = gpu() else { return };
    let graph = GeneratorSpec::parse("grid:16x16").unwrap().generate(1).unwrap();
    let device = DeviceGraph::upload(&gpu, &graph).unwrap();
    let (module, _) =
        gpu.compile("extern \"C\" __global__ void simdx_test_trap(int* x) { if (*x == 0) __trap(); }").unwrap();
    let f = module.load_function("simdx_test_trap").unwrap();
    let zero = gpu.stream().clone_htod(&[0i32]).unwrap();
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&zero);
    // SAFETY: the kernel takes one device pointer to an int, which `zero` is.
    let launched = unsafe { launch.launch(LaunchConfig::for_num_elems(1)) };
    let error = match launched.and_then(|_| gpu.stream().synchronize()) {
        Ok(()) => panic!("a trapping kernel returned normally"),
        Err(e) => CudaError::from_driver("running a test kernel", e),
    };
    let sentence = error.to_string();
    assert!(matches!(error, CudaError::KernelFault { .. }), "{sentence}");
    assert!(sentence.starts_with("a GPU kernel failed while running a test kernel: "), "{sentence}");
    assert!(sentence.contains("--backend cpu") && !sentence.contains('\n'), "{sentence}");
    let after = CudaEngine::new(RunOptions::default()).run(&simdx_algos::Bfs { source: 0 }, &device);
    let after = after.expect_err("a run on a faulted device succeeded").to_string();
    assert!(!after.is_empty() && !after.contains('\n'), "{after}");
    eprintln!("trap: {sentence}\nlater run: {after}");
}
