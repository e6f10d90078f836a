//! Louvain on small graphs whose communities are plain to see, with the modularity recomputed
//! edge by edge.

use super::*;
use crate::{EdgeList, EdgeWeights, GraphBuilder, SelfLoops};

fn undirected(n: usize, edges: &[(u32, u32)], weights: Option<Vec<u32>>) -> Graph {
    let (src, dst) = edges.iter().copied().unzip();
    let edges = EdgeList { num_vertices: n, src, dst, weights: weights.map(EdgeWeights::U32) };
    GraphBuilder::new().self_loops(SelfLoops::Keep).build(edges).unwrap()
}

/// `count` cliques of `size` vertices (clique `i` holds `i * size .. (i + 1) * size`), clique `i`'s
/// first vertex joined to clique `i + 1`'s last (and the last clique to the first when `ring`).
fn cliques(count: u32, size: u32, ring: bool) -> Graph {
    let mut edges = Vec::new();
    for c in 0..count {
        let first = c * size;
        for u in first..first + size {
            edges.extend((u + 1..first + size).map(|v| (u, v)));
        }
        if c + 1 < count || (ring && count > 2) {
            edges.push((first, ((c + 1) % count) * size + size - 1));
        }
    }
    undirected((count * size) as usize, &edges, None)
}

/// Modularity summed over the edges as networkx defines it: `L_c / m - gamma * (d_c / 2m)^2`, a
/// self-loop once in `L_c` and twice in `d_c`.
fn modularity(graph: &Graph, labels: &[u32], gamma: f64) -> f64 {
    let k = labels.iter().max().map_or(0, |&c| c as usize + 1);
    let (mut inside, mut degree, mut m) = (vec![0.0; k], vec![0.0; k], 0.0);
    for (u, v, w) in graph.edges() {
        let w = w.unwrap_or(1.0);
        m += w;
        degree[labels[u as usize] as usize] += w;
        degree[labels[v as usize] as usize] += w;
        if labels[u as usize] == labels[v as usize] {
            inside[labels[u as usize] as usize] += w;
        }
    }
    (0..k).map(|c| inside[c] / m - gamma * (degree[c] / (2.0 * m)).powi(2)).sum()
}

fn run(graph: &Graph, resolution: f64, seed: u64) -> Communities {
    louvain(graph, &LouvainOptions { resolution, seed, ..LouvainOptions::default() }).unwrap()
}

#[test]
fn two_cliques_joined_by_an_edge_are_two_communities() {
    let graph = cliques(2, 5, false);
    let found = run(&graph, 1.0, 0);
    assert_eq!(found.labels, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    assert_eq!(found.count, 2);
    assert!((found.modularity - modularity(&graph, &found.labels, 1.0)).abs() < 1e-12);
}

#[test]
fn each_clique_of_a_ring_is_a_community_and_the_modularity_is_recomputed() {
    let graph = cliques(6, 6, true);
    for seed in 0..4 {
        let found = run(&graph, 1.0, seed);
        let want: Vec<u32> = (0..36).map(|v| v / 6).collect();
        assert_eq!(found.labels, want, "seed {seed}");
        assert!((found.modularity - modularity(&graph, &found.labels, 1.0)).abs() < 1e-12);
    }
}

#[test]
fn a_higher_resolution_gives_more_communities_and_zero_one_per_component() {
    let graph = crate::gen::GeneratorSpec::parse("kron:10").unwrap().generate(5).unwrap();
    let counts: Vec<usize> = [0.0, 1.0, 4.0].iter().map(|&gamma| run(&graph, gamma, 1).count).collect();
    assert!(counts[0] < counts[1] && counts[1] < counts[2], "{counts:?}");
    // At resolution 0 merging never costs: each connected component is one community.
    let (components, _) = crate::strong::strongly_connected(&graph);
    let mut distinct = components.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(counts[0], distinct.len());
    for gamma in [0.5, 2.0] {
        let found = run(&graph, gamma, 1);
        assert!((found.modularity - modularity(&graph, &found.labels, gamma)).abs() < 1e-9);
    }
}

#[test]
fn the_same_seed_gives_the_same_labels_on_any_number_of_threads() {
    let graph = crate::gen::GeneratorSpec::parse("kron:14").unwrap().generate(2).unwrap();
    let on = |threads: usize, seed: u64| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| run(&graph, 1.0, seed))
    };
    let first = on(1, 7);
    assert_eq!(first, Communities { levels: first.levels.clone(), ..on(3, 7) }, "3 threads");
    assert_eq!(first.labels, on(2, 7).labels);
    assert_ne!(first.labels, on(2, 8).labels, "another seed, another order");
    assert!((first.modularity - modularity(&graph, &first.labels, 1.0)).abs() < 1e-9);
}

#[test]
fn weights_and_self_loops_count() {
    // A square 0-1-2-3-0 whose edges 0-1 and 2-3 weigh 10: those pairs are the communities.
    let square = undirected(4, &[(0, 1), (1, 2), (2, 3), (3, 0)], Some(vec![10, 1, 10, 1]));
    assert_eq!(run(&square, 1.0, 0).labels, [0, 0, 1, 1]);
    let square = undirected(4, &[(0, 1), (1, 2), (2, 3), (3, 0)], Some(vec![1, 10, 1, 10]));
    assert_eq!(run(&square, 1.0, 0).labels, [0, 1, 1, 0]);
    // Self-loops: twice in the degree, once inside.
    let looped = undirected(6, &[(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (4, 5), (3, 5), (0, 0), (4, 4)], None);
    let found = run(&looped, 1.0, 3);
    assert_eq!(found.labels, [0, 0, 0, 1, 1, 1]);
    assert!((found.modularity - modularity(&looped, &found.labels, 1.0)).abs() < 1e-12);
}

#[test]
fn edgeless_and_directed_graphs_and_bad_options() {
    let lone = undirected(3, &[], None);
    let found = run(&lone, 1.0, 0);
    assert_eq!((found.labels, found.count, found.modularity), (vec![0, 1, 2], 3, 0.0));
    let directed = GraphBuilder::new().directed(true).build(EdgeList {
        num_vertices: 2,
        src: vec![0],
        dst: vec![1],
        weights: None,
    });
    assert_eq!(louvain(&directed.unwrap(), &LouvainOptions::default()), Err(LouvainError::Directed));
    let bad = |options: LouvainOptions| louvain(&lone, &options).unwrap_err();
    assert_eq!(bad(LouvainOptions { resolution: -1.0, ..Default::default() }), LouvainError::Resolution(-1.0));
    assert!(matches!(bad(LouvainOptions { threshold: f64::NAN, ..Default::default() }), LouvainError::Threshold(_)));
    assert_eq!(bad(LouvainOptions { max_level: Some(0), ..Default::default() }), LouvainError::MaxLevel);
}

#[test]
fn max_level_stops_early() {
    let graph = cliques(16, 4, true);
    let one = louvain(&graph, &LouvainOptions { max_level: Some(1), ..Default::default() }).unwrap();
    let all = run(&graph, 1.0, 0);
    assert_eq!(one.levels.len(), 1);
    assert!(
        all.levels.len() > 1 && all.count < one.count,
        "{} levels, {} < {}",
        all.levels.len(),
        all.count,
        one.count
    );
    assert!(all.modularity > one.modularity);
}
