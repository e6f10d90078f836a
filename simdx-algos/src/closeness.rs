//! Closeness centrality as networkx defines it, on the multi-source traversal
//! ([`simdx_core::multi_source`]: 64 searches per pass over the graph, bitwise).

use simdx_core::multi_source::{MultiSourceError, MultiStats, Orientation, Searches, Summary, Traversal};
use simdx_core::VertexId;

/// Closeness centrality of each of `vertices`, as networkx's `closeness_centrality` (Wasserman and
/// Faust's correction for graphs that are not connected): `(r - 1) / s * (r - 1) / (n - 1)` where `r`
/// vertices reach `u` (itself included) at total distance `s` (0 when `s` is 0). Distances run to
/// `u`, along in-arcs, as networkx measures them on a directed graph.
pub fn closeness(
    searches: &(impl Searches + ?Sized),
    vertices: &[VertexId],
    how: Traversal,
) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
    let how = Traversal { orientation: Orientation::In, ..how };
    let (summaries, stats) = searches.summaries(vertices, how)?;
    let n = searches.num_vertices();
    Ok((summaries.iter().map(|s| closeness_of(s, n)).collect(), stats))
}

/// The closeness of a search's source from its summary, in a graph of `n` vertices.
fn closeness_of(summary: &Summary, n: usize) -> f64 {
    if summary.distance_sum == 0 || n < 2 {
        return 0.0;
    }
    let others = (summary.reached - 1) as f64;
    others / summary.distance_sum as f64 * (others / (n - 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::{EdgeList, GraphBuilder};

    #[test]
    fn closeness_follows_networkx_on_a_directed_path_and_a_kronecker_graph() {
        // 0 -> 1 -> 2: networkx gives 0, 1/1 * 1/2, 2/3 * 2/2.
        let path = EdgeList { num_vertices: 3, src: vec![0, 1], dst: vec![1, 2], weights: None };
        let graph = GraphBuilder::new().directed(true).build(path).unwrap();
        let (values, _) = closeness(&graph, &[0, 1, 2], Traversal::default()).unwrap();
        assert_eq!(values, vec![0.0, 0.5, 2.0 / 3.0]);
        let graph = simdx_core::gen::GeneratorSpec::parse("kron:9").unwrap().generate(2).unwrap();
        let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
        let (values, _) = closeness(&graph, &all, Traversal { group_by: true, ..Traversal::default() }).unwrap();
        crate::verify::closeness(&graph, &all, &values, 1e-12).unwrap();
    }
}
