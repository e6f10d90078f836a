//! Harmonic centrality as networkx defines it, written as a search program: each search adds up
//! `1 / level` over the vertices it discovers (the whole application-specific part is
//! `discovered`); the many-source traversal ([`simdx_core::multi_source`]) runs 64 searches per pass.

use simdx_core::acc::{CombineOp, Vertex};
use simdx_core::multi_source::{MultiSourceError, MultiStats, Orientation, Searches, Traversal};
use simdx_core::search_program::{search, SearchProgram};
use simdx_core::VertexId;
use simdx_macros::search_kernel;

/// Sum of the reciprocal distances of the vertices a search reaches.
#[derive(Debug, Clone, Copy)]
pub struct Harmonic;

#[search_kernel]
impl SearchProgram for Harmonic {
    type Acc = f64;
    const OP: CombineOp = CombineOp::Sum;
    const IDENTITY: f64 = 0.0;

    fn discovered(&self, _v: Vertex, level: u32) -> f64 {
        if level == 0 {
            0.0
        } else {
            1.0 / level as f64
        }
    }
}

/// Harmonic centrality of each of `vertices`, as networkx's `harmonic_centrality`: the sum of
/// `1 / d(v, u)` over the vertices `v != u` that reach `u` (distances along in-arcs, as networkx
/// measures them on a directed graph).
pub fn harmonic(
    searches: &(impl Searches + ?Sized),
    vertices: &[VertexId],
    how: Traversal,
) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
    let how = Traversal { orientation: Orientation::In, ..how };
    let (found, stats) = search(searches, &Harmonic, vertices, how)?;
    Ok((found.iter().map(|f| f.acc).collect(), stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::{EdgeList, GraphBuilder};

    #[test]
    fn harmonic_follows_networkx_on_a_directed_path_and_a_kronecker_graph() {
        // 0 -> 1 -> 2: networkx gives 0, 1, 1 + 1/2.
        let path = EdgeList { num_vertices: 3, src: vec![0, 1], dst: vec![1, 2], weights: None };
        let graph = GraphBuilder::new().directed(true).build(path).unwrap();
        let (values, _) = harmonic(&graph, &[0, 1, 2], Traversal::default()).unwrap();
        assert_eq!(values, vec![0.0, 1.0, 1.5]);
        let graph = simdx_core::gen::GeneratorSpec::parse("kron:9").unwrap().generate(2).unwrap();
        let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
        let (values, _) = harmonic(&graph, &all, Traversal { group_by: true, ..Traversal::default() }).unwrap();
        crate::verify::harmonic(&graph, &all, &values, 1e-12).unwrap();
    }
}
