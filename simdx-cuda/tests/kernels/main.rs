//! The CUDA units and the runtime under them: without a GPU, every kernel template through the host C++
//! compiler's syntax check; on a GPU, the grid barrier, the kernel cache and NVRTC's errors. Without a
//! GPU the runtime tests print that they were skipped; with `SIMDX_REQUIRE_GPU=1` they fail. (A trap
//! ends the device's context for the whole process, so `gpu_fault` and `gpu_watchdog` stay executables
//! of their own.)

#[path = "../common/mod.rs"]
mod common;

mod runtime;
mod syntax;
