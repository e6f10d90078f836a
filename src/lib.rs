//! simdx: graph algorithms on NVIDIA GPUs and multicore CPUs from one Rust source.
//!
//! This facade crate re-exports the pieces a user needs: graph storage, readers, writers and
//! generators from [`simdx_core`]. The `simdx` binary (`simdx info`, `simdx convert`, `simdx gen`)
//! is built from this crate too.
//!
//! ```
//! use simdx::gen::GeneratorSpec;
//! let graph = GeneratorSpec::parse("grid:4x3").unwrap().generate(1).unwrap();
//! assert_eq!(graph.num_vertices(), 12);
//! assert_eq!(graph.num_edges(), 2 * 12 - 4 - 3);
//! ```

// Lets the paths `#[graph_kernel]` emits (`::simdx::acc::...`) resolve inside this crate too.
extern crate self as simdx;

mod runner;

pub use runner::{Backend, RunError, Runner};
pub use simdx_algos as algos;
pub use simdx_core::*;
pub use simdx_macros::{graph_kernel, kernel_fn};
