//! Louvain's local moving phase, in deterministic batches: the vertices (those with edges) are taken
//! in a shuffled order cut into batches of fixed size; each vertex of a batch finds its best move in
//! parallel against the partition as it stood when the batch began, and the moves are then applied
//! one after the other in batch order. Nothing depends on which thread did what, so the result is the
//! same for every thread count. A batch is a small part of the graph, so few vertices decide on
//! stale neighbours' communities; on graphs of up to a few hundred vertices each batch is one vertex,
//! which is sequential Louvain exactly.
//!
//! Moving a vertex `v` of degree `k` out of its community and into community `C` changes the
//! modularity by `(k_C - resolution * k * tot(C) / 2m) / m` less the same for the community it
//! leaves (its own weight taken out of `tot`), `k_C` being the weight of its arcs into `C`. A vertex
//! moves to the neighbouring community of highest gain (ties to the smallest id), and only if that
//! beats staying by more than [`MOVE_EPSILON`] times its degree. Of two neighbours in one batch that
//! both chose to move, the later one chooses again, serially, when its move is applied (its choice
//! saw the earlier one where it was); and every move is weighed again against the degree sums the
//! moves before it left (many vertices of a batch may choose one large community, and together
//! overshoot), and dropped if it no longer gains. So every move raises the modularity.
//!
//! After the first sweep, a sweep visits only the vertices with a neighbour that moved in the sweep
//! before (pruning, as Ozaki, Tezuka and Inaba's Louvain does); a sweep's gain is reckoned from its
//! moves, without another pass over the arcs.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;

use super::level::LevelGraph;
use crate::VertexId;

/// How much better (relative to the vertex's degree) a move must be than staying, so that rounding
/// does not move vertices between communities of equal gain.
pub(crate) const MOVE_EPSILON: f64 = 1e-12;

/// The most vertices in one batch.
const MAX_BATCH: usize = 4096;

/// The batch of a level of `n` vertices: about 1/128 of them, at least 1 and at most [`MAX_BATCH`].
pub(crate) fn batch_size(n: usize) -> usize {
    (n / 128).clamp(1, MAX_BATCH)
}

/// Below this many vertices a batch is decided on the calling thread (the same decisions).
const SERIAL_BATCH: usize = 64;

/// Unset entries of the scratch array (weights are never negative).
pub(crate) const UNSET: f64 = -1.0;

