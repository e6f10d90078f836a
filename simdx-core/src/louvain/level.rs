//! The graph one Louvain level works on: a symmetric weighted CSR without self arcs, each vertex's
//! self-loop weight kept apart, and each vertex's weighted degree. Level 0 borrows the input graph's
//! arrays (an unweighted graph weighs 1 per arc); the community graphs of later levels own theirs,
//! with `f64` weights.
//!
//! Weights are in *degree units*: a vertex's degree is the weight of its arcs plus its loop weight,
//! and a self-loop of weight `w` counts `2w`, as networkx counts it. The total `2m` is the sum of the
//! degrees, and the modularity of a partition is `sum over communities C of in(C) / 2m - resolution *
//! (tot(C) / 2m)^2`, `in(C)` being the weight of the arcs inside C plus its members' loops (an edge
//! inside C counts twice, once per arc) and `tot(C)` its members' degrees.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::{Graph, VertexId, Weights};

/// The weight of each arc of a level's CSR.
pub(crate) enum ArcWeights<'g> {
    /// 1 per arc (an unweighted input graph).
    Unit,
    /// The input graph's integer weights.
    U32(&'g [u32]),
    /// The input graph's real weights.
    F32(&'g [f32]),
    /// Summed weights of a community graph.
    F64(Vec<f64>),
}

/// One level's graph (see the module documentation).
pub(crate) struct LevelGraph<'g> {
    offsets: Cow<'g, [u64]>,
    targets: Cow<'g, [VertexId]>,
    weights: ArcWeights<'g>,
    /// Each vertex's self-loop weight, in degree units.
    pub loops: Vec<f64>,
    /// Each vertex's weighted degree, its loop weight included.
    pub degree: Vec<f64>,
    /// The sum of the degrees, `2m`.
    pub total: f64,
}

/// Vertices per piece of a sum, which is added up piece by piece in a fixed order, so that it is the
/// same whatever the number of threads.
const SUM_PIECE: usize = 4096;

/// The sum of `f(v)` over `0..n`, the same for every thread count.
pub(crate) fn fixed_sum(n: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    let pieces: Vec<f64> = (0..n.div_ceil(SUM_PIECE))
        .into_par_iter()
        .map(|p| (p * SUM_PIECE..n.min((p + 1) * SUM_PIECE)).map(&f).sum())
        .collect();
    pieces.iter().sum()
}

impl<'g> LevelGraph<'g> {
    /// Level 0: `graph` itself (undirected), its arrays borrowed; self arcs become loop weights.
    pub fn from_graph(graph: &'g Graph) -> LevelGraph<'g> {
        let csr = graph.out_csr();
        let weights = match csr.weights() {
            None => ArcWeights::Unit,
            Some(Weights::U32(w)) => ArcWeights::U32(w),
            Some(Weights::F32(w)) => ArcWeights::F32(w),
        };
        let mut level = LevelGraph {
            offsets: Cow::Borrowed(csr.offsets()),
            targets: Cow::Borrowed(csr.targets()),
            weights,
            loops: Vec::new(),
            degree: Vec::new(),
            total: 0.0,
        };
        // An undirected graph stores a self-loop once; it counts twice in the degree.
        let loops: Vec<f64> = (0..graph.num_vertices() as VertexId)
            .into_par_iter()
            .map(|v| {
                let mut weight = 0.0;
                level.for_each_arc_with_loops(v, |u, w| weight += if u == v { 2.0 * w } else { 0.0 });
                weight
            })
            .collect();
        level.loops = loops;
        level.finish_degrees();
        level
    }

    /// A community graph built from its parts: `offsets` and `targets` of a symmetric CSR without
    /// self arcs, their `weights`, and each vertex's loop weight in degree units.
    pub fn owned(offsets: Vec<u64>, targets: Vec<VertexId>, weights: Vec<f64>, loops: Vec<f64>) -> LevelGraph<'static> {
        let mut level = LevelGraph {
            offsets: Cow::Owned(offsets),
            targets: Cow::Owned(targets),
            weights: ArcWeights::F64(weights),
            loops,
            degree: Vec::new(),
            total: 0.0,
        };
        level.finish_degrees();
        level
    }

    /// Sets each degree (arcs plus loop) and the total.
    fn finish_degrees(&mut self) {
        let degree: Vec<f64> = (0..self.num_vertices() as VertexId)
            .into_par_iter()
            .map(|v| {
                let mut sum = self.loops[v as usize];
                self.for_each_arc(v, |_, w| sum += w);
                sum
            })
            .collect();
        self.degree = degree;
        self.total = fixed_sum(self.num_vertices(), |v| self.degree[v]);
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of arcs of `v`, self arcs included.
    #[inline]
    pub fn arc_count(&self, v: VertexId) -> usize {
        (self.offsets[v as usize + 1] - self.offsets[v as usize]) as usize
    }

    /// Calls `f(u, w)` for every arc `v -> u` of weight `w`, self arcs included.
    #[inline]
    fn for_each_arc_with_loops(&self, v: VertexId, mut f: impl FnMut(VertexId, f64)) {
        let range = self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize;
        let targets = &self.targets[range.clone()];
        match &self.weights {
            ArcWeights::Unit => targets.iter().for_each(|&u| f(u, 1.0)),
            ArcWeights::U32(w) => targets.iter().zip(&w[range]).for_each(|(&u, &w)| f(u, f64::from(w))),
            ArcWeights::F32(w) => targets.iter().zip(&w[range]).for_each(|(&u, &w)| f(u, f64::from(w))),
            ArcWeights::F64(w) => targets.iter().zip(&w[range]).for_each(|(&u, &w)| f(u, w)),
        }
    }

    /// Calls `f(u, w)` for every arc `v -> u` of weight `w` with `u != v` (self-loops are in
    /// [`loops`](Self::loops)).
    #[inline]
    pub fn for_each_arc(&self, v: VertexId, mut f: impl FnMut(VertexId, f64)) {
        self.for_each_arc_with_loops(v, |u, w| {
            if u != v {
                f(u, w)
            }
        })
    }

    /// The modularity of the partition `community` (a community id per vertex, each below `n`)
    /// whose communities' degree sums are `tot`; 0 for a graph without edges.
    pub fn modularity(&self, community: &[u32], tot: &[f64], resolution: f64) -> f64 {
        if self.total <= 0.0 {
            return 0.0;
        }
        let inside = fixed_sum(self.num_vertices(), |v| {
            let mut sum = self.loops[v];
            let c = community[v];
            self.for_each_arc(v as VertexId, |u, w| {
                if community[u as usize] == c {
                    sum += w
                }
            });
            sum
        });
        let squares = fixed_sum(tot.len(), |c| tot[c] * tot[c]);
        inside / self.total - resolution * squares / (self.total * self.total)
    }
}
