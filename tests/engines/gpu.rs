//! How the CUDA engine runs programs: stats, a co-resident fused grid, the fusion modes on a
//! high-diameter graph, selective fusion's hand-overs, asynchronous rounds in epochs, PageRank's
//! directions, several programs on one device graph, and errors. Without a GPU these tests print that
//! they were skipped; with `SIMDX_REQUIRE_GPU=1` they fail.
#![cfg(feature = "cuda")]

use simdx::engine::{Direction, Engine, FilterUsed, FusionPolicy, IterationStats, RunOptions, ASYNC_AFTER_ITERATIONS};
use simdx::{EdgeList, EdgeWeights, GraphBuilder};
use simdx_algos::{default_delta, verify, Bfs, PageRank, Sssp};
use simdx_cuda::{CudaEngine, DeviceGraph, ASYNC_EARLY_BUCKET, ASYNC_EARLY_FRONTIER_SHIFT, ASYNC_EARLY_ITERATIONS};

use crate::common::{edges, generated, gpu};

#[test]
fn gpu_stats_record_filters_and_directions() {
    let Some(gpu) = gpu() else { return };
    let g = generated("kron:14");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
    let run = CudaEngine::new(RunOptions::default()).run(&Bfs { source }, &dg).unwrap();
    let it = &run.stats.iterations;
    assert!(it.iter().any(|i| i.direction == simdx::engine::Direction::Pull), "{it:?}");
    assert_eq!(it[0].frontier, 1);
    assert_eq!(it[0].edges, g.out_degree(source));
    let tiny =
        CudaEngine::new(RunOptions { bin_capacity: 1, ..RunOptions::default() }).run(&Bfs { source }, &dg).unwrap();
    assert!(tiny.stats.iterations.iter().any(|i| i.filter == FilterUsed::Ballot));
    assert!(tiny.stats.iterations.iter().any(|i| i.filter == FilterUsed::Online));
}

#[test]
fn mismatched_weights_are_an_error_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    let real = GraphBuilder::new()
        .build(EdgeList { weights: Some(EdgeWeights::F32(vec![0.5])), ..edges(2, &[(0, 1)], None) })
        .unwrap();
    let dg = DeviceGraph::upload(&gpu, &real).unwrap();
    let err = CudaEngine::default().run(&Sssp { source: 0, delta: 1 }, &dg).unwrap_err();
    assert!(err.to_string().contains("integer edge weights"), "{err}");
}

#[test]
fn fused_grid_is_co_resident_and_an_oversized_grid_is_refused() {
    let Some(gpu) = gpu() else { return };
    let g = generated("grid:64x64");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let engine = CudaEngine::new(RunOptions::default());
    let grid = engine.fused_grid::<Bfs>(&dg).unwrap();
    assert!(grid.blocks_per_sm >= 1 && grid.blocks == grid.blocks_per_sm * gpu.sm_count, "{grid:?}");
    // The largest co-resident grid runs; one block more is refused by the driver, without hanging.
    let fits = engine.clone().with_fused_blocks(grid.blocks).run(&Bfs { source: 0 }, &dg).unwrap();
    verify::bfs(&g, 0, &fits.values).unwrap();
    let started = std::time::Instant::now();
    let err = engine.with_fused_blocks(grid.blocks + 1).run(&Bfs { source: 0 }, &dg).unwrap_err();
    assert!(err.to_string().contains("cooperative"), "{err}");
    assert!(started.elapsed().as_secs() < 10);
}

