//! The engine: [`Engine::run`] drives a [`Program`] over a [`Graph`] on a backend and returns the
//! per-vertex result with [`RunStats`]. The CPU backend (module `cpu`) is built in; the CUDA backend
//! lives in simdx-cuda and runs the same programs.

pub mod options;
pub mod stats;

pub use options::{DegreeClasses, DirectionPolicy, FilterPolicy, FusionPolicy, RunOptions};
pub use stats::{Direction, FilterUsed, IterationStats, RunStats};

use crate::acc::Program;
use crate::Graph;

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

/// Runs programs with fixed options on the CPU backend.
#[derive(Debug, Clone, Default)]
pub struct Engine {
    options: RunOptions,
}

impl Engine {
    /// An engine with these options.
    pub fn new(options: RunOptions) -> Self {
        Engine { options }
    }

    /// The options in use.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// Runs `program` on `graph` to completion.
    pub fn run<P: Program>(&self, program: &P, graph: &Graph) -> Result<Run<P::Value>, EngineError> {
        validate(&self.options)?;
        crate::acc::check_lengths(program, graph.num_vertices())?;
        match self.options.threads {
            // Run on a pool thread, so that small parallel loops run inline instead of waking workers.
            None => rayon::scope(|_| crate::cpu::run(program, graph, &self.options)),
            Some(threads) => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| EngineError::Threads { threads, message: e.to_string() })?;
                pool.install(|| crate::cpu::run(program, graph, &self.options))
            }
        }
    }
}

fn validate(options: &RunOptions) -> Result<(), EngineError> {
    if let DirectionPolicy::Auto { threshold } = options.direction {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(EngineError::Options(format!("the direction threshold {threshold} is not within 0..=1")));
        }
    }
    let c = options.classes;
    if !(1 <= c.warp && c.warp <= c.cta && c.cta <= c.grid) {
        return Err(EngineError::Options(format!(
            "degree classes must satisfy 1 <= warp <= cta <= grid, got {} / {} / {}",
            c.warp, c.cta, c.grid
        )));
    }
    if options.bin_capacity == 0 {
        return Err(EngineError::Options("the online bin capacity must be at least 1".into()));
    }
    if options.threads == Some(0) {
        return Err(EngineError::Options("the thread count must be at least 1".into()));
    }
    Ok(())
}
