//! Applications of the multi-source traversal ([`simdx_core::multi_source`]: 64 breadth-first
//! searches per pass over the graph, bitwise): the levels from each of many sources, closeness
//! centrality as networkx defines it, and each vertex's eccentricity within what it reaches.

use std::sync::atomic::{AtomicU32, Ordering};

use simdx_core::multi_source::{traverse, MultiSourceError, MultiStats, Orientation, Summary, Traversal};
use simdx_core::{Graph, VertexId};

/// Levels from each source: row-major, `levels[v * sources.len() + i]` is `v`'s level from
/// `sources[i]`, `u32::MAX` where unreached.
pub fn levels_from_each(
    graph: &Graph,
    sources: &[VertexId],
    how: Traversal,
) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
    let k = sources.len();
    let levels: Vec<AtomicU32> = (0..graph.num_vertices() * k).map(|_| AtomicU32::new(u32::MAX)).collect();
    let (_, stats) =
        traverse(graph, sources, Traversal { orientation: Orientation::Out, ..how }, |search, v, level| {
            levels[v as usize * k + search].store(level, Ordering::Relaxed);
        })?;
    Ok((levels.into_iter().map(AtomicU32::into_inner).collect(), stats))
}

/// Closeness centrality of each of `vertices`, as networkx's `closeness_centrality` (Wasserman and
/// Faust's correction for graphs that are not connected): `(r - 1) / s * (r - 1) / (n - 1)` where `r`
/// vertices reach `u` (itself included) at total distance `s` (0 when `s` is 0). Distances run to
/// `u`, along in-arcs, as networkx measures them on a directed graph.
pub fn closeness(
    graph: &Graph,
    vertices: &[VertexId],
    how: Traversal,
) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
    let (summaries, stats) =
        traverse(graph, vertices, Traversal { orientation: Orientation::In, ..how }, |_, _, _| {})?;
    let n = graph.num_vertices();
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

/// Each of `vertices`' eccentricity within the part of the graph it reaches along out-arcs: the
/// largest level of a breadth-first search from it (networkx's `eccentricity` on a connected graph).
/// Their largest is a lower bound of the diameter, exact when `vertices` are all the vertices.
pub fn eccentricity(
    graph: &Graph,
    vertices: &[VertexId],
    how: Traversal,
) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
    let (summaries, stats) =
        traverse(graph, vertices, Traversal { orientation: Orientation::Out, ..how }, |_, _, _| {})?;
    Ok((summaries.iter().map(|s| s.eccentricity).collect(), stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify;
    use simdx_core::engine::DirectionPolicy;
    use simdx_core::gen::GeneratorSpec;

    #[test]
    fn the_applications_agree_with_one_serial_search_per_source() {
        let graph = GeneratorSpec::parse("kron:9").unwrap().generate(2).unwrap();
        let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
        let (levels, _) = levels_from_each(&graph, &all[..100], Traversal::default()).unwrap();
        verify::levels_from_each(&graph, &all[..100], &levels).unwrap();
        let (values, _) = closeness(&graph, &all, Traversal { group_by: true, ..Traversal::default() }).unwrap();
        verify::closeness(&graph, &all, &values, 1e-12).unwrap();
        let (eccentricities, _) =
            eccentricity(&graph, &all, Traversal { direction: DirectionPolicy::Pull, ..Traversal::default() }).unwrap();
        verify::eccentricity(&graph, &all, &eccentricities).unwrap();
    }

    #[test]
    fn closeness_follows_networkx_on_a_directed_path() {
        // 0 -> 1 -> 2: networkx gives 0, 1/1 * 1/2, 2/3 * 2/2.
        let graph = simdx_core::GraphBuilder::new()
            .directed(true)
            .build(simdx_core::EdgeList { num_vertices: 3, src: vec![0, 1], dst: vec![1, 2], weights: None })
            .unwrap();
        let (values, _) = closeness(&graph, &[0, 1, 2], Traversal::default()).unwrap();
        assert_eq!(values, vec![0.0, 0.5, 2.0 / 3.0]);
    }
}