#[test]
fn fusion_modes_agree_on_a_high_diameter_graph() {
    let Some(gpu) = gpu() else { return };
    let g = generated("grid:300x200");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let source = 0;
    // One level per step on the CPU (its default fuses the rounds of a long search too).
    let stepped = RunOptions { fusion: FusionPolicy::None, ..RunOptions::default() };
    let cpu = Engine::new(stepped).run(&Bfs { source }, &g).unwrap();
    assert!(cpu.stats.iterations.len() > ASYNC_AFTER_ITERATIONS as usize);
    for fusion in
        [FusionPolicy::None, FusionPolicy::PushPull, FusionPolicy::All, FusionPolicy::Auto, FusionPolicy::Async]
    {
        let options = RunOptions { fusion, ..RunOptions::default() };
        let bfs = CudaEngine::new(options).run(&Bfs { source }, &dg).unwrap();
        verify::bfs(&g, source, &bfs.values).unwrap_or_else(|e| panic!("{fusion:?}: {e}"));
        assert_eq!(bfs.values, cpu.values, "{fusion:?}");
        let it = &bfs.stats.iterations;
        match fusion {
            // Selective fusion hands the long run of small levels over to asynchronous rounds, early:
            // level k of a search from a corner holds k + 1 vertices, fewer than n / 4096 at first.
            FusionPolicy::Auto => {
                let small = g.num_vertices() >> ASYNC_EARLY_FRONTIER_SHIFT;
                assert!(small > ASYNC_EARLY_ITERATIONS as usize + 1, "the grid is too small for an early hand-over");
                assert_eq!(it.len(), ASYNC_EARLY_ITERATIONS as usize + 1, "{fusion:?}");
                assert_eq!(it.last().map(|i| i.filter), Some(FilterUsed::Queue), "{fusion:?}");
                assert!(it[..it.len() - 1].iter().all(|i| i.filter != FilterUsed::Queue), "{fusion:?}");
            }
            FusionPolicy::Async => assert_eq!((it.len(), it[0].filter), (1, FilterUsed::Queue), "{fusion:?}"),
            _ => assert_eq!(it.len(), cpu.stats.iterations.len(), "{fusion:?}"),
        }
        let sssp = CudaEngine::new(options).run(&Sssp { source, delta: default_delta(&g) }, &dg).unwrap();
        verify::sssp(&g, source, &sssp.values).unwrap_or_else(|e| panic!("{fusion:?}: {e}"));
        if fusion == FusionPolicy::Auto {
            assert_hand_over(&sssp.stats.iterations, g.num_vertices());
        }
    }
}

/// Checks where a selective-fusion SSSP run of `n` vertices went over to asynchronous rounds: early (from
/// ASYNC_EARLY_ITERATIONS steps on) only where every frontier before was small and the run had reached
/// bucket ASYNC_EARLY_BUCKET (delta-stepping's first buckets are small on any graph), otherwise after
/// ASYNC_AFTER_ITERATIONS steps. Returns the first asynchronous iteration.
fn assert_hand_over(it: &[IterationStats], n: usize) -> usize {
    let first = it.iter().position(|i| i.filter == FilterUsed::Queue).expect("a hand-over to asynchronous rounds");
    assert!(it[first..].iter().all(|i| i.filter == FilterUsed::Queue), "asynchronous rounds run to the end");
    if first != ASYNC_AFTER_ITERATIONS as usize {
        let small = n >> ASYNC_EARLY_FRONTIER_SHIFT;
        assert!(first >= ASYNC_EARLY_ITERATIONS as usize && first < ASYNC_AFTER_ITERATIONS as usize, "at {first}");
        assert!(it[..first].iter().all(|i| (i.frontier as usize) < small), "a large frontier before {first}");
        assert!(it[first].bucket >= ASYNC_EARLY_BUCKET, "handed over in bucket {}", it[first].bucket);
    }
    first
}

#[test]
fn sssp_goes_asynchronous_early_on_a_grid_whose_frontiers_stay_small() {
    let Some(gpu) = gpu() else { return };
    // From a corner of a 1000x1000 grid the first buckets' frontiers stay under n / 4096 = 244.
    let g = generated("grid:1000x1000");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let sssp = CudaEngine::new(RunOptions::default()).run(&Sssp { source: 0, delta: default_delta(&g) }, &dg).unwrap();
    verify::sssp(&g, 0, &sssp.values).unwrap();
    let first = assert_hand_over(&sssp.stats.iterations, g.num_vertices());
    assert!(
        first < ASYNC_AFTER_ITERATIONS as usize,
        "no early hand-over: {:?}",
        &sssp.stats.iterations[..first.min(70)]
    );
}

