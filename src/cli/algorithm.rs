//! The algorithms `simdx run` knows, their parameters on the command line, and how each is run,
//! validated against its oracle and turned into printable values.

use std::time::Duration;

use clap::{Args, ValueEnum};
use simdx_algos::{default_delta, verify, Bfs, PageRank, Sssp};
use simdx_core::engine::RunStats;
use simdx_core::{Graph, VertexId};

use super::backend::Executor;
use super::error::CliError;
use super::run::{trials, Values};

/// An algorithm name on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Algorithm {
    /// Breadth-first search levels from --source.
    Bfs,
    /// Delta-stepping shortest paths from --source (integer weights; 1 per edge if unweighted).
    Sssp,
    /// PageRank (alias: pagerank).
    #[value(alias = "pagerank")]
    Pr,
}

/// Algorithm parameters.
#[derive(Debug, Args)]
pub struct AlgorithmArgs {
    /// Source vertex for bfs and sssp (0-based; default: a vertex with out-edges picked from --seed).
    #[arg(long)]
    source: Option<VertexId>,
    /// Bucket width for sssp (default: largest weight / mean degree, at least 1).
    #[arg(long)]
    delta: Option<u32>,
    /// PageRank damping factor.
    #[arg(long, default_value_t = 0.85)]
    damping: f32,
    /// PageRank tolerance: stop when the ranks change by less than this (L1) in one iteration.
    #[arg(long, default_value_t = 1e-6)]
    tolerance: f64,
    /// PageRank iteration cap.
    #[arg(long, default_value_t = 100)]
    iterations: u32,
}

/// A finished `simdx run`: the result, the timing of each trial and the last trial's statistics.
pub struct Outcome {
    /// The values of the last trial.
    pub values: Values,
    /// Each trial's run time.
    pub times: Vec<Duration>,
    /// The last trial's statistics.
    pub stats: RunStats,
    /// The source vertex, for bfs and sssp.
    pub source: Option<VertexId>,
    /// `Ok(detail)` when the oracle agrees (or was not asked), `Err(why)` otherwise.
    pub validation: Result<String, String>,
}

impl Algorithm {
    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Bfs => "bfs",
            Algorithm::Sssp => "sssp",
            Algorithm::Pr => "pagerank",
        }
    }

    /// Runs the algorithm `count` times on `graph`; validates the last result if asked.
    pub fn run(
        self,
        params: &AlgorithmArgs,
        graph: &Graph,
        seed: u64,
        executor: &Executor<'_>,
        count: u32,
        validate: bool,
    ) -> Result<Outcome, CliError> {
        match self {
            Algorithm::Bfs => {
                let source = pick_source(params.source, graph, seed)?;
                let (run, times) = trials(executor, &Bfs { source }, count)?;
                let validation = check(validate, || verify::bfs(graph, source, &run.values).map(|()| String::new()));
                Ok(Outcome {
                    values: Values::U32(run.values),
                    times,
                    stats: run.stats,
                    source: Some(source),
                    validation,
                })
            }
            Algorithm::Sssp => {
                let source = pick_source(params.source, graph, seed)?;
                let delta = params.delta.unwrap_or_else(|| default_delta(graph));
                if delta == 0 {
                    return Err(CliError::Usage("--delta must be at least 1".into()));
                }
                let (run, times) = trials(executor, &Sssp { source, delta }, count)?;
                let validation =
                    check(validate, || verify::sssp(graph, source, &run.values).map(|()| format!(" (delta {delta})")));
                Ok(Outcome {
                    values: Values::U32(run.values),
                    times,
                    stats: run.stats,
                    source: Some(source),
                    validation,
                })
            }
            Algorithm::Pr => {
                if !(0.0..1.0).contains(&params.damping) {
                    return Err(CliError::Usage(format!("--damping {} is not within [0, 1)", params.damping)));
                }
                let program = PageRank {
                    damping: params.damping,
                    tolerance: params.tolerance,
                    max_iterations: params.iterations,
                };
                let (run, times) = trials(executor, &program, count)?;
                // The oracle converges much further; allow for where the run stopped.
                let allowed = (params.tolerance * 10.0).max(1e-5);
                let validation = check(validate, || {
                    verify::pagerank(graph, &program, &run.values, allowed).map(|l1| format!(" (L1 distance {l1:.2e})"))
                });
                Ok(Outcome { values: Values::F32(run.values), times, stats: run.stats, source: None, validation })
            }
        }
    }
}

/// The oracle's verdict when `validate` is set; no check (and no cost) otherwise.
fn check(validate: bool, oracle: impl FnOnce() -> Result<String, String>) -> Result<String, String> {
    if validate {
        oracle()
    } else {
        Ok(String::new())
    }
}

/// The given source if it exists, or a vertex with out-edges picked deterministically from `seed`.
fn pick_source(given: Option<VertexId>, graph: &Graph, seed: u64) -> Result<VertexId, CliError> {
    let n = graph.num_vertices();
    if let Some(s) = given {
        return if (s as usize) < n {
            Ok(s)
        } else {
            Err(CliError::Usage(format!("--source {s} does not exist: the graph has {n} vertices (ids 0..{n})")))
        };
    }
    if n == 0 {
        return Err(CliError::Usage("the graph has no vertices to start from".into()));
    }
    let start = (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as usize % n;
    let found = (0..n).map(|i| ((start + i) % n) as VertexId).find(|&v| graph.out_degree(v) > 0);
    Ok(found.unwrap_or(start as VertexId))
}
