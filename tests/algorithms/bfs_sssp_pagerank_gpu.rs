//! BFS, SSSP (with `u32` and `u64` distances) and PageRank on the CUDA backend against their serial
//! oracles, under every policy of the GPU's matrix (so that the thread, warp, CTA and grid kernels
//! all run), on generated and hand-made graphs; BFS and SSSP also equal to the CPU backend exactly.
//! Without a GPU these tests print that they were skipped; with `SIMDX_REQUIRE_GPU=1` they fail.
#![cfg(feature = "cuda")]

use simdx::engine::Engine;
use simdx::{Graph, GraphBuilder, SelfLoops};
use simdx_algos::{default_delta, verify, Bfs, PageRank, Sssp, WideSssp};
use simdx_cuda::{CudaEngine, DeviceGraph};

use crate::common::policies::policies;
use crate::common::{edges, generated, gpu, spread_sources as sources};
use simdx::Backend::Cuda;

fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> = ["kron:12:w", "urand:11:w", "rmat:10:8:w", "grid:40x30:w"]
        .iter()
        .map(|s| (s.to_string(), generated(s)))
        .collect();
    let loops_and_dups = edges(5, &[(0, 0), (0, 1), (0, 1), (1, 2), (2, 1), (3, 3)], Some(vec![3, 2, 5, 1, 1, 9]));
    all.push((
        "self-loops+duplicates".into(),
        GraphBuilder::new().self_loops(SelfLoops::Keep).build(loops_and_dups.clone()).unwrap(),
    ));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all.push(("no edges".into(), GraphBuilder::new().build(edges(6, &[], None)).unwrap()));
    let directed = edges(8, &[(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)], Some(vec![4, 1, 1, 7, 2, 2, 2]));
    all.push(("directed, unreachable parts".into(), GraphBuilder::new().directed(true).build(directed).unwrap()));
    all
}

#[test]
fn bfs_on_the_gpu_matches_the_oracle_and_the_cpu() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        for source in sources(&g) {
            let cpu = Engine::default().run(&Bfs { source }, &g).unwrap().values;
            for options in policies(Cuda) {
                let run = CudaEngine::new(options).run(&Bfs { source }, &dg).unwrap();
                verify::bfs(&g, source, &run.values)
                    .unwrap_or_else(|e| panic!("{name}, source {source}, {options:?}: {e}"));
                assert_eq!(run.values, cpu, "{name}, source {source}, {options:?}");
            }
        }
    }
}

#[test]
fn sssp_on_the_gpu_matches_dijkstra() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        for source in sources(&g) {
            for delta in [1, default_delta(&g), 1000] {
                for options in policies(Cuda) {
                    let run = CudaEngine::new(options).run(&Sssp { source, delta }, &dg).unwrap();
                    verify::sssp(&g, source, &run.values)
                        .unwrap_or_else(|e| panic!("{name}, source {source}, delta {delta}, {options:?}: {e}"));
                }
            }
        }
    }
}

#[test]
fn wide_sssp_on_the_gpu_matches_dijkstra_past_u32() {
    let Some(gpu) = gpu() else { return };
    for spec in ["kron:9:w=1500000000-4294967295", "grid:12x9:w=2000000000-4294967295", "urand:8:w=1-4294967295"] {
        let g = generated(spec);
        assert!(!simdx_algos::sssp::fits_u32(&g), "{spec} should need u64 distances");
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        for source in sources(&g) {
            let from = simdx::acc::VertexData::set(g.num_vertices(), &[source]);
            for delta in [1, u64::from(default_delta(&g)), 1 << 40] {
                for options in policies(Cuda) {
                    let program = WideSssp { sources: from.clone(), delta };
                    let run = CudaEngine::new(options).run(&program, &dg).unwrap();
                    verify::sssp(&g, source, &run.values)
                        .unwrap_or_else(|e| panic!("{spec}, source {source}, delta {delta}, {options:?}: {e}"));
                }
            }
        }
    }
}

#[test]
fn pagerank_on_the_gpu_matches_power_iteration() {
    let Some(gpu) = gpu() else { return };
    let params = PageRank { tolerance: 1e-9, max_iterations: 200, ..PageRank::default() };
    for (name, g) in graphs() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        for options in policies(Cuda) {
            let run = CudaEngine::new(options).run(&params, &dg).unwrap();
            verify::pagerank(&g, &params, &run.values, 1e-6).unwrap_or_else(|e| panic!("{name}, {options:?}: {e}"));
        }
    }
}
