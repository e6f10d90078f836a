//! How the CPU engine runs programs: direction hand-offs and what pulls and pushes record, fused
//! rounds, hubs split into chunks, thread pools shared by clones, concurrent improvements, the checks
//! of a program's promises, narrow message types, stats, and bad options.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, ProgramHints, Vertex};
use simdx::engine::{
    DegreeClasses, Direction, DirectionPolicy, Engine, FilterPolicy, FilterUsed, FusionPolicy, RunOptions,
};
use simdx::{EdgeList, EdgeWeights, GraphBuilder};
use simdx_algos::{default_delta, verify, Bfs, PageRank, Sssp};

use crate::common::policies::policies;
use crate::common::{edges, generated, spread_sources as sources};
use simdx::Backend::Cpu;

#[test]
fn pagerank_pulls_while_most_ranks_move_and_pushes_the_tail() {
    let params = PageRank { tolerance: 1e-9, max_iterations: 200, ..PageRank::default() };
    // On a grid, after the first iteration only ranks near the border still move.
    let grid = generated("grid:32x32");
    let n = grid.num_vertices() as u64;
    let run = Engine::default().run(&params, &grid).unwrap();
    let it = &run.stats.iterations;
    assert_eq!((it[0].direction, it[0].frontier), (Direction::Pull, n), "{:?}", it[0]);
    assert!(it[1].direction == Direction::Push && it[1].frontier < n / 2, "{:?}", it[1]);
    assert!(it[1].edges < grid.num_arcs() / 2, "a push inspects the out-edges of the frontier only: {:?}", it[1]);
    verify::pagerank(&grid, &params, &run.values, 1e-6).unwrap();
    // On a Kronecker graph nearly every rank moves until the end.
    let kron = generated("kron:10");
    let run = Engine::default().run(&params, &kron).unwrap();
    assert!(run.stats.iterations.iter().take(3).all(|i| i.direction == Direction::Pull), "{:?}", run.stats.iterations);
    verify::pagerank(&kron, &params, &run.values, 1e-6).unwrap();
}

#[test]
fn pagerank_pushes_apply_only_the_reached_vertices_while_the_uniform_share_is_still() {
    let params = PageRank { tolerance: 1e-9, max_iterations: 200, ..PageRank::default() };
    let push = Engine::new(RunOptions { direction: DirectionPolicy::Push, ..RunOptions::default() });
    // No vertex of a grid is dangling: after the first iteration nothing changes the uniform share.
    let grid = generated("grid:32x32");
    let run = push.run(&params, &grid).unwrap();
    let it = &run.stats.iterations;
    assert_eq!(it[0].filter, FilterUsed::Every, "the first sends take 1/n each out of the share: {:?}", it[0]);
    assert!(it.len() > 3 && it[1..].iter().all(|i| i.filter != FilterUsed::Every), "{it:?}");
    verify::pagerank(&grid, &params, &run.values, 1e-6).unwrap();
    // Vertices 3 and 7 have no out-edge: while their ranks move, so does every vertex's share.
    let directed = edges(8, &[(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)], None);
    let directed = GraphBuilder::new().directed(true).build(directed).unwrap();
    let run = push.run(&params, &directed).unwrap();
    let it = &run.stats.iterations;
    assert!(it[1..].iter().any(|i| i.filter == FilterUsed::Every), "{it:?}");
    verify::pagerank(&directed, &params, &run.values, 1e-6).unwrap();
}

/// PageRank whose apply breaks the promise of `IDENTITY_KEEPS_VALUE`: it adds a constant (the check
/// is in debug builds only, and so is the test).
#[cfg(debug_assertions)]
struct BrokenPromise;

#[cfg(debug_assertions)]
impl Program for BrokenPromise {
    type Value = f64;
    type Message = f64;
    type Weight = ();
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f64 = 0.0;
    const UNSEEN: f64 = 0.0;

