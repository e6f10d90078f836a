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
