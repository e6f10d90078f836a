//! The GPU's multi-source traversal (simdx-cuda's `Searches` for a `DeviceGraph`) against the CPU's,
//! which its own tests hold to a queue-based search: the same levels, the same summaries and the same
//! direction per level, for every direction policy, both orientations, GroupBy or not, on generated
//! graphs, a star (whose hub blocks push in chunks), directed graphs with unreachable parts, a single
//! vertex and a graph without edges; the applications (levels, closeness, harmonic, eccentricity)
//! against their oracles; search programs (`#[search_kernel]`) of every accumulator type against the
//! programs' own `discovered` folded over serial searches; and Brandes' sweeps (betweenness) against the CPU's and the oracle. Without a GPU these tests print that they were skipped; with `SIMDX_REQUIRE_GPU=1`
//! they fail.
#![cfg(feature = "cuda")]

use simdx::multi_source::{MultiSourceError, Searches, Traversal};
use simdx::search_program::search;
use simdx::{Graph, GraphBuilder, VertexId};
use simdx_algos::{betweenness, closeness, eccentricity, harmonic, levels_from_each, verify};
use simdx_cuda::{DeviceGraph, DeviceGraphs};

use crate::applications::{application_graphs, check_applications, check_level_applications};
use crate::common::policies::traversals;
use crate::common::{edges, generated, gpu, two_gpus};
use crate::search_programs::{check_every_program, weights, WeightWithin};

fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["kron:12", "urand:11", "grid:40x30"].iter().map(|s| (s.to_string(), generated(s))).collect();
    let mut star: Vec<(u32, u32)> = (1..5000).map(|v| (0, v)).collect();
    star.extend((5000..5100).map(|v| (v - 1, v)));
    all.push(("star with a tail".into(), GraphBuilder::new().build(edges(5100, &star, None)).unwrap()));
    let directed = [(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)];
    all.push((
        "directed, unreachable parts".into(),
        GraphBuilder::new().directed(true).build(edges(8, &directed, None)).unwrap(),
    ));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all.push(("no edges".into(), GraphBuilder::new().build(edges(6, &[], None)).unwrap()));
    all
}

/// 150 sources spread over the graph (repeats on small graphs): three batches.
fn sources(graph: &Graph) -> Vec<VertexId> {
    let n = graph.num_vertices() as u64;
    (0..150u64).map(|i| ((i * 2_654_435_761) % n) as VertexId).collect()
}

#[test]
fn the_gpu_finds_the_levels_summaries_and_directions_the_cpu_finds() {
    let Some(gpu) = gpu() else { return };
    for (name, graph) in graphs() {
        let device = DeviceGraph::upload(&gpu, &graph).unwrap();
        let sources = sources(&graph);
        for how in traversals() {
            let case = format!("{name}, {how:?}");
            let (cpu_levels, cpu_stats) = graph.levels(&sources, how).unwrap();
            let (gpu_levels, gpu_stats) = device.levels(&sources, how).unwrap();
            assert!(cpu_levels == gpu_levels, "{case}: levels differ");
            assert_eq!(graph.summaries(&sources, how).unwrap().0, device.summaries(&sources, how).unwrap().0, "{case}");
            assert_eq!(cpu_stats.batches, gpu_stats.batches, "{case}");
            let directions = |s: &simdx::multi_source::MultiStats| -> Vec<_> {
                s.levels.iter().map(|l| (l.bucket, l.direction, l.frontier)).collect()
            };
            assert_eq!(directions(&cpu_stats), directions(&gpu_stats), "{case}: levels run differently");
        }
    }
}

