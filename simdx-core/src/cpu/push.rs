//! Push step: Compute over the out-edges of the active vertices, combining atomically at the
//! destinations. A small frontier runs on the calling thread (waking workers would cost more than
//! the edges); a large one runs in tasks of about [`TASK_EDGES`] edges, and vertices of the grid
//! degree class are split into edge chunks so that one hub cannot stall a thread. The destinations'
//! values and touched flags are prefetched ahead (arcs within a list, and the first arcs of a vertex a
//! few places on): a BFS step whose targets are mostly new mispredicts the "already reached" test
//! often, and each misprediction discards the loads in flight, which prefetches survive.
//!
//! In-place min and max programs (SSSP, BFS, WCC) store an improvement with a plain store, not a
//! compare-and-swap: on x86 a locked instruction waits for every load in flight, and it was the
//! largest single cost in profiles of SSSP's push (measurements: `docs/experiments/cpu-bfs.md`). A
//! plain store may overwrite a better value another task stored at the same moment, so each task
//! keeps the improvements it stored, and [`repair`] combines them in again (atomically, rarely
//! needed) once every task is done. The value a vertex ends with is then
//! the best stored, as with the atomic combine; within the step a source may push a value that a
//! lost store made worse, and it becomes active again when the repair improves it.
//!
//! Where every store of a step carries one value (a BFS level), a lost store loses nothing and the
//! log is not needed: until a step shows otherwise ([`StoreLog`]), tasks only note whether the values
//! they store are all one value. A step whose values turn out to differ is repaired by pushing its
//! frontier again with atomic combines ([`push_again`]), and the run's later steps keep the log.

use rayon::prelude::*;

use super::prefetch;
use super::record::{Bin, BinPolicy};
use super::state::VertexState;
use super::uniform::Uniform;
use crate::acc::{convert, Apply, AtomicCell, Edge, ProgramHints, WeightView};
use crate::VertexId;

/// Frontiers with at most this many out-edges are pushed on the calling thread.
const SEQUENTIAL_EDGES: u64 = 16 * 1024;
/// Edges per parallel task, roughly.
const TASK_EDGES: u64 = 4096;
/// How far ahead the destinations' values are prefetched: arcs within a list, and frontier vertices
/// (the first [`TARGETS_AHEAD_ARCS`] arcs of the vertex this many places on, whose list the adjacency
/// prefetch brought in earlier).
const ARCS_AHEAD: usize = 16;
const VERTICES_AHEAD: usize = 4;
const TARGETS_AHEAD_ARCS: usize = 16;

/// Whether the tasks of a push step log the improvements they store with plain stores, kept by the
/// run from one step to the next: not until a step's stored values differ.
#[derive(Default)]
pub(crate) struct StoreLog {
    /// Log every stored improvement (a step of this run stored differing values).
    pub(crate) always: bool,
}

/// Runs one push step from `frontier`, whose vertices have `out_edges` out-edges in all; returns the
/// merged bins.
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_step<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    frontier: &[VertexId],
    out_edges: u64,
    split: u64,
    bins: &BinPolicy,
    log: &mut StoreLog,
) -> Bin {
    if out_edges <= SEQUENTIAL_EDGES {
        // One task: no store can be lost, so what it stores need not be kept for a repair.
        let mut task = Task { concurrent: false, ..Task::default() };
        push_list(program, state, weights, frontier, u64::MAX, bins, &mut task);
        return task.bin;
    }
    let task_len = (frontier.len() as u64 * TASK_EDGES / out_edges).max(1) as usize;
    let new_task = || Task { log: log.always, ..Task::default() };
    let (mut small, mut stored, mut values) = gather(frontier.par_chunks(task_len).fold(new_task, |mut task, list| {
        push_list(program, state, weights, list, split, bins, &mut task);
        task
    }));
    let hubs = std::mem::take(&mut small.hubs);
    if !hubs.is_empty() {
        // What each hub sends is read once: its chunks must all send the value it records as seen.
        let hubs: Vec<(VertexId, P::Message)> = hubs.into_iter().map(|u| (u, state.pushed_by(program, u))).collect();
        let (big, more, hub_values) =
            gather(hub_chunks(state, &hubs, split).into_par_iter().fold(new_task, |mut task, (u, src, range)| {
                push_edges(program, state, weights, (u, src), range, bins, &mut task);
                task
            }));
        small = small.merge(big);
        stored.extend(more);
        values = values.merge(hub_values);
    }
    if values == Uniform::Mixed {
        // Stores of differing values went unlogged: combine every update in again, and log from now on.
        log.always = true;
        small = small.merge(push_again(program, state, weights, frontier, bins));
    }
    repair(program, state, &stored);
    small
}

