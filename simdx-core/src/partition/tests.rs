//! The partition's ranges against brute force on generated and hand-made graphs.

use super::*;
use crate::gen::GeneratorSpec;
use crate::{EdgeList, GraphBuilder};

fn graph(spec: &str) -> Graph {
    GeneratorSpec::parse(spec).unwrap().generate(1).unwrap()
}

/// Out-arcs (plus in-arcs when directed) plus one of vertex `v`: the work `by_arcs` balances.
fn work(g: &Graph, v: VertexId) -> u64 {
    g.out_degree(v) + if g.is_directed() { g.in_degree(v) } else { 0 } + 1
}

/// The ranges cover every vertex once, in order; each vertex's owner holds it; each part's work is
/// within one vertex's work of an even share.
fn check(g: &Graph, parts: usize) {
    let p = Partition::by_arcs(g, parts);
    assert_eq!(p.parts(), parts);
    let mut next = 0;
    for part in 0..parts {
        let r = p.range(part);
        assert_eq!(r.start, next, "parts are contiguous");
        next = r.end;
        for v in r.clone() {
            assert_eq!(p.owner(v), part);
        }
    }
    assert_eq!(next as usize, g.num_vertices());
    let total: u64 = (0..g.num_vertices() as VertexId).map(|v| work(g, v)).sum();
    let heaviest = (0..g.num_vertices() as VertexId).map(|v| work(g, v)).max().unwrap_or(0);
    for part in 0..parts {
        let load: u64 = p.range(part).map(|v| work(g, v)).sum();
        assert!(load <= total.div_ceil(parts as u64) + heaviest, "part {part}: {load} of {total}");
    }
}

#[test]
fn generated_graphs_split_evenly_by_arcs() {
    for spec in ["kron:12", "urand:12", "grid:40x40", "kron:11:d"] {
        let g = graph(spec);
        for parts in [1, 2, 3, 4, 7] {
            check(&g, parts);
        }
    }
}

#[test]
fn a_hub_fills_its_part_and_more_parts_than_vertices_leave_some_empty() {
    // Vertex 0 is joined to every other of 100: it alone is about half the work.
    let (src, dst): (Vec<u32>, Vec<u32>) = (1..100).map(|v| (0, v)).unzip();
    let g = GraphBuilder::new().build(EdgeList { num_vertices: 100, src, dst, weights: None }).unwrap();
    check(&g, 2);
    // Work before leaf v: the hub's 99 arcs and itself, then 2 per leaf: 98 + 2v reaches half of 298
    // at v = 26.
    assert_eq!(Partition::by_arcs(&g, 2).range(0), 0..26);
    let tiny =
        GraphBuilder::new().build(EdgeList { num_vertices: 3, src: vec![0], dst: vec![1], weights: None }).unwrap();
    check(&tiny, 5);
    let p = Partition::by_arcs(&tiny, 5);
    assert_eq!((0..5).filter(|&part| p.range(part).is_empty()).count(), 2, "{p:?}");
}

#[test]
fn balance_counts_the_cut_as_brute_force_does() {
    let g = graph("kron:10");
    let p = Partition::by_arcs(&g, 3);
    let loads = p.balance(&g);
    for (part, load) in loads.iter().enumerate() {
        let cut = g.out_csr().arcs().filter(|&(s, d)| p.owner(s) == part && p.owner(d) != part).count() as u64;
        assert_eq!(load.cut_arcs, cut);
        assert_eq!(load.vertices, p.range(part).len() as u64);
    }
    assert_eq!(loads.iter().map(|l| l.arcs).sum::<u64>(), g.num_arcs());
}

#[test]
fn starts_must_begin_at_zero_and_not_decrease() {
    assert_eq!(Partition::from_starts(&[0, 4, 4], 9).map(|p| p.range(2)), Some(4..9));
    assert!(Partition::from_starts(&[1, 4], 9).is_none());
    assert!(Partition::from_starts(&[0, 5, 4], 9).is_none());
    assert!(Partition::from_starts(&[0, 10], 9).is_none());
    assert!(Partition::from_starts(&[], 9).is_none());
}