#[test]
fn the_applications_on_the_gpu_match_their_oracles() {
    let Some(gpu) = gpu() else { return };
    for spec in ["kron:10", "grid:20x20"] {
        let graph = generated(spec);
        let device = DeviceGraph::upload(&gpu, &graph).unwrap();
        let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
        let how = Traversal::default();
        let (levels, _) = levels_from_each(&device, &all[..100], how).unwrap();
        verify::levels_from_each(&graph, &all[..100], &levels).unwrap();
        let (values, _) = closeness(&device, &all, how).unwrap();
        verify::closeness(&graph, &all, &values, 1e-12).unwrap();
        let (values, _) = eccentricity(&device, &all, Traversal { group_by: true, ..how }).unwrap();
        verify::eccentricity(&graph, &all, &values).unwrap();
        let (values, _) = harmonic(&device, &all, how).unwrap();
        verify::harmonic(&graph, &all, &values, 1e-9).unwrap();
    }
}

#[test]
fn every_application_on_the_gpu_matches_its_oracle_on_edge_case_graphs() {
    let Some(gpu) = gpu() else { return };
    for (name, graph) in application_graphs() {
        let device = DeviceGraph::upload(&gpu, &graph).unwrap();
        check_applications(&name, &device, &graph);
    }
}

#[test]
fn search_programs_on_the_gpu_accumulate_what_serial_searches_give() {
    let Some(gpu) = gpu() else { return };
    for (name, graph) in graphs() {
        let device = DeviceGraph::upload(&gpu, &graph).unwrap();
        check_every_program(&name, &device, &graph);
    }
    let graph = generated("grid:4x4");
    let device = DeviceGraph::upload(&gpu, &graph).unwrap();
    let error =
        search(&device, &WeightWithin { hops: 1, weight: weights(15) }, &[0], Traversal::default()).unwrap_err();
    assert!(matches!(error, MultiSourceError::Data(_)), "{error}");
}

#[test]
fn a_source_outside_the_graph_is_refused_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    let graph = generated("grid:4x4");
    let device = DeviceGraph::upload(&gpu, &graph).unwrap();
    let error = device.summaries(&[2, 16], Traversal::default()).unwrap_err();
    assert_eq!(error, MultiSourceError::NoSuchSource { vertex: 16, vertices: 16 });
}

#[test]
fn betweenness_on_the_gpu_matches_the_cpu_and_the_oracle() {
    let Some(gpu) = gpu() else { return };
    for (name, graph) in graphs() {
        let device = DeviceGraph::upload(&gpu, &graph).unwrap();
        let some = sources(&graph);
        let (cpu, cpu_stats) = graph.dependency_sums(&some).unwrap();
        let (gpu_sums, stats) = device.dependency_sums(&some).unwrap();
        assert_eq!(stats.levels[0].edges, cpu_stats.levels[0].edges, "{name}: arcs scanned");
        for (v, (a, b)) in cpu.iter().zip(&gpu_sums).enumerate() {
            assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{name}, vertex {v}: cpu {a}, gpu {b}");
        }
    }
    // Exact betweenness (every vertex a source) against the oracle, directed and not.
    let directed = [(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3), (3, 7), (7, 5)];
    let small = [generated("kron:9"), GraphBuilder::new().directed(true).build(edges(9, &directed, None)).unwrap()];
    for graph in small {
        let device = DeviceGraph::upload(&gpu, &graph).unwrap();
        let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
        for normalized in [true, false] {
            let (values, _) = betweenness(&device, &all, normalized).unwrap();
            verify::betweenness(&graph, &all, normalized, &values, 1e-9).unwrap();
        }
    }
}

