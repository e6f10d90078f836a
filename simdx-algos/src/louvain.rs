//! Louvain community detection (networkx's `louvain_communities`, cuGraph's `louvain`): the
//! parallel, seed-deterministic Louvain of [`simdx_core::louvain`] — local moving in seeded batches
//! decided in parallel and applied in order, then aggregation, level after level. Each vertex gets a
//! community label, numbered in the order of the communities' smallest vertices. Not a vertex program
//! (it rebuilds the graph at every level), so it runs on the CPU backend.

pub use simdx_core::louvain::{Communities, LevelStats, LouvainError, LouvainOptions};
use simdx_core::Graph;

/// Louvain communities of an undirected graph, with the modularity of the labels found.
pub fn louvain(graph: &Graph, options: &LouvainOptions) -> Result<Communities, LouvainError> {
    simdx_core::louvain::louvain(graph, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::gen::GeneratorSpec;

    #[test]
    fn labels_pass_the_oracle_on_generated_graphs() {
        for spec in ["kron:12", "urand:11", "grid:20x20", "rmat:11", "grid:16x16:w", "kron:10:w"] {
            let graph = GeneratorSpec::parse(spec).unwrap().generate(11).unwrap();
            for resolution in [1.0, 0.5, 2.0] {
                let found = louvain(&graph, &LouvainOptions { resolution, seed: 3, ..Default::default() }).unwrap();
                let count = crate::verify::louvain(&graph, &found.labels, found.modularity, resolution, true)
                    .unwrap_or_else(|e| panic!("{spec} at {resolution}: {e}"));
                assert_eq!(count, found.count, "{spec}");
            }
        }
    }

    #[test]
    fn a_grid_splits_into_blocks_of_high_modularity() {
        // A 32x32 grid has no planted communities, but compact blocks of it score above 0.8
        // (networkx 3.6's louvain_communities finds 0.815 to 0.823 on it with seeds 0, 1 and 2).
        let graph = GeneratorSpec::parse("grid:32x32").unwrap().generate(1).unwrap();
        let found = louvain(&graph, &LouvainOptions::default()).unwrap();
        assert!(found.modularity > 0.85, "{}", found.modularity);
        assert!(crate::verify::modularity(&graph, &vec![0; 1024], 1.0).abs() < 1e-12, "one community scores 0");
    }

    #[test]
    fn the_oracle_catches_bad_labels() {
        let graph = GeneratorSpec::parse("grid:8x8").unwrap().generate(1).unwrap();
        let found = louvain(&graph, &LouvainOptions::default()).unwrap();
        let check = |labels: &[u32], q: f64| crate::verify::louvain(&graph, labels, q, 1.0, true);
        check(&found.labels, found.modularity).unwrap();
        assert!(check(&found.labels, found.modularity + 1e-6).is_err(), "a wrong modularity");
        let mut swapped = found.labels.clone();
        swapped.iter_mut().filter(|c| **c < 2).for_each(|c| *c ^= 1); // communities 0 and 1 swap names
        assert!(check(&swapped, found.modularity).is_err(), "not numbered by smallest vertex");
        let singles: Vec<u32> = (0..64).collect();
        let q = crate::verify::modularity(&graph, &singles, 1.0);
        assert!(check(&singles, q).unwrap_err().contains("merging"), "singletons would merge");
    }
}
