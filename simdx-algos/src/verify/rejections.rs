//! The checks accept the true answers and reject answers wrong in one place: every vertex's level or
//! distance moved by one either way or made unreachable, ranks moved by a little, two components
//! merged, a k-core with one vertex too many, parent trees broken in each of Graph500's ways; core
//! numbers agree with peeling each k; a source outside the graph is an error.

use simdx_core::gen::GeneratorSpec;
use simdx_core::{EdgeList, EdgeWeights, Graph, GraphBuilder, VertexId};

use super::*;
use crate::bfs::UNREACHED;
use crate::PageRank;

fn generated(spec: &str) -> Graph {
    GeneratorSpec::parse(spec).unwrap().generate(7).unwrap()
}

/// `values` with vertex `v`'s value replaced by each of `wrong` in turn, each of which `check` must
/// reject.
fn each_rejected(values: &[u32], v: usize, wrong: &[u32], check: impl Fn(&[u32]) -> Result<(), String>) {
    for &w in wrong.iter().filter(|&&w| w != values[v]) {
        let mut changed = values.to_vec();
        changed[v] = w;
        assert!(check(&changed).is_err(), "vertex {v}: {} -> {w} accepted", values[v]);
    }
}

/// The values one off, either way, and unreached (`u32::MAX`).
fn one_off(value: u32) -> [u32; 3] {
    [value.wrapping_add(1), value.wrapping_sub(1), UNREACHED]
}

#[test]
fn bfs_levels_are_checked_exactly() {
    for spec in ["kron:9", "kron:9:d", "grid:12x12", "urand:9:1"] {
        let graph = generated(spec);
        let sources = [0, 5];
        let levels = serial_bfs_from(&graph, &sources);
        bfs_from(&graph, &sources, &levels).unwrap_or_else(|e| panic!("{spec}: {e}"));
        for v in 0..graph.num_vertices() {
            let reached_level = if levels[v] == UNREACHED { [1, 2, 0] } else { one_off(levels[v]) };
            each_rejected(&levels, v, &reached_level, |l| bfs_from(&graph, &sources, l));
        }
    }
}

#[test]
fn parent_trees_are_checked_by_graph500s_rules() {
    // 0 - 1 - 2 and, apart, 3 - 4: parents 0, 0, 1, none, none.
    let edges = EdgeList { num_vertices: 5, src: vec![0, 1, 3], dst: vec![1, 2, 4], weights: None };
    let graph = GraphBuilder::new().build(edges).unwrap();
    let none = UNREACHED;
    bfs_tree(&graph, 0, &[0, 0, 1, none, none]).unwrap();
    for wrong in [
        [1, 0, 1, none, none],    // the source's parent is not itself
        [0, 0, 0, none, none],    // no arc 0 -> 2
        [0, 2, 1, none, none],    // 1 and 2 each other's parents: never back to the source
        [0, 0, 1, 4, 3],          // the unreachable 3 and 4 in the tree, as a cycle
        [0, 0, none, none, none], // the reachable 2 left out
    ] {
        assert!(bfs_tree(&graph, 0, &wrong).is_err(), "{wrong:?} accepted");
    }
    for spec in ["kron:9", "kron:9:d", "grid:12x12"] {
        let graph = generated(spec);
        let levels = serial_bfs(&graph, 0);
        let parents: Vec<u32> = (0..graph.num_vertices() as VertexId)
            .map(|v| match levels[v as usize] {
                0 => 0,
                UNREACHED => UNREACHED,
                l => *graph.in_neighbors(v).iter().find(|&&u| levels[u as usize].wrapping_add(1) == l).unwrap(),
            })
            .collect();
        bfs_tree(&graph, 0, &parents).unwrap_or_else(|e| panic!("{spec}: {e}"));
        // A parent at the vertex's own level (an arc, but not a BFS tree's).
        let shortcut = (0..parents.len())
            .find(|&v| levels[v] >= 2 && graph.in_neighbors(v as u32).iter().any(|&u| levels[u as usize] == levels[v]));
        if let Some(v) = shortcut {
            let mut wrong = parents.clone();
            wrong[v] = *graph.in_neighbors(v as u32).iter().find(|&&u| levels[u as usize] == levels[v]).unwrap();
            assert!(bfs_tree(&graph, 0, &wrong).is_err(), "{spec}: vertex {v}'s parent at its own level accepted");
        }
    }
}

