//! Classes by linking (union-find) for programs whose values are labels
//! ([`Program::VALUES_ARE_LABELS`], e.g. WCC), in place of step-by-step label propagation. The
//! values double as parent pointers: a vertex's value names a vertex of its class, roots name
//! themselves, and every pointer names a better vertex (smaller under `Min`, larger under `Max`), so
//! each root is the best vertex of its class: the value propagation would end with.
//!
//! An arc `u -> v` links `v` with the vertex its message names, when [`Program::compute`] sends one.
//! The order is Afforest's (Sutton, Ben-Nun, Barak, IPDPS'18): link every vertex's first out-arc,
//! flatten the trees, the same for the second ([`SAMPLED_ARCS`] rounds), find the class most vertices already belong to (by
//! sampling), then link the remaining arcs of the vertices outside it only. An arc between two
//! vertices of that class needs no link, and an arc between it and another vertex is linked from the
//! other end: on an undirected graph through the other end's out-arcs, on a directed one through its
//! in-arcs as well.
//!
//! A link climbs from both ends towards their roots and hooks the worse root under the better with a
//! compare-and-swap from the root's own label: when the root turns out to have been hooked elsewhere
//! meanwhile, the link goes on between its new parent and the better root, so no connection is lost.

use std::time::Instant;

use rayon::prelude::*;

use super::state::VertexState;
use super::{in_order, prefetch};
use crate::acc::program::labelled_vertex;
use crate::acc::{AtomicCell, Edge, ProgramHints, Value, WeightView, Wide};
use crate::gen::rng::WyRand;
use crate::run::linking::{largest_class, SAMPLED_ARCS, SAMPLES};
use crate::run::stats::{Direction, FilterUsed, IterationStats};
use crate::{Graph, VertexId};

/// Vertices per parallel task.
const CHUNK: usize = 4096;
/// Up to this many threads, the sampled rounds take their chunks in increasing order, [`ORDERED_CHUNK`]
/// vertices each, as GAP does; more threads take them spread apart. In order, a vertex mostly hooks
/// under a tree already joined to the ones before it, so the trees stay shallow (one thread on
/// urand:20: 91K pointer jumps in the first flatten against 328K spread; on the grid none against
/// 975K), while the threads' few chunk boundaries seldom meet. With more threads the grid's boundaries
/// do, and in order is slower from 4 threads on; with two it was level or faster on every graph
/// (measurements: `docs/experiments/components.md`, "CC's sampled rounds in order on two threads").
const ORDERED_THREADS: usize = 2;
/// The chunk of the sampled rounds taken in order (GAP's dynamic schedule's).
const ORDERED_CHUNK: usize = 16 * 1024;
/// How many vertices ahead the sampled rounds fetch an arc.
const AHEAD: usize = 16;
/// Vertices whose labels lie this close to a vertex's own are taken as cached: a chunk whose first
/// arcs all stay this close (a grid, a mesh) is linked without prefetches, which there only cost
/// instructions; chunks with far arcs (urand) need them (measurements: `docs/experiments/components.md`).
const NEAR: usize = 16 * 1024;
/// The first arcs of a chunk that judge whether it prefetches.
const PROBES: usize = 16;

/// Links every arc of `graph` as the module doc says and leaves each vertex's value at the root of
/// its class. Returns one record per phase: the sampled links, the links of the remaining arcs.
pub(crate) fn link_all<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    graph: &Graph,
    out_weights: &WeightView<'_, P::Weight>,
    in_weights: &WeightView<'_, P::Weight>,
) -> Vec<IterationStats> {
    let forest = Forest { now: &state.now, n: state.len() };
    let (offsets, targets) = (graph.out_csr().offsets(), graph.out_csr().targets());
    let links = Links { program, state, out_weights, in_weights, graph, forest, offsets, targets };
    let n = state.len();
    let began = Instant::now();
    let mut sampled = 0;
    for round in 0..SAMPLED_ARCS as usize {
        sampled += links.sampled_round(round);
        links.flatten();
    }
    let sample = IterationStats {
        direction: Direction::Push,
        filter: FilterUsed::Every,
        frontier: n as u64,
        edges: sampled,
        bucket: 0,
        time: began.elapsed(),
    };
    let began = Instant::now();
    let largest = links.largest_class();
    // One pass over the vertices, linking the other arcs of those outside that class as it finds them
    // (no list of them is made: on kron it cost more than half of the phase; measurements:
    // docs/experiments/components.md). A vertex that joins the class meanwhile may be skipped: its
    // arcs to vertices outside it are linked from their ends.
    let (outside, rest) = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let (mut outside, mut linked) = (0u64, 0u64);
            for u in chunk * CHUNK..((chunk + 1) * CHUNK).min(n) {
                if Some(state.now[u].load()) == largest {
                    continue;
                }
                outside += 1;
                let u = u as VertexId;
                let arcs = graph.out_csr().range(u);
                let arcs = arcs.start.saturating_add(SAMPLED_ARCS as usize).min(arcs.end)..arcs.end;
                linked += links.out_arcs(links.forest, links.targets, u, arcs);
                if graph.is_directed() {
                    linked += links.in_arcs(u);
                }
            }
            (outside, linked)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    // The last sampled round left every vertex pointing at its root; only links since can have
    // deepened a tree (none where the sampled rounds joined every vertex to the largest class: a
    // grid, a uniform random graph).
    if rest > 0 {
        links.flatten();
    }
    let rest = IterationStats {
        direction: Direction::Push,
        filter: FilterUsed::Every,
        frontier: outside,
        edges: rest,
        bucket: 0,
        time: began.elapsed(),
    };
    vec![sample, rest]
}

