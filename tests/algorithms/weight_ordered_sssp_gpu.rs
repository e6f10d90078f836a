//! Delta-stepping on weight-ordered arcs ([`Program::UPDATE_GROWS_WITH_WEIGHT`]) on the CUDA backend: a
//! program that declares it finds the distances of one that does not (Dijkstra's), under every fusion
//! and direction policy and at several bucket widths, while its steps read fewer arcs, and a settle
//! step whose sources hold most arcs pulls; integer weights read as `f32`, and real weights, give the
//! CPU backend's distances exactly, run after run where every block pushes a share of each hub. Without
//! a GPU these tests print that they were skipped; with `SIMDX_REQUIRE_GPU=1` they fail.
#![cfg(feature = "cuda")]

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::engine::{DegreeClasses, Direction, DirectionPolicy, Engine, FilterPolicy, FusionPolicy, RunOptions};
use simdx::{graph_kernel, EdgeList, EdgeWeights, Graph, GraphBuilder, VertexId, Weights};
use simdx_algos::{default_delta, verify, Sssp};
use simdx_cuda::{CudaEngine, DeviceGraph};

use crate::common::{self, generated, gpu};
use simdx::Backend;

/// SSSP without the declaration: every step relaxes every arc of its sources.
struct UndeclaredSssp {
    source: VertexId,
    delta: u32,
}

#[graph_kernel]
impl Program for UndeclaredSssp {
    type Value = u32;
    type Weight = u32;
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;
    fn init(&self, v: Vertex) -> u32 {
        if v.id == self.source {
            0
        } else {
            u32::MAX
        }
    }
    fn active(&self, now: u32, seen: u32) -> bool {
        now < seen
    }
    fn compute(&self, e: Edge<u32, u32>) -> u32 {
        e.src.saturating_add(e.weight)
    }
    fn bucket(&self, distance: u32) -> u32 {
        distance / self.delta.max(1)
    }
}

/// SSSP over `f32` weights, declaring that its update grows with the weight.
struct RealSssp {
    source: VertexId,
    delta: f32,
}

#[graph_kernel]
impl Program for RealSssp {
    type Value = f32;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: f32 = f32::INFINITY;
    const UNSEEN: f32 = f32::INFINITY;
    const UPDATE_GROWS_WITH_WEIGHT: bool = true;
    fn init(&self, v: Vertex) -> f32 {
        if v.id == self.source {
            0.0
        } else {
            f32::INFINITY
        }
    }
    fn active(&self, now: f32, seen: f32) -> bool {
        now < seen
    }
    fn compute(&self, e: Edge<f32, f32>) -> f32 {
        e.src + e.weight
    }
    fn bucket(&self, distance: f32) -> u32 {
        (distance / self.delta) as u32
    }
}

/// The GPU's policy matrix under the jit filter (the filter does not change which arcs a
/// weight-ordered step reads).
fn policies() -> Vec<RunOptions> {
    common::policies::policies(Backend::Cuda).into_iter().filter(|o| o.filter == FilterPolicy::Jit).collect()
}

/// The arcs a run read, over all its steps.
fn arcs_read(stats: &simdx::engine::RunStats) -> u64 {
    stats.iterations.iter().map(|i| i.edges).sum()
}

#[test]
fn declared_sssp_finds_dijkstras_distances_and_reads_fewer_arcs() {
    let Some(gpu) = gpu() else { return };
    for spec in ["kron:12:w", "urand:11:w", "grid:40x30:w"] {
        let g = generated(spec);
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
        for delta in [1, default_delta(&g), 4 * default_delta(&g), 1000] {
            for options in policies() {
                let engine = CudaEngine::new(options);
                let declared = engine.run(&Sssp { source, delta }, &dg).unwrap();
                verify::sssp(&g, source, &declared.values)
                    .unwrap_or_else(|e| panic!("{spec}, delta {delta}, {options:?}: {e}"));
                let undeclared = engine.run(&UndeclaredSssp { source, delta }, &dg).unwrap();
                assert_eq!(declared.values, undeclared.values, "{spec}, delta {delta}, {options:?}");
            }
        }
        // Pushing only, at the GPU's width: the steps within a bucket skip the arcs that leave it, and
        // each of those is read once afterwards. One launch per step: asynchronous rounds (which a long
        // run goes on in under the default fusion) read a number of arcs that depends on timing.
        let stepped =
            RunOptions { direction: DirectionPolicy::Push, fusion: FusionPolicy::None, ..RunOptions::default() };
        let push = CudaEngine::new(stepped);
        let delta = 4 * default_delta(&g);
        let declared = arcs_read(&push.run(&Sssp { source, delta }, &dg).unwrap().stats);
        let undeclared = arcs_read(&push.run(&UndeclaredSssp { source, delta }, &dg).unwrap().stats);
        assert!(declared < undeclared, "{spec}: {declared} arcs read with the split, {undeclared} without");
    }
}

