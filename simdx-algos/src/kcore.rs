//! The k-core by peeling: the largest subgraph in which every vertex has degree at least `k`. Each
//! vertex starts with its degree (its arcs: a kept self-loop counts once, kept duplicates each); a
//! vertex whose degree falls below `k` leaves, once, and takes one from the degree of each neighbour
//! still in. Combine: `sum` of the lost edges, aggregation, applied to the vertices that received.
//!
//! Result: a vertex is in the k-core exactly when its value is at least `k`; its value is then its
//! degree within the k-core (for a vertex that left, its degree when it left, below `k`).
//! [`core_numbers`] runs it for increasing `k` from the host to get the full core decomposition.
//! Defined for undirected graphs: run it on [`crate::undirected`] of a directed one (`simdx run kcore`
//! does that).

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_macros::graph_kernel;

/// The k-core for a given `k`.
#[derive(Debug, Clone, Copy)]
pub struct KCore {
    /// Smallest degree a vertex of the core keeps (SIMD-X uses 16).
    pub k: u32,
}

#[graph_kernel]
impl Program for KCore {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Received;
    const IDENTITY: u32 = 0;
    const UNSEEN: u32 = u32::MAX;

    fn init(&self, v: Vertex) -> u32 {
        v.out_degree
    }

    /// A vertex leaves in the iteration after its degree fell below `k`, and only then.
    fn active(&self, now: u32, seen: u32) -> bool {
        now < self.k && seen >= self.k
    }

    /// A leaving vertex takes one edge from each neighbour.
    fn compute(&self, _e: Edge<u32, ()>) -> u32 {
        1
    }

    /// Vertices that have left need no more updates.
    fn can_update(&self, degree: u32) -> bool {
        degree >= self.k
    }

    fn apply(&self, _v: Vertex, degree: u32, lost: u32, _global: f64) -> u32 {
        degree.saturating_sub(lost)
    }
}

/// The core number of every vertex (the largest `k` whose k-core holds it), by peeling for
/// increasing `k`: `run` runs a [`KCore`] on the graph (on any backend). When the k-core's smallest
/// degree is `m >= k`, it is also the m-core, so the next `k` tried is `m + 1`: one run per distinct
/// core number, plus one. (The CPU backend peels all levels in one go: `Runner::core_numbers`.)
pub fn core_numbers<E>(mut run: impl FnMut(&KCore) -> Result<Vec<u32>, E>) -> Result<Vec<u32>, E> {
    let (mut core, mut k) = (Vec::new(), 1u32);
    loop {
        let degree = run(&KCore { k })?;
        core.resize(degree.len(), 0);
        let Some(m) = degree.iter().copied().filter(|&d| d >= k).min() else { return Ok(core) };
        core.iter_mut().zip(&degree).filter(|(_, &d)| d >= k).for_each(|(c, _)| *c = m);
        match m.checked_add(1) {
            Some(next) => k = next,
            None => return Ok(core),
        }
    }
}
