//! Personalized PageRank oracle: a serial power iteration in `f64` with networkx's conventions (jumps
//! and dangling vertices follow the personalization vector), and a check of
//! ranks' L1 distance from the iteration's fixed point.

use simdx_core::Graph;

use crate::Ppr;

/// Ranks by power iteration from `p`: `r' = (1-d) p + d (sum over in-arcs u -> v of r(u)/outdeg(u) +
/// p * dangling)`, until the L1 change is below `params.tolerance` or `params.max_iterations`.
pub fn serial_ppr(graph: &Graph, params: &Ppr) -> Vec<f64> {
    let p = params.personalization.as_slice();
    power_iteration(graph, params.damping, p, params.tolerance, params.max_iterations)
}

/// The power iteration of PageRank with jumps (and dangling vertices' rank) spread by `p`, from `p`:
/// personalized PageRank, or PageRank itself when `p` is uniform.
pub(crate) fn power_iteration(graph: &Graph, d: f64, p: &[f64], tolerance: f64, max_iterations: u32) -> Vec<f64> {
    let n = graph.num_vertices();
    let mut rank = p.to_vec();
    for _ in 0..max_iterations {
        let dangling: f64 = (0..n).filter(|&v| graph.out_degree(v as u32) == 0).map(|v| rank[v]).sum();
        let mut next = vec![0.0; n];
        for (u, &r) in rank.iter().enumerate() {
            let out = graph.out_neighbors(u as u32);
            for &v in out {
                next[v as usize] += r / out.len() as f64;
            }
        }
        let mut change = 0.0;
        for v in 0..n {
            next[v] = (1.0 - d) * p[v] + d * (next[v] + dangling * p[v]);
            change += (next[v] - rank[v]).abs();
        }
        rank = next;
        if change < tolerance {
            break;
        }
    }
    rank
}

/// Checks that `ranks` are within `max_l1` (L1) of personalized PageRank's fixed point, by parallel
/// steps of the power iteration from them (module `verify::fixed_point`); returns an upper bound on
/// their L1 distance from it.
pub fn ppr(graph: &Graph, params: &Ppr, ranks: &[f64], max_l1: f64) -> Result<f64, String> {
    super::fixed_point::within(graph, params.damping, params.personalization.as_slice(), ranks, max_l1)
}
