//! Push step: Compute over the out-edges of the active vertices, combining atomically at the
//! destinations. Vertices of the block and grid degree classes are split into edge chunks.

use rayon::prelude::*;

use super::record::{Bin, BinPolicy};
use super::state::VertexState;
use crate::acc::{Apply, AtomicCell, Edge, Program, WeightView};
use crate::VertexId;

/// Runs one push step from `frontier`; returns the merged bins.
pub(crate) fn push_step<P: Program>(
    program: &P,
    state: &VertexState<'_, P>,
    weights: &WeightView<'_, P::Weight>,
    frontier: &[VertexId],
    split: u64,
    bins: &BinPolicy,
) -> Bin {
    let csr = state.graph.out_csr();
    let small = frontier
        .par_iter()
        .with_min_len(64)
        .fold(Bin::default, |mut bin, &u| {
            if csr.degree(u) < split {
                push_edges(program, state, weights, u, csr.range(u), bins, &mut bin);
            }
            bin
        })
        .reduce(Bin::default, Bin::merge);
    let hubs: Vec<VertexId> = frontier.par_iter().copied().filter(|&u| csr.degree(u) >= split).collect();
    if hubs.is_empty() {
        return small;
    }
    let chunks: Vec<(VertexId, std::ops::Range<usize>)> = hubs
        .iter()
        .flat_map(|&u| {
            let r = csr.range(u);
            let chunk = super::pull::chunk_len(split);
            (r.start..r.end).step_by(chunk).map(move |s| (u, s..(s + chunk).min(r.end)))
        })
        .collect();
    let big = chunks
        .into_par_iter()
        .fold(Bin::default, |mut bin, (u, range)| {
            push_edges(program, state, weights, u, range, bins, &mut bin);
            bin
        })
        .reduce(Bin::default, Bin::merge);
    small.merge(big)
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
    let src = state.seen[u as usize].load();
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
