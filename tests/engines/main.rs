//! How the engines run programs, beyond the values they compute (`tests/algorithms/` checks those):
//! directions and hand-offs between steps, fusion and asynchronous rounds, thread pools and concurrent
//! runs, stats, and errors, on the CPU and (with the `cuda` feature) the CUDA backend. Without a GPU
//! the CUDA tests print that they were skipped; with `SIMDX_REQUIRE_GPU=1` they fail.

#[path = "../common/mod.rs"]
mod common;

mod cpu;
mod gpu;
mod partitioned_gpu;
