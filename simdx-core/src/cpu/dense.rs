//! The dense step of [`Apply::Every`] programs (PageRank, SpMV) while their steps pull: one fused pass over edge-balanced vertex ranges gathers each vertex's in-edges,
//! applies the result, tests whether the vertex stays active, and already computes what it will
//! send next iteration ([`Program::source_value`]) and its share of the next iteration's
//! [`Program::global`] sum. Nothing is allocated per iteration; the two send buffers are swapped.
//! While some vertices are inactive (PageRank with a tolerance: ranks that settled), the step stays
//! dense and the gathers skip the arcs of sources that send nothing, by a bit per vertex beside the
//! send buffer; with most vertices active that test is well predicted, and the general pull step
//! (frontier bitmap, separate snapshot and apply passes) takes longer. The test is still a large part
//! of such an iteration; an aggregation program with a message that contributes nothing
//! ([`ProgramHints::SILENT`], PageRank's `0.0`) has it stored for the vertices that do not send, and its
//! gathers test nothing.
//!
//! The send buffers are plain vectors, not atomics: during a step the sources' buffer is only read,
//! and each vertex range writes its own slice of the next one. A relaxed atomic load per arc kept
//! the compiler from scheduling the gather's loads together.
//!
//! Measurements: `docs/experiments/cpu-pagerank.md`, "Measurements behind the dense step's layout".

use std::ops::Range;

use rayon::prelude::*;

use super::record::filled;
use super::state::VertexState;
use crate::acc::{convert, Apply, AtomicCell, CombineKind, Edge, ProgramHints, Value, WeightView};
use crate::{Csr, VertexId};

/// Work (edges plus vertices) per vertex range, roughly.
const TASK_WORK: u64 = 16 * 1024;

/// The buffers and partition of the dense step, made once per run.
pub(crate) struct Dense<P: ProgramHints> {
    /// What each vertex sends this iteration.
    send: Vec<P::Message>,
    /// What each vertex will send next iteration, filled by the fused pass.
    next: Vec<P::Message>,
    /// Whether each vertex sends this iteration (is active), one bit per vertex (small enough to stay
    /// in the first-level cache); read only when not all do and the program has no silent message.
    sending: Vec<u64>,
    /// Whether each vertex will send next iteration, filled by the fused pass.
    sending_next: Vec<u64>,
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
    /// Vertices active afterwards and within the current bucket: those that send next iteration.
    pub(crate) near: u64,
    /// Their out-edges.
    pub(crate) out_edges: u64,
    /// The sum of [`Program::global`] over the new values.
    global: f64,
}

impl DenseStep {
    fn add(mut self, other: DenseStep) -> DenseStep {
        self.edges += other.edges;
        self.change += other.change;
        self.near += other.near;
        self.out_edges += other.out_edges;
        self.global += other.global;
        self
    }
}

impl<P: ProgramHints> Dense<P> {
    /// Buffers for `state`'s graph; `hubs` are the vertices whose in-degree reaches `split`.
    pub(crate) fn new(state: &VertexState<'_, P>, hubs: Vec<VertexId>) -> Self {
        let n = state.len();
        let messages = || filled(n, convert(P::UNSEEN));
        let flags = || filled(n.div_ceil(64), 0);
        Dense {
            send: messages(),
            next: messages(),
            sending: flags(),
            sending_next: flags(),
            global: 0.0,
            ready: false,
            ranges: ranges(state.graph.in_csr()),
            hubs,
        }
    }

    /// Marks the send buffer stale: values changed outside the dense step.
    pub(crate) fn invalidate(&mut self) {
        self.ready = false;
    }

