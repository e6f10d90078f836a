//! Whether a graph and an algorithm's inputs fit it, checked before a run by the CLI and the Python
//! package, so that an input that would give a meaningless or overflowing answer is refused with a
//! sentence instead: SSSP's distance width, belief propagation's priors and likelihoods, the MLP's
//! layered network. Each algorithm's file re-exports its checks under short names.

use simdx_core::{Graph, Weights};

/// Whether every shortest distance in `graph` stays below [`crate::sssp::UNREACHED`], so that [`crate::Sssp`] and
/// [`crate::MultiSourceSssp`] give exact distances: the largest weight (1 when unweighted) times the
/// most arcs a shortest path can have (`n - 1`) is below `u32::MAX`. Where it is not, use
/// [`crate::WideSssp`] (`u64` distances), as the CLI and the Python package do.
pub fn fits_u32(graph: &Graph) -> bool {
    let longest_path = graph.num_vertices().saturating_sub(1) as u64;
    largest_weight(graph).saturating_mul(longest_path) < u64::from(crate::sssp::UNREACHED)
}

/// The largest integer edge weight of `graph` (1 when unweighted, 0 without arcs); `f32` weights
/// count rounded up.
pub fn largest_weight(graph: &Graph) -> u64 {
    use rayon::prelude::*;
    match graph.out_csr().weights() {
        Some(Weights::U32(w)) => w.par_iter().copied().max().map_or(0, u64::from),
        Some(Weights::F32(w)) => w.par_iter().copied().reduce(|| 0.0, f32::max).ceil() as u64,
        None => u64::from(graph.num_arcs() > 0),
    }
}

/// Checks that `priors` fit belief propagation on `graph`: one finite, non-negative prior per
/// vertex, not all 0; and edge weights (the likelihoods) finite and non-negative. `Err` says which
/// vertex or arc does not fit.
pub fn check_bp_inputs(graph: &Graph, priors: &[f64]) -> Result<(), String> {
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
pub fn check_bp_beliefs(beliefs: &[f64]) -> Result<(), String> {
    let total: f64 = beliefs.iter().sum();
    if beliefs.is_empty() || (total - 1.0).abs() <= 1e-6 {
        return Ok(());
    }
    Err(format!(
        "the beliefs sum to {total:e}, not 1: no vertex with a positive prior receives belief along an arc of \
         positive weight, so there is nothing to normalise"
    ))
}

/// Checks that `graph` is a layered network the forward pass computes in full: directed, every arc
/// from one layer to the next (layer 0 being the vertices without in-arcs), and every vertex reached
/// from an input. `Err` names the arc or the vertex that does not fit.
pub fn check_mlp_network(graph: &Graph) -> Result<(), String> {
    if !graph.is_directed() {
        return Err("an MLP is a directed, layered graph (e.g. mlp:784,256,10); this graph is undirected".into());
    }
    let layers = crate::verify::mlp_layers(graph)?;
    let layered: usize = layers.iter().map(Vec::len).sum();
    if layered < graph.num_vertices() {
        let mut in_layer = vec![false; graph.num_vertices()];
        layers.iter().flatten().for_each(|&v| in_layer[v as usize] = true);
        let v = in_layer.iter().position(|&x| !x).unwrap_or(0);
        return Err(format!(
            "not a layered network: vertex {v} is not reached from any input (a vertex without in-arcs)"
        ));
    }
    Ok(())
}