/// What linking reads.
struct Links<'a, 'g, P: ProgramHints> {
    program: &'a P,
    state: &'a VertexState<'g, P>,
    out_weights: &'a WeightView<'g, P::Weight>,
    in_weights: &'a WeightView<'g, P::Weight>,
    graph: &'g Graph,
    forest: Forest<'a, P>,
    /// The out-CSR's offsets and targets.
    offsets: &'g [u64],
    targets: &'g [VertexId],
}

/// The trees, as the vertices' values. The loops copy it (and the arrays they read) into locals:
/// reached through `&self` or a closure's captures, the slices' addresses and lengths are loaded
/// again after every compare-and-swap, on the path from one link to the next (measurements:
/// `docs/experiments/components.md`).
struct Forest<'a, P: ProgramHints> {
    now: &'a [<P::Value as Value>::Cell],
    /// The number of vertices, `now.len()`.
    n: usize,
}

impl<P: ProgramHints> Clone for Forest<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: ProgramHints> Copy for Forest<'_, P> {}

impl<P: ProgramHints> Forest<'_, P> {
    /// Puts `a` and `b` in one class: climbs from both towards their roots until they meet, hooking
    /// the worse of two roots under the better with a compare-and-swap from its own label.
    #[inline]
    fn link(self, a: usize, b: usize) {
        let (mut a, mut b) = (a, b);
        while a != b {
            let (worse, better) =
                if P::OP.apply(label::<P>(a), label::<P>(b)) == label::<P>(a) { (b, a) } else { (a, b) };
            let above = self.parent(worse);
            if above == better {
                return;
            }
            if above == worse {
                match self.now[worse].compare_exchange(label::<P>(worse), label::<P>(better)) {
                    Ok(_) => return,
                    // Hooked under another vertex meanwhile: that vertex must join too.
                    Err(other) => match labelled_vertex(other, self.n) {
                        Some(other) => (a, b) = (other, better),
                        None => return,
                    },
                }
            } else {
                (a, b) = (self.parent(above), self.parent(better));
            }
        }
    }

    /// The vertex `v`'s value names (`v` itself for a root).
    #[inline]
    fn parent(self, v: usize) -> usize {
        self.parent_named(v, self.now[v].load())
    }

    /// The vertex `value`, `v`'s value, names.
    #[inline]
    fn parent_named(self, v: usize, value: P::Value) -> usize {
        labelled_vertex(value, self.n).unwrap_or(v)
    }

    /// The root of `v`'s tree.
    #[inline]
    fn root(self, mut v: usize) -> usize {
        loop {
            let parent = self.parent(v);
            if parent == v {
                return v;
            }
            v = parent;
        }
    }
}

impl<P: ProgramHints> Links<'_, '_, P> {
    /// Links the out-arcs of `u` at positions `arcs` of the out-CSR; returns how many. Always inlined:
    /// a call per vertex slows the grid's first linking round (the compiler's own choice changes with
    /// the code around it; measurements: `docs/experiments/components.md`, "Linking inline").
    #[inline(always)]
    fn out_arcs(&self, forest: Forest<'_, P>, targets: &[VertexId], u: VertexId, arcs: std::ops::Range<usize>) -> u64 {
        if arcs.is_empty() {
            return 0;
        }
        let src = self.sent_by(forest, u);
        let src_out_degree = self.state.out_degree(u);
        for i in arcs.clone() {
            let v = targets[i];
            let dst = forest.now[v as usize].load();
            let message = self.program.compute(Edge { src, dst, weight: self.out_weights.get(i), src_out_degree });
            link_message(forest, forest.parent_named(v as usize, dst), message);
        }
        arcs.len() as u64
    }

