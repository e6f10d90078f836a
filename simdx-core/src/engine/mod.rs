//! The engine: [`Engine::run`] drives a [`Program`](crate::acc::Program) over a [`Graph`] on a backend and returns the
//! per-vertex result with [`RunStats`]. The CPU backend (module `cpu`) is built in; the CUDA backend
//! lives in simdx-cuda and runs the same programs.

pub use crate::run::options::{
    DegreeClasses, DirectionPolicy, FilterPolicy, FusionPolicy, LabelPolicy, RunOptions, ASYNC_AFTER_ITERATIONS,
    MAX_THREADS,
};
pub use crate::run::stats::{Direction, FilterUsed, IterationStats, RunStats};
pub use crate::run::{linking, options, policy, promise, stats, EngineError, Run};

use std::sync::Arc;

use crate::acc::ProgramHints;
use crate::cpu::threads::Threads;
use crate::Graph;

/// Runs programs with fixed options on the CPU backend. The threads it runs on (a pool of
/// [`RunOptions::threads`], the team of the fused rounds) are made at its first run and kept for
/// the next ones; its clones share them.
#[derive(Debug, Clone, Default)]
pub struct Engine {
    options: RunOptions,
    threads: Arc<Threads>,
}

impl Engine {
    /// An engine with these options.
    pub fn new(options: RunOptions) -> Self {
        Engine { options, threads: Arc::default() }
    }

    /// The options in use.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// Runs `program` on `graph` to completion.
    pub fn run<P: ProgramHints>(&self, program: &P, graph: &Graph) -> Result<Run<P::Value>, EngineError> {
        crate::run::policy::validate(&self.options)?;
        crate::acc::check_lengths(program, graph.num_vertices())?;
        match self.options.threads {
            // Run on a pool thread, so that small parallel loops run inline instead of waking workers.
            None => rayon::scope(|_| crate::cpu::run(program, graph, &self.options, &self.threads)),
            Some(threads) => {
                let pool =
                    self.threads.pool(threads).map_err(|e| EngineError::Threads { threads, message: e.to_string() })?;
                pool.install(|| crate::cpu::run(program, graph, &self.options, &self.threads))
            }
        }
    }
}