    fn init(&self, _: Vertex) -> f64 {
        1.0
    }
    fn active(&self, now: f64, seen: f64) -> bool {
        now != seen
    }
    fn compute(&self, e: Edge<f64, ()>) -> f64 {
        e.src
    }
    fn apply(&self, _: Vertex, old: f64, combined: f64, _: f64) -> f64 {
        old + combined + 1.0
    }
    fn done(&self, iterations: u32, _: f64) -> bool {
        iterations >= 3
    }
}

#[cfg(debug_assertions)]
impl ProgramHints for BrokenPromise {
    const IDENTITY_KEEPS_VALUE: bool = true;
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "IDENTITY_KEEPS_VALUE promises")]
fn a_broken_identity_keeps_value_promise_is_caught_in_debug_builds() {
    let push = Engine::new(RunOptions { direction: DirectionPolicy::Push, ..RunOptions::default() });
    let _ = push.run(&BrokenPromise, &generated("grid:8x8"));
}

#[test]
fn thread_count_does_not_change_results() {
    let g = generated("kron:11:w");
    let one = Engine::new(RunOptions { threads: Some(1), ..RunOptions::default() });
    let two = Engine::new(RunOptions { threads: Some(2), ..RunOptions::default() });
    let sssp = Sssp { source: 3, delta: default_delta(&g) };
    assert_eq!(one.run(&sssp, &g).unwrap().values, two.run(&sssp, &g).unwrap().values);
    assert_eq!(one.run(&Bfs { source: 3 }, &g).unwrap().values, two.run(&Bfs { source: 3 }, &g).unwrap().values);
}

#[test]
fn a_bfs_pull_hands_its_frontier_on_to_a_pull_or_a_push() {
    // A BFS pull marks the vertices it reaches in a bitmap instead of listing them; the next step
    // pulls from that bitmap or lists it for a push. Both must happen here, and every level be right.
    let (mut pull_then_pull, mut pull_then_push) = (false, false);
    for spec in ["kron:12", "urand:14", "rmat:14"] {
        let g = generated(spec);
        for threads in [1, 2, 4] {
            let engine = Engine::new(RunOptions { threads: Some(threads), ..RunOptions::default() });
            for source in [0, 1, 77, 1000] {
                let run = engine.run(&Bfs { source }, &g).unwrap();
                verify::bfs(&g, source, &run.values)
                    .unwrap_or_else(|e| panic!("{spec}, {threads} threads, source {source}: {e}"));
                for pair in run.stats.iterations.windows(2) {
                    pull_then_pull |= pair[0].direction == Direction::Pull && pair[1].direction == Direction::Pull;
                    pull_then_push |= pair[0].direction == Direction::Pull && pair[1].direction == Direction::Push;
                }
            }
        }
    }
    assert!(pull_then_pull && pull_then_push, "pull then pull: {pull_then_pull}, pull then push: {pull_then_push}");
}

#[test]
fn a_bfs_push_whose_bins_overflow_hands_its_frontier_on_to_a_pull_or_a_push() {
    // A push whose bins overflow and whose arcs reach an eighth of the vertices moves the flags of the
    // vertices it reached into a bitmap, which the next step pulls from or lists for a push. Both must
    // happen here (small bins overflow early), and every level be right, under each filter.
    let (mut then_pull, mut then_push) = (false, false);
    for spec in ["kron:12", "urand:14", "grid:90x90"] {
        let g = generated(spec);
        let eighth = g.num_vertices() as u64 / 8;
        let auto = RunOptions::default().direction;
        let runs = [
            (1, FilterPolicy::Jit, auto),
            (2, FilterPolicy::Ballot, auto),
            (4, FilterPolicy::Jit, auto),
            (2, FilterPolicy::Ballot, DirectionPolicy::Push),
        ];
        for (threads, filter, direction) in runs {
            let options =
                RunOptions { threads: Some(threads), filter, direction, bin_capacity: 16, ..RunOptions::default() };
            let engine = Engine::new(options);
            for source in [0, 1, 77, 1000] {
                let run = engine.run(&Bfs { source }, &g).unwrap();
                verify::bfs(&g, source, &run.values).unwrap_or_else(|e| {
                    panic!("{spec}, {threads} threads, {filter:?}, {direction:?}, source {source}: {e}")
                });
                for pair in run.stats.iterations.windows(2) {
                    let handing = pair[0].direction == Direction::Push
                        && pair[0].filter == FilterUsed::Ballot
                        && pair[0].edges >= eighth;
                    then_pull |= handing && pair[1].direction == Direction::Pull;
                    then_push |= handing && pair[1].direction == Direction::Push;
                }
            }
        }
    }
    assert!(then_pull && then_push, "push then pull: {then_pull}, push then push: {then_push}");
}

