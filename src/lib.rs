//! simdx: graph algorithms on NVIDIA GPUs and multicore CPUs from one Rust source.
//!
//! This facade crate is what a user depends on: graph storage, readers, writers and generators (from
//! `simdx_core`), the `#[graph_kernel]` and `#[kernel_fn]` macros, the algorithm library
//! ([`algos`]), and [`Runner`], which runs any program on the CUDA backend when the crate is built with
//! the `cuda` feature and a GPU is usable, or on the CPU backend otherwise, with the same options and
//! results. The `simdx` binary (`simdx run`, `bench`, `info`, `convert`, `gen`) is built from this
//! crate too, on top of the same runner.
//!
//! The whole path: make (or read) a graph, write a program that reads per-vertex data, run it, read
//! the values.
//!
//! ```
//! use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
//! use simdx::gen::GeneratorSpec;
//! use simdx::{graph_kernel, kernel_fn, Backend, Runner};
//!
//! /// The cheaper of two prices.
//! #[kernel_fn]
//! fn cheaper(a: f32, b: f32) -> f32 {
//!     a.min(b)
//! }
//!
//! /// The cheapest price reachable from each vertex's own shop, where crossing an edge costs its
//! /// weight: every vertex starts at its own price, a user's per-vertex data.
//! struct CheapestReachable {
//!     price: VertexData<f32>,
//! }
//!
//! #[graph_kernel]
//! impl Program for CheapestReachable {
//!     type Value = f32;
//!     type Weight = f32;
//!     const OP: CombineOp = CombineOp::Min;
//!     const KIND: CombineKind = CombineKind::Aggregate;
//!     const APPLY: Apply = Apply::InPlace;
//!     const IDENTITY: f32 = f32::INFINITY;
//!     const UNSEEN: f32 = f32::INFINITY;
//!
//!     fn init(&self, v: Vertex) -> f32 {
//!         self.price[v.id]
//!     }
//!     fn active(&self, now: f32, seen: f32) -> bool {
//!         now < seen
//!     }
//!     fn compute(&self, e: Edge<f32, f32>) -> f32 {
//!         cheaper(e.src + e.weight, e.dst)
//!     }
//! }
//!
//! let graph = GeneratorSpec::parse("grid:8x8:w=1-3").unwrap().generate(1).unwrap();
//! let price: Vec<f32> = (0..graph.num_vertices()).map(|v| if v == 27 { 0.0 } else { 100.0 }).collect();
//! let runner = Runner::new(&graph, Backend::Auto).unwrap(); // the GPU with `--features cuda`, if usable
//! let run = runner.run(&CheapestReachable { price: price.into() }).unwrap();
//! assert_eq!(run.values[27], 0.0);
//! assert!(run.values.iter().all(|&p| p <= 100.0));
//! println!("on {}: {:?}", runner.backend().name(), &run.values[..8]);
//! ```

// Lets the paths `#[graph_kernel]` emits (`::simdx::acc::...`) resolve inside this crate too.
extern crate self as simdx;

mod runner;
#[cfg(feature = "cuda")]
mod split_searches;

pub use runner::{
    defer_gpu_compiles, finish_gpu_compiles, gpu_count, Backend, EnergyMeter, RunError, Runner, GPU_DELTA_FACTOR,
};
pub use simdx_algos as algos;
pub use simdx_core::*;
pub use simdx_macros::{graph_kernel, kernel_fn, search_kernel};
#[cfg(feature = "cuda")]
pub use split_searches::SplitSearches;
