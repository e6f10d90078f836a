//! Shortest paths from several sources at once by delta-stepping: the distance of every vertex from
//! the nearest source, the sources given as a per-vertex flag. Combine: `min`, aggregation, as
//! [`crate::Sssp`].

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx_macros::graph_kernel;

use crate::sssp::UNREACHED;

/// Shortest paths from several sources at once: each vertex's distance to the nearest source.
#[derive(Debug, Clone)]
pub struct MultiSourceSssp {
    /// `true` for the vertices at distance 0.
    pub sources: VertexData<bool>,
    /// Bucket width, as for [`crate::Sssp`].
    pub delta: u32,
}

#[graph_kernel]
impl Program for MultiSourceSssp {
    type Value = u32;
    type Weight = u32;
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = UNREACHED;
    const UNSEEN: u32 = UNREACHED;
    /// `src + weight` grows with the weight (the GPU relaxes light and heavy arcs apart).
    const UPDATE_GROWS_WITH_WEIGHT: bool = true;

    fn init(&self, v: Vertex) -> u32 {
        if self.sources[v.id] {
            0
        } else {
            UNREACHED
        }
    }

    fn active(&self, now: u32, seen: u32) -> bool {
        now < seen
    }

    fn compute(&self, e: Edge<u32, u32>) -> u32 {
        e.src.saturating_add(e.weight)
    }

    fn bucket(&self, distance: u32) -> u32 {
        distance / self.delta.max(1)
    }
}
