//! PageRank oracle: a serial power iteration in `f64` with the same dangling-vertex convention, and an
//! L1 comparison.

use simdx_core::Graph;

use crate::PageRank;

/// Ranks by power iteration: `r' = (1-d)/n + d * (sum over in-neighbours u of r(u)/outdeg(u) +
/// dangling/n)`, until the L1 change is below `params.tolerance` or `params.max_iterations`.
pub fn serial_pagerank(graph: &Graph, params: &PageRank) -> Vec<f64> {
    let n = graph.num_vertices();
    let uniform = vec![1.0 / n as f64; n];
    super::ppr::power_iteration(graph, params.damping, &uniform, params.tolerance, params.max_iterations)
}

/// Checks that `ranks` are within `max_l1` (sum of absolute differences) of [`serial_pagerank`] run
/// to a much tighter tolerance; returns the L1 distance.
pub fn pagerank(graph: &Graph, params: &PageRank, ranks: &[f64], max_l1: f64) -> Result<f64, String> {
    let tight =
        PageRank { tolerance: params.tolerance.min(1e-12), max_iterations: params.max_iterations.max(1000), ..*params };
    let expected = serial_pagerank(graph, &tight);
    if ranks.len() != expected.len() {
        return Err(format!("{} ranks for {} vertices", ranks.len(), expected.len()));
    }
    let l1: f64 = expected.iter().zip(ranks).map(|(e, &r)| (e - r).abs()).sum();
    if l1 <= max_l1 {
        Ok(l1)
    } else {
        Err(format!("the ranks are {l1:.3e} (L1) from the serial power iteration, more than {max_l1:.1e}"))
    }
}