    /// Runs one iteration: every vertex gathers from the sources that send, applies and is tested
    /// against `bucket`; the inactive vertices keep their seen value and add nothing to the global
    /// sum. `all_active`: every vertex is known to be active and within `bucket` (the last dense step
    /// or the first frontier found so), which spares testing vertices and sources.
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
        let sources = Sources { send: &self.send, sending: &self.sending, global: self.global };
        let step = per_range(&self.ranges, &mut self.next, &mut self.sending_next)
            .into_par_iter()
            .map(|(r, next, flags)| match all_active {
                true => sources.range_step::<true>(program, state, weights, r, next, flags, split, bucket),
                false => sources.range_step::<false>(program, state, weights, r, next, flags, split, bucket),
            })
            .reduce(DenseStep::default, DenseStep::add);
        std::mem::swap(&mut self.send, &mut self.next);
        std::mem::swap(&mut self.sending, &mut self.sending_next);
        self.global = step.global;
        self.ready = true;
        DenseStep { edges: step.edges + hub_edges, ..step }
    }

    /// Fills the send buffer, the sending flags and the global sum from the current values.
    fn prepare(&mut self, program: &P, state: &VertexState<'_, P>) {
        self.global = per_range(&self.ranges, &mut self.send, &mut self.sending)
            .into_par_iter()
            .map(|(r, send, sending)| {
                let mut global = 0.0;
                let mut flags = Flags::new(sending);
                for (k, v) in r.enumerate() {
                    let (vertex, value) = (state.vertex(v), state.now[v as usize].load());
                    let sent = state.seen[v as usize].load();
                    let active = program.active(value, sent);
                    let message = match Sources::<P>::SILENT {
                        Some(silent) if !active => silent,
                        _ => program.source_value(vertex, value, sent),
                    };
                    send[k] = message;
                    flags.push(active);
                    if P::USES_GLOBAL && active {
                        global += program.global(vertex, value, sent);
                    }
                }
                flags.flush();
                global
            })
            .sum();
        self.ready = true;
    }

    /// Gathers the in-edges of every hub in parallel chunks into its accumulator (testing whether
    /// each source sends); returns the edges inspected.
    fn gather_hubs(
        &self,
        program: &P,
        state: &VertexState<'_, P>,
        weights: &WeightView<'_, P::Weight>,
        split: u64,
    ) -> u64 {
        let csr = state.graph.in_csr();
        let targets = csr.targets();
        let chunk = super::pull::chunk_len(split);
        let sources = Sources { send: &self.send, sending: &self.sending, global: self.global };
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
                .map(|s| {
                    sources.gather::<false>(program, state, weights, dst, &targets[s..(s + chunk).min(range.end)], s)
                })
                .reduce(|| (P::IDENTITY, 0), |a, b| (program.combine(a.0, b.0), a.1 + b.1));
            state.acc[v as usize].store(combined);
            edges += inspected;
        }
        edges
    }
}

/// What the sources send in the current iteration: read, never written, during a step.
struct Sources<'a, P: ProgramHints> {
    /// Each vertex's message.
    send: &'a [P::Message],
    /// Whether each vertex sends, a bit per vertex.
    sending: &'a [u64],
    /// The sum of [`Program::global`] handed to every vertex's apply.
    global: f64,
}