#[test]
fn pagerank_on_the_gpu_pulls_while_most_ranks_move_and_pushes_the_tail() {
    let Some(gpu) = gpu() else { return };
    let params = PageRank { tolerance: 1e-9, max_iterations: 200, ..PageRank::default() };
    let grid = generated("grid:32x32");
    let n = grid.num_vertices() as u64;
    for fusion in [FusionPolicy::All, FusionPolicy::PushPull, FusionPolicy::None, FusionPolicy::Auto] {
        let dg = DeviceGraph::upload(&gpu, &grid).unwrap();
        let run = CudaEngine::new(RunOptions { fusion, ..RunOptions::default() }).run(&params, &dg).unwrap();
        let it = &run.stats.iterations;
        assert_eq!((it[0].direction, it[0].frontier), (Direction::Pull, n), "{fusion:?}: {:?}", it[0]);
        assert!(it[1].direction == Direction::Push && it[1].frontier < n / 2, "{fusion:?}: {:?}", it[1]);
        verify::pagerank(&grid, &params, &run.values, 1e-6).unwrap_or_else(|e| panic!("{fusion:?}: {e}"));
    }
}

#[test]
fn runs_of_different_programs_share_one_device_graph() {
    let Some(gpu) = gpu() else { return };
    let g = generated("kron:11:w");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let engine = CudaEngine::new(RunOptions::default());
    let params = PageRank { tolerance: 1e-9, max_iterations: 200, ..PageRank::default() };
    for _ in 0..2 {
        let bfs = engine.run(&Bfs { source: 5 }, &dg).unwrap();
        verify::bfs(&g, 5, &bfs.values).unwrap();
        let pr = engine.run(&params, &dg).unwrap();
        verify::pagerank(&g, &params, &pr.values, 1e-6).unwrap();
        let sssp = engine.run(&Sssp { source: 5, delta: default_delta(&g) }, &dg).unwrap();
        verify::sssp(&g, 5, &sssp.values).unwrap();
    }
    let (name, grid) = engine.last_fused_kernel().expect("selective fusion, the default, runs small steps fused");
    assert_eq!(name, "sx_fused_all");
    assert!(grid.registers > 0 && grid.blocks >= gpu.sm_count, "{grid:?}");
}

#[test]
fn selective_fusion_hands_steps_back_and_forth() {
    let Some(gpu) = gpu() else { return };
    let params = PageRank { tolerance: 1e-9, max_iterations: 200, ..PageRank::default() };
    for spec in ["kron:11:w", "grid:60x40"] {
        let g = generated(spec);
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        let options = RunOptions { fusion: FusionPolicy::Auto, ..RunOptions::default() };
        let stepped = RunOptions { fusion: FusionPolicy::None, ..RunOptions::default() };
        let cpu_bfs = Engine::new(stepped).run(&Bfs { source: 5 }, &g).unwrap();
        // 0: every step on the host; small thresholds: steps move between the host and the
        // persistent kernel as frontiers grow and shrink; the largest: every step fused.
        for threshold in [0, 8, 64, 512, 4096, u64::MAX] {
            let engine = CudaEngine::new(options).with_fusion_threshold(threshold);
            let at = format!("{spec}, threshold {threshold}");
            let bfs = engine.run(&Bfs { source: 5 }, &dg).unwrap();
            verify::bfs(&g, 5, &bfs.values).unwrap_or_else(|e| panic!("{at}: {e}"));
            // Unless a long run of small steps went on asynchronously (one row for the rest).
            let it = &bfs.stats.iterations;
            if it.last().is_some_and(|i| i.filter == FilterUsed::Queue) {
                assert!(
                    it.len() > ASYNC_AFTER_ITERATIONS as usize && it.len() < cpu_bfs.stats.iterations.len(),
                    "{at}"
                );
            } else {
                assert_eq!(it.len(), cpu_bfs.stats.iterations.len(), "{at}");
            }
            if threshold == 0 || threshold == u64::MAX {
                assert_eq!(engine.last_fused_kernel().is_some(), threshold > 0, "{at}");
            }
            let sssp = engine.run(&Sssp { source: 5, delta: default_delta(&g) }, &dg).unwrap();
            verify::sssp(&g, 5, &sssp.values).unwrap_or_else(|e| panic!("{at}: {e}"));
            let pr = engine.run(&params, &dg).unwrap();
            verify::pagerank(&g, &params, &pr.values, 1e-6).unwrap_or_else(|e| panic!("{at}: {e}"));
            let wcc = engine.run(&simdx_algos::Wcc, &dg).unwrap();
            verify::wcc(&g, &wcc.values).unwrap_or_else(|e| panic!("{at}: {e}"));
        }
    }
}

