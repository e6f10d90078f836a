//! PageRank: the stationary probability of a random surfer who follows an out-edge with probability
//! `damping` and jumps to a uniformly random vertex otherwise. A dangling vertex (no out-edges) links
//! to every vertex, so the ranks always sum to 1 (the textbook convention).
//! Combine: `sum`, aggregation. Vertices send the *change* of their rank since they last sent
//! (`(rank - sent) / out_degree`), so only vertices whose rank still moves are active: while most do,
//! the engine pulls; for the tail, when few do, it pushes (as SIMD-X does). Ranks and their sums are
//! `f64`, so that sums of changes do not drift; the changes travel as `f32`, half the bytes per edge.
//!
//! Ranks start at `1 / n`, all of it in the uniform *pool* (what is spread over every vertex, as a
//! dangling vertex's rank is). A vertex's first send takes its `1 / n` out of the pool unless it is
//! dangling; a dangling vertex's later sends move the pool by its change. The global sum is the
//! pool's change, so every rank equals one power iteration from the ranks last sent.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_macros::graph_kernel;

/// PageRank with its damping factor, tolerance and iteration cap.
#[derive(Debug, Clone, Copy)]
pub struct PageRank {
    /// Probability of following an edge (0.85 by convention).
    pub damping: f64,
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
    type Value = f64;
    type Message = f32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f64 = 0.0;
    const UNSEEN: f64 = 0.0;

    fn init(&self, v: Vertex) -> f64 {
        1.0 / v.num_vertices as f64
    }

    /// A vertex is active while its rank moved, since it last sent, by more than `tolerance x (1 -
    /// damping)` of itself: what is never sent then stays well below `tolerance` in all. (`abs`, not
    /// two comparisons: the sign of a move is random, and a branch on it would mispredict.)
    fn active(&self, now: f64, sent: f64) -> bool {
        (now - sent).abs() > self.tolerance * (1.0 - self.damping) * now
    }

    /// A source spreads the change of its rank evenly over its out-edges.
    fn source_value(&self, v: Vertex, rank: f64, sent: f64) -> f32 {
        ((rank - sent) / v.out_degree as f64) as f32
    }

    fn compute(&self, e: Edge<f32, (), f64>) -> f64 {
        e.src as f64
    }

    /// The change of the uniform pool: a dangling vertex keeps its rank in it, and a first send
    /// (`sent` 0) takes the initial `1 / n` out of it.
    fn global(&self, v: Vertex, rank: f64, sent: f64) -> f64 {
        let kept = if v.out_degree == 0 { rank - sent } else { 0.0 };
        let initial = if sent == 0.0 { 1.0 / v.num_vertices as f64 } else { 0.0 };
        kept - initial
    }

    fn apply(&self, v: Vertex, old: f64, incoming: f64, dangling: f64) -> f64 {
        old + self.damping * (incoming + dangling / v.num_vertices as f64)
    }

    fn done(&self, iterations: u32, change: f64) -> bool {
        change < self.tolerance || iterations >= self.max_iterations
    }
}
