//! Many breadth-first searches at once, after iBFS (seed 004, chapter 2), on the CPU backend: sources
//! go in batches of 64; each vertex keeps one 64-bit word of "seen" bits and one of "frontier" bits
//! (bit i: the batch's i-th search), so that one OR carries a vertex's news to a neighbour for all 64
//! searches, and the searches share one joint frontier (the vertices that are new to any of them).
//! Each level runs top-down (push along the joint frontier's arcs) or bottom-up (every vertex not yet
//! seen by all searches ORs its neighbours' frontier bits and stops once it has them all), chosen by
//! the same [`DirectionPolicy`] as the engine. Applications get each search's summary (vertices
//! reached, sum of distances, eccentricity) and, if they ask, every (search, vertex, level) discovery:
//! all-sources levels, closeness and eccentricity are a few lines on top. GroupBy
//! ([`Traversal::group_by`]) batches sources that share a hub.
//!
//! [`Searches`] is what applications are written against: a [`Graph`] runs it here, a GPU's device
//! graph (simdx-cuda) runs the same traversal on the device.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::cpu::state::vertex_of;
use crate::engine::{Direction, DirectionPolicy, FilterUsed, IterationStats};
pub use crate::search_run::{check_search_data, check_sources, ErasedSearch, MultiSourceError, MultiStats, LANES};
use crate::{Graph, VertexId};

/// Which arcs a search follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Orientation {
    /// Out-arcs: levels are distances from the source.
    #[default]
    Out,
    /// In-arcs: levels are distances to the source (networkx's closeness of a directed graph).
    In,
}

/// What one search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// The search's source.
    pub source: VertexId,
    /// Vertices reached, the source included.
    pub reached: u64,
    /// Sum of the levels of the reached vertices.
    pub distance_sum: u64,
    /// The highest level reached (0 when only the source).
    pub eccentricity: u32,
}

impl Summary {
    /// A search that has reached only its source.
    pub fn start(source: VertexId) -> Summary {
        Summary { source, reached: 1, distance_sum: 0, eccentricity: 0 }
    }

    /// Counts `count` vertices found at `level` (nothing when `count` is 0).
    pub fn add_level(&mut self, count: u64, level: u32) {
        if count > 0 {
            self.reached += count;
            self.distance_sum += count * u64::from(level);
            self.eccentricity = level;
        }
    }
}

/// What [`Searches::accumulate`] gives: each search's summary and accumulator (a word), in the order of
/// the sources, and the traversal's statistics.
pub type Accumulated = (Vec<(Summary, u64)>, MultiStats);

/// A backend that runs many breadth-first searches at once: the CPU's [`traverse`] for a [`Graph`],
/// the GPU's for a device graph (and Brandes' sweeps from many sources). Applications written against
/// it run on either.
pub trait Searches {
    /// Vertices of the graph searched.
    fn num_vertices(&self) -> usize;

    /// Whether the graph is directed.
    fn is_directed(&self) -> bool;

    /// Brandes' dependency sums from `sources` (betweenness before scaling), as
    /// [`crate::dependencies::dependency_sums`] gives them.
    fn dependency_sums(&self, sources: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError>;

    /// Each search's [`Summary`], in the order of `sources`.
    fn summaries(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<Summary>, MultiStats), MultiSourceError>;

    /// Each search's levels, row-major: `levels[v * sources.len() + i]` is `v`'s level from
    /// `sources[i]`, `u32::MAX` where unreached.
    fn levels(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<u32>, MultiStats), MultiSourceError>;

    /// Runs `program` over the searches from `sources`: each search's summary and accumulator (as a
    /// word: see [`crate::search_program::search`], which gives it its type), in the order of `sources`.
    fn accumulate(
        &self,
        program: &dyn ErasedSearch,
        sources: &[VertexId],
        how: Traversal,
    ) -> Result<Accumulated, MultiSourceError>;
}

impl Searches for Graph {
    fn num_vertices(&self) -> usize {
        Graph::num_vertices(self)
    }

