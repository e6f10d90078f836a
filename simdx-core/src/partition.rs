//! A 1-D partition of a graph's vertices over several devices: contiguous ranges, one per part,
//! balanced by the arcs each part holds (its vertices' out-arcs and, on a directed graph, in-arcs)
//! plus one per vertex, so that the vertex-wide phases count too and an arc-free graph still splits
//! evenly. The cut (arcs whose ends lie in different parts) is what a partitioned run exchanges.

use std::ops::Range;

mod share;
pub use share::{whole_degrees, WORD_VERTICES};

use crate::Graph;
use crate::VertexId;

/// Contiguous vertex ranges, one per part, in order: part `p` owns `bounds[p]..bounds[p + 1]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    bounds: Vec<VertexId>,
}

impl Partition {
    /// `parts` ranges of `graph`'s vertices whose arcs plus vertices are as even as contiguous ranges
    /// allow: part `p` starts at the first vertex whose prefix of work reaches `p / parts` of the total.
    /// `parts` is at least one; a graph with fewer vertices than parts leaves some parts empty.
    pub fn by_arcs(graph: &Graph, parts: usize) -> Partition {
        let parts = parts.max(1);
        let n = graph.num_vertices();
        let out = graph.out_csr().offsets();
        let inc = graph.is_directed().then(|| graph.in_csr().offsets());
        // Work before vertex v: its predecessors' arcs plus v itself (monotone in v).
        let work_before = |v: usize| out[v] + inc.map_or(0, |i| i[v]) + v as u64;
        let total = work_before(n) as u128;
        let mut bounds = Vec::with_capacity(parts + 1);
        bounds.push(0);
        for p in 1..parts {
            let goal = (total * p as u128).div_ceil(parts as u128) as u64;
            let (mut lo, mut hi) = (*bounds.last().expect("starts with 0") as usize, n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if work_before(mid) < goal {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            bounds.push(lo as VertexId);
        }
        bounds.push(n as VertexId);
        Partition { bounds }
    }

    /// The partition with the given range starts (`starts[0]` must be 0, non-decreasing) over `n`
    /// vertices; `None` when they are not.
    pub fn from_starts(starts: &[VertexId], n: VertexId) -> Option<Partition> {
        let ordered = starts.first() == Some(&0) && starts.windows(2).all(|w| w[0] <= w[1]);
        (ordered && starts.last().is_some_and(|&s| s <= n))
            .then(|| Partition { bounds: starts.iter().copied().chain([n]).collect() })
    }

    /// How many parts.
    pub fn parts(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The vertices part `p` owns.
    pub fn range(&self, p: usize) -> Range<VertexId> {
        self.bounds[p]..self.bounds[p + 1]
    }

    /// The part that owns vertex `v`.
    pub fn owner(&self, v: VertexId) -> usize {
        self.bounds[1..].partition_point(|&end| end <= v)
    }

    /// The work of each part (as [`Partition::by_arcs`] counts it) and, for each part, how many of its
    /// vertices' out-arcs lead to a vertex another part owns: what it sends when it pushes, and the
    /// measure of how well the ranges fit the graph.
    pub fn balance(&self, graph: &Graph) -> Vec<PartLoad> {
        (0..self.parts())
            .map(|p| {
                let owned = self.range(p);
                let arcs = |v: VertexId| graph.out_degree(v) + if graph.is_directed() { graph.in_degree(v) } else { 0 };
                let cut = owned
                    .clone()
                    .map(|v| graph.out_neighbors(v).iter().filter(|&&w| !self.range(p).contains(&w)).count() as u64)
                    .sum();
                PartLoad { vertices: owned.len() as u64, arcs: owned.map(arcs).sum(), cut_arcs: cut }
            })
            .collect()
    }
}

/// What one part of a [`Partition`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartLoad {
    /// Vertices the part owns.
    pub vertices: u64,
    /// Their out-arcs, plus their in-arcs on a directed graph.
    pub arcs: u64,
    /// Their out-arcs that lead to a vertex of another part.
    pub cut_arcs: u64,
}

#[cfg(test)]
mod tests;
