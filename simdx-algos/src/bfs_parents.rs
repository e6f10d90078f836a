//! The breadth-first parent tree from levels: after a search has left each vertex's level, each
//! reached vertex's parent is the smallest of its in-neighbours one level closer to the source. The
//! CUDA backend runs this pass on the device after a [`Bfs`](crate::Bfs) run (simdx-cuda's
//! `run_with_parents`); this is the same pass on the CPU: the GPU's reference, and parents for levels
//! one already has. On either backend the pass measured slower than [`BfsTree`](crate::BfsTree),
//! which carries level and parent through the search (`Runner::bfs_tree`; BENCHMARKS.md).

use rayon::prelude::*;
use simdx_core::{Graph, VertexId};

/// Each vertex's parent given its breadth-first `levels` from `source` (`u32::MAX` where
/// unreached): the smallest in-neighbour whose level is one less, `source` its own, `u32::MAX` for
/// the unreached (and for a vertex no in-neighbour explains, which valid levels never leave).
pub fn parents_from_levels(graph: &Graph, source: VertexId, levels: &[u32]) -> Vec<u32> {
    let incoming = graph.in_csr();
    (0..levels.len() as VertexId)
        .into_par_iter()
        .map(|v| match levels[v as usize] {
            _ if v == source => v,
            0 | u32::MAX => u32::MAX,
            // The source is the only vertex of level 0.
            1 => source,
            level => {
                let closer = |&&u: &&VertexId| levels[u as usize] == level - 1;
                incoming.neighbors(v).iter().find(closer).copied().unwrap_or(u32::MAX)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::{EdgeList, GraphBuilder};

    #[test]
    fn each_vertex_takes_its_smallest_in_neighbour_one_level_closer() {
        // 0 -> {1, 2}, {1, 2} -> 3, 4 alone; directed, so 3's in-neighbours are 1 and 2.
        let edges = EdgeList { num_vertices: 5, src: vec![0, 0, 2, 1], dst: vec![1, 2, 3, 3], weights: None };
        let g = GraphBuilder::new().directed(true).build(edges).unwrap();
        let levels = [0, 1, 1, 2, u32::MAX];
        assert_eq!(parents_from_levels(&g, 0, &levels), vec![0, 0, 0, 1, u32::MAX]);
    }
}