#[test]
fn an_engine_and_its_clones_share_their_threads_run_after_run_and_at_once() {
    // The pool and the fused rounds' team are kept between runs; two runs at once on clones share
    // the pool, and only one of them takes the kept team.
    let g = generated("grid:300x300:w");
    let engine = Engine::new(RunOptions { threads: Some(3), ..RunOptions::default() });
    let sssp = Sssp { source: 150 * 300 + 150, delta: default_delta(&g) };
    let first = engine.run(&sssp, &g).unwrap();
    verify::sssp(&g, sssp.source, &first.values).unwrap();
    let kept = format!("{engine:?}");
    // The team has at most one thread per core.
    let team = 3.min(std::thread::available_parallelism().map_or(1, |n| n.get()));
    assert!(
        kept.contains("pool: Some(3)") && kept.contains(&format!("team: Some({team})")),
        "the threads kept: {kept}"
    );
    for _ in 0..3 {
        assert_eq!(engine.run(&sssp, &g).unwrap().values, first.values, "run after run");
    }
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..3)
            .map(|_| {
                let engine = engine.clone();
                let (g, sssp) = (&g, &sssp);
                s.spawn(move || engine.run(sssp, g).unwrap().values)
            })
            .collect();
        for run in runs {
            assert_eq!(run.join().unwrap(), first.values, "at once");
        }
    });
}

/// Through a run, an engine's own pool keeps its other threads spinning for work (`cpu::awake`); runs
/// at once on clones share that pool, only one keeps it awake, and each finishes with its own levels.
#[test]
fn runs_at_once_on_clones_share_a_pool_one_of_them_keeps_awake() {
    let g = generated("kron:15");
    let engine = Engine::new(RunOptions { threads: Some(3), ..RunOptions::default() });
    let sources = [1u32, 17, 256, 999];
    let alone: Vec<Vec<u32>> = sources.iter().map(|&source| engine.run(&Bfs { source }, &g).unwrap().values).collect();
    for (&source, levels) in sources.iter().zip(&alone) {
        verify::bfs(&g, source, levels).unwrap();
    }
    for _ in 0..5 {
        std::thread::scope(|s| {
            let runs: Vec<_> = sources
                .iter()
                .map(|&source| {
                    let (engine, g) = (engine.clone(), &g);
                    s.spawn(move || engine.run(&Bfs { source }, g).unwrap().values)
                })
                .collect();
            for (run, levels) in runs.into_iter().zip(&alone) {
                assert_eq!(&run.join().unwrap(), levels, "at once");
            }
        });
    }
}

/// Push stores improvements of in-place min programs with plain stores and repairs the ones a
/// concurrent store overwrote (module `cpu::push`). Here 2000 sources, pushed in parallel by eight
/// threads, improve the same 40 vertices again and again; a lost improvement would leave one of
/// them above its Dijkstra distance.
#[test]
fn concurrent_improvements_of_the_same_vertices_are_not_lost() {
    let (sources, sinks) = (2000u32, 40u32);
    let n = (1 + sources + sinks) as usize;
    let mut pairs = Vec::new();
    let mut weights = Vec::new();
    for a in 1..=sources {
        pairs.push((0, a));
        weights.push(1 + (a * 7919) % 97);
        for b in 0..sinks {
            pairs.push((a, 1 + sources + b));
            weights.push(1 + (a * 31 + b * 17) % 1009);
        }
    }
    let g = GraphBuilder::new().directed(true).build(edges(n, &pairs, Some(weights))).unwrap();
    let push = RunOptions { direction: DirectionPolicy::Push, threads: Some(8), ..RunOptions::default() };
    for delta in [1000, 1] {
        for _ in 0..20 {
            let run = Engine::new(push).run(&Sssp { source: 0, delta }, &g).unwrap();
            verify::sssp(&g, 0, &run.values).unwrap_or_else(|e| panic!("delta {delta}: {e}"));
        }
    }
}

