//! Belief propagation in SIMD-X's form, with priors: every iteration, each vertex's belief becomes its
//! prior times the likelihood-weighted sum of its in-neighbours' beliefs, and the beliefs are
//! normalised to sum to 1.
//! Combine: `sum`, aggregation; every vertex recomputes every iteration.
//!
//! * Likelihoods are the edge weights as `f32` (1 on an unweighted graph; an integer weight `w` counts
//!   as `w`, which gives the same beliefs as `w / 255`: a common factor cancels in the normalisation).
//! * Beliefs start at the priors (non-negative; uniform, `1 / n`, by default). A vertex without
//!   in-neighbours gets belief 0 after the first iteration; if no belief flows along any edge (no edges, or every source has belief 0), all
//!   beliefs become 0.
//! * Each BP iteration takes two engine iterations, because the engine's sum over the active (here:
//!   all) vertices ([`Program::global`]) sees the values as they were at the start of an iteration: a *gather* step
//!   stores each vertex's unnormalised belief `y`, negated to mark the step; a *normalise* step
//!   divides by their total. Values are `f64`, so that sums over hubs keep 1e-5 relative accuracy.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx_macros::graph_kernel;

/// Belief propagation for a fixed number of iterations.
#[derive(Debug, Clone)]
pub struct Bp {
    /// BP iterations (at least 1; 0 counts as 1); 10 by default.
    pub iterations: u32,
    /// Each vertex's prior belief (non-negative, finite).
    pub priors: VertexData<f64>,
}

impl Bp {
    /// The default number of iterations.
    pub const ITERATIONS: u32 = 10;

    /// `iterations` iterations on `n` vertices with uniform priors `1 / n`.
    pub fn uniform(n: usize, iterations: u32) -> Self {
        Bp { iterations, priors: VertexData::filled(1.0 / n.max(1) as f64, n) }
    }
}

pub use crate::inputs::{check_bp_beliefs as check_beliefs, check_bp_inputs as check_inputs};

#[graph_kernel]
impl Program for Bp {
    type Value = f64;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f64 = 0.0;
    const UNSEEN: f64 = 0.0;

    fn init(&self, v: Vertex) -> f64 {
        self.priors[v.id]
    }

    fn active(&self, _now: f64, _seen: f64) -> bool {
        true
    }

    fn compute(&self, e: Edge<f64, f32>) -> f64 {
        e.src * e.weight as f64
    }

    /// The total of the values: 1 (or 0) before a gather step, `-(total of y)` before a normalise step.
    fn global(&self, _v: Vertex, value: f64, _sent: f64) -> f64 {
        value
    }

    fn apply(&self, v: Vertex, old: f64, gathered: f64, total: f64) -> f64 {
        if total > 0.0 {
            -(gathered * self.priors[v.id])
        } else if total < 0.0 {
            old / total
        } else {
            0.0
        }
    }

    fn done(&self, iterations: u32, _change: f64) -> bool {
        iterations / 2 >= self.iterations.max(1)
    }
}