    fn is_directed(&self) -> bool {
        Graph::is_directed(self)
    }

    fn dependency_sums(&self, sources: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
        crate::dependencies::dependency_sums(self, sources)
    }

    fn summaries(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<Summary>, MultiStats), MultiSourceError> {
        traverse(self, sources, how, |_, _, _| {})
    }

    fn levels(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
        let k = sources.len();
        let levels: Vec<AtomicU32> = (0..Graph::num_vertices(self) * k).map(|_| AtomicU32::new(u32::MAX)).collect();
        let (_, stats) = traverse(self, sources, how, |search, v, level| {
            levels[v as usize * k + search].store(level, Ordering::Relaxed);
        })?;
        Ok((levels.into_iter().map(AtomicU32::into_inner).collect(), stats))
    }

    fn accumulate(
        &self,
        program: &dyn ErasedSearch,
        sources: &[VertexId],
        how: Traversal,
    ) -> Result<Accumulated, MultiSourceError> {
        check_search_data(program, Graph::num_vertices(self))?;
        run_batches(self, sources, how, program.max_level(), &Accumulates { graph: self, program })
    }
}

/// One search's summary from its levels (one per vertex, `u32::MAX` where unreached), counting the
/// vertices at levels up to `max_level`, as a traversal stopped there counts them: what a backend
/// that finds each search's levels on its own (simdx's searches over a split graph) returns for it.
pub fn summary_of_levels(source: VertexId, levels: &[u32], max_level: u32) -> Summary {
    let (reached, distance_sum, eccentricity) = levels
        .par_iter()
        .filter(|&&level| level != u32::MAX && level <= max_level)
        .fold(|| (0u64, 0u64, 0u32), |(n, sum, most), &level| (n + 1, sum + u64::from(level), most.max(level)))
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2.max(b.2)));
    Summary { source, reached, distance_sum, eccentricity }
}

/// One search's summary and `program`'s accumulator from the search's levels on `graph` (as
/// [`summary_of_levels`], to the program's `max_level`): each vertex found is folded in as the
/// traversal would fold it, on the host's cores.
pub fn accumulate_levels(
    graph: &Graph,
    program: &dyn ErasedSearch,
    source: VertexId,
    levels: &[u32],
) -> (Summary, u64) {
    let max_level = program.max_level();
    let identity = [program.identity(); LANES];
    let acc = levels
        .par_iter()
        .enumerate()
        .filter(|&(_, &level)| level != u32::MAX && level <= max_level)
        .fold(
            || identity,
            |mut acc, (v, &level)| {
                program.found(vertex_of(graph, v as VertexId), level, 1, &mut acc);
                acc
            },
        )
        .reduce(
            || identity,
            |mut into, from| {
                program.merge(&mut into, &from);
                into
            },
        );
    (summary_of_levels(source, levels, max_level), acc[0])
}

/// Whether a level runs bottom-up: the execution policy's rule for searches
/// ([`crate::run::policy::search_pulls`]).
pub use crate::run::policy::search_pulls as pulls;

/// How a traversal runs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Traversal {
    /// The arcs the searches follow.
    pub orientation: Orientation,
    /// Top-down or bottom-up per level (the engine's policy; see [`traverse`]).
    pub direction: DirectionPolicy,
    /// iBFS's GroupBy: batch together the sources whose highest-degree neighbours are the same, so
    /// that their frontiers overlap from the first level and a batch shares more of its work.
    /// Otherwise sources are batched in the order given.
    pub group_by: bool,
}

