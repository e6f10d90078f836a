//! Breadth-first search: the level (hop count) of every vertex from a source.
//! Combine: `min`, voting — every update a vertex receives in one iteration carries the same level.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_core::VertexId;
use simdx_macros::graph_kernel;

/// The level of an unreachable vertex.
pub const UNREACHED: u32 = u32::MAX;

/// BFS from `source`: the result holds each vertex's level, [`UNREACHED`] where there is no path.
#[derive(Debug, Clone, Copy)]
pub struct Bfs {
    /// The vertex at level 0.
    pub source: VertexId,
}

#[graph_kernel]
impl Program for Bfs {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = UNREACHED;
    const UNSEEN: u32 = UNREACHED;

    fn init(&self, v: Vertex) -> u32 {
        if v.id == self.source {
            0
        } else {
            UNREACHED
        }
    }

    /// Newly reached vertices expand next.
    fn active(&self, now: u32, seen: u32) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src + 1
    }

    /// Only unreached vertices look for parents in pull mode.
    fn can_update(&self, level: u32) -> bool {
        level == UNREACHED
    }
}
