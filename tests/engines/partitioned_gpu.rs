//! Partitioned runs (`simdx_cuda::PartitionedGraph`): one graph split into shares, each holding the arcs
//! into the vertices it owns, run in step with exchanges between them, give what a run on one GPU gives
//! (exactly for BFS, SSSP, WCC, k-core and a user's program; a valid BFS tree; PageRank within its tolerance), whatever
//! the direction policy, also when the shares hold their out-arcs only (as a graph too big for both
//! ways is split) and every step pushes; and shares that hold their own vertices' out-arcs and trade
//! updates, for the programs that combine in place by min or max. On one GPU the shares exchange by device copies; on two (where the machine
//! has them, `SIMDX_REQUIRE_GPUS=2` making a skip a failure) through NCCL.
#![cfg(feature = "cuda")]

use simdx::engine::{Direction, DirectionPolicy, FilterPolicy, LabelPolicy, RunOptions};
use simdx::Graph;
use simdx_algos::{default_delta, verify, Bfs, BfsTree, KCore, PageRank, Sssp, Wcc};
use simdx_cuda::{CudaEngine, CudaError, DeviceGraph, PartitionedGraph, ShareLayout};

use crate::common::{generated, gpu, two_gpus};

/// The option sets each program runs under: the default, and push only, pull only and the ballot
/// filter, so that every step kind meets the exchange.
fn option_sets() -> Vec<RunOptions> {
    vec![
        RunOptions::default(),
        RunOptions { direction: DirectionPolicy::Push, ..RunOptions::default() },
        RunOptions { direction: DirectionPolicy::Pull, filter: FilterPolicy::Ballot, ..RunOptions::default() },
    ]
}

/// Every program on `parted` against the same program on `whole` (one GPU) and the oracles; shares
/// that hold their out-arcs only skip the pull option set, which they refuse.
fn check_programs(g: &Graph, whole: &DeviceGraph, parted: &PartitionedGraph) {
    let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
    for opts in option_sets() {
        if parted.pushes_only() && opts.direction == DirectionPolicy::Pull {
            let refused = CudaEngine::new(opts).run_partitioned(&Bfs { source }, parted);
            assert!(matches!(refused, Err(CudaError::PullWithoutInArcs)), "a pull over out-arcs only ran");
            continue;
        }
        let engine = CudaEngine::new(opts);
        let what = format!("{} shares, {opts:?}", parted.parts());
        let bfs = engine.run_partitioned(&Bfs { source }, parted).unwrap();
        verify::bfs(g, source, &bfs.values).unwrap_or_else(|e| panic!("bfs, {what}: {e}"));
        let traded = bfs.stats.exchanges;
        let steps = (traded.packets + traded.full + traded.whole) as usize;
        assert_eq!(steps, bfs.stats.iterations.len(), "bfs, {what}: one exchange a step ({traded:?})");
        assert_eq!(bfs.values, engine.run(&Bfs { source }, whole).unwrap().values, "bfs, {what}");
        let tree = engine.run_partitioned(&BfsTree { source }, parted).unwrap();
        let parents = simdx_algos::bfs_tree::parents(&tree.values);
        verify::bfs_tree(g, source, &parents).unwrap_or_else(|e| panic!("bfs parents, {what}: {e}"));
        let hops = engine.run_partitioned(&crate::gpu::Hops { source }, parted).unwrap();
        assert_eq!(hops.values, bfs.values, "a user's program, {what}");
        // A partitioned run propagates labels (linking joins classes over the whole graph): on a
        // directed graph they flow forwards only, as on one GPU under the same policy.
        let wcc = engine.run_partitioned(&Wcc, parted).unwrap();
        let propagating = CudaEngine::new(RunOptions { labels: LabelPolicy::Propagate, ..opts });
        assert_eq!(wcc.values, propagating.run(&Wcc, whole).unwrap().values, "wcc, {what}");
        if !g.is_directed() {
            verify::wcc(g, &wcc.values).unwrap_or_else(|e| panic!("wcc, {what}: {e}"));
        }
        let core = engine.run_partitioned(&KCore { k: 4 }, parted).unwrap();
        assert_eq!(core.values, engine.run(&KCore { k: 4 }, whole).unwrap().values, "k-core, {what}");
        let params = PageRank { tolerance: 1e-9, ..PageRank::default() };
        let pr = engine.run_partitioned(&params, parted).unwrap();
        verify::pagerank(g, &params, &pr.values, 1e-6).unwrap_or_else(|e| panic!("pagerank, {what}: {e}"));
        let every_step = pr.stats.exchanges.whole as usize;
        assert_eq!(every_step, pr.stats.iterations.len(), "pagerank, {what}: each step gives every value");
        if g.is_weighted() {
            let sssp = Sssp { source, delta: default_delta(g) };
            let d = engine.run_partitioned(&sssp, parted).unwrap();
            verify::sssp(g, source, &d.values).unwrap_or_else(|e| panic!("sssp, {what}: {e}"));
            // Its first step reaches the source's few neighbours: a packet holds them.
            assert!(d.stats.exchanges.packets > 0, "sssp, {what}: no step traded its changes in packets");
            assert_eq!(d.values, engine.run(&sssp, whole).unwrap().values, "sssp, {what}");
        }
    }
}

