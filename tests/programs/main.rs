//! Programs that users write, through the library: what `#[graph_kernel]` accepts and generates
//! (`macro_output`), search programs (`#[search_kernel]`) and the
//! multi-search applications on the CPU's and the GPU's many-source traversal, programs reading a
//! user's per-vertex data through the [`simdx::Runner`] on every backend, and the proof, without a
//! GPU, that the CUDA C which `#[graph_kernel]` emits computes what the Rust it comes from does. The GPU
//! module builds with the `cuda` feature; without a GPU its tests print that they were skipped, and
//! with `SIMDX_REQUIRE_GPU=1` they fail.

#[path = "../common/mod.rs"]
mod common;

mod applications;
mod device_code;
mod macro_output;
mod search_programs;
mod searches_cpu;
mod searches_gpu;
mod user_data;
