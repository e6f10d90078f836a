//! Sparse matrix-vector product `y = A x` for the graph's weighted adjacency matrix and a user's `x`:
//! `y[v] = sum over the in-arcs u -> v of w(u, v) * x[u]`, every arc of an unweighted graph weighing
//! 1 (an undirected edge is two arcs; a kept self-loop is one). With `A[u][v] = w(u, v)` that is
//! scipy's `A.T @ x`. Combine: `sum`, aggregation; one iteration in which every vertex applies
//! (`Apply::Every`), in `f32`.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx_core::VertexId;
use simdx_macros::graph_kernel;

/// The default input vector's entry for vertex `u`, `1 + (u mod 7)`: what [`Spmv::default_input`] holds.
pub fn input(u: VertexId) -> f32 {
    1.0 + (u % 7) as f32
}

/// One product `y = A x`: the result holds `y`.
#[derive(Debug, Clone)]
pub struct Spmv {
    /// The input vector, one value per vertex.
    pub x: VertexData<f32>,
}

impl Spmv {
    /// The product with `x[u] = 1 + (u mod 7)` ([`input`]) over `n` vertices: a vector whose result
    /// can be checked and compared between runs without a file.
    pub fn default_input(n: usize) -> Self {
        Spmv { x: (0..n as VertexId).map(input).collect::<Vec<_>>().into() }
    }
}

#[graph_kernel]
impl Program for Spmv {
    type Value = f32;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f32 = 0.0;
    const UNSEEN: f32 = 0.0;

    /// A vertex holds `x[v]` before the iteration and `y[v]` after it.
    fn init(&self, v: Vertex) -> f32 {
        self.x[v.id]
    }

    fn active(&self, _now: f32, _seen: f32) -> bool {
        true
    }

    fn compute(&self, e: Edge<f32, f32>) -> f32 {
        e.src * e.weight
    }

    /// `y[v]` is the sum alone: `x[v]` is not kept (a vertex with no in-arc gets 0).
    fn apply(&self, _v: Vertex, _x: f32, y: f32, _global: f64) -> f32 {
        y
    }

    fn done(&self, iterations: u32, _change: f64) -> bool {
        iterations >= 1
    }
}
