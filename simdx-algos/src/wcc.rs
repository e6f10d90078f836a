//! Weakly connected components: every vertex starts with its own id as label and takes the smallest
//! label among its neighbours, so each ends with the smallest vertex id of its component (the
//! component id). Its values are labels, so the engines link components (union-find, Afforest's
//! order) rather than propagate labels step by step, unless told to propagate.
//! Combine: `min`, aggregation. Voting would be wrong here: a voting pull keeps the first active
//! in-neighbour's label, which need not be the smallest, and a skipped label is never sent again.
//!
//! Linking joins both ends of every arc. Propagated labels travel along arcs (push: out-arcs, pull:
//! in-arcs), so on a directed graph they would only flow forwards; run it on an undirected graph,
//! e.g. [`crate::undirected`] of a directed one (`simdx run wcc` does that), to get weakly connected
//! components under every policy.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_macros::graph_kernel;

/// Weakly connected components: the result holds each vertex's component id, the smallest vertex
/// id in its component. No parameters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wcc;

#[graph_kernel]
impl Program for Wcc {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;
    /// A label is a vertex of the same component, and every arc passes its source's label on: the
    /// engines link components instead of propagating labels (or, propagating, shortcut chains of
    /// labels), so the steps do not grow with the diameter.
    const VALUES_ARE_LABELS: bool = true;

    /// Every vertex starts as its own component.
    fn init(&self, v: Vertex) -> u32 {
        v.id
    }

    /// A vertex whose label dropped since it last sent it passes the smaller label on.
    fn active(&self, now: u32, seen: u32) -> bool {
        now < seen
    }

    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src
    }
}
