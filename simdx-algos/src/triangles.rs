//! Triangle counting, total (GAP's `tc`) and per vertex (networkx's `triangles`), on the edge
//! computations of [`simdx_core::intersect`]: each edge kept once from its end of lower (degree, id)
//! rank, each triangle found once from its lowest-ranked vertex by intersecting sorted lists. Not a
//! vertex program (an edge needs both ends' whole lists): it runs on a backend's [`Intersections`],
//! the CPU's for a [`simdx_core::Graph`] (pass `&graph`), the GPU's for a device graph
//! (`Runner::intersections` in the facade gives the runner's).

use simdx_core::intersect::{IntersectError, Intersections};

/// The number of triangles of an undirected graph (self-loops and repeated edges ignored).
pub fn triangle_count(on: &dyn Intersections) -> Result<u64, IntersectError> {
    on.triangle_count()
}

/// The number of triangles each vertex is in.
pub fn triangles(on: &dyn Intersections) -> Result<Vec<u64>, IntersectError> {
    on.triangles_per_vertex()
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::gen::GeneratorSpec;

    #[test]
    fn counts_match_the_oracle_on_generated_graphs() {
        for spec in ["kron:10", "urand:10", "grid:8x8", "rmat:9"] {
            let graph = GeneratorSpec::parse(spec).unwrap().generate(3).unwrap();
            let per_vertex = triangles(&graph).unwrap();
            crate::verify::triangles(&graph, &per_vertex).unwrap();
            let total = triangle_count(&graph).unwrap();
            crate::verify::triangle_count(&graph, total).unwrap();
            assert_eq!(per_vertex.iter().sum::<u64>(), 3 * total, "{spec}");
        }
    }
}