#[test]
fn sssp_distances_are_checked_exactly() {
    for spec in ["kron:9:w", "kron:9:d:w", "grid:12x12:w", "urand:9:1:w"] {
        let graph = generated(spec);
        let sources = [3];
        let distances: Vec<u32> =
            dijkstra_from(&graph, &sources).unwrap().iter().map(|d| d.map_or(u32::MAX, |d| d as u32)).collect();
        sssp_from(&graph, &sources, &distances).unwrap_or_else(|e| panic!("{spec}: {e}"));
        for v in 0..graph.num_vertices() {
            let wrong = if distances[v] == u32::MAX { [1, 100, 0] } else { one_off(distances[v]) };
            each_rejected(&distances, v, &wrong, |d| sssp_from(&graph, &sources, d));
        }
    }
}

#[test]
fn sssp_with_zero_weights_is_checked_against_dijkstra() {
    // 0 -> 1 (5), 1 <-> 2 (0): both at 5. Both at 4 keep every arc's bound and each gets its
    // distance from the other, so only Dijkstra tells that they are wrong.
    let edges = EdgeList {
        num_vertices: 3,
        src: vec![0, 1, 2],
        dst: vec![1, 2, 1],
        weights: Some(EdgeWeights::U32(vec![5, 0, 0])),
    };
    let graph = GraphBuilder::new().directed(true).build(edges).unwrap();
    sssp(&graph, 0, &[0u32, 5, 5]).unwrap();
    assert!(sssp(&graph, 0, &[0u32, 4, 4]).is_err());
}

#[test]
fn ranks_are_checked_within_their_allowance() {
    for spec in ["kron:9", "kron:9:d", "grid:12x12"] {
        let graph = generated(spec);
        let params = PageRank { damping: 0.85, tolerance: 1e-14, max_iterations: 2000 };
        let exact = serial_pagerank(&graph, &params);
        let bound = pagerank(&graph, &params, &exact, 1e-9).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!(bound < 1e-9, "{spec}: {bound}");
        // Ranks from a few steps: every bound is at least their true distance, an allowance a little
        // above it accepts them and one a little below rejects them.
        let rough = serial_pagerank(&graph, &PageRank { max_iterations: 4, ..params });
        let distance: f64 = exact.iter().zip(&rough).map(|(a, b)| (a - b).abs()).sum();
        for allowance in [1.0, distance * 1.05] {
            let bound = pagerank(&graph, &params, &rough, allowance).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert!(bound >= distance * (1.0 - 1e-9), "{spec}: {bound} for {distance}");
        }
        assert!(pagerank(&graph, &params, &rough, distance * 0.95).is_err(), "{spec}");
        let mut moved = exact.clone();
        (moved[1], moved[2]) = (moved[1] + 1e-4, moved[2] - 1e-4);
        assert!(pagerank(&graph, &params, &moved, 1e-4).is_err(), "{spec}");
        assert!(pagerank(&graph, &params, &moved, 3e-4).is_ok(), "{spec}");
    }
}

/// Components by a breadth-first walk over arcs both ways, from each vertex not yet labelled in
/// increasing order: every label is its component's smallest vertex.
fn walked_components(graph: &Graph) -> Vec<u32> {
    let mut label = vec![UNREACHED; graph.num_vertices()];
    for start in 0..graph.num_vertices() as VertexId {
        if label[start as usize] != UNREACHED {
            continue;
        }
        let mut queue = vec![start];
        label[start as usize] = start;
        while let Some(u) = queue.pop() {
            for &v in graph.out_neighbors(u).iter().chain(graph.in_neighbors(u)) {
                if label[v as usize] == UNREACHED {
                    label[v as usize] = start;
                    queue.push(v);
                }
            }
        }
    }
    label
}