#[test]
fn fused_bfs_rounds_correct_levels_reached_ahead_of_the_others() {
    // Workers of a fused round run ahead of each other, so a BFS vertex may first be reached at a
    // deeper level than its own, then improved: the rounds must not keep BFS's `can_update` (only
    // unvisited vertices), which would refuse the improvement. Pushing only, from the start, and
    // under the auto policy, which fuses a run still going after ASYNC_AFTER_ITERATIONS steps.
    // From the middle of a 600 x 600 grid the wavefront outgrows what one worker keeps to itself (1,000
    // vertices), so rounds run on several workers (kept, with 2 and 4 threads, the test failed every
    // time).
    let g = generated("grid:600x600");
    let source = 300 * 600 + 300;
    for direction in [DirectionPolicy::Push, DirectionPolicy::default()] {
        for threads in [2, 4] {
            let options = RunOptions { direction, threads: Some(threads), ..RunOptions::default() };
            let run = Engine::new(options).run(&Bfs { source }, &g).unwrap();
            verify::bfs(&g, source, &run.values).unwrap_or_else(|e| panic!("{direction:?}, {threads} threads: {e}"));
            let steps = run.stats.iterations.len();
            assert!(steps < 200, "{direction:?}: {steps} iterations, not fused (the search has 600 levels)");
        }
    }
}

/// Fused rounds and single steps with hubs split into chunks (every vertex of degree 8 or more is
/// a hub here), on four threads, against Dijkstra and union-find. The widest rounds of SSSP on
/// urand:12 start from about 900 vertices with 30K out-edges, which run in parallel (above 16K).
#[test]
fn hubs_split_into_chunks_under_fused_rounds_and_single_steps() {
    let classes = DegreeClasses { warp: 1, cta: 1, grid: 8 };
    for spec in ["urand:12:w", "kron:12:w"] {
        let g = generated(spec);
        for fusion in [FusionPolicy::All, FusionPolicy::None] {
            let options = RunOptions { classes, fusion, threads: Some(4), ..RunOptions::default() };
            let engine = Engine::new(options);
            let mut widest = 0;
            for source in sources(&g) {
                let run = engine.run(&Sssp { source, delta: default_delta(&g) }, &g).unwrap();
                verify::sssp(&g, source, &run.values).unwrap_or_else(|e| panic!("{spec} {fusion:?} {source}: {e}"));
                widest = run.stats.iterations.iter().map(|i| i.edges).max().unwrap_or(0).max(widest);
            }
            assert!(widest > 16 * 1024, "{spec} {fusion:?}: no round wide enough to run in parallel");
            let run = engine.run(&simdx_algos::Wcc, &g).unwrap();
            verify::wcc(&g, &run.values).unwrap_or_else(|e| panic!("{spec} {fusion:?}: {e}"));
        }
    }
}

#[test]
fn wcc_links_right_with_its_sampled_rounds_in_order_and_spread() {
    // Up to two threads the sampled rounds take their chunks in order (16K vertices each), with more
    // spread apart (4K each): graphs of several chunks either way, every class right.
    for spec in ["grid:200x200", "urand:16", "kron:15"] {
        let g = generated(spec);
        for threads in [1, 2, 3, 8] {
            let run = Engine::new(RunOptions { threads: Some(threads), ..RunOptions::default() })
                .run(&simdx_algos::Wcc, &g)
                .unwrap();
            verify::wcc(&g, &run.values).unwrap_or_else(|e| panic!("{spec}, {threads} threads: {e}"));
        }
    }
}

