//! simdx-core: the part of simdx that knows no GPU and no algorithm. It holds
//!
//! * graph storage: CSR arrays, owned or memory-mapped, with weights ([`graph`], [`Graph`], [`Csr`],
//!   [`GraphBuilder`]);
//! * readers and writers for the common graph file formats and simdx's own `.sxg` ([`io`]), with
//!   memory estimates and the process-wide limit they are checked against ([`memory`]);
//! * deterministic graph generators: Kronecker, R-MAT, uniform random, 2-D grids, layered networks
//!   for a perceptron ([`gen`]);
//! * the Active-Compute-Combine traits an algorithm implements ([`acc`]);
//! * the engine ([`engine`]): what a run takes and gives back (options, statistics, the rules both
//!   engines follow) and the CPU backend, built in; the CUDA backend (simdx-cuda) runs the same
//!   programs through these traits;
//! * many breadth-first searches at once and the search programs they run ([`multi_source`],
//!   [`search_program`]), and Brandes' dependency accumulation for betweenness ([`dependencies`]);
//! * edge computations on sorted neighbour lists (triangles, Jaccard: [`intersect`]), strongly
//!   connected components ([`strong`]), Louvain communities ([`louvain`]) and core numbers by peeling
//!   in levels ([`cores`]), which are not vertex programs.
//!
//! ```
//! use simdx_core::gen::GeneratorSpec;
//! let g = GeneratorSpec::parse("kron:10").unwrap().generate(1).unwrap();
//! assert_eq!(g.num_vertices(), 1024);
//! assert!(!g.is_directed());
//! ```

#![warn(missing_docs)]

pub mod acc;
pub mod cores;
pub(crate) mod cpu;
pub mod dependencies;
pub mod engine;
pub mod error;
pub mod gen;
pub mod graph;
pub mod intersect;
pub mod io;
pub mod louvain;
pub mod memory;
pub mod multi_source;
pub(crate) mod parallel;
pub mod partition;
mod run;
pub mod search_program;
mod search_run;
pub mod strong;

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
