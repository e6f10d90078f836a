//! simdx-core: the part of simdx that knows no GPU and no algorithm — graph storage in CSR form,
//! readers and writers for the common graph file formats, deterministic graph generators, and
//! (with later work) the ACC program traits, the engine and the CPU backend.
//!
//! ```
//! use simdx_core::gen::GeneratorSpec;
//! let g = GeneratorSpec::parse("kron:10").unwrap().generate(1).unwrap();
//! assert_eq!(g.num_vertices(), 1024);
//! assert!(!g.is_directed());
//! ```

#![warn(missing_docs)]

pub mod acc;
pub(crate) mod cpu;
pub mod dependencies;
pub mod engine;
pub mod error;
pub mod gen;
pub mod graph;
pub mod io;
pub mod memory;
pub mod multi_source;
pub(crate) mod parallel;
mod run;
pub mod search_program;
mod search_run;

pub use error::{GraphError, Result};
pub use graph::array::Array;
pub use graph::builder::{Duplicates, EdgeList, GraphBuilder, SelfLoops};
pub use graph::csr::Csr;
pub use graph::graph::Graph;
pub use graph::weights::{EdgeWeights, WeightKind, Weights};

/// A vertex id. Graphs hold at most [`MAX_VERTICES`] vertices.
pub type VertexId = u32;

/// The most vertices a graph may have: `u32::MAX`, so that every id fits a `u32` and `u32::MAX`
/// itself stays free as a "no vertex" marker.
pub const MAX_VERTICES: usize = u32::MAX as usize;
