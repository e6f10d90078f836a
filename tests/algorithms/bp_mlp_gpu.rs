//! bp and mlp on the CUDA backend against their serial oracles (within 1e-5 relative), under every
//! fusion mode, direction and filter policy and with small degree-class thresholds, on generated and
//! hand-made graphs. Without a GPU these tests print that they were skipped; with
//! `SIMDX_REQUIRE_GPU=1` they fail.
#![cfg(feature = "cuda")]

use simdx::{Duplicates, EdgeList, EdgeWeights, Graph, GraphBuilder, SelfLoops};
use simdx_algos::{verify, Bp, Mlp};
use simdx_cuda::{CudaEngine, DeviceGraph};

use crate::common::policies::policies;
use crate::common::{generated, gpu};
use simdx::Backend::Cuda;

fn directed(n: usize, pairs: &[(u32, u32)], weights: Option<EdgeWeights>) -> Graph {
    let (src, dst) = pairs.iter().copied().unzip();
    GraphBuilder::new().directed(true).build(EdgeList { num_vertices: n, src, dst, weights }).unwrap()
}

fn bp_graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["kron:12:w", "urand:11", "grid:40x30", "mlp:16,8,4:3"].iter().map(|s| (s.to_string(), generated(s))).collect();
    let (src, dst) = [(0, 0), (0, 1), (0, 1), (1, 2), (2, 1), (3, 3)].iter().copied().unzip();
    let loops = EdgeList { num_vertices: 5, src, dst, weights: Some(EdgeWeights::U32(vec![3, 2, 5, 1, 1, 9])) };
    let keep = GraphBuilder::new().self_loops(SelfLoops::Keep).duplicates(Duplicates::Keep);
    all.push(("self-loops+duplicates".into(), keep.build(loops).unwrap()));
    all.push(("no edges".into(), directed(6, &[], None)));
    all.push(("chain draining away".into(), directed(4, &[(0, 1), (1, 2), (2, 3)], None)));
    all
}

#[test]
fn bp_on_the_gpu_matches_the_serial_loop() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in bp_graphs() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let n = g.num_vertices();
        let priors: Vec<f64> = (0..n).map(|v| (v % 5) as f64 + 0.5).collect();
        for params in [Bp::uniform(n, 1), Bp::uniform(n, Bp::ITERATIONS), Bp { iterations: 3, priors: priors.into() }] {
            for options in policies(Cuda) {
                let run = CudaEngine::new(options).run(&params, &dg).unwrap();
                verify::bp(&g, &params, &run.values, 1e-5)
                    .unwrap_or_else(|e| panic!("{name}, {params:?}, {options:?}: {e}"));
            }
        }
    }
}

#[test]
fn mlp_on_the_gpu_matches_a_dense_forward_pass() {
    let Some(gpu) = gpu() else { return };
    for spec in ["mlp:8,5,3", "mlp:64,32,16,4", "mlp:64,32,16,4:5", "mlp:784,256,128,10", "mlp:3,300,2:2"] {
        let g = generated(spec);
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let n = g.num_vertices();
        let features: Vec<f32> = (0..n).map(|v| (v % 13) as f32 - 6.0).collect();
        let biases: Vec<f32> = (0..n).map(|v| (v % 7) as f32 * 0.25 - 0.75).collect();
        let user = Mlp { input: features.into(), bias: biases.into() };
        for params in [Mlp::default_input(n, 0.0), Mlp::default_input(n, -0.75), user] {
            for options in policies(Cuda) {
                let run = CudaEngine::new(options).run(&params, &dg).unwrap();
                verify::mlp(&g, &params, &run.values, 1e-5)
                    .unwrap_or_else(|e| panic!("{spec}, {params:?}, {options:?}: {e}"));
            }
        }
    }
}