impl<P: ProgramHints> Sources<'_, P> {
    /// The fused pass over the vertices `range`, which writes their next messages into `next` and
    /// their sending bits into `flags` (both the range's own slices); `ALL_ACTIVE` as `all_active` in
    /// [`Dense::step`]. The sums are kept in locals: through `&mut DenseStep` they would be stored
    /// every vertex.
    #[allow(clippy::too_many_arguments)]
    fn range_step<const ALL_ACTIVE: bool>(
        &self,
        program: &P,
        state: &VertexState<'_, P>,
        weights: &WeightView<'_, P::Weight>,
        range: Range<VertexId>,
        next: &mut [P::Message],
        flags: &mut [u64],
        split: u64,
        bucket: u32,
    ) -> DenseStep {
        // The in-CSR's slices, taken once: through the graph they would be looked up every vertex.
        let (offsets, targets) = (state.graph.in_csr().offsets(), state.graph.in_csr().targets());
        let global = self.global;
        let (mut edges_seen, mut change, mut near, mut out_edges, mut next_global) = (0, 0.0, 0, 0, 0.0);
        let mut flags = Flags::new(flags);
        for (next, v) in next.iter_mut().zip(range) {
            let i = v as usize;
            let old = state.now[i].load();
            let edges = offsets[i] as usize..offsets[i + 1] as usize;
            let combined = if edges.len() as u64 >= split {
                let combined = state.acc[i].load();
                state.acc[i].store(P::IDENTITY);
                combined
            } else if program.can_update(old) {
                let (combined, inspected) =
                    self.gather::<ALL_ACTIVE>(program, state, weights, old, &targets[edges.clone()], edges.start);
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
            let sends = program.active(new, sent) && program.bucket(new) <= bucket;
            flags.push(sends);
            if sends {
                near += 1;
                out_edges += u64::from(vertex.out_degree);
                *next = program.source_value(vertex, new, sent);
                if P::USES_GLOBAL {
                    next_global += program.global(vertex, new, sent);
                }
            } else if let Some(silent) = Self::SILENT {
                *next = silent;
            }
        }
        flags.flush();
        DenseStep { edges: edges_seen, change, near, out_edges, global: next_global }
    }

    /// The message the vertices that do not send hold ([`ProgramHints::SILENT`]), for aggregation programs
    /// that have one: their gathers then need not test each source.
    const SILENT: Option<P::Message> = match P::KIND {
        CombineKind::Aggregate => P::SILENT,
        CombineKind::Voting => None,
    };

    /// Whether `u` sends this iteration.
    #[inline(always)]
    fn sends(&self, u: VertexId) -> bool {
        self.sending[u as usize / 64] & (1 << (u % 64)) != 0
    }

    /// Combines the updates along the in-arcs `first..first + sources.len()` (whose sources are
    /// `sources`) of a vertex holding `dst`; returns the combined
    /// update ([`Program::IDENTITY`] if none) and the arcs inspected. Unless `ALL_SEND`, sources that
    /// do not send are skipped, or hold [`ProgramHints::SILENT`]. Aggregation programs combine into four independent partial results
    /// (combine is commutative and associative), so that consecutive edges do not wait for each other.
    #[inline(always)]
    fn gather<const ALL_SEND: bool>(
        &self,
        program: &P,
        state: &VertexState<'_, P>,
        weights: &WeightView<'_, P::Weight>,
        dst: P::Value,
        sources: &[VertexId],
        first: usize,
    ) -> (P::Value, u64) {
        let silent_sources = !ALL_SEND && Self::SILENT.is_some();
        let update = |u: VertexId, i: usize| {
            if !ALL_SEND && !silent_sources && !self.sends(u) {
                return P::IDENTITY;
            }
            debug_assert!((u as usize) < self.send.len(), "arc {i} leads to vertex {u}, past the graph");
            // SAFETY: `u` is a target of the in-CSR, and a CSR's targets are below its vertex count
            // (`Csr::from_parts` checks it), which is `send`'s length. A bounds check would add a
            // compare and branch per arc beside one load, a visible share of a PageRank iteration
            // (measurements: docs/experiments/cpu-pagerank.md).
            let src = unsafe { *self.send.get_unchecked(u as usize) };
            let update =
                program.compute(Edge { src, dst, weight: weights.get(i), src_out_degree: state.out_degree(u) });
            debug_assert!(
                !silent_sources || self.sends(u) || update == P::IDENTITY,
                "ProgramHints::SILENT promises that Compute maps it to IDENTITY, but on arc {i} it gave {update:?}"
            );
            update
        };
        if P::KIND == CombineKind::Voting {
            // The first source that sends decides.
            return match sources.iter().position(|&u| ALL_SEND || self.sends(u)) {
                Some(k) => (update(sources[k], first + k), k as u64 + 1),
                None => (P::IDENTITY, sources.len() as u64),
            };
        }
        let mut part = [P::IDENTITY; 4];
        let mut quads = sources.chunks_exact(4);
        let mut i = first;
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
        (combined, sources.len() as u64)
    }
}

/// The sending bits of one vertex range, written a word at a time into the range's own words (its
/// first vertex is a multiple of 64).
struct Flags<'a> {
    words: &'a mut [u64],
    /// The bits of the word being filled.
    word: u64,
    /// The next vertex, counted from the range's first.
    at: usize,
    /// Whether `word` holds bits not stored yet.
    pending: bool,
}

impl<'a> Flags<'a> {
    fn new(words: &'a mut [u64]) -> Self {
        Flags { words, word: 0, at: 0, pending: false }
    }