/// Runs one breadth-first search from each of `sources` (in batches of [`LANES`]) as `how` says,
/// and calls `discovered(search, vertex, level)` for every vertex each search reaches (the source at
/// level 0; `search` indexes `sources`; calls come from many threads, in no order within a level).
/// Returns each search's [`Summary`], in the order of `sources`.
pub fn traverse(
    graph: &Graph,
    sources: &[VertexId],
    how: Traversal,
    discovered: impl Fn(usize, VertexId, u32) + Sync,
) -> Result<(Vec<Summary>, MultiStats), MultiSourceError> {
    let (found, stats) = run_batches(graph, sources, how, u32::MAX, &Calls(&discovered))?;
    Ok((found.into_iter().map(|(summary, _)| summary).collect(), stats))
}

/// Runs the searches from `sources` in batches, to `max_level` at most, with the discoveries of the
/// batches going to `discover`; each search's summary and accumulator.
fn run_batches(
    graph: &Graph,
    sources: &[VertexId],
    how: Traversal,
    max_level: u32,
    discover: &impl Discover,
) -> Result<Accumulated, MultiSourceError> {
    let n = graph.num_vertices();
    check_sources(sources, n)?;
    let start = Instant::now();
    let order = if how.group_by { grouped(graph, sources, how.orientation) } else { (0..sources.len()).collect() };
    let mut stats = MultiStats::default();
    let mut found = vec![None; sources.len()];
    let words = Words::new(n);
    for (b, searches) in order.chunks(LANES).enumerate() {
        let batch: Vec<VertexId> = searches.iter().map(|&i| sources[i]).collect();
        let (summaries, acc) = Batch { graph, words: &words, how, index: b as u32, sources: &batch, max_level }
            .run(&mut stats, discover, searches);
        for ((&i, summary), &acc) in searches.iter().zip(summaries).zip(&acc) {
            found[i] = Some((summary, acc));
        }
        stats.batches += 1;
    }
    stats.time = start.elapsed();
    Ok((found.into_iter().map(|s| s.expect("every search ran in a batch")).collect(), stats))
}

/// What a batch does with its discoveries: folds each into per-lane accumulators (64-bit words), per
/// rayon task, merged at the end of each level.
trait Discover: Sync {
    /// The accumulator of a lane that has found nothing.
    fn identity(&self) -> u64;
    /// Folds the discovery of `v` at `level` by each lane of `lanes` into `acc`; `searches` are the
    /// batch's searches by lane (indices into the sources).
    fn found(&self, searches: &[usize], v: VertexId, level: u32, lanes: u64, acc: &mut [u64; LANES]);
    /// Combines `from` into `into`, lane by lane.
    fn merge(&self, into: &mut [u64; LANES], from: &[u64; LANES]);
}

/// [`traverse`]'s discoveries: a call per (search, vertex, level), no accumulator.
struct Calls<'a, F>(&'a F);

impl<F: Fn(usize, VertexId, u32) + Sync> Discover for Calls<'_, F> {
    fn identity(&self) -> u64 {
        0
    }

    fn found(&self, searches: &[usize], v: VertexId, level: u32, lanes: u64, _: &mut [u64; LANES]) {
        let mut bits = lanes;
        while bits != 0 {
            (self.0)(searches[bits.trailing_zeros() as usize], v, level);
            bits &= bits - 1;
        }
    }

    fn merge(&self, _: &mut [u64; LANES], _: &[u64; LANES]) {}
}

/// A search program's discoveries.
struct Accumulates<'a> {
    graph: &'a Graph,
    program: &'a dyn ErasedSearch,
}

impl Discover for Accumulates<'_> {
    fn identity(&self) -> u64 {
        self.program.identity()
    }

    fn found(&self, _: &[usize], v: VertexId, level: u32, lanes: u64, acc: &mut [u64; LANES]) {
        self.program.found(vertex_of(self.graph, v), level, lanes, acc);
    }

    fn merge(&self, into: &mut [u64; LANES], from: &[u64; LANES]) {
        self.program.merge(into, from);
    }
}

