//! What each part of a [`Partition`] holds on its device in a partitioned run: its *share* of the
//! graph, the arcs that end at the vertices it owns, over all `n` vertices. Indexed by source (the
//! share's out-CSR) a push from any frontier vertex writes only owned vertices; indexed by target (its
//! in-CSR: the owned rows of the graph's in-CSR) a pull reads every in-arc of an owned vertex. So every
//! write of a step stays on its part's device, and a step's exchange is only the owned ranges of the
//! values and of the frontier (docs/multi-gpu.md). Programs still see each vertex's degrees in the
//! whole graph ([`whole_degrees`]), not in the share.

use std::ops::Range;

use rayon::prelude::*;

use super::Partition;
use crate::graph::array::Array;
use crate::graph::csr::Csr;
use crate::{Graph, VertexId, Weights};

/// Vertices per word of the frontier bitmaps a partitioned run exchanges: part boundaries made by
/// [`Partition::aligned`] fall on multiples of it, so that each part owns whole words.
pub const WORD_VERTICES: VertexId = 32;

impl Partition {
    /// This partition with every inner boundary moved down to a multiple of `multiple` (at least 1),
    /// so that each part owns whole words of a bitmap ([`WORD_VERTICES`]); the last part still ends
    /// at `n`. Boundaries stay in order (a part may become empty on a tiny graph).
    pub fn aligned(&self, multiple: VertexId) -> Partition {
        let multiple = multiple.max(1);
        let last = self.bounds.len() - 1;
        let bounds = self
            .bounds
            .iter()
            .enumerate()
            .map(|(i, &b)| if i == 0 || i == last { b } else { b / multiple * multiple })
            .collect();
        Partition { bounds }
    }

    /// The arcs of part `p`'s share of `graph`: the arcs into the vertices it owns.
    pub fn arcs_into(&self, graph: &Graph, p: usize) -> u64 {
        let owned = self.range(p);
        let offsets = graph.in_csr().offsets();
        offsets[owned.end as usize] - offsets[owned.start as usize]
    }

    /// The out-arcs of the vertices part `p` owns: its share in the layout of owned sources.
    pub fn arcs_from(&self, graph: &Graph, p: usize) -> u64 {
        let owned = self.range(p);
        let offsets = graph.out_csr().offsets();
        offsets[owned.end as usize] - offsets[owned.start as usize]
    }

    /// Part `p`'s share of `graph` in the layout of owned sources: the out-CSR rows of the vertices it
    /// owns, whole (their targets wherever they lie, with their weights), the other rows empty. A push
    /// from an owned frontier vertex then reaches every neighbour, and the updates of other parts'
    /// vertices travel to their owners (docs/multi-gpu.md).
    pub fn out_rows(&self, graph: &Graph, p: usize) -> Csr {
        owned_rows(graph.out_csr(), self.range(p))
    }

    /// The in-CSR rows of the vertices part `p` owns (the arcs into them), the other rows empty: what
    /// a share of owned sources pulls along. An undirected graph's are its [`Partition::out_rows`].
    pub fn in_rows(&self, graph: &Graph, p: usize) -> Csr {
        owned_rows(graph.in_csr(), self.range(p))
    }

    /// Part `p`'s share of `graph`: every arc whose target `p` owns, as a directed graph over all of
    /// `graph`'s vertices with its weights; each neighbour list stays sorted.
    pub fn share(&self, graph: &Graph, p: usize) -> Graph {
        let owned = self.range(p);
        let out = owned_targets(graph.out_csr(), owned.clone());
        let incoming = owned_rows(graph.in_csr(), owned);
        let arcs = out.num_arcs();
        Graph::from_csr(true, arcs, out, Some(incoming)).expect("a share's two CSRs hold the same arcs")
    }
}

/// Each vertex's out-degree in `graph`, then each one's in-degree (`2 n` entries, degrees above
/// `u32::MAX` clamped to it): what a program's vertex and edge views read in a partitioned run.
pub fn whole_degrees(graph: &Graph) -> Vec<u32> {
    let n = graph.num_vertices();
    let degree = |csr: &Csr, v: usize| (csr.offsets[v + 1] - csr.offsets[v]).min(u64::from(u32::MAX)) as u32;
    let mut degrees = vec![0u32; 2 * n];
    let (out, inc) = degrees.split_at_mut(n);
    out.par_iter_mut().enumerate().for_each(|(v, d)| *d = degree(graph.out_csr(), v));
    inc.par_iter_mut().enumerate().for_each(|(v, d)| *d = degree(graph.in_csr(), v));
    degrees
}