#[test]
fn components_agree_with_a_walk_and_merged_ones_are_rejected() {
    for spec in ["kron:10", "kron:10:d", "urand:10:1", "urand:10:1:d", "grid:9x9"] {
        let graph = generated(spec);
        let labels = union_find_components(&graph);
        assert_eq!(labels, walked_components(&graph), "{spec}");
        wcc(&graph, &labels).unwrap();
        if let Some(v) = (1..labels.len()).find(|&v| labels[v] == v as u32) {
            let merged: Vec<u32> = labels.iter().map(|&l| if l == v as u32 { 0 } else { l }).collect();
            assert!(wcc(&graph, &merged).is_err(), "{spec}: components 0 and {v} merged");
        }
    }
}

#[test]
fn core_numbers_agree_with_peeling_each_k_and_wrong_k_cores_are_rejected() {
    for spec in ["kron:10", "kron:9:d", "grid:9x9", "urand:10:3"] {
        let graph = generated(spec);
        let cores = serial_core_numbers(&graph);
        core_decomposition(&graph, &cores).unwrap();
        let adjacency = kcore_neighbours(&graph);
        for k in 0..=cores.iter().copied().max().unwrap() + 1 {
            let inside: Vec<bool> = cores.iter().map(|&c| c >= k).collect();
            let values: Vec<u32> = (0..graph.num_vertices())
                .map(|v| match inside[v] {
                    true => adjacency[v].iter().filter(|&&u| inside[u as usize]).count() as u32,
                    false => 0,
                })
                .collect();
            kcore(&graph, k, &values).unwrap_or_else(|e| panic!("{spec}, k {k}: {e}"));
            if let Some(v) = (0..values.len()).find(|&v| cores[v] + 1 == k) {
                each_rejected(&values, v, &[k], |values| kcore(&graph, k, values));
            }
        }
    }
}

#[test]
fn core_numbers_of_a_clique_with_a_tail() {
    // A 5-clique on 0..5 and a path 4 - 5 - 6: core numbers 4 on the clique, 1 on the tail.
    let mut edges: Vec<(u32, u32)> = (0..5).flat_map(|u| (u + 1..5).map(move |v| (u, v))).collect();
    edges.extend([(4, 5), (5, 6)]);
    let list = EdgeList {
        num_vertices: 7,
        src: edges.iter().map(|e| e.0).collect(),
        dst: edges.iter().map(|e| e.1).collect(),
        weights: None,
    };
    let graph = GraphBuilder::new().build(list).unwrap();
    assert_eq!(serial_core_numbers(&graph), vec![4, 4, 4, 4, 4, 1, 1]);
}

/// Each vertex's neighbours as k-core counts them, written out again: arcs as stored when undirected,
/// distinct other ends of out- and in-arcs when directed.
fn kcore_neighbours(graph: &Graph) -> Vec<Vec<VertexId>> {
    (0..graph.num_vertices() as VertexId)
        .map(|v| {
            if !graph.is_directed() {
                return graph.out_neighbors(v).to_vec();
            }
            let mut all: std::collections::BTreeSet<VertexId> =
                graph.out_neighbors(v).iter().chain(graph.in_neighbors(v)).copied().collect();
            all.remove(&v);
            all.into_iter().collect()
        })
        .collect()
}

#[test]
fn a_source_outside_the_graph_and_a_jump_vector_that_is_no_distribution_are_errors() {
    let graph = generated("kron:6");
    let n = graph.num_vertices() as VertexId;
    assert!(bfs(&graph, n, &serial_bfs(&graph, 0)).is_err());
    assert!(sssp(&graph, n + 3, &vec![0u32; n as usize]).is_err());
    assert!(bfs_tree(&graph, n, &vec![0; n as usize]).is_err());
    let ones = crate::Ppr { personalization: vec![1.0; n as usize].into(), ..crate::Ppr::from_seeds(n as usize, &[0]) };
    let ranks = vec![1.0 / f64::from(n); n as usize];
    assert!(ppr(&graph, &ones, &ranks, 1.0).unwrap_err().contains("not a distribution"));
}
