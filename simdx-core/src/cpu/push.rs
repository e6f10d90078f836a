//! Push step: Compute over the out-edges of the active vertices, combining atomically at the
//! destinations. A small frontier runs on the calling thread (waking workers would cost more than
//! the edges); a large one runs in tasks of about [`TASK_EDGES`] edges, and vertices of the grid
//! degree class are split into edge chunks so that one hub cannot stall a thread.

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
        let mut bin = Bin::default();
        push_list(program, state, weights, frontier, u64::MAX, bins, &mut bin);
        return bin;
    }
    let task_len = (frontier.len() as u64 * TASK_EDGES / out_edges).max(1) as usize;
    let mut small = frontier
        .par_chunks(task_len)
        .fold(Bin::default, |mut bin, list| {
            push_list(program, state, weights, list, split, bins, &mut bin);
            bin
        })
        .reduce(Bin::default, Bin::merge);
    let hubs = std::mem::take(&mut small.hubs);
    if hubs.is_empty() {
        return small;
    }
    let big = hub_chunks(state, &hubs, split)
        .into_par_iter()
        .fold(Bin::default, |mut bin, (u, range)| {
            push_edges(program, state, weights, u, range, bins, &mut bin);
            bin
        })
        .reduce(Bin::default, Bin::merge);
    small.merge(big)
}

/// The out-arcs of `hubs` cut into chunks of [`super::pull::chunk_len`] arcs.
fn hub_chunks<P: Program>(
    state: &VertexState<'_, P>,
    hubs: &[VertexId],
    split: u64,
) -> Vec<(VertexId, std::ops::Range<usize>)> {
    let csr = state.graph.out_csr();
    let chunk = super::pull::chunk_len(split);
    hubs.iter()
        .flat_map(|&u| {
            let r = csr.range(u);
            (r.start..r.end).step_by(chunk).map(move |s| (u, s..(s + chunk).min(r.end)))
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
    bin: &mut Bin,
) {
    let csr = state.graph.out_csr();
    for (k, &u) in list.iter().enumerate() {
        if let Some(&ahead) = list.get(k + prefetch::AHEAD) {
            prefetch::adjacency(csr, weights, ahead);
        }
        let range = csr.range(u);
        if (range.len() as u64) < split {
            push_edges(program, state, weights, u, range, bins, bin);
        } else {
            bin.hubs.push(u);
        }
    }
}

/// Pushes `u`'s updates along its out-arcs `range`.
#[inline]
fn push_edges<P: Program>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    u: VertexId,
    range: std::ops::Range<usize>,
    bins: &BinPolicy,
    bin: &mut Bin,
) {
    let targets = state.graph.out_csr().targets();
    let src = state.pushed_by(program, u);
    let src_out_degree = state.out_degree(u);
    bin.edges += range.len() as u64;
    for i in range {
        let v = targets[i];
        let dst = state.now[v as usize].load();
        if !program.can_update(dst) {
            continue;
        }
        let update = program.compute(Edge { src, dst, weight: weights.get(i), src_out_degree });
        let reached = match P::APPLY {
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
        if reached && state.touched.insert(v) {
            bins.record(bin, v);
        }
    }
}
