//! How far ranks are from the fixed point of PageRank's power iteration (with jumps and dangling
//! vertices' rank spread by a vector `p`), bounded from above and below by parallel steps of the
//! iteration itself, so that big graphs are checked in a few passes over their arcs.
//!
//! One step is `T(r) = (1-d) p + d (A r + p * dangling(r))`, where `A r` gives each vertex the sum of
//! `r(u) / outdeg(u)` over its in-arcs. `T` shrinks L1 distances by `d` (the arcs and the dangling
//! vertices pass on exactly what they hold), so with `x_k = T^k(r)` and the fixed point `r*`:
//! `|r - r*| <= |r - x_k| / (1 - d^k)` and `|r - r*| >= |r - x_k| - d |x_(k-1) - x_k| / (1 - d)`.

use rayon::prelude::*;
use simdx_core::{Graph, VertexId};

/// The most steps taken before giving up on deciding.
const MOST_STEPS: u32 = 1000;

/// Decides whether `ranks` lie within `max_l1` (L1) of the fixed point of the iteration with damping
/// `d` and jump vector `p`: `Ok` with an upper bound on the distance, or `Err` with why not.
pub(crate) fn within(graph: &Graph, d: f64, p: &[f64], ranks: &[f64], max_l1: f64) -> Result<f64, String> {
    let n = graph.num_vertices();
    if ranks.len() != n {
        return Err(format!("{} ranks for {n} vertices", ranks.len()));
    }
    if p.len() != n {
        return Err(format!("a jump vector of {} values for {n} vertices", p.len()));
    }
    if n == 0 {
        return Ok(0.0);
    }
    // The bounds hold when `T` shrinks distances by `d`: when `p` is a distribution (up to the
    // rounding of its sum).
    let total: f64 = p.par_iter().sum();
    if p.par_iter().any(|&x| x.is_nan() || x < 0.0) || (total - 1.0).abs() > 1e-6 {
        return Err(format!("the jump vector is not a distribution (its values sum to {total})"));
    }
    if !(0.0..1.0).contains(&d) {
        return Err(format!("no bound on the distance for damping {d}, which is not below 1"));
    }
    if let Some(v) = ranks.iter().position(|r| !r.is_finite()) {
        return Err(format!("vertex {v} has rank {}", ranks[v]));
    }
    let (mut x, mut decay) = (ranks.to_vec(), 1.0);
    for _ in 0..MOST_STEPS {
        let next = step(graph, d, p, &x);
        let last_move = l1(&x, &next);
        decay *= d;
        let from_ranks = l1(ranks, &next);
        let upper = from_ranks / (1.0 - decay);
        if upper <= max_l1 {
            return Ok(upper);
        }
        let lower = from_ranks - d * last_move / (1.0 - d);
        if lower > max_l1 {
            return Err(format!(
                "the ranks are at least {lower:.3e} (L1) from the power iteration's fixed point, more than {max_l1:.1e}"
            ));
        }
        x = next;
    }
    Err(format!("{MOST_STEPS} steps of the power iteration could not decide whether the ranks are within {max_l1:.1e}"))
}

/// One step of the iteration from `x`, in parallel over the vertices' in-arcs.
fn step(graph: &Graph, d: f64, p: &[f64], x: &[f64]) -> Vec<f64> {
    let n = graph.num_vertices();
    let shares: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|u| match graph.out_degree(u as VertexId) {
            0 => 0.0,
            degree => x[u] / degree as f64,
        })
        .collect();
    let dangling: f64 = (0..n).into_par_iter().filter(|&u| graph.out_degree(u as VertexId) == 0).map(|u| x[u]).sum();
    (0..n)
        .into_par_iter()
        .map(|v| {
            let gathered: f64 = graph.in_neighbors(v as VertexId).iter().map(|&u| shares[u as usize]).sum();
            (1.0 - d) * p[v] + d * (gathered + dangling * p[v])
        })
        .collect()
}

/// The L1 distance between two vectors.
fn l1(a: &[f64], b: &[f64]) -> f64 {
    a.par_iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}
