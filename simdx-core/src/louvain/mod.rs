//! Louvain community detection (Blondel, Guillaume, Lambiotte and Lefebvre, 2008) on the CPU, in
//! parallel and deterministic for a seed: the labels are the same for every thread count.
//!
//! Each level runs a **local moving** phase (`moving.rs`): vertices move to the neighbouring community
//! that raises the modularity (with a resolution `gamma`) most, sweep after sweep, until a sweep
//! raises it by no more than the threshold (or moves nothing). The vertices go in an order shuffled
//! from the seed, cut into batches of fixed size decided in parallel against the partition as the
//! batch found it and applied in order — a sequential Louvain on small graphs, and a parallel one
//! whose decisions depend on the seed alone on large ones. Then **aggregation** (`aggregate.rs`) makes
//! each community a vertex of the next level's graph, and the next level begins, until a level moves
//! no vertex (or `max_level` levels have run). So no two communities of the result would raise the
//! modularity by merging (beyond rounding: 1e-12 of a degree); the threshold only
//! ends a level's sweeps early, where networkx also stops adding levels.
//!
//! Weights are the input graph's edge weights (1 for an unweighted graph); a self-loop counts twice in
//! its vertex's degree, as in networkx. Communities are numbered `0..k` in the order of their smallest
//! vertex id (vertex 0 is in community 0). Directed graphs are refused.

mod aggregate;
mod level;
mod moving;

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::gen::rng::{chunk_seed, WyRand};
use crate::{Graph, VertexId};
use level::LevelGraph;
use moving::{batch_size, local_moving, Partition, Settings};

/// The parameters of [`louvain`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LouvainOptions {
    /// The resolution gamma (networkx's `resolution`): above 1 favours smaller communities, below 1
    /// larger ones. Finite and not negative.
    pub resolution: f64,
    /// A level's sweeps stop once one raises the modularity by no more than this (networkx's
    /// `threshold`, 1e-7). Finite and not negative.
    pub threshold: f64,
    /// The most levels (each a local moving phase and an aggregation); `None` for no limit.
    pub max_level: Option<u32>,
    /// The seed of the vertex orders.
    pub seed: u64,
}

impl Default for LouvainOptions {
    /// Resolution 1, threshold 1e-7, no level limit, seed 0.
    fn default() -> Self {
        LouvainOptions { resolution: 1.0, threshold: 1e-7, max_level: None, seed: 0 }
    }
}

/// Why [`louvain`] cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LouvainError {
    /// Louvain is defined here on undirected graphs.
    #[error("louvain needs an undirected graph, and this one is directed (a file can be read as undirected with --undirected)")]
    Directed,
    /// The resolution is negative or not finite.
    #[error("the resolution must be a finite number of at least 0, not {0}")]
    Resolution(f64),
    /// The threshold is negative or not finite.
    #[error("the threshold must be a finite number of at least 0, not {0}")]
    Threshold(f64),
    /// A level limit of 0.
    #[error("max_level must be at least 1")]
    MaxLevel,
}

/// What one level did.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelStats {
    /// Vertices of the level's graph.
    pub vertices: usize,
    /// Sweeps of its local moving phase.
    pub sweeps: u32,
    /// Moves over all sweeps.
    pub moves: u64,
    /// Communities at its end.
    pub communities: usize,
    /// The modularity at its end.
    pub modularity: f64,
    /// Its time, aggregation included.
    pub time: Duration,
}

/// Louvain's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Communities {
    /// Each vertex's community, numbered `0..count` in the order of their smallest vertex.
    pub labels: Vec<u32>,
    /// The number of communities.
    pub count: usize,
    /// The modularity of `labels` at the given resolution (0 on a graph without edges).
    pub modularity: f64,
    /// Each level that moved vertices (the last level, which moved none, is left out).
    pub levels: Vec<LevelStats>,
}

/// The most sweeps of one level's local moving phase.
pub const MAX_SWEEPS: u32 = 100;

/// Louvain communities of an undirected graph (see the module documentation).
pub fn louvain(graph: &Graph, options: &LouvainOptions) -> Result<Communities, LouvainError> {
    let LouvainOptions { resolution, threshold, max_level, seed } = *options;
    if graph.is_directed() {
        return Err(LouvainError::Directed);
    }
    if !resolution.is_finite() || resolution < 0.0 {
        return Err(LouvainError::Resolution(resolution));
    }
    if !threshold.is_finite() || threshold < 0.0 {
        return Err(LouvainError::Threshold(threshold));
    }
    if max_level == Some(0) {
        return Err(LouvainError::MaxLevel);
    }
    let base = LevelGraph::from_graph(graph);
    let mut labels: Vec<u32> = (0..graph.num_vertices() as u32).collect();
    let mut levels = Vec::new();
    let mut current: Option<LevelGraph<'static>> = None;
    let mut sequential = false;
    while max_level.map_or(true, |most| levels.len() < most as usize) {
        let started = Instant::now();
        let level = current.as_ref().unwrap_or(&base);
        let n = level.num_vertices();
        let order = shuffled(level, seed, levels.len() as u64);
        let mut partition = Partition::singletons(level);
        let batch = if sequential { 1 } else { batch_size(n) };
        let settings = Settings { resolution, threshold, max_sweeps: MAX_SWEEPS, batch };
        let moved = local_moving(level, &mut partition, &order, &settings);
        if moved.moves == 0 {
            break;
        }
        let (dense, k) = aggregate::renumber(&partition.community);
        if k == n {
            // Every move was undone by another of its batch (two vertices swapping communities): the
            // level runs again one vertex at a time, where each move empties a community.
            if sequential {
                break;
            }
            sequential = true;
            continue;
        }
        sequential = false;
        labels.par_iter_mut().for_each(|label| *label = dense[*label as usize]);
        let next = aggregate::aggregate(level, &dense, k);
        let modularity = next.modularity(&(0..k as u32).collect::<Vec<_>>(), &next.degree, resolution);
        let (sweeps, moves) = (moved.sweeps, moved.moves);
        levels.push(LevelStats { vertices: n, sweeps, moves, communities: k, modularity, time: started.elapsed() });
        current = Some(next);
    }
    moving::free_scratch();
    let count = current.as_ref().map_or(graph.num_vertices(), LevelGraph::num_vertices);
    let mut tot = vec![0.0; count];
    labels.iter().zip(&base.degree).for_each(|(&c, &k)| tot[c as usize] += k);
    let modularity = base.modularity(&labels, &tot, resolution);
    Ok(Communities { labels, count, modularity, levels })
}

/// The vertices of `level` that have edges, shuffled from `seed` and the level's number.
fn shuffled(level: &LevelGraph<'_>, seed: u64, number: u64) -> Vec<VertexId> {
    let n = level.num_vertices() as VertexId;
    let mut order: Vec<VertexId> = (0..n).into_par_iter().filter(|&v| level.degree[v as usize] > 0.0).collect();
    let mut rng = WyRand::new(chunk_seed(seed, STREAM_ORDER, number));
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// The random stream of the vertex orders.
const STREAM_ORDER: u64 = 0x10;

#[cfg(test)]
mod tests;