    /// Sets the next vertex's bit to `on`.
    #[inline]
    fn push(&mut self, on: bool) {
        self.word |= u64::from(on) << (self.at % 64);
        self.at += 1;
        self.pending = true;
        if self.at % 64 == 0 {
            self.flush();
        }
    }

    /// Stores the word being filled.
    #[inline]
    fn flush(&mut self) {
        if self.pending {
            self.words[(self.at - 1) / 64] = self.word;
            self.word = 0;
            self.pending = false;
        }
    }
}

/// Each of `ranges` (contiguous, from vertex 0, each starting at a multiple of 64) with its own slice
/// of `per_vertex` and of `bits` (a bit per vertex, 64 to a word), so that the ranges can be written
/// in parallel.
fn per_range<'a, T>(
    ranges: &[Range<VertexId>],
    mut per_vertex: &'a mut [T],
    mut bits: &'a mut [u64],
) -> Vec<(Range<VertexId>, &'a mut [T], &'a mut [u64])> {
    ranges
        .iter()
        .map(|r| {
            debug_assert_eq!(r.start % 64, 0, "ranges start at multiples of 64");
            let len = r.len();
            let (values, rest) = std::mem::take(&mut per_vertex).split_at_mut(len);
            per_vertex = rest;
            let (words, rest) = std::mem::take(&mut bits).split_at_mut(len.div_ceil(64));
            bits = rest;
            (r.clone(), values, words)
        })
        .collect()
}

/// Cuts the vertices of `csr` into ranges of about [`TASK_WORK`] in-edges plus vertices each (at
/// least four per thread; each starts at a multiple of 64, see [`Flags`]), by binary search on the
/// offsets.
fn ranges(csr: &Csr) -> Vec<Range<VertexId>> {
    let n = csr.num_vertices();
    let offsets = csr.offsets();
    let work = |v: usize| offsets[v] + v as u64;
    let total = work(n);
    let pieces = (total / TASK_WORK).max(4 * rayon::current_num_threads() as u64).min(n as u64).max(1);
    let mut bounds: Vec<usize> = (0..=pieces)
        .map(|j| {
            let target = (u128::from(total) * u128::from(j) / u128::from(pieces)) as u64;
            let first = first_reaching(n, target, work);
            if first == n {
                n
            } else {
                first / 64 * 64
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::GeneratorSpec;

    #[test]
    fn ranges_cover_every_vertex_once_and_start_at_multiples_of_64() {
        for spec in ["kron:12", "grid:5x3", "urand:9"] {
            let g = GeneratorSpec::parse(spec).unwrap().generate(1).unwrap();
            let ranges = ranges(g.in_csr());
            assert_eq!(ranges.first().map(|r| r.start), Some(0), "{spec}");
            assert_eq!(ranges.last().map(|r| r.end), Some(g.num_vertices() as VertexId), "{spec}");
            for pair in ranges.windows(2) {
                assert_eq!(pair[0].end, pair[1].start, "{spec}: contiguous");
                assert!(pair[1].start % 64 == 0 && pair[0].start < pair[0].end, "{spec}: {pair:?}");
            }
        }
    }

    #[test]
    fn flags_store_each_vertexs_bit_in_its_ranges_words() {
        let ranges = [0..128, 128..198];
        let mut values = vec![0u32; 198];
        let mut words = [u64::MAX; 5];
        let on = |v: usize| v % 3 == 0 || v == 150;
        for (r, values, words) in per_range(&ranges, &mut values, &mut words[..]) {
            assert_eq!((values.len(), words.len()), (r.len(), r.len().div_ceil(64)), "{r:?}");
            let mut flags = Flags::new(words);
            for (value, v) in values.iter_mut().zip(r) {
                *value = v;
                flags.push(on(v as usize));
            }
            flags.flush();
        }
        assert_eq!(values, (0..198).collect::<Vec<u32>>(), "each range writes its own values");
        for v in 0..198 {
            assert_eq!(words[v / 64] >> (v % 64) & 1 == 1, on(v), "vertex {v}");
        }
        assert_eq!(words[4], u64::MAX, "words past the last range are left alone");
    }
}