thread_local! {
    /// Each thread's weight per community (UNSET where untouched), and the communities touched.
    static SCRATCH: RefCell<(Vec<f64>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Calls `f` with this thread's scratch, at least `n` entries long and all UNSET.
pub(crate) fn with_scratch<R>(n: usize, f: impl FnOnce(&mut Vec<f64>, &mut Vec<u32>) -> R) -> R {
    SCRATCH.with(|cell| {
        let (weights, touched) = &mut *cell.borrow_mut();
        if weights.len() < n {
            weights.resize(n, UNSET);
        }
        f(weights, touched)
    })
}

/// Frees every thread's scratch (of the current rayon pool).
pub(crate) fn free_scratch() {
    rayon::broadcast(|_| SCRATCH.with(|cell| *cell.borrow_mut() = (Vec::new(), Vec::new())));
}

/// Adds `w` to community `c`'s entry of the scratch.
#[inline]
pub(crate) fn add(weights: &mut [f64], touched: &mut Vec<u32>, c: u32, w: f64) {
    let entry = &mut weights[c as usize];
    if *entry == UNSET {
        *entry = 0.0;
        touched.push(c);
    }
    *entry += w;
}

/// The partition a level is moving: each vertex's community and each community's degree sum.
pub(crate) struct Partition {
    /// Each vertex's community (an id below the number of vertices).
    pub community: Vec<u32>,
    /// Each community's degree sum.
    pub tot: Vec<f64>,
}

impl Partition {
    /// Every vertex in a community of its own.
    pub fn singletons(level: &LevelGraph<'_>) -> Partition {
        Partition { community: (0..level.num_vertices() as u32).collect(), tot: level.degree.clone() }
    }
}

/// What one local moving phase did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Moved {
    /// Sweeps over the vertices.
    pub sweeps: u32,
    /// Moves, over all sweeps.
    pub moves: u64,
}

/// The settings of a local moving phase.
pub(crate) struct Settings {
    /// The resolution (gamma).
    pub resolution: f64,
    /// Sweeps go on while one raises the modularity by more than this.
    pub threshold: f64,
    /// The most sweeps.
    pub max_sweeps: u32,
    /// Vertices per batch.
    pub batch: usize,
}

/// A move a vertex chose: the community it goes to, and its arc weight into that community and into
/// its own (as the batch found them).
#[derive(Debug, Clone, Copy)]
struct Move {
    to: u32,
    to_weight: f64,
    own_weight: f64,
}

/// Moves vertices (in `order`) between the communities of `partition` until a sweep raises the
/// modularity by no more than the threshold, or no vertex moves, or `max_sweeps` sweeps. The first
/// sweep visits every vertex of `order`; a later one only those with a neighbour that moved in the
/// sweep before (the others would decide as they did).
pub(crate) fn local_moving(
    level: &LevelGraph<'_>,
    partition: &mut Partition,
    order: &[VertexId],
    settings: &Settings,
) -> Moved {
    let mut done = Moved::default();
    let n = level.num_vertices();
    let mut marks = Marks {
        active: (0..n).map(|_| AtomicBool::new(false)).collect(),
        chosen: (0..n).map(|_| AtomicU64::new(u64::MAX)).collect(),
        batches: 0,
    };
    let mut visit = order.to_vec();
    while done.sweeps < settings.max_sweeps && !visit.is_empty() {
        let (moved, gain) = sweep(level, partition, &visit, settings, &mut marks);
        done.sweeps += 1;
        done.moves += moved.len() as u64;
        if moved.is_empty() || gain <= settings.threshold {
            break;
        }
        moved.par_iter().with_max_len(64).for_each(|&v| {
            level.for_each_arc(v, |u, _| marks.active[u as usize].store(true, Ordering::Relaxed));
        });
        visit =
            order.par_iter().copied().filter(|&v| marks.active[v as usize].swap(false, Ordering::Relaxed)).collect();
    }
    done
}

/// Per-vertex marks of a local moving phase.
struct Marks {
    /// Whether the vertex is to be visited in the next sweep.
    active: Vec<AtomicBool>,
    /// For a vertex that chose a move: the batch's number (high 32 bits) and its place in the batch.
    chosen: Vec<AtomicU64>,
    /// Batches so far.
    batches: u64,
}

/// One pass over `visit` in batches: returns the vertices that moved, in order, and the modularity
/// they gained.
///
/// A vertex that chose a move chooses again when its turn comes if a neighbour before it in its
/// batch chose one too (its arc weights may be stale); every move made is weighed with the arc
/// weights and degree sums of the moment, so each one raises the modularity, and the phase cannot
/// cycle.
fn sweep(
    level: &LevelGraph<'_>,
    partition: &mut Partition,
    visit: &[VertexId],
    settings: &Settings,
    marks: &mut Marks,
) -> (Vec<VertexId>, f64) {
    let (mut moved, mut gain) = (Vec::new(), 0.0);
    let n = level.num_vertices();
    let gamma = settings.resolution;
    for batch in visit.chunks(settings.batch.max(1)) {
        marks.batches += 1;
        let stamp = marks.batches << 32;
        let decide = |(i, &v): (usize, &VertexId)| {
            let choice = best_move(level, partition, v, gamma, n);
            if choice.is_some() {
                marks.chosen[v as usize].store(stamp | i as u64, Ordering::Relaxed);
            }
            choice
        };
        let chosen: Vec<Option<Move>> = if batch.len() < SERIAL_BATCH {
            batch.iter().enumerate().map(decide).collect()
        } else {
            batch.par_iter().enumerate().map(decide).collect()
        };
        // Whether a neighbour before it in the batch chose a move too (and so may have moved first).
        let earlier = |(i, (&v, choice)): (usize, (&VertexId, &Option<Move>))| {
            let mut found = false;
            if choice.is_some() {
                level.for_each_arc(v, |u, _| {
                    let mark = marks.chosen[u as usize].load(Ordering::Relaxed);
                    found |= mark >= stamp && mark < stamp | i as u64;
                });
            }
            found
        };
        let stale: Vec<bool> = if batch.len() < SERIAL_BATCH {
            batch.iter().zip(&chosen).enumerate().map(earlier).collect()
        } else {
            batch.par_iter().zip(&chosen).enumerate().map(earlier).collect()
        };
        for ((&v, choice), stale) in batch.iter().zip(chosen).zip(stale) {
            if choice.is_none() {
                continue;
            }
            // A neighbour moved before it in this batch: its choice is made again, now.
            let choice = if stale { best_move(level, partition, v, gamma, n) } else { choice };
            let Some(Move { to, to_weight, own_weight }) = choice else { continue };
            // The moves before this one may have changed the communities' degree sums (not its arc
            // weights: those are of the moment).
            let k = level.degree[v as usize];
            let (scale, from) = (gamma * k / level.total, partition.community[v as usize]);
            let change = (to_weight - scale * partition.tot[to as usize])
                - (own_weight - scale * (partition.tot[from as usize] - k));
            if change <= MOVE_EPSILON * k {
                continue;
            }
            partition.community[v as usize] = to;
            partition.tot[from as usize] -= k;
            partition.tot[to as usize] += k;
            moved.push(v);
            gain += 2.0 * change / level.total;
        }
    }
    (moved, gain)
}

/// Vertices with at most this many arcs sum their weights per community in a small list on the
/// stack, searched linearly (in cache), instead of the thread's scratch array, whose entries for a
/// graph of millions of vertices are cache misses.
const SMALL_DEGREE: usize = 32;

/// The community `v` should move to, if any beats its own (see the module documentation).
fn best_move(level: &LevelGraph<'_>, partition: &Partition, v: VertexId, gamma: f64, n: usize) -> Option<Move> {
    let k = level.degree[v as usize];
    if k <= 0.0 {
        return None;
    }
    let own = partition.community[v as usize];
    let scale = gamma * k / level.total;
    let choose = |own_weight: f64, others: &mut dyn Iterator<Item = (u32, f64)>| {
        let stay = own_weight - scale * (partition.tot[own as usize] - k);
        let mut best: Option<(f64, u32, f64)> = None;
        for (c, weight) in others {
            let score = weight - scale * partition.tot[c as usize];
            let better = match best {
                None => true,
                Some((s, id, _)) => score > s || (score == s && c < id),
            };
            if c != own && better {
                best = Some((score, c, weight));
            }
        }
        let (score, to, to_weight) = best?;
        (score > stay + MOVE_EPSILON * k).then_some(Move { to, to_weight, own_weight })
    };
    if level.arc_count(v) <= SMALL_DEGREE {
        let (mut list, mut len) = ([(0u32, 0.0f64); SMALL_DEGREE], 0);
        level.for_each_arc(v, |u, w| {
            let c = partition.community[u as usize];
            match list[..len].iter_mut().find(|entry| entry.0 == c) {
                Some(entry) => entry.1 += w,
                None => {
                    list[len] = (c, w);
                    len += 1;
                }
            }
        });
        let own_weight = list[..len].iter().find(|entry| entry.0 == own).map_or(0.0, |entry| entry.1);
        return choose(own_weight, &mut list[..len].iter().copied());
    }
    with_scratch(n, |weights, touched| {
        level.for_each_arc(v, |u, w| add(weights, touched, partition.community[u as usize], w));
        let own_weight = if weights[own as usize] == UNSET { 0.0 } else { weights[own as usize] };
        let chosen =
            choose(own_weight, &mut touched.iter().map(|&c| (c, std::mem::replace(&mut weights[c as usize], UNSET))));
        touched.clear();
        chosen
    })
}
