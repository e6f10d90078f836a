//! Push step: Compute over the out-edges of the active vertices, combining atomically at the
//! destinations. A small frontier runs on the calling thread (waking workers would cost more than
//! the edges); a large one runs in tasks of about [`TASK_EDGES`] edges, and vertices of the grid
//! degree class are split into edge chunks so that one hub cannot stall a thread.
//!
//! In-place min and max programs (SSSP, BFS, WCC) store an improvement with a plain store, not a
//! compare-and-swap: on x86 a locked instruction waits for every load in flight, and it was the
//! largest single cost in profiles of SSSP's push (SSSP on kron:18 and urand:18 ran 3-7% faster
//! without it). A plain store may overwrite a better value another task stored at
//! the same moment, so each task keeps the improvements it stored, and [`repair`] combines them in
//! again (atomically, rarely needed) once every task is done. The value a vertex ends with is then
//! the best stored, as with the atomic combine; within the step a source may push a value that a
//! lost store made worse, and it becomes active again when the repair improves it.

use rayon::prelude::*;

use super::prefetch;
use super::record::{Bin, BinPolicy};
use super::state::VertexState;
use crate::acc::{Apply, AtomicCell, Edge, Program, WeightView};
use crate::VertexId;

/// Frontiers with at most this many out-edges are pushed on the calling thread.
const SEQUENTIAL_EDGES: u64 = 16 * 1024;
/// Edges per parallel task, roughly.
const TASK_EDGES: u64 = 4096;

/// Runs one push step from `frontier`, whose vertices have `out_edges` out-edges in all; returns the
/// merged bins.
pub(crate) fn push_step<P: Program>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    frontier: &[VertexId],
    out_edges: u64,
    split: u64,
    bins: &BinPolicy,
) -> Bin {
    if out_edges <= SEQUENTIAL_EDGES {
        // One task: no store can be lost, so what it stores need not be kept for a repair.
        let mut task = Task { concurrent: false, ..Task::default() };
        push_list(program, state, weights, frontier, u64::MAX, bins, &mut task);
        return task.bin;
    }
    let task_len = (frontier.len() as u64 * TASK_EDGES / out_edges).max(1) as usize;
    let (mut small, mut stored) = gather(frontier.par_chunks(task_len).fold(Task::default, |mut task, list| {
        push_list(program, state, weights, list, split, bins, &mut task);
        task
    }));
    let hubs = std::mem::take(&mut small.hubs);
    if !hubs.is_empty() {
        // What each hub sends is read once: its chunks must all send the value it records as seen.
        let hubs: Vec<(VertexId, P::Message)> = hubs.into_iter().map(|u| (u, state.pushed_by(program, u))).collect();
        let (big, more) =
            gather(hub_chunks(state, &hubs, split).into_par_iter().fold(Task::default, |mut task, (u, src, range)| {
                push_edges(program, state, weights, (u, src), range, bins, &mut task);
                task
            }));
        small = small.merge(big);
        stored.extend(more);
    }
    repair(program, state, &stored);
    small
}

/// What one push task produced: its bin, and the improvements it stored without an atomic
/// combine (in-place min and max programs only).
struct Task<P: Program> {
    bin: Bin,
    stored: Vec<(VertexId, P::Value)>,
    /// Whether other tasks run at the same time (then `stored` is kept).
    concurrent: bool,
}

impl<P: Program> Default for Task<P> {
    fn default() -> Self {
        Task { bin: Bin::default(), stored: Vec::new(), concurrent: true }
    }
}

/// Improvements stored by plain stores, one list per task: (vertex, value stored).
type Stored<V> = Vec<Vec<(VertexId, V)>>;

/// The tasks' bins as one (task order) and their stored improvements as a list of lists (not copied).
fn gather<P: Program>(tasks: impl ParallelIterator<Item = Task<P>>) -> (Bin, Stored<P::Value>) {
    let tasks: Vec<Task<P>> = tasks.collect();
    let mut bins = Vec::with_capacity(tasks.len());
    let mut stored = Vec::new();
    for task in tasks {
        if !task.stored.is_empty() {
            stored.push(task.stored);
        }
        bins.push(task.bin);
    }
    (Bin::gather(bins), stored)
}

