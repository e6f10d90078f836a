//! Pull step: every vertex that can still change scans its in-edges for active sources and combines
//! their updates locally, without atomics; voting programs stop at the first update. Vertices of the
//! block and grid classes scan their in-edges in parallel chunks.

use rayon::prelude::*;

use super::bitmap::{self, AtomicBitmap};
use super::handed::{Handed, Tally};
use super::prefetch;
use super::record::{concat, Bin, BinPolicy};
use super::senders::NO_SENDER;
use super::state::VertexState;
use crate::acc::{Apply, AtomicCell, CombineKind, Edge, ProgramHints, WeightView};
use crate::{Csr, VertexId};

/// Vertices one task of a pull step takes (consecutive: the task is the one writer of their "touched"
/// flags and sets them without a locked instruction).
const PULL_BLOCK: VertexId = 2048;
/// How many candidates ahead a pull task fetches the start of an in-list.
const PULL_AHEAD: usize = 16;

/// What one block of a pull recorded (its slots in use), the in-arcs it inspected, what a handing-on
/// pull found of the vertices it reached, and its vertices of the split degree that can still change.
type BlockResult<M> = (usize, u64, Option<Tally<M>>, Vec<VertexId>);

/// Runs one pull step; `in_frontier` marks the active sources (`None`: every vertex is active);
/// `uniform` is the message every active source sends, when they all send the same one (BFS: the
/// level), so that a source found is not read; `slots` (one per vertex) is where each block records
/// the vertices it reaches before they are gathered. Vertices whose in-degree reaches `split` are
/// left out of their blocks, which list those that can still change: their in-arcs are scanned
/// after, in parallel chunks (no list of them is made per run: a pass over every degree cost each
/// run's first pull more than the blocks' skipping does; measurements: `docs/experiments/cpu-bfs.md`,
/// "Pulls find their hubs in their blocks").
///
/// `hand_on`: an empty bitmap and the current bucket, for a voting program whose pull may hand its
/// next frontier on as a bitmap (module doc of `cpu`): each block then marks the vertices it reaches
/// in words of its own instead of recording them in its slots, stores those words in the bitmap,
/// and counts and tests their vertices (active, within the bucket, one message) while they are in
/// cache; if every one passes, the step returns them as [`Handed`] and lists nothing (no copy of
/// millions of vertex ids, no selection pass, and the next pull needs no membership pass).
/// Otherwise the step lists them from the bitmap, in increasing order, and leaves it clear.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pull_step<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    in_frontier: Option<&AtomicBitmap>,
    uniform: Option<P::Message>,
    split: u64,
    bins: &BinPolicy,
    slots: &mut [VertexId],
    hand_on: Option<(&AtomicBitmap, u32)>,
) -> (Bin, Option<Handed<P::Message>>) {
    let csr = state.graph.in_csr();
    let n = state.len() as VertexId;
    let in_arcs = InArcs { program, state, weights, in_frontier, uniform };
    // Blocks of consecutive vertices, each a plain loop: most vertices of a late step cannot change
    // and cost a load or two, so the loop around them must cost nothing either. A block reaches at
    // most its own vertices, so it records them in its own slots: a step that reaches millions of
    // vertices allocates nothing per block (growing a bin per task put a large share of a big pull's
    // time in the allocator; measurements: docs/experiments/cpu-bfs.md).
    let limit = bins.limit().min(PULL_BLOCK as usize);
    // Every vertex is finished by one task, once, so its "touched" flag only serves a ballot scan,
    // which bins that cannot overflow never need: a block's bin holds at most its PULL_BLOCK vertices,
    // the hubs' bins at most every hub (at most arcs / split of them).
    let most_hubs = if csr.max_degree() < split { 0 } else { csr.num_arcs() / split.max(1) };
    let flags = bins.limit() < PULL_BLOCK as usize || (bins.limit() as u64) < most_hubs;
    // The reached vertices' tests of a handing-on pull, which needs every vertex marked.
    let hand_on = hand_on.filter(|_| !flags && P::KIND == CombineKind::Voting && P::APPLY == Apply::InPlace);
    let marks = hand_on.is_some();
    let mut small: Vec<BlockResult<P::Message>> = slots[..n as usize]
        .par_chunks_mut(PULL_BLOCK as usize)
        .enumerate()
        .map(|(block, slots)| {
            let (mut recorded, mut edges) = (0usize, 0u64);
            // Locals, not captures: reached through `state` or the closure's captures, the values'
            // address and length were loaded again for every vertex, in the loop that takes the
            // largest share of a pull's time (measurements: docs/experiments/cpu-bfs.md).
            let (offsets, sources, now, split) = (csr.offsets(), csr.targets(), &state.now[..], split);
            let first = block as VertexId * PULL_BLOCK;
            let end = first + slots.len() as VertexId;
            // One pass over the block's vertices. Most vertices of a late step cannot change: their
            // values are read first, and their in-offsets only where they can (the last pull of a
            // BFS on urand:20 then reads 4 of its 12 MB). The start of a candidate's in-list is a
            // cache miss (the candidates are scattered): a scout runs PULL_AHEAD candidates ahead
            // of the scan, fetching the start of each in-list it finds, so that several are in
            // flight. A vertex reached is recorded at or before its own slot, already passed.
            let mut window = [(0 as VertexId, 0usize, 0usize); PULL_AHEAD];
            // A handing-on pull marks the vertices it reaches here instead of recording them.
            let mut marked = [0u64; PULL_BLOCK as usize / 64];
            let (mut scout, mut found, mut taken, mut hubs) = (first, 0usize, 0usize, Vec::new());
            loop {
                while found - taken < PULL_AHEAD && scout < end {
                    let v = scout;
                    scout += 1;
                    if !program.can_update(now[v as usize].load()) {
                        continue;
                    }
                    let (i, j) = (offsets[v as usize], offsets[v as usize + 1]);
                    if j - i >= split {
                        hubs.push(v);
                    } else if j > i {
                        prefetch::element(sources, i as usize);
                        window[found % PULL_AHEAD] = (v, i as usize, j as usize);
                        found += 1;
                    }
                }
                if taken == found {
                    break;
                }
                let (v, i, j) = window[taken % PULL_AHEAD];
                taken += 1;
                let (combined, inspected) = in_arcs.pull_range(now[v as usize].load(), i..j);
                edges += inspected;
                if finish(program, state, v, combined, flags.then_some(Owner::Block)) {
                    if marks {
                        let k = (v - first) as usize;
                        marked[k / 64] |= 1 << (k % 64);
                    } else if recorded < limit {
                        slots[recorded] = v;
                        recorded += 1;
                    } else {
                        bins.overflow();
                    }
                }
            }
            // A handing-on pull marks the block's words and tests their vertices while in cache.
            let part = hand_on.map(|(next, bucket)| {
                let mut tally = Tally::new();
                let first_word = first as usize / 64;
                for (w, &bits) in marked.iter().enumerate().filter(|(_, &bits)| bits != 0) {
                    next.insert_word(first_word + w, bits);
                    tally.add(program, state, bitmap::set_bits(first + 64 * w as VertexId, bits), bucket);
                }
                tally
            });
            (recorded, edges, part, hubs)
        })
        .collect();
    let hubs: Vec<VertexId> = small.iter_mut().flat_map(|s| std::mem::take(&mut s.3)).collect();
    let edges = small.iter().map(|s| s.1).sum();
    let big = (!hubs.is_empty()).then(|| pull_hubs(&in_arcs, &hubs, split, bins, flags));
    if let Some((next, bucket)) = hand_on {
        let big_part = big.as_ref().map(|big| {
            next.insert_all(&big.vertices);
            let mut tally = Tally::new();
            tally.add(program, state, big.vertices.iter().copied(), bucket);
            tally
        });
        let tally = small.iter_mut().filter_map(|s| s.2.take()).chain(big_part).reduce(Tally::merge);
        let handed = tally.and_then(Tally::handed);
        // Not handed on: the vertices marked, listed in increasing order (the bitmap left clear).
        let vertices = if handed.is_some() { Vec::new() } else { next.take_sorted_list() };
        let edges = edges + big.map_or(0, |big| big.edges);
        return (Bin { vertices, edges, hubs: Vec::new(), unflagged: true }, handed);
    }
    let lists = slots.chunks(PULL_BLOCK as usize).zip(&small).map(|(slots, &(recorded, ..))| &slots[..recorded]);
    let small = Bin { vertices: concat(lists.collect()), edges, hubs: Vec::new(), unflagged: !flags };
    let all = match big {
        Some(big) => small.merge(big),
        None => small,
    };
    (all, None)
}

