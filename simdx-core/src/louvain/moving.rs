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
//! beats staying by more than [`MOVE_EPSILON`] times its degree.

use std::cell::RefCell;

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
    /// The modularity at the end.
    pub modularity: f64,
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

/// Moves vertices (in `order`) between the communities of `partition` until a sweep raises the
/// modularity by no more than the threshold, or no vertex moves, or `max_sweeps` sweeps.
pub(crate) fn local_moving(
    level: &LevelGraph<'_>,
    partition: &mut Partition,
    order: &[VertexId],
    settings: &Settings,
) -> Moved {
    let gamma = settings.resolution;
    let mut modularity = level.modularity(&partition.community, &partition.tot, gamma);
    let mut done = Moved { modularity, ..Moved::default() };
    while done.sweeps < settings.max_sweeps {
        let moves = sweep(level, partition, order, settings);
        done.sweeps += 1;
        done.moves += moves;
        if moves == 0 {
            break;
        }
        let after = level.modularity(&partition.community, &partition.tot, gamma);
        let gain = after - modularity;
        modularity = after;
        if gain <= settings.threshold {
            break;
        }
    }
    done.modularity = modularity;
    done
}

/// One pass over `order` in batches; returns how many vertices moved.
fn sweep(level: &LevelGraph<'_>, partition: &mut Partition, order: &[VertexId], settings: &Settings) -> u64 {
    let mut moves = 0;
    let n = level.num_vertices();
    for batch in order.chunks(settings.batch.max(1)) {
        let decide = |&v: &VertexId| best_move(level, partition, v, settings.resolution, n);
        let chosen: Vec<Option<u32>> = if batch.len() < SERIAL_BATCH {
            batch.iter().map(decide).collect()
        } else {
            batch.par_iter().map(decide).collect()
        };
        for (&v, to) in batch.iter().zip(chosen) {
            if let Some(to) = to {
                let k = level.degree[v as usize];
                let from = std::mem::replace(&mut partition.community[v as usize], to);
                partition.tot[from as usize] -= k;
                partition.tot[to as usize] += k;
                moves += 1;
            }
        }
    }
    moves
}

/// The community `v` should move to, if any beats its own (see the module documentation).
fn best_move(level: &LevelGraph<'_>, partition: &Partition, v: VertexId, gamma: f64, n: usize) -> Option<u32> {
    let k = level.degree[v as usize];
    if k <= 0.0 {
        return None;
    }
    let own = partition.community[v as usize];
    let scale = gamma * k / level.total;
    with_scratch(n, |weights, touched| {
        level.for_each_arc(v, |u, w| add(weights, touched, partition.community[u as usize], w));
        let to_own = if weights[own as usize] == UNSET { 0.0 } else { weights[own as usize] };
        let stay = to_own - scale * (partition.tot[own as usize] - k);
        let mut best: Option<(f64, u32)> = None;
        for &c in touched.iter() {
            let score = weights[c as usize] - scale * partition.tot[c as usize];
            weights[c as usize] = UNSET;
            let better = match best {
                None => true,
                Some((s, id)) => score > s || (score == s && c < id),
            };
            if c != own && better {
                best = Some((score, c));
            }
        }
        touched.clear();
        best.filter(|&(score, _)| score > stay + MOVE_EPSILON * k).map(|(_, c)| c)
    })
}