/// Pushes every update of `frontier` again with atomic combines (after a step whose unlogged plain
/// stores may have lost a better value); returns the vertices it reached first in this step.
fn push_again<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    frontier: &[VertexId],
    bins: &BinPolicy,
) -> Bin {
    let targets = state.graph.out_csr().targets();
    let bins: Vec<Bin> = frontier
        .par_iter()
        .with_min_len(64)
        .fold(Bin::default, |mut bin, &u| {
            let src = state.pushed_by(program, u);
            let src_out_degree = state.out_degree(u);
            for i in state.graph.out_csr().range(u) {
                let v = targets[i];
                let dst = state.now[v as usize].load();
                if !program.can_update(dst) {
                    continue;
                }
                let update = program.compute(Edge { src, dst, weight: weights.get(i), src_out_degree });
                let both = program.combine(dst, update);
                if both == update {
                    // The step's plain stores may have left a sender of another value beside this
                    // one: every update that may be the value that stands names its sender.
                    state.sent_racing(v, update, u);
                }
                if both == dst {
                    continue;
                }
                let old = state.now[v as usize].combine(P::OP, update, |a, b| program.combine(a, b));
                if program.combine(old, update) != old && state.touched.insert(v) {
                    bins.record(&mut bin, v);
                }
            }
            bin
        })
        .collect();
    Bin::gather(bins)
}

/// What one push task produced: its bin, and the improvements it stored without an atomic
/// combine (in-place min and max programs only).
struct Task<P: ProgramHints> {
    bin: Bin,
    stored: Vec<(VertexId, P::Value)>,
    /// Whether other tasks run at the same time (then what it stores is logged or noted).
    concurrent: bool,
    /// Whether `stored` logs each improvement ([`StoreLog`]); otherwise `values` notes their values.
    log: bool,
    values: Uniform<P::Value>,
}

impl<P: ProgramHints> Default for Task<P> {
    fn default() -> Self {
        Task { bin: Bin::default(), stored: Vec::new(), concurrent: true, log: true, values: Uniform::Empty }
    }
}

/// Improvements stored by plain stores, one list per task: (vertex, value stored).
type Stored<V> = Vec<Vec<(VertexId, V)>>;

/// The tasks' bins as one (task order), their logged improvements as a list of lists (not copied) and
/// the values of their unlogged ones.
fn gather<P: ProgramHints>(tasks: impl ParallelIterator<Item = Task<P>>) -> (Bin, Stored<P::Value>, Uniform<P::Value>) {
    let tasks: Vec<Task<P>> = tasks.collect();
    let mut bins = Vec::with_capacity(tasks.len());
    let mut stored = Vec::new();
    let mut values = Uniform::Empty;
    for task in tasks {
        if !task.stored.is_empty() {
            stored.push(task.stored);
        }
        values = values.merge(task.values);
        bins.push(task.bin);
    }
    (Bin::gather(bins), stored, values)
}

