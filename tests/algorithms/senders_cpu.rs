//! Senders kept by the CPU engine (`Engine::run_with_senders`, and `run_bfs_with_senders`, what
//! `Runner::bfs_tree` runs on the CPU): under every policy of the CPU's matrix, on four threads and with small degree classes, on
//! graphs big enough that pushes run in concurrent tasks, hubs are pulled in chunks and the grid's
//! search goes on in fused rounds, every sender sent the value its vertex ends with along an arc.
//! A voting program whose frontier starts at differing values makes the push repair its stores and log
//! them; a program that does not vote is refused.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::engine::{DirectionPolicy, Engine, EngineError, Run, RunOptions, NO_SENDER};
use simdx::{graph_kernel, Graph, GraphBuilder, VertexId};
use simdx_algos::{verify, Bfs, Sssp};

use crate::common::policies::{policies, SMALL_CLASSES};
use crate::common::{edges, generated};
use simdx::Backend::Cpu;

/// Graphs whose pushes run concurrently (over 16K arcs a step), a grid deep enough for fused rounds,
/// and a star whose hub, reached last, pulls its 3,000 in-arcs in chunks.
fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["kron:14", "urand:14", "grid:120x120", "kron:10"].iter().map(|s| (s.to_string(), generated(s))).collect();
    let mut star: Vec<(u32, u32)> = (2..3000).map(|v| (1, v)).collect();
    star.push((0, 2999));
    all.push(("a star reached through a leaf".into(), GraphBuilder::new().build(edges(3000, &star, None)).unwrap()));
    all
}

/// The CPU's policies, each also on four threads (more than the machine may have: tasks then race
/// on any machine) and with small degree classes (hubs split into chunks).
fn every_way() -> Vec<RunOptions> {
    policies(Cpu)
        .into_iter()
        .flat_map(|o| {
            [o, RunOptions { threads: Some(4), ..o }, RunOptions { threads: Some(4), classes: SMALL_CLASSES, ..o }]
        })
        .collect()
}

/// The first vertex whose value differs from the expected one, if any.
fn same_values(got: &[u32], expected: &[u32]) -> Result<(), String> {
    match got.iter().zip(expected).position(|(a, b)| a != b) {
        Some(v) => Err(format!("vertex {v} holds {}, not {}", got[v], expected[v])),
        None if got.len() != expected.len() => Err(format!("{} values, not {}", got.len(), expected.len())),
        None => Ok(()),
    }
}

/// Checks that every vertex with a sender holds one more than its sender and has an arc from it (the
/// rule of hop counts), and that every vertex without one kept `start`.
fn check_senders(g: &Graph, values: &[u32], senders: &[u32], start: impl Fn(VertexId) -> u32) -> Result<(), String> {
    for v in 0..g.num_vertices() as VertexId {
        let (value, from) = (values[v as usize], senders[v as usize]);
        if from == NO_SENDER {
            if value != start(v) {
                return Err(format!("vertex {v} holds {value}, not its start {}, and has no sender", start(v)));
            }
            continue;
        }
        let sent = values.get(from as usize).copied().ok_or(format!("vertex {v}'s sender {from} is no vertex"))?;
        if !g.out_neighbors(from).contains(&v) {
            return Err(format!("vertex {v}'s sender {from} has no arc to it"));
        }
        if sent.checked_add(1) != Some(value) {
            return Err(format!("vertex {v} holds {value}, but its sender {from} holds {sent}"));
        }
    }
    Ok(())
}