/// Each share holds exactly the arcs (with their weights) whose targets its part owns, once, indexed
/// both ways; together the shares hold every arc once.
fn check_shares(g: &Graph, parts: usize) {
    let p = Partition::by_arcs(g, parts).aligned(WORD_VERTICES);
    let weight = |csr: &crate::Csr, i: usize| csr.weights().map(|w| w.get_f64(i));
    let mut all: Vec<(u32, u32, Option<f64>)> = Vec::new();
    for part in 0..parts {
        assert!(part == 0 || p.range(part).start % WORD_VERTICES == 0, "{p:?}");
        let share = p.share(g, part);
        assert!(share.is_directed() && share.num_vertices() == g.num_vertices());
        let mut by_source: Vec<(u32, u32, Option<f64>)> = Vec::new();
        for u in 0..g.num_vertices() as u32 {
            for i in share.out_csr().range(u) {
                by_source.push((u, share.out_csr().targets()[i], weight(share.out_csr(), i)));
            }
        }
        let mut by_target: Vec<(u32, u32, Option<f64>)> = Vec::new();
        for v in 0..g.num_vertices() as u32 {
            assert!(share.in_degree(v) == 0 || p.owner(v) == part, "vertex {v} is not part {part}'s");
            for i in share.in_csr().range(v) {
                by_target.push((share.in_csr().targets()[i], v, weight(share.in_csr(), i)));
            }
        }
        let expected: Vec<_> = (0..g.num_vertices() as u32)
            .flat_map(|u| g.out_csr().range(u).map(move |i| (u, i)))
            .map(|(u, i)| (u, g.out_csr().targets()[i], weight(g.out_csr(), i)))
            .filter(|&(_, v, _)| p.owner(v) == part)
            .collect();
        by_target.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(by_source, expected, "part {part}'s arcs by source");
        assert_eq!(by_target, expected, "part {part}'s arcs by target");
        assert_eq!(p.arcs_into(g, part), expected.len() as u64, "part {part}'s arcs counted");
        all.extend(by_source);
    }
    assert_eq!(all.len() as u64, g.num_arcs());
}

#[test]
fn shares_hold_the_arcs_into_their_parts_both_ways() {
    check_shares(&graph("kron:9"), 2);
    check_shares(&graph("kron:9:d"), 3);
    check_shares(&graph("urand:8:w"), 4);
    // More vertices than one task of the parallel gather takes.
    check_shares(&graph("grid:150x150:w"), 3);
    let tiny =
        GraphBuilder::new().build(EdgeList { num_vertices: 3, src: vec![0], dst: vec![1], weights: None }).unwrap();
    check_shares(&tiny, 2);
}

/// In the layout of owned sources each part holds its vertices' out-rows whole and nothing else;
/// together the parts hold every arc once.
fn check_out_rows(g: &Graph, parts: usize) {
    let p = Partition::by_arcs(g, parts).aligned(WORD_VERTICES);
    let mut arcs = 0;
    for part in 0..parts {
        let rows = p.out_rows(g, part);
        assert_eq!(rows.num_vertices(), g.num_vertices());
        for u in 0..g.num_vertices() as u32 {
            let (mine, whole) = (rows.range(u), g.out_csr().range(u));
            if p.owner(u) != part {
                assert!(mine.is_empty(), "part {part} holds vertex {u}'s arcs");
                continue;
            }
            assert_eq!(rows.targets()[mine.clone()], g.out_csr().targets()[whole.clone()], "vertex {u}");
            let weights = |csr: &crate::Csr, r: std::ops::Range<usize>| {
                csr.weights().map(|w| r.map(|i| w.get_f64(i)).collect::<Vec<_>>())
            };
            assert_eq!(weights(&rows, mine), weights(g.out_csr(), whole), "vertex {u}'s weights");
        }
        assert_eq!(p.arcs_from(g, part), rows.num_arcs(), "part {part}'s arcs counted");
        let in_rows = p.in_rows(g, part);
        for v in 0..g.num_vertices() as u32 {
            let expected = if p.owner(v) == part { g.in_csr().range(v).len() } else { 0 };
            assert_eq!(in_rows.range(v).len(), expected, "part {part}'s in-row of vertex {v}");
        }
        arcs += rows.num_arcs();
    }
    assert_eq!(arcs, g.num_arcs());
}

#[test]
fn shares_of_owned_sources_hold_their_vertices_out_rows() {
    check_out_rows(&graph("kron:9:d"), 2);
    check_out_rows(&graph("urand:8:w"), 3);
    check_out_rows(&graph("grid:150x150:w"), 4);
}

#[test]
fn whole_degrees_are_out_then_in() {
    let g = graph("kron:8:d");
    let d = whole_degrees(&g);
    let n = g.num_vertices();
    for v in 0..n {
        assert_eq!(u64::from(d[v]), g.out_degree(v as u32));
        assert_eq!(u64::from(d[n + v]), g.in_degree(v as u32));
    }
}