#[test]
fn asynchronous_rounds_go_on_in_epochs_by_bucket_and_when_they_outgrow_their_queue() {
    let Some(gpu) = gpu() else { return };
    // An arc from the source to every vertex, each worse than the path 0 -> 1 -> ... (weight 1 a hop):
    // the source queues every vertex, then the path improves each once more, so about twice as many
    // vertices go through the queue as the graph has.
    let n = 5000u32;
    let (mut arcs, mut weights) = (Vec::new(), Vec::new());
    for v in 1..n {
        arcs.extend([(0, v), (v - 1, v)]);
        weights.extend([2 * v + 10, 1]);
    }
    let g = GraphBuilder::new().directed(true).build(edges(n as usize, &arcs, Some(weights))).unwrap();
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let options = RunOptions { fusion: FusionPolicy::Async, ..RunOptions::default() };
    // One bucket (all relaxed asynchronously together): the default queue, then ones too small for the
    // run (down to a single cell), on the whole grid and on one block.
    let one_bucket = Sssp { source: 0, delta: 1 << 30 };
    for (cells, blocks) in [(None, None), (Some(n / 4), None), (Some(n / 4), Some(1)), (Some(1), None)] {
        let mut engine = CudaEngine::new(options);
        if let Some(c) = cells {
            engine = engine.with_queue_cells(c);
        }
        if let Some(b) = blocks {
            engine = engine.with_fused_blocks(b);
        }
        let at = format!("cells {cells:?}, blocks {blocks:?}");
        let run = engine.run(&one_bucket, &dg).unwrap();
        assert_eq!(run.values, (0..n).collect::<Vec<_>>(), "{at}");
        let it = &run.stats.iterations;
        assert!(it.iter().all(|i| i.filter == FilterUsed::Queue), "{at}: {it:?}");
        let relaxed: u64 = it.iter().map(|i| i.frontier).sum();
        assert!(relaxed >= u64::from(n), "{at}: {relaxed} vertices relaxed");
        if cells.is_none() {
            // The path's improvements come after the source's: vertices are relaxed again.
            assert!(relaxed > u64::from(n), "{at}: {relaxed} vertices relaxed");
        }
        if let Some(c) = cells {
            // Each epoch takes at most `c` vertices.
            assert!(it.len() as u64 >= relaxed.div_ceil(u64::from(c)).min(64), "{at}: {} epochs", it.len());
        }
        assert_eq!(engine.last_fused_kernel().map(|k| k.0).as_deref(), Some("sx_async"));
    }
    // Buckets of one distance each: each epoch relaxes the lowest buckets still active, its span of
    // buckets widening while epochs are small; exact, in more than one epoch, on the grid and on one block.
    for blocks in [None, Some(1)] {
        let engine = match blocks {
            Some(b) => CudaEngine::new(options).with_fused_blocks(b),
            None => CudaEngine::new(options),
        };
        let run = engine.run(&Sssp { source: 0, delta: 1 }, &dg).unwrap();
        assert_eq!(run.values, (0..n).collect::<Vec<_>>(), "blocks {blocks:?}");
        let it = &run.stats.iterations;
        assert!(it.len() > 1, "blocks {blocks:?}: {it:?}");
        assert!(it.iter().map(|i| i.edges).sum::<u64>() >= g.num_arcs(), "blocks {blocks:?}");
    }
    // Without buckets (BFS) a lane relaxes a vertex it improved itself next rather than through the queue,
    // a chain of them up to SX_Q_CHAIN long: a path many chains long, and the graph above where the
    // source improves every vertex at once, exact with the default queue and with one cell.
    let path: Vec<(u32, u32)> = (1..n).map(|v| (v - 1, v)).collect();
    let pg = GraphBuilder::new().directed(true).build(edges(n as usize, &path, None)).unwrap();
    let dpg = DeviceGraph::upload(&gpu, &pg).unwrap();
    for cells in [None, Some(1)] {
        let mut engine = CudaEngine::new(options);
        if let Some(c) = cells {
            engine = engine.with_queue_cells(c);
        }
        let run = engine.run(&Bfs { source: 0 }, &dpg).unwrap();
        assert_eq!(run.values, (0..n).collect::<Vec<_>>(), "path, cells {cells:?}");
        let relaxed: u64 = run.stats.iterations.iter().map(|i| i.frontier).sum();
        assert!(relaxed >= u64::from(n), "path, cells {cells:?}: {relaxed} vertices relaxed");
        let star = engine.run(&Bfs { source: 0 }, &dg).unwrap();
        let levels: Vec<u32> = (0..n).map(|v| u32::from(v > 0)).collect();
        assert_eq!(star.values, levels, "source to every vertex, cells {cells:?}");
    }
    // A program that cannot run asynchronously (a global sum, a stopping test) runs as under `Auto`.
    let params = PageRank { tolerance: 1e-9, max_iterations: 200, ..PageRank::default() };
    let pr = CudaEngine::new(options).run(&params, &dg).unwrap();
    assert!(pr.stats.iterations.iter().all(|i| i.filter != FilterUsed::Queue));
    verify::pagerank(&g, &params, &pr.values, 1e-6).unwrap();
}

