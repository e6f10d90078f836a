//! Belief propagation in SIMD-X's form: every iteration, each vertex's belief becomes the
//! likelihood-weighted sum of its in-neighbours' beliefs, and the beliefs are normalised to sum to 1.
//! Combine: `sum`, aggregation; every vertex recomputes every iteration.
//!
//! * Likelihoods are the edge weights as `f32` (1 on an unweighted graph; an integer weight `w` counts
//!   as `w`, which gives the same beliefs as `w / 255`: a common factor cancels in the normalisation).
//! * Beliefs start uniform, `1 / n`. A vertex without in-neighbours gets belief 0 after the first
//!   iteration; if no belief flows along any edge (no edges, or every source has belief 0), all
//!   beliefs become 0.
//! * Each BP iteration takes two engine iterations, because the engine's sum over the active (here:
//!   all) vertices ([`Program::global`]) sees the values as they were at the start of an iteration: a *gather* step
//!   stores each vertex's unnormalised belief `y`, negated to mark the step; a *normalise* step
//!   divides by their total. Values are `f64`, so that sums over hubs keep 1e-5 relative accuracy.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_macros::graph_kernel;

/// Belief propagation for a fixed number of iterations.
#[derive(Debug, Clone, Copy)]
pub struct Bp {
    /// BP iterations (at least 1; 0 counts as 1); 10 by default.
    pub iterations: u32,
}

impl Default for Bp {
    fn default() -> Self {
        Bp { iterations: 10 }
    }
}

#[graph_kernel]
impl Program for Bp {
    type Value = f64;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f64 = 0.0;
    const UNSEEN: f64 = 0.0;
    const USES_GLOBAL: bool = true;

    fn init(&self, v: Vertex) -> f64 {
        1.0 / v.num_vertices as f64
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

    fn apply(&self, _v: Vertex, old: f64, gathered: f64, total: f64) -> f64 {
        if total > 0.0 {
            -gathered
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