/// Combines every improvement stored by the tasks into its vertex again, so that one a concurrent
/// plain store overwrote is not lost (see the module documentation). Most are already in place and
/// cost a load.
fn repair<P: ProgramHints>(program: &P, state: &VertexState<'_, P>, stored: &Stored<P::Value>) {
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
pub(crate) fn hub_chunks<P: ProgramHints>(
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
fn push_list<P: ProgramHints>(
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
        if let Some(&near) = list.get(k + VERTICES_AHEAD) {
            let r = csr.range(near);
            for &t in &csr.targets()[r.start..r.end.min(r.start + TARGETS_AHEAD_ARCS)] {
                state.prefetch_destination(t);
            }
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
fn push_edges<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    (u, src): (VertexId, P::Message),
    range: std::ops::Range<usize>,
    bins: &BinPolicy,
    task: &mut Task<P>,
) {
    // Locals, not fields: reached through `state`, the arrays' addresses (and the weights' kind) are
    // loaded again after every store.
    let (now, acc, touched, senders) = (&state.now[..], &state.acc[..], state.touched.flags(), state.senders.as_ref());
    let (targets, weights) = (state.graph.out_csr().targets(), weights.by_ref());
    let src_out_degree = state.out_degree(u);
    let Task { bin, stored, concurrent, log, values } = task;
    bin.edges += range.len() as u64;
    let end = range.end;
    for i in range {
        if i + ARCS_AHEAD < end {
            let ahead = targets[i + ARCS_AHEAD];
            prefetch::element(now, ahead as usize);
            touched.prefetch(ahead);
        }
        let v = targets[i];
        let dst = now[v as usize].load();
        if !program.can_update(dst) {
            continue;
        }
        let update = program.compute(Edge { src, dst, weight: weights.get(i), src_out_degree });
        let reached = match P::APPLY {
            Apply::InPlace if VertexState::<P>::PUSHES_LIVE => {
                if program.combine(dst, update) == dst {
                    continue;
                }
                now[v as usize].store(update);
                if let Some(senders) = senders {
                    match *concurrent && *log {
                        // Logged stores may carry differing values, which race.
                        true => senders.keep_least(v, convert(update), u),
                        false => senders.store(v, u),
                    }
                }
                if *concurrent {
                    if *log {
                        stored.push((v, update));
                    } else {
                        *values = values.merge(Uniform::One(update));
                    }
                }
                true
            }
            Apply::InPlace => {
                // Test first: most updates change nothing and need no atomic operation.
                if program.combine(dst, update) == dst {
                    continue;
                }
                let old = now[v as usize].combine(P::OP, update, |a, b| program.combine(a, b));
                program.combine(old, update) != old
            }
            Apply::Received | Apply::Every => {
                acc[v as usize].combine(P::OP, update, |a, b| program.combine(a, b));
                true
            }
        };
        // An in-place program that pushes its live value stores without a locked instruction and
        // records alike: a vertex two tasks reach at once may be recorded twice (see
        // `Flags::insert_plain`).
        let first = match VertexState::<P>::PUSHES_LIVE {
            true => reached && touched.insert_plain(v),
            false => reached && touched.insert(v),
        };
        if first {
            bins.record(bin, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acc::weights_of;
    use crate::cpu::fused::tests::Hops;
    use crate::run::options::FilterPolicy;
    use crate::{EdgeList, GraphBuilder};

    /// One push step of hop counts over `sources` vertices of ten out-arcs each (to their own ten
    /// targets), every source at hop `hop(u)`: the targets' values after it, and whether the run
    /// logs its stores from then on.
    fn step(sources: u32, hop: impl Fn(u32) -> u32) -> (Vec<u32>, bool, usize) {
        let n = sources * 11;
        let (src, dst): (Vec<u32>, Vec<u32>) =
            (0..sources).flat_map(|u| (0..10).map(move |k| (u, sources + 10 * u + k))).unzip();
        let graph = GraphBuilder::new()
            .directed(true)
            .build(EdgeList { num_vertices: n as usize, src, dst, weights: None })
            .unwrap();
        let state = VertexState::new(&Hops, &graph);
        let weights = weights_of::<()>(graph.out_csr()).unwrap();
        for u in 0..sources {
            AtomicCell::store(&state.now[u as usize], hop(u));
        }
        let frontier: Vec<VertexId> = (0..sources).collect();
        let bins = BinPolicy::new(FilterPolicy::Online, usize::MAX);
        let mut log = StoreLog::default();
        let bin = push_step(&Hops, &state, &weights, &frontier, u64::from(sources) * 10, u64::MAX, &bins, &mut log);
        let targets = (sources..n).map(|v| AtomicCell::load(&state.now[v as usize])).collect();
        (targets, log.always, bin.vertices.len())
    }

    #[test]
    fn a_step_of_one_stored_value_keeps_no_log_and_one_of_several_turns_it_on() {
        // 20,000 arcs: over SEQUENTIAL_EDGES, so the step runs in concurrent tasks.
        let (targets, logs, reached) = step(2_000, |_| 4);
        assert!(targets.iter().all(|&t| t == 5));
        assert!(!logs, "every store carried 5");
        assert_eq!(reached, 20_000);
        let (targets, logs, reached) = step(2_000, |u| u % 7);
        assert!(targets.iter().enumerate().all(|(i, &t)| t == (i as u32 / 10) % 7 + 1));
        assert!(logs, "stores of differing values turn the log on");
        assert_eq!(reached, 20_000, "pushing again records no vertex twice");
    }

    #[test]
    fn pushing_again_restores_a_lost_improvement_and_records_an_unrecorded_vertex() {
        // 0 -> 2 and 1 -> 2: vertex 2 holds 47, as if a plain store of a worse value overwrote 1.
        let list = EdgeList { num_vertices: 3, src: vec![0, 1], dst: vec![2, 2], weights: None };
        let graph = GraphBuilder::new().directed(true).build(list).unwrap();
        let state = VertexState::new(&Hops, &graph);
        let weights = weights_of::<()>(graph.out_csr()).unwrap();
        for (v, value) in [(0, 0), (1, 9), (2, 47)] {
            AtomicCell::store(&state.now[v], value);
        }
        let bins = BinPolicy::new(FilterPolicy::Online, usize::MAX);
        assert!(state.touched.insert(2), "reached by the step's stores");
        let bin = push_again(&Hops, &state, &weights, &[0, 1], &bins);
        assert_eq!(AtomicCell::load(&state.now[2]), 1);
        assert!(bin.vertices.is_empty(), "already recorded by the step");
        state.touched.clear_all();
        AtomicCell::store(&state.now[2], 47);
        assert_eq!(push_again(&Hops, &state, &weights, &[0, 1], &bins).vertices, vec![2]);
    }
}
