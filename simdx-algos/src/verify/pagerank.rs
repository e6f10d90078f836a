//! PageRank oracle: a serial power iteration in `f64` with the same dangling-vertex convention, and a
//! check of ranks' L1 distance from the iteration's fixed point.

use simdx_core::Graph;

use crate::PageRank;

/// Ranks by power iteration: `r' = (1-d)/n + d * (sum over in-neighbours u of r(u)/outdeg(u) +
/// dangling/n)`, until the L1 change is below `params.tolerance` or `params.max_iterations`.
pub fn serial_pagerank(graph: &Graph, params: &PageRank) -> Vec<f64> {
    let n = graph.num_vertices();
    let uniform = vec![1.0 / n as f64; n];
    super::ppr::power_iteration(graph, params.damping, &uniform, params.tolerance, params.max_iterations)
}

/// Checks that `ranks` are within `max_l1` (sum of absolute differences) of PageRank's fixed point,
/// by parallel steps of the power iteration from them (module `verify::fixed_point`); returns an upper
/// bound on their L1 distance from it.
pub fn pagerank(graph: &Graph, params: &PageRank, ranks: &[f64], max_l1: f64) -> Result<f64, String> {
    let n = graph.num_vertices();
    let uniform = vec![1.0 / n as f64; n];
    super::fixed_point::within(graph, params.damping, &uniform, ranks, max_l1)
}
