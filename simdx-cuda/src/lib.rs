//! simdx-cuda: the CUDA backend. It compiles a program's device code (from `#[graph_kernel]`) with
//! the kernel templates through NVRTC into a CUBIN for the device's own architecture (cached in memory
//! and on disk), uploads graphs once ([`DeviceGraph`]) and runs programs ([`CudaEngine`]) with degree-
//! classed push and pull kernels, the online and ballot filters and priority buckets; a device graph
//! also counts triangles and computes Jaccard similarity by sorted-list intersections
//! (`simdx_core::intersect::Intersections`) and finds strongly connected components
//! (`simdx_core::strong::StrongComponents`).
//!
//! The CUDA driver and NVRTC are loaded at run time: this crate builds anywhere, and [`Gpu::open`]
//! says clearly when there is no usable GPU.

mod asynchronous;
mod compile;
mod dependencies;
mod device_structs;
mod energy;
mod engine;
mod error;
mod fused;
mod gpu;
mod gpus;
mod graph;
mod intersect;
mod launch;
mod link;
mod multi_source;
mod nccl;
pub mod partitioned;
mod search_buffers;
mod senders;
mod sorted_arcs;
mod strong;
mod tree;
mod workspace;

pub use compile::{cache_dir, defer_persistent_kernels, finish_background_compiles, CacheHit};
pub use energy::EnergyMeter;
pub use engine::{kernel_source, kernel_units, CudaEngine, KERNEL_GROUPS, STEP_GROUPS};
pub use error::CudaError;
pub use fused::{FusedGrid, ASYNC_EARLY_BUCKET, ASYNC_EARLY_FRONTIER_SHIFT, ASYNC_EARLY_ITERATIONS};
pub use gpu::{available, set_memory_limit, Gpu};
pub use gpus::{gpu_count, open_gpus, split_sources, DeviceGraphs};
pub use graph::DeviceGraph;
pub use intersect::intersect_source;
pub use launch::{GRID_BARRIER, GRID_BARRIER_WORDS};
pub use multi_source::{search_source, traversal_source};
pub use nccl::{nccl, Communicators, Nccl};
pub use partitioned::{PartitionedGraph, ShareLayout};
pub use senders::NO_SENDER;
pub use strong::strong_source;
pub use tree::tree_source;

/// Whether `SIMDX_PROFILE=1` asks where runs' time went (printed on standard error): a run's phases,
/// SCC's phases, each share's exchanges in a partitioned run.
pub(crate) fn profiling() -> bool {
    std::env::var_os("SIMDX_PROFILE").is_some_and(|v| v == "1")
}