/// Levels as [`Bfs`] gives them, from a program of this test alone, so that its kernels are in no
/// cache of this process when the test starts (nor on disk, on a fresh machine).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hops {
    pub(crate) source: u32,
}

#[simdx::graph_kernel]
impl simdx::acc::Program for Hops {
    type Value = u32;
    type Weight = ();
    const OP: simdx::acc::CombineOp = simdx::acc::CombineOp::Min;
    const KIND: simdx::acc::CombineKind = simdx::acc::CombineKind::Voting;
    const APPLY: simdx::acc::Apply = simdx::acc::Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;

    fn init(&self, v: simdx::acc::Vertex) -> u32 {
        if v.id == self.source {
            0
        } else {
            u32::MAX
        }
    }

    fn active(&self, now: u32, seen: u32) -> bool {
        now != seen
    }

    fn compute(&self, e: simdx::acc::Edge<u32, ()>) -> u32 {
        e.src + 1
    }

    fn can_update(&self, level: u32) -> bool {
        level == u32::MAX
    }
}

#[test]
fn a_first_run_does_not_wait_for_the_persistent_kernels() {
    let Some(gpu) = gpu() else { return };
    let g = generated("kron:12");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let program = Hops { source: 3 };
    let expected = CudaEngine::default().run(&Bfs { source: 3 }, &dg).unwrap().values;
    // The first run, with a cold cache, takes every step on the host while the fused kernels compile.
    let engine = CudaEngine::new(RunOptions::default()).with_deferred_compile(true);
    let first = engine.run(&program, &dg).unwrap();
    assert_eq!(first.values, expected);
    simdx_cuda::finish_background_compiles();
    // Once they are compiled, a run fuses, as one that waits for them does.
    let second = engine.run(&program, &dg).unwrap();
    assert_eq!(second.values, expected);
    assert_eq!(engine.last_fused_kernel().map(|k| k.0).as_deref(), Some("sx_fused_all"));
    let waiting = CudaEngine::new(RunOptions::default()).with_deferred_compile(false);
    assert_eq!(waiting.run(&program, &dg).unwrap().values, expected);
    assert!(waiting.last_fused_kernel().is_some());
}