/// The pull of the vertices in `hubs` that can still change, each one's in-arcs scanned in parallel
/// chunks; returns what they reached (`flags`: whether their "touched" flags are set).
fn pull_hubs<P: ProgramHints>(
    in_arcs: &InArcs<'_, '_, P>,
    hubs: &[VertexId],
    split: u64,
    bins: &BinPolicy,
    flags: bool,
) -> Bin {
    let (program, state) = (in_arcs.program, in_arcs.state);
    let csr = state.graph.in_csr();
    let big = hubs.par_iter().copied().fold(Bin::default, |mut bin, v| {
        let dst = state.now[v as usize].load();
        if !program.can_update(dst) {
            return bin;
        }
        let range = csr.range(v);
        let chunk = chunk_len(split);
        let (combined, edges) = (range.start..range.end)
            .into_par_iter()
            .step_by(chunk)
            .map(|s| in_arcs.pull_range(dst, s..(s + chunk).min(range.end)))
            .reduce(|| (None, 0), |a, b| (merge(program, a.0, b.0), a.1 + b.1));
        bin.edges += edges;
        if finish(program, state, v, combined, flags.then_some(Owner::Shared)) {
            bins.record(&mut bin, v);
        }
        bin
    });
    Bin { unflagged: !flags, ..Bin::gather(big.collect()) }
}

