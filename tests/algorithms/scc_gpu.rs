//! Strongly connected components on the CUDA backend against the CPU's labels (each component named
//! by its smallest vertex id, so the labels must be equal) and Tarjan's oracle
//! (`simdx_algos::verify::scc`), on generated graphs (directed kron, urand, rmat; undirected kron and a
//! grid, whose components are the connected ones) and hand-made ones (a directed cycle, a DAG of
//! singletons, graphs without arcs, a long chain into a cycle, cycles the pivot misses, self-loops),
//! through a device graph and through the facade's runner. Without a GPU these tests print that they
//! were skipped; with `SIMDX_REQUIRE_GPU=1` they fail.
#![cfg(feature = "cuda")]

use simdx::strong::StrongComponents;
use simdx::{Backend, Graph, GraphBuilder, Runner};
use simdx_algos::{scc, scc_on, verify};
use simdx_cuda::DeviceGraph;

use crate::common::{edges, generated, gpu};

/// A directed graph of `n` vertices and `arcs`.
fn directed(n: usize, arcs: &[(u32, u32)]) -> Graph {
    GraphBuilder::new().directed(true).build(edges(n, arcs, None)).unwrap()
}

/// The graphs compared, by name.
fn graphs() -> Vec<(String, Graph)> {
    let specs = ["kron:11:d", "urand:11:4:d", "rmat:10:d", "kron:9", "grid:5x5"];
    let mut all: Vec<(String, Graph)> = specs.iter().map(|s| (s.to_string(), generated(s))).collect();
    let cycle: Vec<(u32, u32)> = (0..100).map(|v| (v, (v + 1) % 100)).collect();
    all.push(("a directed cycle of 100".into(), directed(100, &cycle)));
    let dag: Vec<(u32, u32)> = (0..200).flat_map(|v| [(v, v + 1), (v, (v * 7 + 3).min(200))]).collect();
    all.push(("a DAG (every vertex alone)".into(), directed(201, &dag)));
    all.push(("no arcs".into(), directed(6, &[])));
    all.push(("one vertex".into(), directed(1, &[])));
    let mut chain: Vec<(u32, u32)> = (0..999).map(|v| (v, v + 1)).collect();
    chain.push((999, 990));
    all.push(("a long chain into a cycle".into(), directed(1000, &chain)));
    let two = [(4, 5), (5, 6), (6, 4), (7, 8), (8, 9), (9, 7), (7, 4), (0, 1), (1, 2), (2, 7), (3, 3)];
    all.push(("two cycles joined one way, a chain, a self-loop".into(), directed(10, &two)));
    // Cycles a DAG links, none of them trimmed: the colouring takes them in rounds.
    let rings: Vec<(u32, u32)> = (0..40u32)
        .flat_map(|r| {
            let b = r * 5;
            let ring = (0..5).map(move |i| (b + i, b + (i + 1) % 5));
            ring.chain((r + 1 < 40).then_some((b + 2, b + 5 + (r % 3))))
        })
        .collect();
    all.push(("forty rings in a row".into(), directed(200, &rings)));
    all
}

/// Checks `on`'s components of `g` against the CPU's and the oracle.
fn compare(name: &str, g: &Graph, on: &dyn StrongComponents) {
    let (got, _) = scc_on(on).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(got, scc(g).0, "{name}: components");
    verify::scc(g, &got).unwrap_or_else(|e| panic!("{name}: {e}"));
}

#[test]
fn strong_components_on_the_gpu_match_the_cpu_and_the_oracle() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        compare(&name, &g, &dg);
        // Twice on one device graph: the kept buffers start each call clean.
        compare(&name, &g, &dg);
    }
}

#[test]
fn strong_components_of_an_empty_graph_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    let g = GraphBuilder::new().directed(true).build(edges(0, &[], None)).expect("an empty directed graph");
    let dg = DeviceGraph::upload(&gpu, &g).expect("an empty graph on the GPU");
    let (got, stats) = scc_on(&dg).unwrap();
    assert!(got.is_empty());
    assert_eq!(stats.colour_rounds, 0);
}

#[test]
fn the_runner_finds_strong_components_on_the_gpu() {
    let Some(_) = gpu() else { return };
    let g = generated("kron:10:d");
    let runner = Runner::new(&g, Backend::Cuda).unwrap();
    assert_eq!(runner.backend(), Backend::Cuda);
    compare("kron:10:d through the runner", &g, runner.strong_components());
}
