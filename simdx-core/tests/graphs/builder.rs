//! The parallel graph builder against a naive serial one (proptest), plus CSR invariants and the
//! self-loop / duplicate policies on hand-made edge lists.

use std::collections::BTreeMap;

use proptest::prelude::*;
use simdx_core::{Duplicates, EdgeList, EdgeWeights, Graph, GraphBuilder, SelfLoops, Weights};

/// Naive reference: per vertex, a sorted list of (target, weight) arcs after the same clean-up.
fn naive(edges: &EdgeList, directed: bool, self_loops: SelfLoops, dups: Duplicates) -> Vec<Vec<(u32, u32)>> {
    let weight = |i: usize| match &edges.weights {
        Some(EdgeWeights::U32(w)) => w[i],
        _ => 0,
    };
    let mut adj = vec![Vec::new(); edges.num_vertices];
    for i in 0..edges.len() {
        let (s, d) = (edges.src[i], edges.dst[i]);
        if s == d {
            if self_loops == SelfLoops::Keep {
                adj[s as usize].push((d, weight(i)));
            }
            continue;
        }
        adj[s as usize].push((d, weight(i)));
        if !directed {
            adj[d as usize].push((s, weight(i)));
        }
    }
    for list in &mut adj {
        list.sort();
        if dups == Duplicates::Remove {
            list.dedup_by_key(|a| a.0);
        }
    }
    adj
}

fn adjacency(g: &Graph) -> Vec<Vec<(u32, u32)>> {
    let csr = g.out_csr();
    (0..g.num_vertices() as u32)
        .map(|v| {
            csr.range(v)
                .map(|i| {
                    let w = match csr.weights() {
                        Some(Weights::U32(w)) => w[i],
                        _ => 0,
                    };
                    (csr.targets()[i], w)
                })
                .collect()
        })
        .collect()
}

fn edge_list_strategy() -> impl Strategy<Value = (EdgeList, bool)> {
    (1usize..40, any::<bool>()).prop_flat_map(|(n, weighted)| {
        let nv = n as u32;
        prop::collection::vec((0..nv, 0..nv, 1u32..6), 0..120).prop_map(move |triples| {
            let edges = EdgeList {
                num_vertices: n,
                src: triples.iter().map(|t| t.0).collect(),
                dst: triples.iter().map(|t| t.1).collect(),
                weights: weighted.then(|| EdgeWeights::U32(triples.iter().map(|t| t.2).collect())),
            };
            (edges, weighted)
        })
    })
}

proptest! {
    #[test]
    fn builder_matches_naive(
        (edges, _weighted) in edge_list_strategy(),
        directed in any::<bool>(),
        keep_loops in any::<bool>(),
        keep_dups in any::<bool>(),
    ) {
        let loops = if keep_loops { SelfLoops::Keep } else { SelfLoops::Remove };
        let dups = if keep_dups { Duplicates::Keep } else { Duplicates::Remove };
        let expected = naive(&edges, directed, loops, dups);
        let g = GraphBuilder::new().directed(directed).self_loops(loops).duplicates(dups).build(edges.clone()).unwrap();
        g.out_csr().check().unwrap();
        g.in_csr().check().unwrap();
        prop_assert_eq!(adjacency(&g), expected.clone());
        // The in-CSR is the transpose of the out-CSR.
        let mut transposed = vec![Vec::new(); g.num_vertices()];
        for (v, list) in expected.iter().enumerate() {
            for &(t, w) in list {
                transposed[t as usize].push((v as u32, w));
            }
        }
        let in_csr = g.in_csr();
        for (v, list) in transposed.iter_mut().enumerate() {
            list.sort();
            let got: Vec<u32> = in_csr.neighbors(v as u32).to_vec();
            prop_assert_eq!(got, list.iter().map(|a| a.0).collect::<Vec<_>>());
        }
        let arcs: usize = expected.iter().map(Vec::len).sum();
        prop_assert_eq!(g.num_arcs(), arcs as u64);
        let max_in = transposed.iter().map(Vec::len).max().unwrap_or(0);
        prop_assert_eq!(g.out_csr().max_degree(), expected.iter().map(Vec::len).max().unwrap_or(0) as u64);
        prop_assert_eq!(in_csr.max_degree(), max_in as u64);
        let loops_kept = expected.iter().enumerate().flat_map(|(v, l)| l.iter().filter(move |a| a.0 as usize == v)).count();
        let want_edges = if directed { arcs } else { (arcs - loops_kept) / 2 + loops_kept };
        prop_assert_eq!(g.num_edges(), want_edges as u64);
    }

    #[test]
    fn one_thread_and_many_threads_build_the_same_graph((edges, _w) in edge_list_strategy(), directed in any::<bool>()) {
        let builder = GraphBuilder::new().directed(directed);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| builder.build(edges.clone()).unwrap());
        let many = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap().install(|| builder.build(edges).unwrap());
        prop_assert_eq!(one, many);
    }
}

