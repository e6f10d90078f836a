//! Breadth-first search with the parent tree Graph500 and GAP output: each vertex's value is its
//! level and the vertex that reached it, packed in one word (`level << 32 | parent`), so that `min`
//! keeps the lowest level. Combine: `min`, voting — every update a vertex receives in one iteration
//! carries the same level, and the vote keeps one of them: the parent is a vertex one level closer
//! (the smallest such in-neighbour when the step pulls; any of them when it pushes).

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_core::VertexId;
use simdx_macros::graph_kernel;

/// The value of an unreached vertex: level and parent both `u32::MAX`.
pub const UNREACHED: u64 = u64::MAX;

/// BFS from `source` with parents: see [`levels`] and [`parents`] to read the result.
#[derive(Debug, Clone, Copy)]
pub struct BfsTree {
    /// The root, its own parent.
    pub source: VertexId,
}

#[graph_kernel]
impl Program for BfsTree {
    type Value = u64;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u64 = UNREACHED;
    const UNSEEN: u64 = UNREACHED;

    fn init(&self, v: Vertex) -> u64 {
        if v.id == self.source {
            v.id as u64
        } else {
            UNREACHED
        }
    }

    fn active(&self, now: u64, seen: u64) -> bool {
        now != seen
    }

    /// A vertex offers its neighbours the next level with itself as their parent.
    fn source_value(&self, v: Vertex, value: u64, _sent: u64) -> u64 {
        (((value >> 32) + 1) << 32) | v.id as u64
    }

    fn compute(&self, e: Edge<u64, ()>) -> u64 {
        e.src
    }

    fn can_update(&self, value: u64) -> bool {
        value == UNREACHED
    }
}

/// Each vertex's level from a [`BfsTree`] run's values (`u32::MAX` where unreached).
pub fn levels(values: &[u64]) -> Vec<u32> {
    values.iter().map(|&x| (x >> 32) as u32).collect()
}

/// Each vertex's parent from a [`BfsTree`] run's values: the source its own, `u32::MAX` where
/// unreached.
pub fn parents(values: &[u64]) -> Vec<u32> {
    values.iter().map(|&x| x as u32).collect()
}