/// Searches split over two GPUs (`DeviceGraphs`) give what one GPU gives: the same levels,
/// summaries and search-program accumulators, the dependency sums within rounding (added up in
/// another order), and the applications still meet their oracles. Skipped with fewer than two GPUs;
/// `SIMDX_REQUIRE_GPUS=2` makes a skip a failure.
#[test]
fn searches_split_over_two_gpus_give_what_one_gpu_gives() {
    let Some(gpus) = two_gpus() else { return };
    for (name, graph) in graphs() {
        let one = DeviceGraph::upload(&gpus[0], &graph).unwrap();
        let two = DeviceGraphs::upload(&gpus, &graph).unwrap();
        let sources = sources(&graph);
        for group_by in [false, true] {
            let how = Traversal { group_by, ..Traversal::default() };
            assert!(one.levels(&sources, how).unwrap().0 == two.levels(&sources, how).unwrap().0, "{name}: levels");
            let (summaries, stats) = two.summaries(&sources, how).unwrap();
            assert_eq!(one.summaries(&sources, how).unwrap().0, summaries, "{name}: summaries");
            assert_eq!(stats.batches, sources.len().div_ceil(64) as u32, "{name}: batches over both GPUs");
        }
        let (one_sums, _) = one.dependency_sums(&sources).unwrap();
        let (two_sums, _) = two.dependency_sums(&sources).unwrap();
        for (v, (a, b)) in one_sums.iter().zip(&two_sums).enumerate() {
            assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{name}, vertex {v}: one GPU {a}, two {b}");
        }
        check_every_program(&name, &two, &graph);
    }
    for (name, graph) in application_graphs() {
        check_applications(&name, &DeviceGraphs::upload(&gpus, &graph).unwrap(), &graph);
    }
}

/// A runner on two GPUs runs a program on the first and splits searches over both.
#[test]
fn a_runner_on_two_gpus_runs_programs_and_splits_searches() {
    let Some(_) = two_gpus() else { return };
    let graph = generated("kron:12");
    let runner = simdx::Runner::new(&graph, simdx::Backend::Gpus(2)).unwrap();
    assert_eq!(runner.backend(), simdx::Backend::Gpus(2));
    let levels = runner.run(&simdx::algos::Bfs { source: 3 }).unwrap().values;
    verify::bfs(&graph, 3, &levels).unwrap();
    let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).step_by(7).collect();
    let (values, _) = closeness(runner.searches(), &all, Traversal::default()).unwrap();
    verify::closeness(&graph, &all, &values, 1e-12).unwrap();
    let split = runner.split_searches().expect("a runner on two GPUs has shares");
    let (by_shares, stats) = closeness(&split, &all, Traversal::default()).unwrap();
    assert_eq!(by_shares, values, "closeness by one BFS per source over both GPUs' shares");
    assert_eq!(stats.batches, all.len() as u32, "a partitioned run per source");
}

/// Searches over a graph split into shares, one partitioned BFS per source (`SplitSearches`: what
/// `Runner::searches` takes when the graph is too big for a whole copy on one GPU), here with two
/// shares on one GPU: search programs and the applications that take levels along out-arcs meet what
/// the traversal and the oracles give; Brandes' sweeps and searches along in-arcs of a directed graph
/// are refused, saying why.
#[test]
fn searches_over_shares_one_bfs_per_source_give_what_the_traversal_gives() {
    let Some(_) = gpu() else { return };
    fn shares(graph: &Graph) -> simdx::Runner<'_> {
        simdx::Runner::with_shares_on_one_gpu(graph, 2, Default::default()).unwrap()
    }
    let graph = generated("kron:9");
    let runner = shares(&graph);
    check_every_program("kron:9", &runner.split_searches().unwrap(), &graph);
    for (name, graph) in application_graphs() {
        let runner = shares(&graph);
        check_level_applications(&name, &runner.split_searches().unwrap(), &graph);
    }
    let directed = GraphBuilder::new().directed(true).build(edges(4, &[(0, 1), (1, 2), (2, 3)], None)).unwrap();
    let runner = shares(&directed);
    let split = runner.split_searches().unwrap();
    let refused = closeness(&split, &[0], Traversal::default()).unwrap_err().to_string();
    assert!(refused.contains("searches along the in-arcs of a directed graph need the whole graph"), "{refused}");
    let refused = betweenness(&split, &[0], true).unwrap_err().to_string();
    assert!(refused.contains("betweenness") && refused.contains("only split into 2 shares"), "{refused}");
}