    /// Links the out-arc at position `round` of every vertex that has one; returns how many. Latency
    /// bound where arcs reach far (the arc, then its target's label, are each a cache miss), so there
    /// the arc [`AHEAD`] vertices on is fetched early and the label of the target of the one half as
    /// far on. Chunks are taken from a shared counter: in increasing order up to [`ORDERED_THREADS`]
    /// threads, otherwise far apart ([`in_order::sum_spread`]), since many threads on neighbouring
    /// chunks of a grid would hook into each other's cache lines.
    fn sampled_round(&self, round: usize) -> u64 {
        let n = self.forest.n;
        let ordered = rayon::current_num_threads() <= ORDERED_THREADS;
        let chunk_len = if ordered { ORDERED_CHUNK } else { CHUNK };
        let link_chunk = |chunk: usize| {
            // Locals, not captures: see `Forest`.
            let (forest, offsets, targets, round) = (self.forest, self.offsets, self.targets, round);
            let arc_of = |u: usize| {
                let (start, end) = (offsets[u] as usize, offsets[u + 1] as usize);
                (start + round < end).then_some(start + round)
            };
            let (first, end) = (chunk * chunk_len, ((chunk + 1) * chunk_len).min(n));
            let far = (first..end.min(first + PROBES))
                .any(|u| arc_of(u).is_some_and(|i| (targets[i] as usize).abs_diff(u) > NEAR));
            let mut linked = 0;
            for u in first..end {
                if far {
                    // Without asking whether the vertex ahead has an arc at `round` (on kron half the
                    // vertices have none, at random: a mispredicted branch each), its position is
                    // fetched anyway; where it has none, that is a neighbour's arc, a wasted fetch.
                    if u + AHEAD < end {
                        prefetch::element(targets, offsets[u + AHEAD] as usize + round);
                    }
                    if u + AHEAD / 2 < end {
                        if let Some(&v) = targets.get(offsets[u + AHEAD / 2] as usize + round) {
                            prefetch::element(forest.now, v as usize);
                        }
                    }
                }
                if let Some(i) = arc_of(u) {
                    linked += self.out_arcs(forest, targets, u as VertexId, i..i + 1);
                }
            }
            linked
        };
        match ordered {
            true => in_order::sum_in_order(n.div_ceil(chunk_len), link_chunk),
            false => in_order::sum_spread(n.div_ceil(chunk_len), link_chunk),
        }
    }

    /// Links every in-arc of `v`; returns how many.
    fn in_arcs(&self, v: VertexId) -> u64 {
        let (forest, csr) = (self.forest, self.graph.in_csr());
        let arcs = csr.range(v);
        for i in arcs.clone() {
            let u = csr.targets()[i];
            let dst = forest.now[v as usize].load();
            let src_out_degree = self.state.out_degree(u);
            let message = self.program.compute(Edge {
                src: self.sent_by(forest, u),
                dst,
                weight: self.in_weights.get(i),
                src_out_degree,
            });
            link_message(forest, forest.parent_named(v as usize, dst), message);
        }
        arcs.len() as u64
    }

    /// What `u` sends along an arc: its label (a vertex of its class).
    #[inline]
    fn sent_by(&self, forest: Forest<'_, P>, u: VertexId) -> P::Message {
        let label = forest.now[u as usize].load();
        self.program.source_value(self.state.vertex(u), label, label)
    }

    /// Points every vertex at its root. Each vertex replaces its parent by its grandparent until they
    /// agree, storing only its own value: the others see each of its steps, so chains shorten for all.
    fn flatten(&self) {
        let n = self.forest.n;
        // In increasing order: a vertex's parent is a lower vertex, whose chunk has then mostly run.
        in_order::sum_in_order(n.div_ceil(CHUNK), |chunk| {
            let forest = self.forest;
            let (first, end) = (chunk * CHUNK, ((chunk + 1) * CHUNK).min(n));
            for v in first..end {
                let mut parent = forest.parent(v);
                loop {
                    let grandparent = forest.parent(parent);
                    if grandparent == parent {
                        break;
                    }
                    forest.now[v].store(label::<P>(grandparent));
                    parent = grandparent;
                }
            }
            0
        });
    }

    /// The root most of [`SAMPLES`] vertices drawn at random point at (after [`Links::flatten`]).
    fn largest_class(&self) -> Option<P::Value> {
        let n = self.state.len();
        if n == 0 {
            return None;
        }
        let mut rng = WyRand::new(n as u64);
        let roots = (0..SAMPLES).map(|_| self.forest.root(rng.below(n as u64) as usize) as u64).collect::<Vec<_>>();
        largest_class(roots).map(|root| label::<P>(root as usize))
    }
}

/// Links the vertex `v`'s value names, `parent`, with the vertex `message` names, if it names one.
#[inline]
fn link_message<P: ProgramHints>(forest: Forest<'_, P>, parent: usize, message: P::Value) {
    if let Some(named) = labelled_vertex(message, forest.n) {
        forest.link(parent, named);
    }
}

/// Vertex `v`'s id as a value.
#[inline]
fn label<P: ProgramHints>(v: usize) -> P::Value {
    P::Value::narrow(Wide::Unsigned(v as u64))
}
