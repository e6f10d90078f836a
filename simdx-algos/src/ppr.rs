//! Personalized PageRank: the stationary probability of a random surfer who follows an out-edge with
//! probability `damping` and otherwise jumps back to the seed set, to each seed with its weight in the
//! personalization vector `p` (which sums to 1). A dangling vertex (no out-edges) jumps by `p` too,
//! as networkx's `pagerank(personalization=p)` does (its `dangling=None`):
//! `r[v] = (1 - d) p[v] + d (sum over in-arcs u -> v of r[u] / outdeg(u) + p[v] * sum of dangling r)`.
//! Combine: `sum`, aggregation; a power iteration in which every vertex sends and applies.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx_core::VertexId;
use simdx_macros::graph_kernel;

/// Personalized PageRank from a personalization vector.
#[derive(Debug, Clone)]
pub struct Ppr {
    /// Probability of following an edge (0.85 by convention).
    pub damping: f64,
    /// Stop when the ranks change by less than this in total (L1) in one iteration.
    pub tolerance: f64,
    /// Stop after this many iterations at the latest.
    pub max_iterations: u32,
    /// Where the surfer jumps: one non-negative weight per vertex, summing to 1.
    pub personalization: VertexData<f64>,
}

impl Ppr {
    /// PPR over `n` vertices that jumps to each of `seeds` alike (a seed named twice counts once),
    /// with damping 0.85, tolerance 1e-9 and at most 200 iterations.
    pub fn from_seeds(n: usize, seeds: &[VertexId]) -> Self {
        Ppr { damping: 0.85, tolerance: 1e-9, max_iterations: 200, personalization: VertexData::uniform_over(n, seeds) }
    }
}

#[graph_kernel]
impl Program for Ppr {
    type Value = f64;
    type Weight = ();
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f64 = 0.0;
    const UNSEEN: f64 = 0.0;

    fn init(&self, v: Vertex) -> f64 {
        self.personalization[v.id]
    }

    fn active(&self, _now: f64, _seen: f64) -> bool {
        true
    }

    /// A vertex spreads its rank evenly over its out-edges.
    fn source_value(&self, v: Vertex, rank: f64, _sent: f64) -> f64 {
        rank / v.out_degree as f64
    }

    fn compute(&self, e: Edge<f64, ()>) -> f64 {
        e.src
    }

    /// The rank held by dangling vertices, which jumps by the personalization vector.
    fn global(&self, v: Vertex, rank: f64, _sent: f64) -> f64 {
        rank * (v.out_degree == 0) as u32 as f64
    }

    fn apply(&self, v: Vertex, _old: f64, incoming: f64, dangling: f64) -> f64 {
        let p = self.personalization[v.id];
        (1.0 - self.damping) * p + self.damping * (incoming + dangling * p)
    }

    fn done(&self, iterations: u32, change: f64) -> bool {
        change < self.tolerance || iterations >= self.max_iterations
    }
}
