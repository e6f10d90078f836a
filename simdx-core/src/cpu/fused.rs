//! Bucket fusion: a round of an in-place min or max program ([`VertexState::PUSHES_LIVE`]: SSSP,
//! BFS, WCC) in one parallel region, the way GAP and the graph crate run delta-stepping.
//!
//! Each worker takes batches of the frontier from a shared counter, relaxes their out-edges with
//! plain stores (those a concurrent store overwrote are combined in again after the region, see
//! [`repair`]), and files every vertex it improves under the bucket of its new value in lists of its
//! own. Then, while fewer than [`FUSE_LIMIT`] of its own vertices wait in the current bucket, it
//! relaxes those itself, without waiting for the other workers. What is left of the current bucket
//! becomes the next round's frontier; later buckets wait in the [`Frontier`]'s window.
//!
//! The lists may hold a vertex twice, or after it was relaxed: a vertex is relaxed only by the worker
//! that *claims* its live value, by moving the seen value to it first (with a locked combine, or,
//! when [`Program::source_value`] ignores the seen value, a plain store that two workers may both
//! make). So a round needs no "touched" flags and no selection pass: the workers' lists move into
//! the frontier's window as they are, and a bucket's lists become a round's frontier as they are.
//! A round starts no more workers than its frontier has batches.
//!
//! [`Program::source_value`]: crate::acc::Program::source_value
//!
//! Against one step at a time, fused rounds roughly halve SSSP's and WCC's time on kron and urand, and
//! save more on a grid at a wide bucket width (measurements: `docs/experiments/cpu-sssp.md`, "Fused
//! rounds against stepped ones").
//!
//! [`Frontier`]: super::frontier::Frontier

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::frontier::Filed;
use super::prefetch;
use super::senders::Senders;
use super::state::VertexState;
use super::team::Team;
use crate::acc::{convert, AtomicCell, Edge, ProgramHints, WeightView};
use crate::VertexId;

/// How far ahead a worker prefetches a frontier vertex's value, seen value and degree.
const FAR: usize = 2 * prefetch::AHEAD;
/// How far ahead within a neighbour list a push prefetches the destination's value.
const ARCS_AHEAD: usize = 16;
/// Frontier vertices a worker takes from the shared counter at a time.
const BATCH: usize = 64;
/// A worker relaxes the current bucket's vertices it reached itself while fewer than this many wait
/// (GAP's threshold).
const FUSE_LIMIT: usize = 1000;
/// Frontiers with at most this many out-edges run on the calling thread (as in the push step).
const SEQUENTIAL_EDGES: u64 = 16 * 1024;
/// Longer frontiers are not summed to decide that: they run in parallel.
const SEQUENTIAL_VERTICES: usize = 1024;
/// A round runs in parallel, however small its frontier, once the rounds of its bucket, or of the
/// bucket before, relaxed more edges than this in all: where a bucket holds enough work (the grid at a
/// wide bucket width: rounds of a few hundred vertices, whose fused work is most of a bucket) the
/// workers pay for their waking, while a bucket of about 1,500 edges (the grid at a narrow width) is
/// cheaper on one thread than waking the workers for each of its many rounds (measurements:
/// `docs/experiments/cpu-sssp.md`).
pub(crate) const PARALLEL_BUCKET_EDGES: u64 = 8 * 1024;

/// Repairs of at most this many stored improvements run on the calling thread: that takes less than
/// waking the workers again (measurements: `docs/experiments/cpu-sssp.md`).
const SEQUENTIAL_REPAIR: usize = 2 * 1024;

/// What one round did.
pub(crate) struct Round {
    /// Per worker, the vertices it improved, by bucket (`near`: the current bucket).
    pub(crate) filed: Vec<Filed>,
    /// Vertices relaxed (one that two workers claimed with plain stores counts twice).
    pub(crate) relaxed: u64,
    /// Edges on which Compute ran.
    pub(crate) edges: u64,
}