/// The searches in GroupBy order: sorted by each source's neighbour of highest degree (then by
/// source), so that sources next to the same hub share a batch.
fn grouped(graph: &Graph, sources: &[VertexId], orientation: Orientation) -> Vec<usize> {
    let csr = match orientation {
        Orientation::Out => graph.out_csr(),
        Orientation::In => graph.in_csr(),
    };
    let hub = |s: VertexId| csr.neighbors(s).iter().copied().max_by_key(|&u| (csr.degree(u), u)).unwrap_or(s);
    let hubs: Vec<VertexId> = sources.par_iter().map(|&s| hub(s)).collect();
    grouped_order(&hubs, sources)
}

/// GroupBy's order of the searches from `sources`, given each source's hub (its neighbour of highest
/// degree, the highest id among equals; itself when it has none): by hub, then by source.
pub fn grouped_order(hubs: &[VertexId], sources: &[VertexId]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sources.len()).collect();
    order.par_sort_by_key(|&i| (hubs[i], sources[i]));
    order
}

/// The status words of every vertex, reused by each batch (all zero between batches).
struct Words {
    seen: Vec<AtomicU64>,
    frontier: Vec<AtomicU64>,
    next: Vec<AtomicU64>,
}

impl Words {
    fn new(n: usize) -> Self {
        let zeros = || (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        Words { seen: zeros(), frontier: zeros(), next: zeros() }
    }
}

/// One batch of up to [`LANES`] searches.
struct Batch<'a> {
    graph: &'a Graph,
    words: &'a Words,
    how: Traversal,
    index: u32,
    sources: &'a [VertexId],
    /// The last level explored.
    max_level: u32,
}

/// Per-search counts of one level's discoveries.
type Counts = [u64; LANES];

