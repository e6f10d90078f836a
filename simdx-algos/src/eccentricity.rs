//! Each vertex's eccentricity (and so the diameter), on the multi-source traversal
//! ([`simdx_core::multi_source`]: 64 searches per pass over the graph, bitwise).

use simdx_core::multi_source::{MultiSourceError, MultiStats, Orientation, Searches, Traversal};
use simdx_core::VertexId;

/// Each of `vertices`' eccentricity within the part of the graph it reaches along out-arcs: the
/// largest level of a breadth-first search from it (networkx's `eccentricity` on a connected graph).
/// Their largest is a lower bound of the diameter, exact when `vertices` are all the vertices.
pub fn eccentricity(
    searches: &(impl Searches + ?Sized),
    vertices: &[VertexId],
    how: Traversal,
) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
    let how = Traversal { orientation: Orientation::Out, ..how };
    let (summaries, stats) = searches.summaries(vertices, how)?;
    Ok((summaries.iter().map(|s| s.eccentricity).collect(), stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::engine::DirectionPolicy;

    #[test]
    fn eccentricities_match_serial_searches() {
        let graph = simdx_core::gen::GeneratorSpec::parse("kron:9").unwrap().generate(2).unwrap();
        let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
        let how = Traversal { direction: DirectionPolicy::Pull, ..Traversal::default() };
        let (eccentricities, _) = eccentricity(&graph, &all, how).unwrap();
        crate::verify::eccentricity(&graph, &all, &eccentricities).unwrap();
    }
}
