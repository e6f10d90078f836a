//! Belief-propagation oracle: a direct loop over every vertex's in-edges per iteration in `f64`, and
//! a relative comparison.

use simdx_core::{Csr, Graph};

use crate::Bp;

/// The likelihood of in-arc `i`: its weight as the program reads it (`f32`; 1 if unweighted).
fn likelihood(incoming: &Csr, i: usize) -> f64 {
    incoming.weights().map_or(1.0, |w| f64::from(w.get_f64(i) as f32))
}

/// Beliefs after `params.iterations` iterations (at least 1) from the priors: each
/// iteration `y(v) = prior(v) * sum over in-arcs u -> v of likelihood * b(u)`, then `b = y / sum(y)` (all 0 if
/// that sum is 0).
pub fn serial_bp(graph: &Graph, params: &Bp) -> Vec<f64> {
    let n = graph.num_vertices();
    let incoming = graph.in_csr();
    let priors = params.priors.as_slice();
    let mut belief = priors.to_vec();
    for _ in 0..params.iterations.max(1) {
        let gathered: Vec<f64> = (0..n as u32)
            .map(|v| {
                let sum: f64 =
                    incoming.range(v).map(|i| likelihood(incoming, i) * belief[incoming.targets()[i] as usize]).sum();
                sum * priors[v as usize]
            })
            .collect();
        let total: f64 = gathered.iter().sum();
        belief = gathered.iter().map(|&y| if total > 0.0 { y / total } else { 0.0 }).collect();
    }
    belief
}

/// Checks `beliefs` against [`serial_bp`]: each within a relative error of `rel` (1e-5 in the tests).
/// Beliefs are sums of non-negative terms, so there is no cancellation and the relative error means
/// something down to 0; below 1e-200 the check is absolute (`rel * 1e-200`), so an exact 0 must be 0.
pub fn bp(graph: &Graph, params: &Bp, beliefs: &[f64], rel: f64) -> Result<(), String> {
    let expected = serial_bp(graph, params);
    if beliefs.len() != expected.len() {
        return Err(format!("{} beliefs for {} vertices", beliefs.len(), expected.len()));
    }
    for (v, (&got, &want)) in beliefs.iter().zip(&expected).enumerate() {
        let error = (got - want).abs();
        if error.is_nan() || error > rel * want.abs().max(1e-200) {
            return Err(format!(
                "belief of vertex {v} is {got:e}, the serial loop says {want:e} (relative error {:.2e} > {rel:.0e})",
                error / want.abs().max(1e-200)
            ));
        }
    }
    Ok(())
}
