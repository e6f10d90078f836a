//! Breadth-first search from several sources at once: the level (hop count) of every vertex from the
//! nearest source, the sources given as a per-vertex flag. Combine: `min`, voting, as [`crate::Bfs`].

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx_macros::graph_kernel;

use crate::bfs::UNREACHED;

/// BFS from several sources at once: each vertex's level from the nearest source.
#[derive(Debug, Clone)]
pub struct MultiSourceBfs {
    /// `true` for the vertices at level 0.
    pub sources: VertexData<bool>,
}

#[graph_kernel]
impl Program for MultiSourceBfs {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = UNREACHED;
    const UNSEEN: u32 = UNREACHED;

    fn init(&self, v: Vertex) -> u32 {
        if self.sources[v.id] {
            0
        } else {
            UNREACHED
        }
    }

    fn active(&self, now: u32, seen: u32) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src + 1
    }

    fn can_update(&self, level: u32) -> bool {
        level == UNREACHED
    }
}