/// The vertices whose in-degree reaches `split`: their in-edges are scanned in parallel chunks.
pub(crate) fn hubs(csr: &Csr, split: u64) -> Vec<VertexId> {
    // Usually none, known without a pass over the offsets, which would cost every run a pass over
    // every vertex (measurements: docs/experiments/cpu-bfs.md).
    if csr.max_degree() < split {
        return Vec::new();
    }
    let offsets = csr.offsets();
    (0..csr.num_vertices())
        .into_par_iter()
        .with_min_len(1 << 16)
        .filter(|&v| offsets[v + 1] - offsets[v] >= split)
        .map(|v| v as VertexId)
        .collect()
}

/// Edges per task when a vertex is split: a sixteenth of the split threshold, at least 256.
pub(crate) fn chunk_len(split: u64) -> usize {
    (split as usize / 16).max(256)
}

/// Two chunks' combined updates as one, with the sender of the one kept (the first chunk's where
/// they tie: the earlier in-arc).
fn merge<P: ProgramHints>(program: &P, a: Combined<P::Value>, b: Combined<P::Value>) -> Combined<P::Value> {
    match (a, b) {
        (Some((a, from_a)), Some((b, from_b))) => {
            let both = program.combine(a, b);
            Some((both, if both == a { from_a } else { from_b }))
        }
        (a, None) => a,
        (None, b) => b,
    }
}

/// The updates a scan of in-arcs combined, if any arrived, with the vertex that sent the one kept
/// ([`NO_SENDER`] for programs that aggregate: only voting programs keep senders).
type Combined<V> = Option<(V, VertexId)>;