/// The programs that combine in place by min or max on `parted`, shares of their vertices' out-arcs,
/// against one GPU and the oracles; the others, and the pull policy, refused. Returns how many steps
/// traded their updates as pairs (their packets too small) and how many settle steps pulled.
fn check_arcs_out(g: &Graph, whole: &DeviceGraph, parted: &PartitionedGraph) -> (u32, usize) {
    let (mut as_pairs, mut pulled) = (0, 0);
    assert!(!parted.pushes_only() && parted.layout() == ShareLayout::ArcsOut);
    let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
    // The ballot filter in every step, before the remote updates are combined.
    let ballot = RunOptions { filter: FilterPolicy::Ballot, ..RunOptions::default() };
    for opts in option_sets().into_iter().chain([ballot]) {
        let engine = CudaEngine::new(opts);
        let what = format!("{} shares of out-arcs, {opts:?}", parted.parts());
        if opts.direction == DirectionPolicy::Pull {
            let refused = engine.run_partitioned(&Bfs { source }, parted);
            assert!(matches!(refused, Err(CudaError::PullOverSharesOfSources)), "{what}: {refused:?}");
            continue;
        }
        let bfs = engine.run_partitioned(&Bfs { source }, parted).unwrap();
        verify::bfs(g, source, &bfs.values).unwrap_or_else(|e| panic!("bfs, {what}: {e}"));
        assert_eq!(bfs.values, engine.run(&Bfs { source }, whole).unwrap().values, "bfs, {what}");
        let traded = bfs.stats.exchanges;
        let steps = (traded.packets + traded.full) as usize;
        assert_eq!(steps, bfs.stats.iterations.len(), "bfs, {what}: one trade a step ({traded:?})");
        assert_eq!(traded.whole, 1, "bfs, {what}: the values given once, at the end");
        as_pairs += traded.full;
        let hops = engine.run_partitioned(&crate::gpu::Hops { source }, parted).unwrap();
        assert_eq!(hops.values, bfs.values, "a user's program, {what}");
        let wcc = engine.run_partitioned(&Wcc, parted).unwrap();
        let propagating = CudaEngine::new(RunOptions { labels: LabelPolicy::Propagate, ..opts });
        assert_eq!(wcc.values, propagating.run(&Wcc, whole).unwrap().values, "wcc, {what}");
        for refused in [engine.run_partitioned(&KCore { k: 4 }, parted).map(|_| ()), {
            engine.run_partitioned(&PageRank::default(), parted).map(|_| ())
        }] {
            assert!(matches!(refused, Err(CudaError::NeedsSharesOfTargets)), "{what}: {refused:?}");
        }
        if g.is_weighted() {
            let sssp = Sssp { source, delta: default_delta(g) };
            let d = engine.run_partitioned(&sssp, parted).unwrap();
            verify::sssp(g, source, &d.values).unwrap_or_else(|e| panic!("sssp, {what}: {e}"));
            assert_eq!(d.values, engine.run(&sssp, whole).unwrap().values, "sssp, {what}");
            // The first step reaches the source's few neighbours: a packet holds them.
            let traded = d.stats.exchanges;
            assert!(traded.packets > 0, "sssp, {what}: no step traded in packets ({traded:?})");
            as_pairs += traded.full;
            pulled += d.stats.iterations.iter().filter(|i| i.direction == Direction::Pull).count();
            let n = g.num_vertices() as u64;
            let listed_twice = d.stats.iterations.iter().find(|i| i.frontier > n);
            assert!(listed_twice.is_none(), "sssp, {what}: a frontier over n vertices: {listed_twice:?}");
            let frontier: u64 = d.stats.iterations.iter().map(|i| i.frontier).sum();
            assert!(frontier >= g.num_vertices() as u64 / 2, "sssp, {what}: the shares' frontiers summed");
        }
    }
    (as_pairs, pulled)
}