/// A BFS from each graph's biggest hub (a star's leaf 0) under every way of running, its senders kept
/// by `keeping`: the levels of a plain run, and senders that form a tree by the rules of hop counts
/// and Graph500's.
fn check_bfs_senders(keeping: impl Fn(&Engine, &Bfs, &Graph) -> Result<(Run<u32>, Vec<u32>), EngineError>) {
    for (name, g) in graphs() {
        let source = (0..g.num_vertices() as u32).max_by_key(|&v| (g.out_degree(v), v)).unwrap_or(0);
        let source = if name.starts_with("a star") { 0 } else { source };
        let levels = Engine::default().run(&Bfs { source }, &g).unwrap().values;
        for options in every_way() {
            let (run, senders) = keeping(&Engine::new(options), &Bfs { source }, &g).unwrap();
            let case = format!("{name}, {options:?}");
            same_values(&run.values, &levels).unwrap_or_else(|e| panic!("{case}: {e}"));
            let start = |v| if v == source { 0 } else { u32::MAX };
            check_senders(&g, &run.values, &senders, start).unwrap_or_else(|e| panic!("{case}: {e}"));
            let mut parents = senders;
            parents[source as usize] = source;
            verify::bfs_tree(&g, source, &parents).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
    }
}

#[test]
fn senders_kept_by_a_bfs_on_the_cpu_form_its_tree() {
    check_bfs_senders(|engine, bfs, g| engine.run_with_senders(bfs, g));
    let refused = Engine::default().run_with_senders(&Sssp { source: 0, delta: 1 }, &generated("kron:8:w"));
    assert!(matches!(refused, Err(EngineError::SendersNeedVoting)), "{:?}", refused.map(|_| ()));
}

/// `Engine::run_bfs_with_senders` (what `Runner::bfs_tree` runs on the CPU): fused rounds store no
/// sender, and the pass before the clock stops names each by levels. The grid's search runs in fused
/// rounds, whose vertices would be left without a sender if the pass did not run.
#[test]
fn senders_of_a_bfs_whose_fused_rounds_store_none_form_its_tree() {
    check_bfs_senders(|engine, bfs, g| engine.run_bfs_with_senders(bfs, g));
}

/// Hop counts from three sources that start at levels 0, 1 and 3: a program that claims to vote while
/// its frontier sends differing values, so that a push's plain stores of several values race and the
/// step is pushed again. (A pull would take the first update it finds, not the least: it runs pushing
/// only.)
#[derive(Debug, Clone, Copy)]
struct Staggered {
    at_0: VertexId,
    at_1: VertexId,
    at_3: VertexId,
}

impl Staggered {
    fn start(&self, v: VertexId) -> u32 {
        [(self.at_0, 0), (self.at_1, 1), (self.at_3, 3)].iter().find(|s| s.0 == v).map_or(u32::MAX, |s| s.1)
    }
}

#[graph_kernel]
impl Program for Staggered {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;

    fn init(&self, v: Vertex) -> u32 {
        if v.id == self.at_0 {
            0
        } else if v.id == self.at_1 {
            1
        } else if v.id == self.at_3 {
            3
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
}

/// The serial oracle of [`Staggered`]: levels by a queue per level, from every start.
fn staggered_levels(g: &Graph, program: &Staggered) -> Vec<u32> {
    let mut levels: Vec<u32> = (0..g.num_vertices() as VertexId).map(|v| program.start(v)).collect();
    let mut level = 0;
    while levels.iter().any(|&l| l != u32::MAX && l >= level) {
        let at: Vec<VertexId> = (0..levels.len() as VertexId).filter(|&v| levels[v as usize] == level).collect();
        for u in at {
            for &v in g.out_neighbors(u) {
                levels[v as usize] = levels[v as usize].min(level + 1);
            }
        }
        level += 1;
    }
    levels
}

#[test]
fn senders_of_a_frontier_of_differing_values_sent_the_values_that_stand() {
    for spec in ["kron:14", "urand:14", "grid:120x120"] {
        let g = generated(spec);
        let n = g.num_vertices() as VertexId;
        let hub = (0..n).max_by_key(|&v| g.out_degree(v)).unwrap_or(0);
        let program = Staggered { at_0: n / 3, at_1: n - 1, at_3: hub };
        let expected = staggered_levels(&g, &program);
        for options in every_way().into_iter().filter(|o| o.direction == DirectionPolicy::Push) {
            let (run, senders) = Engine::new(options).run_with_senders(&program, &g).unwrap();
            let case = format!("{spec}, {options:?}");
            same_values(&run.values, &expected).unwrap_or_else(|e| panic!("{case}: {e}"));
            check_senders(&g, &run.values, &senders, |v| program.start(v)).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
    }
}