/// Runs one fused round from `frontier` in bucket `current`, filing into a window that starts at
/// bucket `base`; vertices of degree `split` or more are relaxed after the others, in chunks. Its
/// workers are the threads of `team` where there is one, else a rayon region's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn round<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    frontier: &[Vec<VertexId>],
    (current, base): (u32, u32),
    split: u64,
    parallel: bool,
    team: Option<&Team>,
) -> Round {
    let new_worker = || Worker::new(program, state, weights, (current, base), split);
    let frontier = Lists::new(frontier);
    // No more workers than batches of the frontier: the others would find the counter spent, but
    // waking them and waiting for them would still cost the round (measurements:
    // docs/experiments/cpu-sssp.md). Nor more than cores: a round waits for every worker that joined.
    let count = match !parallel && is_small(state, &frontier) {
        true => 1,
        false => super::threads::round_workers().min(frontier.len().div_ceil(BATCH)),
    };
    if let Some(senders) = &state.senders {
        senders.round_runs();
    }
    let mut workers: Vec<Worker<'_, '_, P>> = if count <= 1 {
        // One worker: no store can be lost, so what it stores need not be kept for a repair.
        let mut worker = Worker { concurrent: false, ..new_worker() };
        worker.run(&frontier);
        vec![worker]
    } else if let Some(team) = team.filter(|team| team.size() >= count) {
        // The threads that join take the frontier's batches, each its own list first.
        team.collect(count, |thread| {
            let mut worker = new_worker();
            worker.filed.thread = thread;
            worker.run(&frontier);
            worker
        })
    } else {
        (0..count)
            .into_par_iter()
            .with_max_len(1)
            .map(|_| {
                let mut worker = new_worker();
                worker.run(&frontier);
                worker
            })
            .collect()
    };
    let hubs: Vec<(VertexId, P::Message)> = workers.iter_mut().flat_map(|w| std::mem::take(&mut w.hubs)).collect();
    if !hubs.is_empty() {
        let chunks = super::push::hub_chunks(state, &hubs, split);
        let more: Vec<Worker<'_, '_, P>> = chunks
            .into_par_iter()
            .fold(new_worker, |mut worker, (u, src, range)| {
                worker.push(u, src, range);
                worker
            })
            .collect();
        workers.extend(more);
    }
    let repaired = repair(program, state, &mut workers, (current, base), team);
    Round {
        relaxed: workers.iter().map(|w| w.relaxed).sum(),
        edges: workers.iter().map(|w| w.edges).sum(),
        filed: workers.into_iter().map(|w| w.filed).chain(repaired).collect(),
    }
}

/// Improvements a worker stored with plain stores: (vertex, value stored).
type Log<V> = Vec<(VertexId, V)>;

/// Combines every improvement the workers stored with a plain store into its vertex again, so that
/// one a concurrent store overwrote is not lost (as the push step's repair does), and files the
/// vertices it improves: the lost value may have been what made them active.
fn repair<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    workers: &mut [Worker<'_, '_, P>],
    (current, base): (u32, u32),
    team: Option<&Team>,
) -> Vec<Filed> {
    // Each log with the team thread that wrote it, and who sent each improvement (if the run keeps
    // senders).
    let stored: Vec<(usize, Log<P::Value>, Vec<VertexId>)> = workers
        .iter_mut()
        .filter(|w| !w.stored.is_empty())
        .map(|w| (w.filed.thread, std::mem::take(&mut w.stored), std::mem::take(&mut w.stored_from)))
        .collect();
    let repair_list = |(_, list, from): &(usize, Log<P::Value>, Vec<VertexId>)| {
        let mut filed = Filed::default();
        for (k, &(v, value)) in list.iter().enumerate() {
            let cell = &state.now[v as usize];
            let now = cell.load();
            if program.combine(now, value) != now {
                let old = cell.combine(P::OP, value, |a, b| program.combine(a, b));
                if program.combine(old, value) != old {
                    let bucket = program.bucket(value);
                    if bucket <= current {
                        filed.near.push(v);
                    } else {
                        filed.file(base, v, bucket);
                    }
                }
            }
            if let (Some(senders), Some(&from)) = (&state.senders, from.get(k)) {
                // Where this value stands, a racing store may have left another value's word.
                if cell.load() == value {
                    senders.mend(v, convert(value), from);
                }
            }
        }
        filed
    };
    if stored.iter().map(|(_, list, _)| list.len()).sum::<usize>() <= SEQUENTIAL_REPAIR {
        stored.iter().map(repair_list).collect()
    } else if let Some(team) = team {
        // On the team, which is awake, rather than on rayon's workers beside it. Each thread first
        // takes the logs it wrote itself, whose vertices its cache still holds (another thread's
        // would each be a miss on a line that thread wrote), then whatever log is left: members that
        // join late find none left.
        let taken: Vec<AtomicBool> = stored.iter().map(|_| AtomicBool::new(false)).collect();
        let take = |k: usize| !taken[k].swap(true, Ordering::Relaxed);
        let per_thread = team.collect(team.size(), |thread| {
            let own = (0..stored.len()).filter(|&k| stored[k].0 == thread);
            let rest = 0..stored.len();
            own.chain(rest).filter(|&k| take(k)).map(|k| repair_list(&stored[k])).collect::<Vec<_>>()
        });
        per_thread.into_iter().flatten().collect()
    } else {
        stored.par_iter().map(repair_list).collect()
    }
}

