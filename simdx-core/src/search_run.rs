//! What every run of many searches shares, whichever backend runs it: what it did ([`MultiStats`]),
//! why it may refuse to run ([`MultiSourceError`]) and the check of its sources. Apart from
//! `multi_source` so that Brandes' sweeps (`dependencies`) use them without depending on the traversal;
//! `multi_source` re-exports them.

use std::time::Duration;

use crate::engine::IterationStats;
use crate::VertexId;

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
