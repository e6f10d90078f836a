//! What every run of many searches shares, whichever backend runs it: the searches per batch
//! ([`LANES`]), what it did ([`MultiStats`]), why it may refuse to run ([`MultiSourceError`]), the
//! checks of its sources and of a search program's data, and the search program as backends run it
//! ([`ErasedSearch`]). Apart from
//! `multi_source` so that Brandes' sweeps (`dependencies`) use them without depending on the traversal;
//! `multi_source` re-exports them.

use std::time::Duration;

use crate::acc::{LengthMismatch, Vertex, VertexArray};
use crate::engine::IterationStats;
use crate::VertexId;

/// Searches per batch: the bits of a status word.
pub const LANES: usize = 64;

/// What a traversal did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MultiStats {
    /// Batches of up to 64 searches (the status word's bits, `LANES` in `multi_source`).
    pub batches: u32,
    /// Every level of every batch: its direction (pull: bottom-up), joint frontier, arcs inspected,
    /// time, and its batch as the `bucket`.
    pub levels: Vec<IterationStats>,
    /// Wall time of the whole traversal.
    pub time: Duration,
}

/// Why a traversal cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MultiSourceError {
    /// A source is not a vertex of the graph.
    #[error("source {vertex} is not a vertex of this graph (it has {vertices} vertices)")]
    NoSuchSource {
        /// The source given.
        vertex: VertexId,
        /// Vertices of the graph.
        vertices: usize,
    },
    /// A per-vertex array of the search program does not hold one value per vertex.
    #[error(transparent)]
    Data(#[from] crate::acc::LengthMismatch),
    /// The backend running the searches failed (a GPU error, in one sentence).
    #[error("the searches failed on the device: {0}")]
    Device(String),
}

/// Fails with [`MultiSourceError::NoSuchSource`] for the first of `sources` that is not one of `n`
/// vertices.
pub fn check_sources(sources: &[VertexId], n: usize) -> Result<(), MultiSourceError> {
    match sources.iter().find(|&&s| s as usize >= n) {
        Some(&vertex) => Err(MultiSourceError::NoSuchSource { vertex, vertices: n }),
        None => Ok(()),
    }
}

/// Fails with [`MultiSourceError::Data`] for the first per-vertex array of `program` that does not
/// hold one value for each of `n` vertices.
pub fn check_search_data(program: &dyn ErasedSearch, n: usize) -> Result<(), MultiSourceError> {
    match program.vertex_arrays().into_iter().find(|a| a.len != n) {
        Some(a) => Err(LengthMismatch { name: a.name, len: a.len, vertices: n }.into()),
        None => Ok(()),
    }
}

/// A search program with its accumulator carried as 64-bit words: what `Searches` backends run
/// (object-safe, so that a backend can be chosen at run time). Every `DeviceSearchProgram` is one (`crate::search_program`).
pub trait ErasedSearch: Sync {
    /// `SearchProgram::IDENTITY` as a word.
    fn identity(&self) -> u64;
    /// `SearchProgram::max_level`.
    fn max_level(&self) -> u32;
    /// The bytes of one accumulator (4 or 8).
    fn acc_bytes(&self) -> usize;
    /// Folds the discovery of `v` at `level` by each search of `lanes` (bit `i`: lane `i`) into
    /// `acc[i]`.
    fn found(&self, v: Vertex, level: u32, lanes: u64, acc: &mut [u64; LANES]);
    /// Combines the accumulators `from` into `into`, lane by lane.
    fn merge(&self, into: &mut [u64; LANES], from: &[u64; LANES]);
    /// `SearchProgram::vertex_arrays`.
    fn vertex_arrays(&self) -> Vec<VertexArray<'_>>;
    /// The whole device translation unit: `PRELUDE`, `search_defines`, the program's code (`crate::search_program`).
    fn device_unit(&self) -> String;
    /// `DeviceSearchProgram::device_params`.
    fn device_params(&self, array_addresses: &[u64]) -> Vec<u8>;
}