#[test]
fn shares_of_out_arcs_of_their_vertices_give_what_one_gpu_gives() {
    let Some(gpu) = gpu() else { return };
    let (mut as_pairs, mut pulled) = (0, 0);
    for (spec, parts) in [("urand:12:w", 2), ("kron:11:w", 3), ("kron:10:d:w", 2), ("grid:48x48:w", 4)] {
        let g = generated(spec);
        let whole = DeviceGraph::upload(&gpu, &g).unwrap();
        let parted = PartitionedGraph::upload_on_one_gpu_as(&gpu, &g, parts, ShareLayout::ArcsOut).unwrap();
        let (pairs, pulls) = check_arcs_out(&g, &whole, &parted);
        (as_pairs, pulled) = (as_pairs + pairs, pulled + pulls);
    }
    // BFS's big levels on kron and urand reach more vertices than a packet holds (64 on these graphs);
    // SSSP's first settle step on kron holds most arcs.
    assert!(as_pairs > 0, "no step traded its updates as pairs");
    assert!(pulled > 0, "no settle step pulled");
}

#[test]
fn shares_on_one_gpu_give_what_one_gpu_gives() {
    let Some(gpu) = gpu() else { return };
    for (spec, parts) in [("kron:11", 2), ("kron:10:d", 3), ("urand:11:w", 2), ("grid:48x48:w", 3)] {
        let g = generated(spec);
        let whole = DeviceGraph::upload(&gpu, &g).unwrap();
        let parted = PartitionedGraph::upload_on_one_gpu(&gpu, &g, parts).unwrap();
        check_programs(&g, &whole, &parted);
    }
}

#[test]
fn shares_of_out_arcs_only_push_and_give_what_one_gpu_gives() {
    let Some(gpu) = gpu() else { return };
    for (spec, parts) in [("kron:11", 2), ("kron:10:d", 3), ("urand:11:w", 2)] {
        let g = generated(spec);
        let whole = DeviceGraph::upload(&gpu, &g).unwrap();
        let parted = PartitionedGraph::upload_out_arcs_on_one_gpu(&gpu, &g, parts).unwrap();
        assert!(parted.pushes_only());
        check_programs(&g, &whole, &parted);
    }
}

#[test]
fn a_share_per_gpu_gives_what_one_gpu_gives() {
    let Some(gpus) = two_gpus() else { return };
    for spec in ["kron:11", "urand:11:w"] {
        let g = generated(spec);
        let whole = DeviceGraph::upload(&gpus[0], &g).unwrap();
        let parted = PartitionedGraph::upload(&gpus, &g).unwrap();
        check_programs(&g, &whole, &parted);
        if g.is_weighted() {
            let parted = PartitionedGraph::upload_as(&gpus, &g, ShareLayout::ArcsOut).unwrap();
            check_arcs_out(&g, &whole, &parted);
        }
    }
}
