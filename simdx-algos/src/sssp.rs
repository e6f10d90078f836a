//! Single-source shortest paths by delta-stepping: the distance of every vertex from a source over
//! non-negative integer edge weights (every edge weighs 1 in an unweighted graph).
//! Combine: `min`, aggregation. Vertices are processed in buckets of width `delta`.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_core::VertexId;
use simdx_macros::graph_kernel;

/// The distance of an unreachable vertex (sums saturate here too).
pub const UNREACHED: u32 = u32::MAX;

pub use crate::inputs::{fits_u32, largest_weight};

/// SSSP from `source` with bucket width `delta` (see [`crate::default_delta`]), over `u32` distances:
/// exact while every shortest distance stays below [`UNREACHED`] ([`fits_u32`] says whether a graph
/// keeps them there); a longer one saturates to [`UNREACHED`]. [`crate::WideSssp`] keeps `u64`
/// distances for the graphs that need them.
#[derive(Debug, Clone, Copy)]
pub struct Sssp {
    /// The vertex at distance 0.
    pub source: VertexId,
    /// Bucket width: vertices with distance in `[k·delta, (k+1)·delta)` are relaxed together.
    pub delta: u32,
}

#[graph_kernel]
impl Program for Sssp {
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
        if v.id == self.source {
            0
        } else {
            UNREACHED
        }
    }

    /// A vertex whose distance dropped since it last relaxed its edges relaxes them again.
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