/// What the scans of a pull step read: the program, the run's state, the in-arcs' weights, the
/// active sources (`None`: every vertex) and the message they all send, if they all send one.
struct InArcs<'a, 'g, P: ProgramHints> {
    program: &'a P,
    state: &'a VertexState<'g, P>,
    weights: &'a WeightView<'g, P::Weight>,
    in_frontier: Option<&'a AtomicBitmap>,
    uniform: Option<P::Message>,
}

impl<P: ProgramHints> InArcs<'_, '_, P> {
    /// Combines the updates from the active sources among the in-arcs `range` of a vertex holding
    /// `dst` (one that can still change); returns the combined update (if any arrived, with its sender:
    /// for a voting program the first active in-neighbour of the range) and the number of arcs
    /// inspected.
    #[inline(always)]
    fn pull_range(&self, dst: P::Value, range: std::ops::Range<usize>) -> (Combined<P::Value>, u64) {
        let (program, state, weights) = (self.program, self.state, self.weights);
        match (self.in_frontier.map(AtomicBitmap::bits), self.uniform) {
            (Some(frontier), Some(m)) => {
                scan(program, state, weights, dst, range, move |u| frontier.contains(u), |_| m)
            }
            (Some(frontier), None) => {
                scan(program, state, weights, dst, range, move |u| frontier.contains(u), |u| state.sent_by(program, u))
            }
            (None, Some(m)) => scan(program, state, weights, dst, range, |_| true, |_| m),
            (None, None) => scan(program, state, weights, dst, range, |_| true, |u| state.sent_by(program, u)),
        }
    }
}

/// The loop of [`InArcs::pull_range`], specialised for the frontier test `is_source` and the source's
/// message `sent_by`.
#[inline(always)]
fn scan<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    dst: P::Value,
    range: std::ops::Range<usize>,
    is_source: impl Fn(VertexId) -> bool,
    sent_by: impl Fn(VertexId) -> P::Message,
) -> (Combined<P::Value>, u64) {
    let (sources, weights) = (state.graph.in_csr().targets(), weights.by_ref());
    let start = range.start;
    let mut combined: Option<P::Value> = None;
    for i in range.clone() {
        let u = sources[i];
        if !is_source(u) {
            continue;
        }
        let edge = Edge { src: sent_by(u), dst, weight: weights.get(i), src_out_degree: state.out_degree(u) };
        let update = program.compute(edge);
        combined = Some(match combined {
            None => update,
            Some(c) => program.combine(c, update),
        });
        if P::KIND == CombineKind::Voting {
            return (Some((update, u)), (i + 1 - start) as u64);
        }
    }
    (combined.map(|c| (c, NO_SENDER)), range.len() as u64)
}

/// Who may set a vertex's "touched" flag.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// The task that handles the vertex's block: no other task writes the vertex's flag.
    Block,
    /// Any task (hubs, handled in parallel in no block order).
    Shared,
}

/// Stores `v`'s combined update (and its sender, where the run keeps them); returns whether `v` was
/// reached for the first time this step (to be recorded). `owner`: who may set `v`'s "touched" flag, which is set; `None`: the flag is left alone,
/// and `v` is finished once this step.
#[inline]
fn finish<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    v: VertexId,
    combined: Combined<P::Value>,
    owner: Option<Owner>,
) -> bool {
    let Some((update, from)) = combined else { return false };
    match P::APPLY {
        Apply::InPlace => {
            let old = state.now[v as usize].load();
            let new = program.combine(old, update);
            if new == old {
                return false;
            }
            state.now[v as usize].store(new);
            // One task finishes `v`: its sender's store races with no other.
            state.sent(v, from);
        }
        Apply::Received | Apply::Every => state.acc[v as usize].store(update),
    }
    match owner {
        Some(Owner::Block) => state.touched.insert_plain(v),
        Some(Owner::Shared) => state.touched.insert(v),
        None => true,
    }
}