/// Whether `frontier` has so few out-edges that one thread should run it.
fn is_small<P: ProgramHints>(state: &VertexState<'_, P>, frontier: &Lists<'_>) -> bool {
    frontier.len() <= SEQUENTIAL_VERTICES
        && frontier.lists.iter().flatten().map(|&u| u64::from(state.out_degree(u))).sum::<u64>() <= SEQUENTIAL_EDGES
}

/// A round's frontier: lists of vertices, each handed out in batches through its own cursor. List
/// `k` is, where a team thread filed it in the round before, that thread's (see
/// [`Frontier::absorb`](super::frontier::Frontier::absorb)): the worker on thread `k` takes its
/// batches first, while its cache still holds the lines it wrote reaching those vertices (on
/// another thread each load there is a miss on a line this one wrote), then those of the others.
struct Lists<'a> {
    lists: &'a [Vec<VertexId>],
    /// `cursors[k]`: where the next batch of `lists[k]` starts.
    cursors: Vec<AtomicUsize>,
}

impl<'a> Lists<'a> {
    fn new(lists: &'a [Vec<VertexId>]) -> Self {
        Lists { lists, cursors: lists.iter().map(|_| AtomicUsize::new(0)).collect() }
    }

    fn len(&self) -> usize {
        self.lists.iter().map(Vec::len).sum()
    }

    /// Calls `take` with every batch (up to [`BATCH`] vertices) that no other caller took: first
    /// those of list `own` (if there is one), then those of the lists after it, in turn.
    fn take_batches(&self, own: usize, mut take: impl FnMut(&'a [VertexId])) {
        let count = self.lists.len();
        let first = if own < count { own } else { 0 };
        for k in (first..count).chain(0..first) {
            let list = &self.lists[k];
            loop {
                let start = self.cursors[k].fetch_add(BATCH, Ordering::Relaxed);
                if start >= list.len() {
                    break;
                }
                take(&list[start..(start + BATCH).min(list.len())]);
            }
        }
    }
}

/// One worker of a round: what it filed and counted.
struct Worker<'a, 'g, P: ProgramHints> {
    program: &'a P,
    state: &'a VertexState<'g, P>,
    weights: &'a WeightView<'g, P::Weight>,
    current: u32,
    base: u32,
    split: u64,
    filed: Filed,
    /// Claimed vertices of degree `split` or more, with what they send (relaxed in chunks later).
    hubs: Vec<(VertexId, P::Message)>,
    /// Improvements made by plain stores, kept for [`repair`] while other workers run.
    stored: Log<P::Value>,
    /// Who sent each improvement of `stored`, where the run keeps senders (empty otherwise).
    stored_from: Vec<VertexId>,
    /// Whether other workers run at the same time.
    concurrent: bool,
    relaxed: u64,
    edges: u64,
}

impl<'a, 'g, P: ProgramHints> Worker<'a, 'g, P> {
    /// A worker of a round in bucket `current` with a window at `base`, which leaves vertices of
    /// degree `split` or more for the hub chunks.
    fn new(
        program: &'a P,
        state: &'a VertexState<'g, P>,
        weights: &'a WeightView<'g, P::Weight>,
        (current, base): (u32, u32),
        split: u64,
    ) -> Self {
        Worker {
            program,
            state,
            weights,
            current,
            base,
            split,
            filed: Filed::default(),
            hubs: Vec::new(),
            stored: Vec::new(),
            stored_from: Vec::new(),
            concurrent: true,
            relaxed: 0,
            edges: 0,
        }
    }

