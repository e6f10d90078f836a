//! Jaccard similarity of vertex pairs, `|N(u) ∩ N(v)| / |N(u) ∪ N(v)|` over their neighbour sets, for
//! every edge or given pairs (networkx's `jaccard_coefficient`, cuGraph's `jaccard`), on the sorted
//! list intersections of [`simdx_core::intersect`], on a backend's [`Intersections`]: the CPU's for a
//! [`Graph`] (pass `&graph`), the GPU's for a device graph (`Runner::intersections` in the facade).

use simdx_core::intersect::{IntersectError, Intersections};
use simdx_core::{Graph, VertexId};

/// The Jaccard coefficient of each pair (0 where both have no neighbours), on an undirected graph.
pub fn jaccard(on: &dyn Intersections, pairs: &[(VertexId, VertexId)]) -> Result<Vec<f64>, IntersectError> {
    on.jaccard(pairs)
}

/// Every edge `{u, v}` once, as `(u, v)` with `u < v` (self-loops left out): the pairs to give
/// [`jaccard`] for the similarity along every edge.
pub fn edge_pairs(graph: &Graph) -> Vec<(VertexId, VertexId)> {
    graph.out_csr().arcs().filter(|&(u, v)| u < v).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::gen::GeneratorSpec;

    #[test]
    fn coefficients_match_the_oracle_on_edges_and_other_pairs() {
        for spec in ["kron:9", "grid:6x6", "urand:9"] {
            let graph = GeneratorSpec::parse(spec).unwrap().generate(5).unwrap();
            let mut pairs = edge_pairs(&graph);
            let last = graph.num_vertices() as VertexId - 1;
            pairs.extend([(0, 1), (3, 3), (2, 17), (last, 9)]);
            let mut values = jaccard(&graph, &pairs).unwrap();
            crate::verify::jaccard(&graph, &pairs, &values, 1e-12).unwrap();
            // The oracle names the first pair that is off.
            let at = pairs.len() / 2;
            values[at] += 1e-9;
            let why = crate::verify::jaccard(&graph, &pairs, &values, 1e-12).unwrap_err();
            assert!(why.starts_with(&format!("pair ({}, {})", pairs[at].0, pairs[at].1)), "{why}");
        }
    }
}