fn list(n: usize, pairs: &[(u32, u32)]) -> EdgeList {
    EdgeList {
        num_vertices: n,
        src: pairs.iter().map(|p| p.0).collect(),
        dst: pairs.iter().map(|p| p.1).collect(),
        weights: None,
    }
}

#[test]
fn duplicates_keep_the_smallest_weight() {
    let edges = EdgeList {
        num_vertices: 3,
        src: vec![0, 0, 1, 2],
        dst: vec![1, 1, 0, 0],
        weights: Some(EdgeWeights::U32(vec![9, 4, 7, 3])),
    };
    let g = GraphBuilder::new().build(edges).unwrap();
    assert_eq!(g.out_neighbors(0), &[1, 2]);
    let Some(Weights::U32(w)) = g.out_csr().weights() else { panic!("weights lost") };
    assert_eq!(&w[g.out_csr().range(0)], &[4, 3]);
    assert_eq!(g.num_edges(), 2);
}

#[test]
fn float_weights_keep_the_smallest_and_zero_is_normalised() {
    let edges = EdgeList {
        num_vertices: 2,
        src: vec![0, 1, 0],
        dst: vec![1, 0, 1],
        weights: Some(EdgeWeights::F32(vec![2.5, -0.0, 1.0])),
    };
    let g = GraphBuilder::new().build(edges).unwrap();
    let Some(Weights::F32(w)) = g.out_csr().weights() else { panic!("weights lost") };
    assert_eq!(w[0].to_bits(), 0.0f32.to_bits());
}

#[test]
fn invalid_edge_lists_are_errors() {
    let out_of_range = GraphBuilder::new().build(list(2, &[(0, 2)])).unwrap_err();
    assert!(out_of_range.to_string().contains("outside 0..2"), "{out_of_range}");
    let bad_weight = EdgeList { weights: Some(EdgeWeights::F32(vec![f32::NAN])), ..list(2, &[(0, 1)]) };
    assert!(GraphBuilder::new().build(bad_weight).unwrap_err().to_string().contains("finite"));
    let negative = EdgeList { weights: Some(EdgeWeights::F32(vec![-1.0])), ..list(2, &[(0, 1)]) };
    assert!(GraphBuilder::new().build(negative).is_err());
    let short = EdgeList { weights: Some(EdgeWeights::U32(vec![])), ..list(2, &[(0, 1)]) };
    assert!(GraphBuilder::new().build(short).unwrap_err().to_string().contains("0 weights for 1 edges"));
}

#[test]
fn edge_cases_build() {
    let empty = GraphBuilder::new().build(list(0, &[])).unwrap();
    assert_eq!((empty.num_vertices(), empty.num_edges()), (0, 0));
    assert_eq!(empty.degree_summary(), (0, 0, 0.0));
    let lonely = GraphBuilder::new().build(list(1, &[(0, 0)])).unwrap();
    assert_eq!((lonely.num_vertices(), lonely.num_edges()), (1, 0));
    let kept = GraphBuilder::new().self_loops(SelfLoops::Keep).build(list(1, &[(0, 0), (0, 0)])).unwrap();
    assert_eq!((kept.num_edges(), kept.num_arcs()), (1, 1));
    let isolated = GraphBuilder::new().directed(true).build(list(5, &[(0, 1), (3, 1)])).unwrap();
    assert_eq!(isolated.in_neighbors(1), &[0, 3]);
    assert_eq!(isolated.out_degree(4), 0);
    assert_eq!(isolated.degree_histogram(), vec![3, 2]);
}

#[test]
fn edges_iterates_each_undirected_edge_once() {
    let g = GraphBuilder::new().build(list(4, &[(2, 1), (0, 3), (1, 2), (3, 3)])).unwrap();
    let edges: BTreeMap<(u32, u32), Option<f64>> = g.edges().map(|(u, v, w)| ((u, v), w)).collect();
    assert_eq!(edges.keys().copied().collect::<Vec<_>>(), vec![(0, 3), (1, 2)]);
}