    /// Relaxes batches of `frontier` until none is left (its thread's own list first), then the
    /// current bucket's vertices this worker reached, while they are few.
    fn run(&mut self, frontier: &Lists<'_>) {
        // The team thread that runs this worker, which its `filed` names.
        frontier.take_batches(self.filed.thread, |batch| self.relax_list(batch));
        let mut list = Vec::new();
        while !self.filed.near.is_empty() && self.filed.near.len() < FUSE_LIMIT {
            std::mem::swap(&mut list, &mut self.filed.near);
            self.relax_list(&list);
            list.clear();
        }
    }

    /// Relaxes the vertices of `list`. Their values and degrees are prefetched [`FAR`] places ahead
    /// and their neighbour lists [`prefetch::AHEAD`] places ahead, when those degrees have arrived.
    fn relax_list(&mut self, list: &[VertexId]) {
        let (state, csr) = (self.state, self.state.graph.out_csr());
        for (k, &u) in list.iter().enumerate() {
            if let Some(&far) = list.get(k + FAR) {
                prefetch::element(&state.now, far as usize);
                prefetch::element(&state.seen, far as usize);
                prefetch::element(csr.offsets(), far as usize);
            }
            if let Some(&ahead) = list.get(k + prefetch::AHEAD) {
                prefetch::adjacency(csr, self.weights, ahead);
            }
            self.relax(u);
        }
    }

    /// Relaxes `u`'s out-edges if it is active and this worker claims it first.
    #[inline]
    fn relax(&mut self, u: VertexId) {
        let (program, state) = (self.program, self.state);
        let i = u as usize;
        let (live, seen) = (state.now[i].load(), state.seen[i].load());
        if !program.active(live, seen) {
            return;
        }
        let bucket = program.bucket(live);
        if bucket > self.current {
            self.filed.file(self.base, u, bucket);
            return;
        }
        // The claim: whoever moves the seen value to `live` relaxes `u`; the previous seen value is
        // what `u` last sent. A program whose `source_value` ignores that value claims with a plain
        // store: two workers may then both relax `u`, which repeats work but changes no result (the
        // pushes are min or max combines, and a store they lose is repaired), and no worker waits on
        // a locked instruction (measurements: docs/experiments/cpu-sssp.md).
        let sent = if P::SOURCE_IGNORES_SENT {
            state.seen[i].store(live);
            seen
        } else {
            state.seen[i].combine(P::OP, live, |a, b| program.combine(a, b))
        };
        if program.combine(sent, live) == sent {
            return;
        }
        self.relaxed += 1;
        let src = program.source_value(state.vertex(u), live, sent);
        let range = state.graph.out_csr().range(u);
        if range.len() as u64 >= self.split {
            self.hubs.push((u, src));
        } else {
            self.push(u, src, range);
        }
    }

