//! PageRank: the stationary probability of a random surfer who follows an out-edge with probability
//! `damping` and jumps to a uniformly random vertex otherwise. A dangling vertex (no out-edges) links
//! to every vertex, so the ranks always sum to 1 (the textbook convention).
//! Combine: `sum`, aggregation; every vertex recomputes every iteration.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_macros::graph_kernel;

/// PageRank with its damping factor, tolerance and iteration cap.
#[derive(Debug, Clone, Copy)]
pub struct PageRank {
    /// Probability of following an edge (0.85 by convention).
    pub damping: f32,
    /// Stop when the ranks change by less than this in total (L1) in one iteration.
    pub tolerance: f64,
    /// Stop after this many iterations at the latest.
    pub max_iterations: u32,
}

impl Default for PageRank {
    fn default() -> Self {
        PageRank { damping: 0.85, tolerance: 1e-6, max_iterations: 100 }
    }
}

#[graph_kernel]
impl Program for PageRank {
    type Value = f32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f32 = 0.0;
    const UNSEEN: f32 = 0.0;
    const USES_GLOBAL: bool = true;

    fn init(&self, v: Vertex) -> f32 {
        1.0 / v.num_vertices as f32
    }

    fn active(&self, _now: f32, _seen: f32) -> bool {
        true
    }

    /// A source spreads its rank evenly over its out-edges (computed once per source per iteration).
    fn source_value(&self, v: Vertex, rank: f32) -> f32 {
        rank / v.out_degree as f32
    }

    fn compute(&self, e: Edge<f32, ()>) -> f32 {
        e.src
    }

    /// The rank held by dangling vertices, spread over all vertices in `apply`.
    fn global(&self, v: Vertex, rank: f32) -> f64 {
        if v.out_degree == 0 {
            rank as f64
        } else {
            0.0
        }
    }

    fn apply(&self, v: Vertex, _old: f32, incoming: f32, dangling: f64) -> f32 {
        let n = v.num_vertices as f32;
        (1.0 - self.damping) / n + self.damping * (incoming + dangling as f32 / n)
    }

    fn done(&self, iterations: u32, change: f64) -> bool {
        change < self.tolerance || iterations >= self.max_iterations
    }
}