/// The arcs of `csr` whose targets lie in `owned`, over all its rows: in each sorted row they are one
/// run, found by two binary searches.
fn owned_targets(csr: &Csr, owned: Range<VertexId>) -> Csr {
    let n = csr.num_vertices();
    let kept: Vec<Range<usize>> = (0..n)
        .into_par_iter()
        .map(|v| {
            let row = csr.range(v as VertexId);
            let targets = &csr.targets[row.clone()];
            let from = targets.partition_point(|&t| t < owned.start);
            let to = targets.partition_point(|&t| t < owned.end);
            row.start + from..row.start + to
        })
        .collect();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    for r in &kept {
        offsets.push(offsets.last().expect("starts with 0") + r.len() as u64);
    }
    let targets = gather(&csr.targets, &kept, &offsets);
    let weights = csr.weights.as_ref().map(|w| match w {
        Weights::U32(w) => Weights::U32(Array::from(gather(w, &kept, &offsets))),
        Weights::F32(w) => Weights::F32(Array::from(gather(w, &kept, &offsets))),
    });
    Csr::new(Array::from(offsets), Array::from(targets), weights)
}

/// The rows of `csr` for the vertices in `owned`, the others empty.
fn owned_rows(csr: &Csr, owned: Range<VertexId>) -> Csr {
    let (lo, hi) = (owned.start as usize, owned.end as usize);
    let base = csr.offsets[lo];
    let offsets: Vec<u64> =
        (0..=csr.num_vertices()).into_par_iter().map(|v| csr.offsets[v.clamp(lo, hi)] - base).collect();
    let span = base as usize..csr.offsets[hi] as usize;
    let weights = csr.weights.as_ref().map(|w| match w {
        Weights::U32(w) => Weights::U32(Array::from(copied(&w[span.clone()]))),
        Weights::F32(w) => Weights::F32(Array::from(copied(&w[span.clone()]))),
    });
    Csr::new(Array::from(offsets), Array::from(copied(&csr.targets[span])), weights)
}

/// Vertices per task of [`gather`].
const GATHER_VERTICES: usize = 1 << 14;
/// Items per task of [`copied`].
const COPY_ITEMS: usize = 1 << 20;

/// The items of `from` in the ranges `kept` (one per vertex, `offsets` their prefix sums), in order.
/// Filled in parallel, so that a big result's pages are first touched, and cleared by the kernel, on
/// every core rather than on one (which took most of a share's making).
fn gather<T: Copy + Default + Send + Sync>(from: &[T], kept: &[Range<usize>], offsets: &[u64]) -> Vec<T> {
    let mut out = vec![T::default(); offsets[kept.len()] as usize];
    let mut rest = out.as_mut_slice();
    let mut tasks = Vec::with_capacity(kept.len().div_ceil(GATHER_VERTICES));
    for start in (0..kept.len()).step_by(GATHER_VERTICES) {
        let end = (start + GATHER_VERTICES).min(kept.len());
        let (block, tail) = std::mem::take(&mut rest).split_at_mut((offsets[end] - offsets[start]) as usize);
        tasks.push((&kept[start..end], block));
        rest = tail;
    }
    tasks.into_par_iter().for_each(|(ranges, block)| {
        let mut at = 0;
        for r in ranges {
            block[at..at + r.len()].copy_from_slice(&from[r.clone()]);
            at += r.len();
        }
    });
    out
}

/// `from`, copied in parallel (see [`gather`]).
fn copied<T: Copy + Default + Send + Sync>(from: &[T]) -> Vec<T> {
    let mut out = vec![T::default(); from.len()];
    out.par_chunks_mut(COPY_ITEMS).zip(from.par_chunks(COPY_ITEMS)).for_each(|(to, from)| to.copy_from_slice(from));
    out
}