    /// Pushes `src` from `u` along its out-arcs `range`, filing every vertex it improves. The value of
    /// the destination [`ARCS_AHEAD`] arcs on is prefetched: the test whether an update improves a
    /// destination mispredicts often, and each misprediction discards the loads in flight.
    #[inline]
    fn push(&mut self, u: VertexId, src: P::Message, range: Range<usize>) {
        let (program, state) = (self.program, self.state);
        // Locals, not fields: reached through `self` or `state`, the arrays' addresses and lengths
        // and the weights' kind are loaded again after every store.
        let (now, targets, weights) = (&state.now[..], state.graph.out_csr().targets(), self.weights.by_ref());
        let senders = state.senders.as_ref();
        let words = senders.is_some_and(Senders::words_in_rounds);
        let (current, base, concurrent) = (self.current, self.base, self.concurrent);
        let src_out_degree = state.out_degree(u);
        self.edges += range.len() as u64;
        let end = range.end;
        for i in range {
            if i + ARCS_AHEAD < end {
                prefetch::element(now, targets[i + ARCS_AHEAD] as usize);
            }
            let v = targets[i];
            let cell = &now[v as usize];
            let dst = cell.load();
            // `can_update` is not read: it prunes level-synchronous steps, and a worker here runs ahead
            // of the others (a BFS vertex may be reached at a deeper level first, then improved).
            let update = program.compute(Edge { src, dst, weight: weights.get(i), src_out_degree });
            if program.combine(dst, update) == dst {
                continue;
            }
            // A plain store: a locked instruction per improvement cost more than the repair.
            cell.store(update);
            match senders {
                // Value and sender in one word; a racing store of another value may overwrite it, as
                // it may the value: the repair mends both.
                Some(senders) if words => senders.store_word(v, convert(update), u),
                // A breadth-first search's rounds store none: the pass after the run names them by levels.
                _ => {}
            }
            if concurrent {
                self.stored.push((v, update));
                if words {
                    self.stored_from.push(u);
                }
            }
            let bucket = program.bucket(update);
            if bucket <= current {
                self.filed.near.push(v);
            } else {
                self.filed.file(base, v, bucket);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::acc::{weights_of, Apply, AtomicCell, CombineKind, CombineOp, Program, Vertex};
    use crate::{EdgeList, GraphBuilder};

    /// Hop counts in buckets of 10.
    pub(crate) struct Hops;

    impl Program for Hops {
        type Value = u32;
        type Message = u32;
        type Weight = ();
        const OP: CombineOp = CombineOp::Min;
        const KIND: CombineKind = CombineKind::Aggregate;
        const APPLY: Apply = Apply::InPlace;
        const IDENTITY: u32 = u32::MAX;
        const UNSEEN: u32 = u32::MAX;

        fn init(&self, _: Vertex) -> u32 {
            u32::MAX
        }
        fn active(&self, now: u32, seen: u32) -> bool {
            now < seen
        }
        fn compute(&self, e: Edge<u32, ()>) -> u32 {
            e.src.saturating_add(1)
        }
        fn bucket(&self, value: u32) -> u32 {
            value / 10
        }
    }
    impl ProgramHints for Hops {}

    /// A worker after a round in bucket `current` that stored `stored` with plain stores.
    fn repaired(now: [u32; 3], stored: Vec<(VertexId, u32)>, current: u32) -> ([u32; 3], Vec<(usize, Vec<VertexId>)>) {
        let list = EdgeList { num_vertices: 3, src: vec![0], dst: vec![1], weights: None };
        let graph = GraphBuilder::new().build(list).unwrap();
        let state = VertexState::new(&Hops, &graph);
        let weights = weights_of::<()>(graph.out_csr()).unwrap();
        for (cell, value) in state.now.iter().zip(now) {
            AtomicCell::store(cell, value);
        }
        let mut worker = Worker { stored, ..Worker::new(&Hops, &state, &weights, (current, 0), u64::MAX) };
        let filed: Vec<_> = repair(&Hops, &state, std::slice::from_mut(&mut worker), (current, 0), None)
            .into_iter()
            .flat_map(|filed| {
                let mut slots: Vec<_> = filed.filed_slots().map(|(i, list)| (i, list.clone())).collect();
                slots.push((usize::MAX, filed.near));
                slots
            })
            .filter(|(_, list)| !list.is_empty())
            .collect();
        (std::array::from_fn(|i| AtomicCell::load(&state.now[i])), filed)
    }

    #[test]
    fn repair_restores_an_overwritten_improvement_and_files_its_vertex() {
        // Vertex 1 was improved to 25, then a concurrent plain store wrote 47 over it; vertex 2's
        // stored 70 was itself overwritten by a better 60.
        let (now, filed) = repaired([0, 47, 60], vec![(1, 25), (2, 70)], 1);
        assert_eq!(now, [0, 25, 60]);
        assert_eq!(filed, vec![(2, vec![1])], "filed for bucket 2, in window slot 2");
        // In bucket 2 itself, vertex 1 joins the current bucket's list (`near`, shown as slot MAX).
        let (_, filed) = repaired([0, 47, 60], vec![(1, 25)], 2);
        assert_eq!(filed, vec![(usize::MAX, vec![1])]);
    }

    #[test]
    fn each_batch_goes_to_one_taker_and_a_taker_takes_its_own_list_first() {
        let lists: Vec<Vec<VertexId>> = vec![(0..200).collect(), vec![], (200..230).collect(), (230..1000).collect()];
        let frontier = Lists::new(&lists);
        assert_eq!(frontier.len(), 1000);
        let mut first = None;
        frontier.take_batches(2, |batch| {
            first.get_or_insert(batch[0]);
        });
        assert_eq!(first, Some(200), "list 2 first");
        // Four takers at once, starting from different lists: every vertex exactly once.
        let frontier = Lists::new(&lists);
        let taken: Vec<std::sync::atomic::AtomicU32> = (0..1000).map(|_| Default::default()).collect();
        std::thread::scope(|s| {
            for own in [0, 2, 3, usize::MAX] {
                let (frontier, taken) = (&frontier, &taken);
                s.spawn(move || {
                    frontier.take_batches(own, |batch| {
                        assert!(batch.len() <= BATCH);
                        batch.iter().for_each(|&v| {
                            taken[v as usize].fetch_add(1, Ordering::Relaxed);
                        });
                    })
                });
            }
        });
        assert!(taken.iter().all(|t| t.load(Ordering::Relaxed) == 1));
        let empty: Vec<Vec<VertexId>> = vec![vec![], vec![]];
        assert_eq!(Lists::new(&empty).len(), 0);
    }

    #[test]
    fn nothing_stored_nothing_repaired() {
        assert_eq!(repaired([0, 5, 6], Vec::new(), 0), ([0, 5, 6], Vec::new()));
    }

    #[test]
    fn a_repair_on_the_team_restores_every_lost_improvement_and_files_each_vertex_once() {
        // More stored improvements than run on one thread, in more logs than the team has threads.
        let n = 6_000u32;
        let list = EdgeList { num_vertices: n as usize, src: vec![0], dst: vec![1], weights: None };
        let graph = GraphBuilder::new().build(list).unwrap();
        let state = VertexState::new(&Hops, &graph);
        let weights = weights_of::<()>(graph.out_csr()).unwrap();
        for cell in state.now.iter() {
            AtomicCell::store(cell, 100);
        }
        let logs: Vec<Vec<(VertexId, u32)>> =
            (0..5u32).map(|w| (0..n).filter(|v| v % 5 != w).map(|v| (v, (v * 7 + w * 13) % 120)).collect()).collect();
        let mut workers: Vec<_> = logs
            .iter()
            .map(|log| Worker { stored: log.clone(), ..Worker::new(&Hops, &state, &weights, (20, 0), u64::MAX) })
            .collect();
        let team = Team::new(3);
        let filed = repair(&Hops, &state, &mut workers, (20, 0), Some(&team));
        assert_eq!(filed.len(), logs.len());
        let mut reached: Vec<VertexId> = filed.iter().flat_map(|f| f.near.iter().copied()).collect();
        for f in &filed {
            reached.extend(f.filed_slots().flat_map(|(_, list)| list.iter().copied()));
        }
        reached.sort_unstable();
        let best =
            |v: u32| logs.iter().flatten().filter(|(u, _)| *u == v).map(|&(_, x)| x).min().unwrap_or(100).min(100);
        let improved: Vec<VertexId> = (0..n).filter(|&v| best(v) < 100).collect();
        for v in 0..n {
            assert_eq!(AtomicCell::load(&state.now[v as usize]), best(v), "vertex {v}");
        }
        // Each improved vertex is filed at least once (by the log that lowered it first, and again by
        // any log that lowered it further).
        reached.dedup();
        assert_eq!(reached, improved);
    }
}
