//! The engine: [`Engine::run`] drives a [`Program`](crate::acc::Program) over a [`Graph`] on a backend and returns the
//! per-vertex result with [`RunStats`]. The CPU backend (module `cpu`) is built in; the CUDA backend
//! lives in simdx-cuda and runs the same programs.

pub use crate::cpu::senders::NO_SENDER;
pub use crate::run::options::{
    DegreeClasses, DirectionPolicy, FilterPolicy, FusionPolicy, LabelPolicy, RunOptions, ASYNC_AFTER_ITERATIONS,
    MAX_THREADS,
};
pub use crate::run::stats::{Direction, FilterUsed, IterationStats, RunStats, StepExchanges};
pub use crate::run::{linking, options, policy, promise, stats, EngineError, Run};

use std::sync::Arc;
use std::time::Instant;

use crate::acc::{Apply, CombineKind, CombineOp, ProgramHints};
use crate::cpu::senders::{RoundSenders, Senders};
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
        self.run_keeping(program, graph, None).map(|(run, _)| run)
    }

    /// Runs `program` on `graph` as [`Engine::run`] does, and returns beside the run each vertex's
    /// sender: the vertex whose update set its final value (for BFS, a parent one level closer; where a
    /// step pulls, the first such in-neighbour in its in-list), [`NO_SENDER`] where none did. The
    /// senders live in arrays no step reads, so the run keeps its values' width. `program` must vote,
    /// combine by min and apply in place ([`EngineError::SendersNeedVoting`] otherwise); its run
    /// propagates labels rather than linking or shortcutting them.
    pub fn run_with_senders<P: ProgramHints<Value = u32>>(
        &self,
        program: &P,
        graph: &Graph,
    ) -> Result<(Run<u32>, Vec<u32>), EngineError> {
        self.senders_of(program, graph, RoundSenders::Words)
    }

    /// [`Engine::run_with_senders`] for a breadth-first search (`levels`: a program whose values are
    /// levels, `u32::MAX` where unreached, each update one above its sender's value, as `Bfs`): fused
    /// rounds store each sender plainly and log none, and where their workers raced, each reached
    /// vertex whose sender is not one level closer gets, before the clock stops, the first in-neighbour
    /// that is (a vertex whose update would have set its level). What it saves: the rounds' 8-byte words
    /// and their repair, which a grid's long search pays on most vertices.
    pub fn run_bfs_with_senders<P: ProgramHints<Value = u32>>(
        &self,
        levels: &P,
        graph: &Graph,
    ) -> Result<(Run<u32>, Vec<u32>), EngineError> {
        self.senders_of(levels, graph, RoundSenders::ByLevels)
    }

    /// The run and senders of [`Engine::run_with_senders`], fused rounds keeping theirs as `rounds` says.
    fn senders_of<P: ProgramHints<Value = u32>>(
        &self,
        program: &P,
        graph: &Graph,
        rounds: RoundSenders,
    ) -> Result<(Run<u32>, Vec<u32>), EngineError> {
        if P::KIND != CombineKind::Voting || P::APPLY != Apply::InPlace || P::OP != CombineOp::Min {
            return Err(EngineError::SendersNeedVoting);
        }
        let (run, senders) = self.run_keeping(program, graph, Some(rounds))?;
        let senders = match senders {
            Some(senders) => senders.finish(&run.values),
            None => vec![NO_SENDER; run.values.len()],
        };
        Ok((run, senders))
    }

    /// Runs `program` on the engine's threads, keeping senders where `senders` asks for them.
    fn run_keeping<P: ProgramHints>(
        &self,
        program: &P,
        graph: &Graph,
        senders: Option<RoundSenders>,
    ) -> Result<(Run<P::Value>, Option<Senders>), EngineError> {
        crate::run::policy::validate(&self.options)?;
        crate::acc::check_lengths(program, graph.num_vertices())?;
        self.on_threads(|| crate::cpu::run(program, graph, &self.options, &self.threads, senders))
    }

    /// The core number of every vertex of `graph` (degrees counted in arcs as stored, as the `KCore`
    /// program counts them; give a directed graph in undirected form) by parallel peeling in levels
    /// ([`crate::cores`]) on this engine's threads. The run's statistics hold its time only.
    pub fn core_numbers(&self, graph: &Graph) -> Result<Run<u32>, EngineError> {
        crate::run::policy::validate(&self.options)?;
        self.on_threads(|| {
            let start = Instant::now();
            let values = crate::cores::core_numbers(graph);
            let stats = RunStats { time: start.elapsed(), graph_edges: graph.num_edges(), ..RunStats::default() };
            Ok(Run { values, stats })
        })
    }

    /// `work` on the engine's pool of [`RunOptions::threads`] threads, or on a thread of rayon's
    /// global pool.
    fn on_threads<T: Send>(&self, work: impl FnOnce() -> Result<T, EngineError> + Send) -> Result<T, EngineError> {
        match self.options.threads {
            // Run on a pool thread, so that small parallel loops run inline instead of waking workers.
            None => rayon::scope(|_| work()),
            Some(threads) => {
                let pool =
                    self.threads.pool(threads).map_err(|e| EngineError::Threads { threads, message: e.to_string() })?;
                pool.install(work)
            }
        }
    }
}
