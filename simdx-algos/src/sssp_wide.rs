//! Shortest paths whose distances may pass `u32::MAX`: delta-stepping over `u64` distances from the
//! nearest of a set of sources (one source is a set of one). [`crate::Sssp`] keeps `u32` distances,
//! which halve the bytes a step moves but hold only sums below `u32::MAX`; [`crate::sssp::fits_u32`]
//! says which one a graph needs, from its largest weight and its vertex count.
//! Combine: `min`, aggregation.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx_macros::graph_kernel;

/// The distance of an unreachable vertex.
pub const UNREACHED_WIDE: u64 = u64::MAX;

/// The highest bucket: distances whose bucket number would pass it share it (they are relaxed
/// together, as in Bellman-Ford, which stays exact). Half the `u32` range, so that the engines'
/// bucket windows (a base plus a few buckets) never overflow.
const LAST_BUCKET: u64 = (u32::MAX / 2) as u64;

/// SSSP over `u64` distances from the nearest of `sources`, bucket width `delta`.
#[derive(Debug, Clone)]
pub struct WideSssp {
    /// Which vertices start at distance 0.
    pub sources: VertexData<bool>,
    /// Bucket width: vertices with distance in `[k·delta, (k+1)·delta)` are relaxed together.
    pub delta: u64,
}

#[graph_kernel]
impl Program for WideSssp {
    type Value = u64;
    type Weight = u32;
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u64 = UNREACHED_WIDE;
    const UNSEEN: u64 = UNREACHED_WIDE;
    /// `src + weight` grows with the weight.
    const UPDATE_GROWS_WITH_WEIGHT: bool = true;

    fn init(&self, v: Vertex) -> u64 {
        if self.sources[v.id] {
            0
        } else {
            UNREACHED_WIDE
        }
    }

    fn active(&self, now: u64, seen: u64) -> bool {
        now < seen
    }

    /// No sum overflows: a shortest path has fewer than 2^32 arcs of weight below 2^32.
    fn compute(&self, e: Edge<u64, u32>) -> u64 {
        e.src.saturating_add(e.weight as u64)
    }

    fn bucket(&self, distance: u64) -> u32 {
        (distance / self.delta.max(1)).min(LAST_BUCKET) as u32
    }
}
