//! Graph storage: CSR arrays (owned or memory-mapped), weights, the [`graph::Graph`] type and its builder.

pub mod array;
pub mod builder;
pub mod csr;
#[allow(clippy::module_inception)]
pub mod graph;
pub mod structure;
pub mod weights;