#[test]
fn pulls_over_many_blocks_record_exactly_the_vertices_they_reach() {
    // kron:13 has 8,192 vertices (four pull blocks of 2,048), many without in-arcs (never candidates),
    // and hubs above a split of 64 (pulled in chunks); a bin capacity of 1 overflows every block.
    let classes = DegreeClasses { warp: 1, cta: 1, grid: 64 };
    for spec in ["kron:13", "urand:13"] {
        let g = generated(spec);
        for (classes, bin_capacity) in [(DegreeClasses::default(), 4096), (classes, 4096), (classes, 1)] {
            for direction in [DirectionPolicy::Pull, DirectionPolicy::Auto { threshold: 0.05 }] {
                let options = RunOptions {
                    direction,
                    filter: FilterPolicy::Jit,
                    classes,
                    bin_capacity,
                    threads: Some(4),
                    ..RunOptions::default()
                };
                for source in sources(&g) {
                    let run = Engine::new(options).run(&Bfs { source }, &g).unwrap();
                    verify::bfs(&g, source, &run.values)
                        .unwrap_or_else(|e| panic!("{spec} {direction:?} capacity {bin_capacity} {source}: {e}"));
                    let pulls = run.stats.iterations.iter().filter(|i| i.direction == Direction::Pull).count();
                    assert!(pulls > 0 || direction != DirectionPolicy::Pull, "{spec}: no step pulled");
                }
            }
        }
    }
}

#[test]
fn buckets_too_small_for_the_threads_are_taken_several_at_once() {
    // A path of unit weights at width 1: every bucket holds one vertex, far too little work for a step,
    // so the engine takes more buckets at once while they stay small (still exact, fewer steps).
    let n = 3000u32;
    let pairs: Vec<(u32, u32)> = (1..n).map(|v| (v - 1, v)).collect();
    let g = GraphBuilder::new().build(edges(n as usize, &pairs, Some(vec![1; n as usize - 1]))).unwrap();
    let run = Engine::default().run(&Sssp { source: 0, delta: 1 }, &g).unwrap();
    verify::sssp(&g, 0, &run.values).unwrap();
    let buckets: Vec<u32> = run.stats.iterations.iter().map(|i| i.bucket).collect();
    assert!(buckets.windows(2).any(|w| w[1] > w[0] + 1), "{buckets:?}");
    assert!(buckets.len() < n as usize / 4, "{} steps", buckets.len());
}

#[test]
fn a_step_guessed_to_pull_that_pushes_after_all_stays_exact() {
    // A star of 100 leaves around vertex 0, one leaf joined to a complete graph of 60 vertices: by the
    // mean out-degree of the graph the leaves' step would pull (so the engine prepares and marks them for
    // a pull), by their own out-edges (one each, plus the one into the clique) it pushes.
    let (leaves, clique) = (100u32, 60u32);
    let mut pairs: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
    pairs.push((1, leaves + 1));
    for a in 0..clique {
        pairs.extend((a + 1..clique).map(|b| (leaves + 1 + a, leaves + 1 + b)));
    }
    let g = GraphBuilder::new().build(edges((1 + leaves + clique) as usize, &pairs, None)).unwrap();
    for source in [0, 2] {
        let run = Engine::default().run(&Bfs { source }, &g).unwrap();
        verify::bfs(&g, source, &run.values).unwrap_or_else(|e| panic!("source {source}: {e}"));
        let leaves_step = &run.stats.iterations[if source == 0 { 1 } else { 2 }];
        assert_eq!(leaves_step.direction, Direction::Push, "source {source}: {:?}", run.stats.iterations);
    }
}

#[test]
fn stats_record_directions_filters_and_edges() {
    let g = generated("kron:12");
    let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap();
    let run = Engine::default().run(&Bfs { source }, &g).unwrap();
    let stats = &run.stats;
    assert!(stats.iterations.iter().any(|i| i.direction == simdx::engine::Direction::Pull), "{stats:?}");
    assert!(stats.iterations.iter().any(|i| i.direction == simdx::engine::Direction::Push));
    assert_eq!(stats.iterations[0].frontier, 1);
    assert_eq!(stats.iterations[0].edges, g.out_degree(source));
    assert!(stats.edges_per_second() > 0.0);
    let jit_overflow =
        Engine::new(RunOptions { bin_capacity: 1, ..RunOptions::default() }).run(&Bfs { source }, &g).unwrap();
    assert!(jit_overflow.stats.iterations.iter().any(|i| i.filter == simdx::engine::FilterUsed::Ballot));
}