/// Combines every improvement stored by the tasks into its vertex again, so that one a concurrent
/// plain store overwrote is not lost (see the module documentation). Most are already in place and
/// cost a load.
fn repair<P: Program>(program: &P, state: &VertexState<'_, P>, stored: &Stored<P::Value>) {
    stored.par_iter().for_each(|list| {
        for &(v, value) in list {
            let cell = &state.now[v as usize];
            let now = cell.load();
            if program.combine(now, value) != now {
                cell.combine(P::OP, value, |a, b| program.combine(a, b));
            }
        }
    });
}

/// The out-arcs of `hubs` cut into chunks of [`super::pull::chunk_len`] arcs, each with what its hub
/// sends.
pub(crate) fn hub_chunks<P: Program>(
    state: &VertexState<'_, P>,
    hubs: &[(VertexId, P::Message)],
    split: u64,
) -> Vec<(VertexId, P::Message, std::ops::Range<usize>)> {
    let csr = state.graph.out_csr();
    let chunk = super::pull::chunk_len(split);
    hubs.iter()
        .flat_map(|&(u, src)| {
            let r = csr.range(u);
            (r.start..r.end).step_by(chunk).map(move |s| (u, src, s..(s + chunk).min(r.end)))
        })
        .collect()
}

/// Pushes the updates of the vertices of `list` whose degree is below `split` and leaves the others
/// in `bin.hubs`; neighbour lists are prefetched [`prefetch::AHEAD`] vertices ahead.
fn push_list<P: Program>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    list: &[VertexId],
    split: u64,
    bins: &BinPolicy,
    task: &mut Task<P>,
) {
    let csr = state.graph.out_csr();
    for (k, &u) in list.iter().enumerate() {
        if let Some(&ahead) = list.get(k + prefetch::AHEAD) {
            prefetch::adjacency(csr, weights, ahead);
        }
        let range = csr.range(u);
        if (range.len() as u64) < split {
            push_edges(program, state, weights, (u, state.pushed_by(program, u)), range, bins, task);
        } else {
            task.bin.hubs.push(u);
        }
    }
}

/// Pushes what `u` sends, `src` ([`VertexState::pushed_by`]), along its out-arcs `range`.
#[inline]
fn push_edges<P: Program>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    (u, src): (VertexId, P::Message),
    range: std::ops::Range<usize>,
    bins: &BinPolicy,
    task: &mut Task<P>,
) {
    let targets = state.graph.out_csr().targets();
    let src_out_degree = state.out_degree(u);
    let Task { bin, stored, concurrent } = task;
    bin.edges += range.len() as u64;
    for i in range {
        let v = targets[i];
        let dst = state.now[v as usize].load();
        if !program.can_update(dst) {
            continue;
        }
        let update = program.compute(Edge { src, dst, weight: weights.get(i), src_out_degree });
        let reached = match P::APPLY {
            Apply::InPlace if VertexState::<P>::PUSHES_LIVE => {
                if program.combine(dst, update) == dst {
                    continue;
                }
                state.now[v as usize].store(update);
                if *concurrent {
                    stored.push((v, update));
                }
                true
            }
            Apply::InPlace => {
                // Test first: most updates change nothing and need no atomic operation.
                if program.combine(dst, update) == dst {
                    continue;
                }
                let old = state.now[v as usize].combine(P::OP, update, |a, b| program.combine(a, b));
                program.combine(old, update) != old
            }
            Apply::Received | Apply::Every => {
                state.acc[v as usize].combine(P::OP, update, |a, b| program.combine(a, b));
                true
            }
        };
        // An in-place program that pushes its live value stores without a locked instruction and
        // records alike: a vertex two tasks reach at once may be recorded twice (see
        // `Touched::insert_plain`).
        let first = match VertexState::<P>::PUSHES_LIVE {
            true => reached && state.touched.insert_plain(v),
            false => reached && state.touched.insert(v),
        };
        if first {
            bins.record(bin, v);
        }
    }
}
