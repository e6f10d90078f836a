//! BFS, SSSP (with `u32` and `u64` distances) and PageRank on the CPU backend against their serial
//! oracles, on generated graphs and hand-made edge cases, under every policy of the CPU's matrix.

use simdx::engine::Engine;
use simdx::{Graph, GraphBuilder, SelfLoops};
use simdx_algos::{default_delta, verify, Bfs, PageRank, Sssp, WideSssp};

use crate::common::policies::policies;
use crate::common::{edges, generated, spread_sources as sources};
use simdx::Backend::Cpu;

/// Generated graphs plus hand-made edge cases: self-loops, duplicates, isolated vertices, one
/// vertex, no edges, a directed graph with unreachable parts.
fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["kron:10:w", "urand:10:w", "rmat:9:8:w", "grid:24x20"].iter().map(|s| (s.to_string(), generated(s))).collect();
    let loops_and_dups = edges(5, &[(0, 0), (0, 1), (0, 1), (1, 2), (2, 1), (3, 3)], Some(vec![3, 2, 5, 1, 1, 9]));
    all.push((
        "self-loops+duplicates".into(),
        GraphBuilder::new().self_loops(SelfLoops::Keep).build(loops_and_dups.clone()).unwrap(),
    ));
    all.push(("cleaned".into(), GraphBuilder::new().build(loops_and_dups).unwrap()));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all.push(("no edges".into(), GraphBuilder::new().build(edges(6, &[], None)).unwrap()));
    let directed = edges(8, &[(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)], Some(vec![4, 1, 1, 7, 2, 2, 2]));
    all.push(("directed, unreachable parts".into(), GraphBuilder::new().directed(true).build(directed).unwrap()));
    all
}

#[test]
fn bfs_matches_the_oracle_under_every_policy() {
    for (name, g) in graphs() {
        for source in sources(&g) {
            let mut first = None;
            for options in policies(Cpu) {
                let run = Engine::new(options).run(&Bfs { source }, &g).unwrap();
                verify::bfs(&g, source, &run.values)
                    .unwrap_or_else(|e| panic!("{name}, source {source}, {options:?}: {e}"));
                assert_eq!(first.get_or_insert_with(|| run.values.clone()), &run.values);
            }
        }
    }
}

#[test]
fn sssp_matches_dijkstra_under_every_policy() {
    for (name, g) in graphs() {
        for source in sources(&g) {
            for delta in [1, default_delta(&g), 1000] {
                for options in policies(Cpu) {
                    let run = Engine::new(options).run(&Sssp { source, delta }, &g).unwrap();
                    verify::sssp(&g, source, &run.values)
                        .unwrap_or_else(|e| panic!("{name}, source {source}, delta {delta}, {options:?}: {e}"));
                }
            }
        }
    }
}

#[test]
fn wide_sssp_matches_dijkstra_past_u32_under_every_policy() {
    for spec in ["kron:9:w=1500000000-4294967295", "grid:12x9:w=2000000000-4294967295", "urand:8:w=1-4294967295"] {
        let g = generated(spec);
        assert!(!simdx_algos::sssp::fits_u32(&g), "{spec} should need u64 distances");
        for source in sources(&g) {
            let from = simdx::acc::VertexData::set(g.num_vertices(), &[source]);
            for delta in [1, u64::from(default_delta(&g)), 1 << 40] {
                for options in policies(Cpu) {
                    let program = WideSssp { sources: from.clone(), delta };
                    let run = Engine::new(options).run(&program, &g).unwrap();
                    verify::sssp(&g, source, &run.values)
                        .unwrap_or_else(|e| panic!("{spec}, source {source}, delta {delta}, {options:?}: {e}"));
                }
            }
        }
    }
}

#[test]
fn pagerank_matches_power_iteration_under_every_policy() {
    let params = PageRank { tolerance: 1e-9, max_iterations: 200, ..PageRank::default() };
    for (name, g) in graphs() {
        for options in policies(Cpu) {
            let run = Engine::new(options).run(&params, &g).unwrap();
            verify::pagerank(&g, &params, &run.values, 1e-6).unwrap_or_else(|e| panic!("{name}, {options:?}: {e}"));
        }
    }
}
