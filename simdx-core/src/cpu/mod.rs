//! The CPU backend: rayon over the active vertices, push or pull per iteration, online or ballot
//! filtering of the next frontier, priority buckets, and the per-iteration statistics.

mod bitmap;
mod pull;
mod push;
mod record;
mod state;

use std::time::Instant;

use rayon::prelude::*;

use self::bitmap::AtomicBitmap;
use self::record::BinPolicy;
use self::state::VertexState;
use crate::acc::{weights_of, Apply, AtomicCell, Program, Value};
use crate::engine::{Direction, DirectionPolicy, EngineError, FilterUsed, IterationStats, Run, RunOptions, RunStats};
use crate::{Graph, VertexId};

/// Runs `program` on `graph` in the current rayon pool.
pub(crate) fn run<P: Program>(program: &P, graph: &Graph, options: &RunOptions) -> Result<Run<P::Value>, EngineError> {
    let out_weights = weights_of::<P::Weight>(graph.out_csr()).map_err(EngineError::Weights)?;
    let in_weights = if graph.is_directed() {
        weights_of::<P::Weight>(graph.in_csr()).map_err(EngineError::Weights)?
    } else {
        out_weights.clone()
    };
    let state = VertexState::new(program, graph);
    let n = state.len();
    let split = u64::from(options.classes.grid);
    let mut stats = RunStats { graph_edges: graph.num_edges(), ..RunStats::default() };
    let start = Instant::now();

    let every = P::APPLY == Apply::Every;
    let mut frontier = Frontier::new();
    let initial: Vec<VertexId> = (0..n as VertexId).into_par_iter().filter(|&v| state.is_active(program, v)).collect();
    let mut current = frontier.select(program, &state, initial);

    let mut iterations = 0u32;
    while !current.is_empty() && iterations < options.max_iterations {
        let began = Instant::now();
        let all_active = every && current.len() == n;
        // Snapshot: a processed vertex's seen value is the value it sends this iteration.
        current.par_iter().with_min_len(4096).for_each(|&u| state.seen[u as usize].store(state.now[u as usize].load()));
        let global = if P::USES_GLOBAL {
            (0..n as VertexId)
                .into_par_iter()
                .map(|v| program.global(state.vertex(v), state.now[v as usize].load()))
                .sum()
        } else {
            0.0
        };

        let direction = choose_direction(options.direction, graph, &current);
        let bins = BinPolicy::new(
            if every { crate::engine::FilterPolicy::Ballot } else { options.filter },
            options.bin_capacity,
        );
        let step = match direction {
            Direction::Push => push::push_step(program, &state, &out_weights, &current, split, &bins),
            Direction::Pull => {
                let membership = (!all_active).then(|| {
                    let m = AtomicBitmap::new(n);
                    current.par_iter().for_each(|&u| {
                        m.insert(u);
                    });
                    m
                });
                pull::pull_step(program, &state, &in_weights, membership.as_ref(), split, &bins)
            }
        };

        // The vertices reached this iteration, online (from the bins) or by a ballot scan.
        let (reached, filter) = if every {
            state.touched.clear_all();
            ((0..n as VertexId).collect::<Vec<_>>(), FilterUsed::Every)
        } else if bins.needs_ballot() {
            let list = state.touched.to_sorted_list();
            state.touched.clear_list(&list);
            (list, FilterUsed::Ballot)
        } else {
            state.touched.clear_list(&step.vertices);
            (step.vertices, FilterUsed::Online)
        };
        let change = if P::APPLY == Apply::InPlace { 0.0 } else { apply(program, &state, &reached, global) };

        stats.iterations.push(IterationStats {
            direction,
            filter,
            frontier: current.len() as u64,
            edges: step.edges,
            bucket: frontier.bucket,
            time: began.elapsed(),
        });
        iterations += 1;
        if program.done(iterations, change) {
            break;
        }
        current = frontier.select(program, &state, reached);
    }
    stats.time = start.elapsed();
    Ok(Run { values: state.into_values(), stats })
}

/// Pull when the frontier's out-edges exceed the policy's share of all arcs.
fn choose_direction(policy: DirectionPolicy, graph: &Graph, frontier: &[VertexId]) -> Direction {
    match policy {
        DirectionPolicy::Push => Direction::Push,
        DirectionPolicy::Pull => Direction::Pull,
        DirectionPolicy::Auto { threshold } => {
            let out_edges: u64 = frontier.par_iter().with_min_len(4096).map(|&u| graph.out_degree(u)).sum();
            if out_edges as f64 > threshold * graph.num_arcs() as f64 {
                Direction::Pull
            } else {
                Direction::Push
            }
        }
    }
}

/// Applies the combined updates of `reached` vertices; returns the sum of `|new - old|`.
fn apply<P: Program>(program: &P, state: &VertexState<'_, P>, reached: &[VertexId], global: f64) -> f64 {
    reached
        .par_iter()
        .with_min_len(1024)
        .map(|&v| {
            let i = v as usize;
            let old = state.now[i].load();
            let combined = state.acc[i].load();
            state.acc[i].store(P::IDENTITY);
            let new = program.apply(state.vertex(v), old, combined, global);
            state.now[i].store(new);
            if new == old {
                0.0
            } else {
                (new.to_f64() - old.to_f64()).abs()
            }
        })
        .sum()
}

/// Picks each iteration's frontier from the vertices reached, keeping priority buckets: only active
/// vertices of the lowest bucket run; the others wait in `pending`.
struct Frontier {
    bucket: u32,
    pending: Vec<VertexId>,
}

impl Frontier {
    fn new() -> Self {
        Frontier { bucket: 0, pending: Vec::new() }
    }

    fn select<P: Program>(&mut self, program: &P, state: &VertexState<'_, P>, reached: Vec<VertexId>) -> Vec<VertexId> {
        let bucket_of = |v: VertexId| program.bucket(state.now[v as usize].load());
        let active: Vec<VertexId> = reached.into_par_iter().filter(|&v| state.is_active(program, v)).collect();
        let (near, far): (Vec<VertexId>, Vec<VertexId>) =
            active.into_par_iter().partition(|&v| bucket_of(v) <= self.bucket);
        self.pending.extend(far);
        if !near.is_empty() || self.pending.is_empty() {
            return near;
        }
        // The current bucket is exhausted: move to the lowest bucket still waiting.
        let mut waiting = std::mem::take(&mut self.pending);
        waiting.retain(|&v| state.is_active(program, v));
        waiting.par_sort_unstable();
        waiting.dedup();
        let Some(lowest) = waiting.par_iter().map(|&v| bucket_of(v)).min() else { return Vec::new() };
        self.bucket = lowest;
        let (near, far) = waiting.into_par_iter().partition(|&v| bucket_of(v) <= lowest);
        self.pending = far;
        near
    }
}
