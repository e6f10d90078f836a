//! What a run takes and gives back, shared by the engine and its backends (so that neither imports
//! the other for it): the options ([`options`]), the statistics ([`stats`]), the result ([`Run`]),
//! why a run could not start ([`EngineError`]) and the rules both engines' linking follows
//! ([`linking`]). The public paths are those of [`crate::engine`].

pub mod linking;
pub mod options;
pub mod policy;
pub mod promise;
pub mod stats;

use self::stats::RunStats;

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The graph's weights cannot serve as the program's weight type.
    #[error("{0}")]
    Weights(String),
    /// An option value that cannot work.
    #[error("invalid option: {0}")]
    Options(String),
    /// A per-vertex array of the program does not match the graph.
    #[error(transparent)]
    VertexData(#[from] crate::acc::LengthMismatch),
    /// The run's per-vertex state would not fit in memory (or under `--memory-limit`).
    #[error("{0}")]
    Memory(String),
    /// A promise the program makes (a `const` of [`crate::acc::Program`]) that its own code breaks.
    #[error("{0}")]
    Promise(String),
    /// Senders were asked of a program that does not vote, combine by min and apply in place.
    #[error("senders are kept only for programs that vote, combine by min and apply in place (as BFS)")]
    SendersNeedVoting,
    /// The thread pool could not be created.
    #[error("cannot start {threads} worker threads: {message}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// What rayon said.
        message: String,
    },
}

/// A finished run: one value per vertex and the statistics.
#[derive(Debug, Clone)]
pub struct Run<V> {
    /// The value of every vertex, indexed by vertex id.
    pub values: Vec<V>,
    /// What the run did.
    pub stats: RunStats,
}
