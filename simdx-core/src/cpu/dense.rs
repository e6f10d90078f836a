//! The dense step of [`Apply::Every`] programs (PageRank, SpMV) while every vertex is active and the
//! step pulls: one fused pass over edge-balanced vertex ranges gathers each vertex's in-edges,
//! applies the result, tests whether the vertex stays active, and already computes what it will
//! send next iteration ([`Program::source_value`]) and its share of the next iteration's
//! [`Program::global`] sum. Nothing is allocated per iteration; the two send buffers are swapped.
//! The step stays dense while every vertex with out-edges is active: the inactive ones (dangling
//! vertices whose rank settled, say) then send along no arc.

use std::ops::Range;

use rayon::prelude::*;

use super::state::VertexState;
use crate::acc::{convert, Apply, AtomicCell, CombineKind, Edge, Program, Value, WeightView};
use crate::{Csr, VertexId};

/// Work (edges plus vertices) per vertex range, roughly.
const TASK_WORK: u64 = 16 * 1024;

type Cell<P> = <<P as Program>::Message as Value>::Cell;

/// The buffers and partition of the dense step, made once per run.
pub(crate) struct Dense<P: Program> {
    /// What each vertex sends this iteration.
    send: Vec<Cell<P>>,
    /// What each vertex will send next iteration, filled by the fused pass.
    next: Vec<Cell<P>>,
    /// The sum of [`Program::global`] over the current values and the values last processed.
    global: f64,
    /// Whether `send` and `global` match the current values (false after a general iteration).
    ready: bool,
    /// Vertex ranges of about [`TASK_WORK`] in-edges and vertices each.
    ranges: Vec<Range<VertexId>>,
    /// Vertices whose in-degree reaches the split threshold.
    hubs: Vec<VertexId>,
}

/// What one dense iteration did.
#[derive(Default)]
pub(crate) struct DenseStep {
    /// In-edges inspected.
    pub(crate) edges: u64,
    /// The sum of `|new - old|` over all vertices.
    pub(crate) change: f64,
    /// Vertices active afterwards and within the current bucket.
    pub(crate) near: u64,
    /// Vertices with out-edges that are not among them: while there are none, the next iteration
    /// can be dense too (the inactive vertices send along no arc).
    pub(crate) idle_senders: u64,
    /// The sum of [`Program::global`] over the new values.
    global: f64,
}

impl DenseStep {
    fn add(mut self, other: DenseStep) -> DenseStep {
        self.edges += other.edges;
        self.change += other.change;
        self.near += other.near;
        self.idle_senders += other.idle_senders;
        self.global += other.global;
        self
    }
}

impl<P: Program> Dense<P> {
    /// Buffers for `state`'s graph; `hubs` are the vertices whose in-degree reaches `split`.
    pub(crate) fn new(state: &VertexState<'_, P>, hubs: Vec<VertexId>) -> Self {
        let n = state.len();
        let cells = || (0..n).into_par_iter().map(|_| Cell::<P>::new(convert(P::UNSEEN))).collect();
        Dense { send: cells(), next: cells(), global: 0.0, ready: false, ranges: ranges(state.graph.in_csr()), hubs }
    }

    /// Marks the send buffer stale: values changed outside the dense step.
    pub(crate) fn invalidate(&mut self) {
        self.ready = false;
    }

    /// Runs one iteration: every vertex gathers, applies and is tested against `bucket`. Every vertex
    /// that sends along an arc must be active (see [`DenseStep::idle_senders`]); the inactive others
    /// keep their seen value and add nothing to the global sum. `all_active`: every vertex is known to
    /// be active and within `bucket` (the last dense step found so), which spares testing it.
    pub(crate) fn step(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
        weights: &WeightView<'_, P::Weight>,
        split: u64,
        bucket: u32,
        all_active: bool,
    ) -> DenseStep {
        debug_assert_eq!(P::APPLY, Apply::Every);
        if !self.ready {
            self.prepare(program, state);
        }
        let hub_edges = self.gather_hubs(program, state, weights, split);
        let this = &*self;
        let step = this
            .ranges
            .par_iter()
            .map(|r| match all_active {
                true => this.range_step::<true>(program, state, weights, r.clone(), split, bucket),
                false => this.range_step::<false>(program, state, weights, r.clone(), split, bucket),
            })
            .reduce(DenseStep::default, DenseStep::add);
        std::mem::swap(&mut self.send, &mut self.next);
        self.global = step.global;
        self.ready = true;
        DenseStep { edges: step.edges + hub_edges, ..step }
    }

    /// Fills the send buffer and the global sum from the current values.
    fn prepare(&mut self, program: &P, state: &VertexState<'_, P>) {
        let send = &self.send;
        self.global = self
            .ranges
            .par_iter()
            .map(|r| {
                let mut global = 0.0;
                for v in r.clone() {
                    let (vertex, value) = (state.vertex(v), state.now[v as usize].load());
                    let sent = state.seen[v as usize].load();
                    send[v as usize].store(program.source_value(vertex, value, sent));
                    if P::USES_GLOBAL && program.active(value, sent) {
                        global += program.global(vertex, value, sent);
                    }
                }
                global
            })
            .sum();
        self.ready = true;
    }