#[test]
fn mismatched_weights_and_bad_options_are_errors() {
    let real = GraphBuilder::new()
        .build(EdgeList { weights: Some(EdgeWeights::F32(vec![0.5])), ..edges(2, &[(0, 1)], None) })
        .unwrap();
    let err = Engine::default().run(&Sssp { source: 0, delta: 1 }, &real).unwrap_err();
    assert!(err.to_string().contains("integer edge weights"), "{err}");
    let bad = RunOptions { direction: DirectionPolicy::Auto { threshold: 2.0 }, ..RunOptions::default() };
    assert!(Engine::new(bad).run(&Bfs { source: 0 }, &real).is_err());
}

/// Hop counts written by hand (no `#[graph_kernel]`), kept in `u64` but sent as `u32`: an in-place
/// program whose messages are narrower than its values.
struct NarrowHops;

impl Program for NarrowHops {
    type Value = u64;
    type Message = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u64 = u64::MAX;
    const UNSEEN: u64 = u64::MAX;

    fn init(&self, v: Vertex) -> u64 {
        if v.id == 0 {
            0
        } else {
            u64::MAX
        }
    }
    fn active(&self, now: u64, seen: u64) -> bool {
        now != seen
    }
    fn source_value(&self, _v: Vertex, hops: u64, _sent: u64) -> u32 {
        hops as u32
    }
    fn compute(&self, e: Edge<u32, (), u64>) -> u64 {
        u64::from(e.src) + 1
    }
}

impl ProgramHints for NarrowHops {}

#[test]
fn a_program_may_send_a_narrower_type_than_it_keeps() {
    let g = generated("kron:10");
    let expected = Engine::default().run(&Bfs { source: 0 }, &g).unwrap().values;
    for options in policies(Cpu) {
        let hops = Engine::new(options).run(&NarrowHops, &g).unwrap().values;
        let as_levels: Vec<u32> = hops.iter().map(|&h| u32::try_from(h).unwrap_or(u32::MAX)).collect();
        assert_eq!(as_levels, expected, "{options:?}");
    }
}

/// BFS levels kept in buckets of two levels: a pull that reaches level `2k + 2` from `2k + 1` reaches
/// vertices outside the current bucket, which it cannot hand on as a bitmap (module `cpu::handed`).
struct LevelPairs {
    source: u32,
}

impl Program for LevelPairs {
    type Value = u32;
    type Message = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Voting;
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
        now != seen
    }
    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src + 1
    }
    fn can_update(&self, level: u32) -> bool {
        level == u32::MAX
    }
    fn bucket(&self, level: u32) -> u32 {
        level / 2
    }
}

impl ProgramHints for LevelPairs {
    const SOURCE_IGNORES_SENT: bool = true;
}

#[test]
fn a_pull_that_reaches_a_later_bucket_lists_what_it_marked() {
    // Every step pulls; those whose reached vertices stay in the bucket hand them on as a bitmap, the
    // others list them from it for the frontier to file. Either way the levels are BFS's.
    for spec in ["kron:12", "urand:13", "grid:40x40"] {
        let g = generated(spec);
        for threads in [1, 3] {
            let options =
                RunOptions { threads: Some(threads), direction: DirectionPolicy::Pull, ..RunOptions::default() };
            let engine = Engine::new(options);
            for source in [0, 5, 300] {
                let expected = engine.run(&Bfs { source }, &g).unwrap().values;
                let run = engine.run(&LevelPairs { source }, &g).unwrap();
                assert_eq!(run.values, expected, "{spec}, {threads} threads, source {source}");
                assert!(run.stats.iterations.iter().all(|it| it.direction == Direction::Pull));
            }
        }
    }
}