impl Batch<'_> {
    /// Runs the batch's searches (`searches` by lane) to the end or to the last level; their summaries
    /// and accumulators; leaves the words zeroed.
    fn run(
        &self,
        stats: &mut MultiStats,
        discover: &impl Discover,
        searches: &[usize],
    ) -> (Vec<Summary>, [u64; LANES]) {
        let Words { seen, frontier, .. } = self.words;
        let all = if self.sources.len() == LANES { u64::MAX } else { (1u64 << self.sources.len()) - 1 };
        let mut summaries: Vec<Summary> = self.sources.iter().map(|&source| Summary::start(source)).collect();
        let mut active: Vec<VertexId> = Vec::new();
        let mut acc = [discover.identity(); LANES];
        for (lane, &s) in self.sources.iter().enumerate() {
            if seen[s as usize].fetch_or(1 << lane, Ordering::Relaxed) == 0 {
                active.push(s);
            }
            frontier[s as usize].fetch_or(1 << lane, Ordering::Relaxed);
            discover.found(searches, s, 0, 1 << lane, &mut acc);
        }
        let mut touched = active.clone();
        let mut level = 0u32;
        // In-arcs (of the orientation) of the vertices every search has reached.
        let mut finished_arcs = 0u64;
        while !active.is_empty() && level < self.max_level {
            let began = Instant::now();
            level += 1;
            let (forward, backward) = match self.how.orientation {
                Orientation::Out => (self.graph.out_csr(), self.graph.in_csr()),
                Orientation::In => (self.graph.in_csr(), self.graph.out_csr()),
            };
            let out_edges: u64 = active.par_iter().map(|&u| forward.degree(u)).sum();
            let pull = pulls(self.how.direction, out_edges, self.graph.num_arcs(), finished_arcs);
            let (reached, edges) =
                if pull { self.bottom_up(backward, all) } else { (self.top_down(forward, &active), out_edges) };
            for &u in &active {
                frontier[u as usize].store(0, Ordering::Relaxed);
            }
            let (counts, finished, found) = self.settle(&reached, all, backward, level, discover, searches);
            discover.merge(&mut acc, &found);
            finished_arcs += finished;
            for (summary, &count) in summaries.iter_mut().zip(&counts) {
                summary.add_level(count, level);
            }
            touched.extend_from_slice(&reached);
            stats.levels.push(IterationStats {
                direction: if pull { Direction::Pull } else { Direction::Push },
                filter: FilterUsed::Online,
                frontier: active.len() as u64,
                edges,
                bucket: self.index,
                time: began.elapsed(),
            });
            active = reached;
        }
        touched.par_iter().for_each(|&v| {
            seen[v as usize].store(0, Ordering::Relaxed);
            frontier[v as usize].store(0, Ordering::Relaxed);
        });
        (summaries, acc)
    }

    /// Top-down: each frontier vertex ORs its new bits into its neighbours' `next`; the vertices
    /// reached (each listed once, by the thread that first set its `next`).
    fn top_down(&self, forward: &crate::Csr, active: &[VertexId]) -> Vec<VertexId> {
        let Words { seen, frontier, next } = self.words;
        active
            .par_iter()
            .fold(Vec::new, |mut reached, &u| {
                let bits = frontier[u as usize].load(Ordering::Relaxed);
                for &v in forward.neighbors(u) {
                    let new = bits & !seen[v as usize].load(Ordering::Relaxed);
                    let slot = &next[v as usize];
                    if new != 0
                        && slot.load(Ordering::Relaxed) & new != new
                        && slot.fetch_or(new, Ordering::Relaxed) == 0
                    {
                        reached.push(v);
                    }
                }
                reached
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            })
    }

    /// Bottom-up: every vertex not yet seen by all searches ORs its in-neighbours' frontier bits,
    /// stopping once it has every bit it lacks; the vertices reached and the arcs inspected.
    fn bottom_up(&self, backward: &crate::Csr, all: u64) -> (Vec<VertexId>, u64) {
        let Words { seen, frontier, next } = self.words;
        let n = self.graph.num_vertices() as VertexId;
        (0..n)
            .into_par_iter()
            .with_min_len(1024)
            .fold(
                || (Vec::new(), 0u64),
                |(mut reached, mut edges), v| {
                    let had = seen[v as usize].load(Ordering::Relaxed);
                    if had != all {
                        let mut got = 0u64;
                        for &u in backward.neighbors(v) {
                            edges += 1;
                            got |= frontier[u as usize].load(Ordering::Relaxed);
                            if (got | had) == all {
                                break;
                            }
                        }
                        let new = got & !had;
                        if new != 0 {
                            next[v as usize].store(new, Ordering::Relaxed);
                            reached.push(v);
                        }
                    }
                    (reached, edges)
                },
            )
            .reduce(
                || (Vec::new(), 0),
                |(mut a, x), (mut b, y)| {
                    a.append(&mut b);
                    (a, x + y)
                },
            )
    }

    /// Moves each reached vertex's `next` bits into `seen` and `frontier`, hands the discoveries to
    /// `discover` and counts them per search; also the `backward` degrees of the vertices that every search has
    /// now reached.
    fn settle(
        &self,
        reached: &[VertexId],
        all: u64,
        backward: &crate::Csr,
        level: u32,
        discover: &impl Discover,
        searches: &[usize],
    ) -> (Counts, u64, [u64; LANES]) {
        let Words { seen, frontier, next } = self.words;
        let identity = discover.identity();
        reached
            .par_iter()
            .with_min_len(256)
            .fold(
                || ([0u64; LANES], 0u64, [identity; LANES]),
                |(mut counts, mut finished, mut acc), &v| {
                    let new = next[v as usize].swap(0, Ordering::Relaxed);
                    if seen[v as usize].fetch_or(new, Ordering::Relaxed) | new == all {
                        finished += backward.degree(v);
                    }
                    frontier[v as usize].store(new, Ordering::Relaxed);
                    let mut bits = new;
                    while bits != 0 {
                        counts[bits.trailing_zeros() as usize] += 1;
                        bits &= bits - 1;
                    }
                    discover.found(searches, v, level, new, &mut acc);
                    (counts, finished, acc)
                },
            )
            .reduce(
                || ([0u64; LANES], 0, [identity; LANES]),
                |(mut a, x, mut p), (b, y, q)| {
                    a.iter_mut().zip(b).for_each(|(p, q)| *p += q);
                    discover.merge(&mut p, &q);
                    (a, x + y, p)
                },
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::GeneratorSpec;
    use std::collections::VecDeque;

    /// Levels from `s` by a plain queue.
    fn bfs(graph: &Graph, s: VertexId, orientation: Orientation) -> Vec<u32> {
        let mut level = vec![u32::MAX; graph.num_vertices()];
        level[s as usize] = 0;
        let mut queue = VecDeque::from([s]);
        while let Some(u) = queue.pop_front() {
            let next = match orientation {
                Orientation::Out => graph.out_neighbors(u),
                Orientation::In => graph.in_neighbors(u),
            };
            for &v in next {
                if level[v as usize] == u32::MAX {
                    level[v as usize] = level[u as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        level
    }

    fn check(spec: &str, sources: &[VertexId], orientation: Orientation, direction: DirectionPolicy) {
        let graph = GeneratorSpec::parse(spec).unwrap().generate(5).unwrap();
        let n = graph.num_vertices();
        let k = sources.len();
        let levels: Vec<AtomicU32> = (0..n * k).map(|_| AtomicU32::new(u32::MAX)).collect();
        let group_by = sources.len() % 2 == 0;
        let how = Traversal { orientation, direction, group_by };
        let (summaries, stats) = traverse(&graph, sources, how, |search, v, level| {
            assert_eq!(levels[v as usize * k + search].swap(level, Ordering::Relaxed), u32::MAX, "found twice");
        })
        .unwrap();
        assert_eq!(stats.batches as usize, k.div_ceil(LANES));
        for (search, &s) in sources.iter().enumerate() {
            let expected = bfs(&graph, s, orientation);
            let got: Vec<u32> = (0..n).map(|v| levels[v * k + search].load(Ordering::Relaxed)).collect();
            assert_eq!(got, expected, "{spec}, search {search} from {s}, {direction:?}");
            let reached: Vec<u32> = expected.iter().copied().filter(|&l| l != u32::MAX).collect();
            let summary = summaries[search];
            assert_eq!(summary.source, s);
            assert_eq!(summary.reached, reached.len() as u64);
            assert_eq!(summary.distance_sum, reached.iter().map(|&l| u64::from(l)).sum::<u64>());
            assert_eq!(summary.eccentricity, reached.iter().copied().max().unwrap());
        }
    }

    #[test]
    fn every_search_finds_the_levels_a_queue_finds_in_every_direction() {
        let sources: Vec<VertexId> = (0..150).map(|i| (i * 37) % 1024).collect();
        for direction in [DirectionPolicy::Push, DirectionPolicy::Pull, DirectionPolicy::default()] {
            check("kron:10", &sources, Orientation::Out, direction);
            check("grid:32x32", &sources[..70], Orientation::Out, direction);
        }
    }

    #[test]
    fn repeated_sources_and_directed_graphs_both_ways() {
        let sources = [3, 3, 0, 511, 3];
        for direction in [DirectionPolicy::Push, DirectionPolicy::Pull, DirectionPolicy::default()] {
            for orientation in [Orientation::Out, Orientation::In] {
                check("mlp:8,16,32,8", &[0, 1, 7, 30, 60, 63], orientation, direction);
            }
            check("urand:9:4", &sources, Orientation::Out, direction);
        }
    }

    #[test]
    fn a_source_outside_the_graph_is_refused() {
        let graph = GeneratorSpec::parse("grid:4x4").unwrap().generate(1).unwrap();
        let error = traverse(&graph, &[2, 16], Traversal::default(), |_, _, _| {}).unwrap_err();
        assert_eq!(error.to_string(), "source 16 is not a vertex of this graph (it has 16 vertices)");
    }
}