    /// Gathers the in-edges of every hub in parallel chunks into its accumulator; returns the edges
    /// inspected.
    fn gather_hubs(
        &self,
        program: &P,
        state: &VertexState<'_, P>,
        weights: &WeightView<'_, P::Weight>,
        split: u64,
    ) -> u64 {
        let csr = state.graph.in_csr();
        let chunk = super::pull::chunk_len(split);
        let mut edges = 0;
        for &v in &self.hubs {
            let dst = state.now[v as usize].load();
            if !program.can_update(dst) {
                continue;
            }
            let range = csr.range(v);
            let (combined, inspected) = (range.start..range.end)
                .into_par_iter()
                .step_by(chunk)
                .map(|s| self.gather(program, state, weights, dst, s..(s + chunk).min(range.end)))
                .reduce(|| (P::IDENTITY, 0), |a, b| (program.combine(a.0, b.0), a.1 + b.1));
            state.acc[v as usize].store(combined);
            edges += inspected;
        }
        edges
    }

    /// The fused pass over the vertices `range`; `ALL_ACTIVE` as `all_active` in [`Dense::step`].
    /// The sums are kept in locals: through `&mut DenseStep` they would be stored every vertex.
    fn range_step<const ALL_ACTIVE: bool>(
        &self,
        program: &P,
        state: &VertexState<'_, P>,
        weights: &WeightView<'_, P::Weight>,
        range: Range<VertexId>,
        split: u64,
        bucket: u32,
    ) -> DenseStep {
        let csr = state.graph.in_csr();
        let global = self.global;
        let (mut edges_seen, mut change, mut near, mut idle_senders, mut next_global) = (0, 0.0, 0, 0, 0.0);
        for v in range {
            let i = v as usize;
            let old = state.now[i].load();
            let edges = csr.range(v);
            let combined = if edges.len() as u64 >= split {
                let combined = state.acc[i].load();
                state.acc[i].store(P::IDENTITY);
                combined
            } else if program.can_update(old) {
                let (combined, inspected) = self.gather(program, state, weights, old, edges);
                edges_seen += inspected;
                combined
            } else {
                P::IDENTITY
            };
            let vertex = state.vertex(v);
            let new = program.apply(vertex, old, combined, global);
            // Whether v was processed (active) this iteration: then what it sent is `old`.
            let sent = if ALL_ACTIVE {
                state.seen[i].store(old);
                old
            } else {
                let seen = state.seen[i].load();
                if program.active(old, seen) && program.bucket(old) <= bucket {
                    state.seen[i].store(old);
                    old
                } else {
                    seen
                }
            };
            state.now[i].store(new);
            if new != old {
                change += (new.to_f64() - old.to_f64()).abs();
            }
            if program.active(new, sent) && program.bucket(new) <= bucket {
                near += 1;
                self.next[i].store(program.source_value(vertex, new, sent));
                if P::USES_GLOBAL {
                    next_global += program.global(vertex, new, sent);
                }
            } else if vertex.out_degree > 0 {
                idle_senders += 1;
            }
        }
        DenseStep { edges: edges_seen, change, near, idle_senders, global: next_global }
    }

    /// Combines the updates along the in-arcs `range` of a vertex holding `dst`; returns the combined
    /// update ([`Program::IDENTITY`] if none) and the arcs inspected. Aggregation programs combine
    /// into four independent partial results (combine is commutative and associative), so that
    /// consecutive edges do not wait for each other.
    #[inline(always)]
    fn gather(
        &self,
        program: &P,
        state: &VertexState<'_, P>,
        weights: &WeightView<'_, P::Weight>,
        dst: P::Value,
        range: Range<usize>,
    ) -> (P::Value, u64) {
        let sources = &state.graph.in_csr().targets()[range.clone()];
        let update = |u: VertexId, i: usize| {
            let src = self.send[u as usize].load();
            program.compute(Edge { src, dst, weight: weights.get(i), src_out_degree: state.out_degree(u) })
        };
        if P::KIND == CombineKind::Voting {
            return match sources.first() {
                Some(&u) => (update(u, range.start), 1),
                None => (P::IDENTITY, 0),
            };
        }
        let mut part = [P::IDENTITY; 4];
        let mut quads = sources.chunks_exact(4);
        let mut i = range.start;
        for quad in &mut quads {
            for (k, p) in part.iter_mut().enumerate() {
                *p = program.combine(*p, update(quad[k], i + k));
            }
            i += 4;
        }
        for (k, &u) in quads.remainder().iter().enumerate() {
            part[k] = program.combine(part[k], update(u, i + k));
        }
        let combined = program.combine(program.combine(part[0], part[1]), program.combine(part[2], part[3]));
        (combined, range.len() as u64)
    }
}

/// Cuts the vertices of `csr` into ranges of about [`TASK_WORK`] in-edges plus vertices each (at
/// least four per thread), by binary search on the offsets.
fn ranges(csr: &Csr) -> Vec<Range<VertexId>> {
    let n = csr.num_vertices();
    let offsets = csr.offsets();
    let work = |v: usize| offsets[v] + v as u64;
    let total = work(n);
    let pieces = (total / TASK_WORK).max(4 * rayon::current_num_threads() as u64).min(n as u64).max(1);
    let mut bounds: Vec<usize> = (0..=pieces)
        .map(|j| {
            let target = (u128::from(total) * u128::from(j) / u128::from(pieces)) as u64;
            first_reaching(n, target, work)
        })
        .collect();
    bounds.dedup();
    bounds.windows(2).map(|w| w[0] as VertexId..w[1] as VertexId).collect()
}

/// The first `v` in `0..=n` with `work(v) >= target` (`work` non-decreasing, `work(n) >= target`).
fn first_reaching(n: usize, target: u64, work: impl Fn(usize) -> u64) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if work(mid) < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
