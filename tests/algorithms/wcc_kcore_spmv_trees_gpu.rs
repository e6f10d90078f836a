//! wcc, kcore (and the core decomposition) and spmv on the CUDA backend against their serial oracles,
//! under every fusion mode, direction and filter policy and with small degree-class thresholds, on
//! generated and hand-made graphs: wcc and kcore exactly (and equal to the CPU backend), spmv within
//! 1e-5 relative. Without a GPU these tests print that they were skipped; with `SIMDX_REQUIRE_GPU=1`
//! they fail.
#![cfg(feature = "cuda")]

use simdx::engine::{Engine, FilterUsed};
use simdx::gen::GeneratorSpec;
use simdx::{Duplicates, Graph, GraphBuilder, SelfLoops};
use simdx_algos::{bfs_tree, core_numbers, parents_from_levels, undirected, verify, Bfs, BfsTree, KCore, Spmv, Wcc};
use simdx_cuda::{CudaEngine, DeviceGraph};

use crate::common::policies::policies;
use crate::common::{edges, gpu};
use simdx::Backend::Cuda;

fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> = ["kron:12:w", "urand:11:w", "rmat:10:8:w", "grid:40x30:w"]
        .iter()
        .map(|s| (s.to_string(), GeneratorSpec::parse(s).unwrap().generate(7).unwrap()))
        .collect();
    let loops_and_dups = edges(5, &[(0, 0), (0, 1), (0, 1), (1, 2), (2, 1), (3, 3)], Some(vec![3, 2, 5, 1, 1, 9]));
    let keep = GraphBuilder::new().self_loops(SelfLoops::Keep).duplicates(Duplicates::Keep);
    all.push(("self-loops+duplicates".into(), keep.build(loops_and_dups).unwrap()));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all.push(("no edges".into(), GraphBuilder::new().build(edges(6, &[], None)).unwrap()));
    let directed = edges(8, &[(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)], Some(vec![4, 1, 1, 7, 2, 2, 2]));
    all.push(("directed, unreachable parts".into(), GraphBuilder::new().directed(true).build(directed).unwrap()));
    all
}

/// [`graphs`], and a star whose hub is reached last, through a leaf: a long in-list to walk or pull.
fn graphs_and_a_star() -> Vec<(String, Graph)> {
    let mut all = graphs();
    let mut star: Vec<(u32, u32)> = (2..3000).map(|v| (1, v)).collect();
    star.push((0, 2999));
    all.push(("a star reached through a leaf".into(), GraphBuilder::new().build(edges(3000, &star, None)).unwrap()));
    all
}

#[test]
fn wcc_on_the_gpu_matches_union_find_and_the_cpu() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs() {
        let sym = undirected(&g);
        let dg = DeviceGraph::upload(&gpu, &sym).unwrap();
        let cpu = Engine::default().run(&Wcc, &sym).unwrap().values;
        for options in policies(Cuda) {
            let run = CudaEngine::new(options).run(&Wcc, &dg).unwrap();
            verify::wcc(&g, &run.values).unwrap_or_else(|e| panic!("{name}, {options:?}: {e}"));
            assert_eq!(run.values, cpu, "{name}, {options:?}");
        }
    }
}

#[test]
fn bfs_trees_on_the_gpu_hold_graph500s_rules() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let source = (0..g.num_vertices() as u32).find(|&v| g.out_degree(v) > 0).unwrap_or(0);
        for options in policies(Cuda) {
            let run = CudaEngine::new(options).run(&BfsTree { source }, &dg).unwrap();
            let case = format!("{name}, {options:?}");
            verify::bfs(&g, source, &bfs_tree::levels(&run.values)).unwrap_or_else(|e| panic!("{case}: {e}"));
            verify::bfs_tree(&g, source, &bfs_tree::parents(&run.values)).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
    }
}

/// The GPU's parents-after-levels pass (`run_with_parents`) under every policy (so that every way a run
/// ends meets it): Graph500's rules, and exactly the CPU's pass (the smallest in-neighbour one level
/// closer); a star whose hub is reached last makes the warp walk a long list.
#[test]
fn parents_found_after_the_levels_on_the_gpu_are_the_smallest_one_level_closer() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs_and_a_star() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let source = (0..g.num_vertices() as u32).find(|&v| g.out_degree(v) > 0).unwrap_or(0);
        let levels = Engine::default().run(&Bfs { source }, &g).unwrap().values;
        let expected = parents_from_levels(&g, source, &levels);
        for options in policies(Cuda) {
            let (run, parents) = CudaEngine::new(options).run_with_parents(&Bfs { source }, &dg, source).unwrap();
            let case = format!("{name}, {options:?}");
            assert_eq!(run.values, levels, "{case}: levels");
            verify::bfs_tree(&g, source, &parents).unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(parents, expected, "{case}: parents");
        }
    }
}