#[test]
fn a_settle_step_whose_sources_hold_most_arcs_pulls() {
    let Some(gpu) = gpu() else { return };
    let g = generated("kron:12:w");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
    // One bucket: its settle step's sources are every reached vertex, whose out-arcs are nearly all.
    let one_bucket = Sssp { source, delta: 1 << 20 };
    for fusion in [FusionPolicy::None, FusionPolicy::All, FusionPolicy::Auto] {
        let run = CudaEngine::new(RunOptions { fusion, ..RunOptions::default() }).run(&one_bucket, &dg).unwrap();
        verify::sssp(&g, source, &run.values).unwrap_or_else(|e| panic!("{fusion:?}: {e}"));
        // Steps within the bucket never pull (UPDATE_GROWS_WITH_WEIGHT): a pull is the settle step.
        let pulls = run.stats.iterations.iter().filter(|i| i.direction == Direction::Pull).count();
        assert_eq!(pulls, 1, "{fusion:?}: {:?}", run.stats.iterations);
    }
    let push = CudaEngine::new(RunOptions { direction: DirectionPolicy::Push, ..RunOptions::default() });
    let run = push.run(&one_bucket, &dg).unwrap();
    assert!(run.stats.iterations.iter().all(|i| i.direction == Direction::Push));
}

/// `g`'s edges with real weights: each integer weight `w` becomes `w x 0.37 + 0.01`.
fn with_real_weights(g: &Graph) -> Graph {
    let csr = g.out_csr();
    let Some(Weights::U32(w)) = csr.weights() else { panic!("an integer-weighted graph") };
    let mut list = EdgeList { num_vertices: g.num_vertices(), src: vec![], dst: vec![], weights: None };
    let mut real = Vec::new();
    for u in 0..g.num_vertices() as u32 {
        for i in csr.range(u) {
            let v = csr.targets()[i];
            if u < v {
                list.src.push(u);
                list.dst.push(v);
                real.push(w[i] as f32 * 0.37 + 0.01);
            }
        }
    }
    list.weights = Some(EdgeWeights::F32(real));
    GraphBuilder::new().build(list).unwrap()
}

#[test]
fn real_weights_and_integer_weights_read_as_f32_give_the_cpus_distances() {
    let Some(gpu) = gpu() else { return };
    let integer = generated("kron:11:w");
    let real = with_real_weights(&generated("urand:10:w"));
    for (name, g, delta) in [("kron:11:w as f32", &integer, 32.0), ("urand:10 real", &real, 12.0)] {
        let dg = DeviceGraph::upload(&gpu, g).unwrap();
        let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
        let program = RealSssp { source, delta };
        let cpu = Engine::default().run(&program, g).unwrap().values;
        assert!(cpu.iter().filter(|d| d.is_finite()).count() > 100, "{name}: the search reaches most vertices");
        for options in policies() {
            let run = CudaEngine::new(options).run(&program, &dg).unwrap();
            assert_eq!(run.values, cpu, "{name}, {options:?}");
        }
    }
}

#[test]
fn a_hub_that_every_block_pushes_is_pushed_from_its_value_in_every_run() {
    // Small degree classes put every hub in the grid class, whose arcs every block of the persistent
    // kernel shares: each block reads the hub and what it sends, written by other blocks a barrier
    // before. Read with plain loads, 2-4 runs in 150 pushed a hub from a wrong value or not at all.
    let Some(gpu) = gpu() else { return };
    let g = generated("kron:11:w");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
    let program = RealSssp { source, delta: 32.0 };
    let cpu = Engine::default().run(&program, &g).unwrap().values;
    let classes = DegreeClasses { warp: 1, cta: 2, grid: 64 };
    let options = RunOptions {
        direction: DirectionPolicy::Push,
        classes,
        fusion: FusionPolicy::PushPull,
        ..RunOptions::default()
    };
    let engine = CudaEngine::new(options);
    for run in 0..200 {
        assert_eq!(engine.run(&program, &dg).unwrap().values, cpu, "run {run}");
    }
}
