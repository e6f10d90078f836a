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
use simdx_core::{Graph, Weights};
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

/// Checks that `priors` fit belief propagation on `graph`: one finite, non-negative prior per
/// vertex, not all 0; and edge weights (the likelihoods) finite and non-negative. `Err` says which
/// vertex or arc does not fit.
pub fn check_inputs(graph: &Graph, priors: &[f64]) -> Result<(), String> {
    if priors.len() != graph.num_vertices() {
        return Err(format!("{} priors for {} vertices", priors.len(), graph.num_vertices()));
    }
    if let Some(v) = priors.iter().position(|p| !(p.is_finite() && *p >= 0.0)) {
        return Err(format!("the prior of vertex {v} is {}: priors are finite and not negative", priors[v]));
    }
    if !priors.is_empty() && priors.iter().all(|&p| p == 0.0) {
        return Err("every prior is 0: beliefs normalised to sum to 1 need at least one positive prior".into());
    }
    if let Some(Weights::F32(w)) = graph.out_csr().weights() {
        if let Some(i) = w.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
            return Err(format!("arc {i} weighs {}: likelihoods (edge weights) are finite and not negative", w[i]));
        }
    }
    Ok(())
}

/// Checks that beliefs mean something: they sum to 1. They sum to 0 when no vertex with a positive
/// prior has an in-arc of positive weight from a vertex that holds belief (nothing to normalise).
pub fn check_beliefs(beliefs: &[f64]) -> Result<(), String> {
    let total: f64 = beliefs.iter().sum();
    if beliefs.is_empty() || (total - 1.0).abs() <= 1e-6 {
        return Ok(());
    }
    Err(format!(
        "the beliefs sum to {total:e}, not 1: no vertex with a positive prior receives belief along an arc of \
         positive weight, so there is nothing to normalise"
    ))
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