/// BFS levels with each vertex's sender kept by the engine (`run_with_senders`, what `Runner::bfs_tree`
/// runs on one GPU) under every policy, so that every push and pull class records: the levels of a
/// plain run, and the senders a tree by Graph500's rules (the source, which nothing reached, its own
/// parent); a star whose hub is reached last makes the hub pull in chunks. A program that does not
/// vote is refused.
#[test]
fn senders_kept_by_a_bfs_on_the_gpu_form_its_tree() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs_and_a_star() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let source = (0..g.num_vertices() as u32).find(|&v| g.out_degree(v) > 0).unwrap_or(0);
        let levels = Engine::default().run(&Bfs { source }, &g).unwrap().values;
        for options in policies(Cuda) {
            let (run, mut senders) = CudaEngine::new(options).run_with_senders(&Bfs { source }, &dg).unwrap();
            let case = format!("{name}, {options:?}");
            assert_eq!(run.values, levels, "{case}: levels");
            assert_eq!(senders[source as usize], simdx_cuda::NO_SENDER, "{case}: nothing reached the source");
            senders[source as usize] = source;
            verify::bfs_tree(&g, source, &senders).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
    }
    let dg = DeviceGraph::upload(&gpu, &graphs()[0].1).unwrap();
    let refused = CudaEngine::default().run_with_senders(&simdx_algos::Sssp { source: 0, delta: 1 }, &dg);
    assert!(matches!(refused, Err(simdx_cuda::CudaError::SendersNeedVoting)), "{:?}", refused.map(|_| ()));
}

/// BFS levels with senders from level steps only (`run_bfs_with_senders`, what `Runner::bfs_tree` runs
/// on one GPU): asynchronous rounds record none, and the pass after the run names a parent for each
/// vertex they reached. Under every policy, the levels of a plain run and a tree by Graph500's rules;
/// some runs must have gone asynchronous (the grid's long search under selective fusion, `--fusion
/// async`), or the pass would go untested.
#[test]
fn senders_of_a_bfs_whose_asynchronous_rounds_record_none_form_its_tree() {
    let Some(gpu) = gpu() else { return };
    let mut asynchronous = 0;
    for (name, g) in graphs_and_a_star() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let source = (0..g.num_vertices() as u32).find(|&v| g.out_degree(v) > 0).unwrap_or(0);
        let levels = Engine::default().run(&Bfs { source }, &g).unwrap().values;
        for options in policies(Cuda) {
            let (run, mut senders) =
                CudaEngine::new(options).run_bfs_with_senders(&Bfs { source }, &dg, source).unwrap();
            let case = format!("{name}, {options:?}");
            assert_eq!(run.values, levels, "{case}: levels");
            asynchronous += usize::from(run.stats.iterations.iter().any(|i| i.filter == FilterUsed::Queue));
            senders[source as usize] = source;
            verify::bfs_tree(&g, source, &senders).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
    }
    assert!(asynchronous > 0, "no run went asynchronous");
}

#[test]
fn kcore_on_the_gpu_matches_serial_peeling_and_the_cpu() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs() {
        let sym = undirected(&g);
        let dg = DeviceGraph::upload(&gpu, &sym).unwrap();
        for k in [0, 1, 3, 16] {
            let cpu = Engine::default().run(&KCore { k }, &sym).unwrap().values;
            for options in policies(Cuda) {
                let run = CudaEngine::new(options).run(&KCore { k }, &dg).unwrap();
                verify::kcore(&g, k, &run.values).unwrap_or_else(|e| panic!("{name}, k = {k}, {options:?}: {e}"));
                assert_eq!(run.values, cpu, "{name}, k = {k}, {options:?}");
            }
        }
        let engine = CudaEngine::default();
        let cores = core_numbers(|p| engine.run(p, &dg).map(|r| r.values)).unwrap();
        verify::core_decomposition(&g, &cores).unwrap_or_else(|e| panic!("{name}, core numbers: {e}"));
    }
}

#[test]
fn spmv_on_the_gpu_matches_a_direct_loop() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let program = Spmv::default_input(g.num_vertices());
        for options in policies(Cuda) {
            let run = CudaEngine::new(options).run(&program, &dg).unwrap();
            verify::spmv(&g, program.x.as_slice(), &run.values, 1e-5)
                .unwrap_or_else(|e| panic!("{name}, {options:?}: {e}"));
        }
    }
}
