//! [`GraphBuilder`]: turns an edge list (COO) into a [`Graph`] in parallel — counting degrees,
//! scattering arcs, sorting each neighbour list and removing self-loops and duplicate edges as asked.
//! The result does not depend on the number of threads.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::csr::Csr;
use super::graph::Graph;
use super::weights::{EdgeWeights, Weights};
use crate::error::{GraphError, Result};
use crate::parallel::{offsets_from_counts, SharedSlice};
use crate::VertexId;

/// A graph as a list of edges, before it is built: `src[i] -> dst[i]` with optional `weights[i]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EdgeList {
    /// Number of vertices; every id must be below it.
    pub num_vertices: usize,
    /// Edge sources.
    pub src: Vec<VertexId>,
    /// Edge destinations, parallel to `src`.
    pub dst: Vec<VertexId>,
    /// Optional edge weights, parallel to `src`.
    pub weights: Option<EdgeWeights>,
}

impl EdgeList {
    /// Number of edges in the list.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether the list has no edges.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }
}

/// What the builder does with self-loops `(v, v)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelfLoops {
    /// Drop them (the default, as GAP does).
    #[default]
    Remove,
    /// Keep them; in an undirected graph a self-loop is stored once.
    Keep,
}

/// What the builder does with an edge that appears more than once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
    /// Keep one copy, the one with the smallest weight (the default, as GAP does). In an undirected
    /// graph `(u, v)` and `(v, u)` are the same edge.
    #[default]
    Remove,
    /// Keep every copy (a multigraph), sorted by weight within a neighbour list.
    Keep,
}

/// Builds [`Graph`]s from [`EdgeList`]s. Defaults: undirected, self-loops and duplicates removed.
///
/// ```
/// use simdx_core::{EdgeList, GraphBuilder};
/// let edges = EdgeList { num_vertices: 3, src: vec![0, 1, 1], dst: vec![1, 2, 0], weights: None };
/// let g = GraphBuilder::new().build(edges).unwrap();
/// assert_eq!(g.num_edges(), 2); // (0,1) and (1,0) are one undirected edge
/// assert_eq!(g.out_neighbors(1), &[0, 2]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct GraphBuilder {
    directed: bool,
    self_loops: SelfLoops,
    duplicates: Duplicates,
}

impl GraphBuilder {
    /// A builder for an undirected graph that removes self-loops and duplicates.
    pub fn new() -> Self {
        Self::default()
    }

    /// Build a directed graph (out- and in-CSR) instead of a symmetrised undirected one.
    pub fn directed(mut self, directed: bool) -> Self {
        self.directed = directed;
        self
    }

    /// Choose what happens to self-loops.
    pub fn self_loops(mut self, policy: SelfLoops) -> Self {
        self.self_loops = policy;
        self
    }

    /// Choose what happens to duplicate edges.
    pub fn duplicates(mut self, policy: Duplicates) -> Self {
        self.duplicates = policy;
        self
    }

    /// Builds the graph. Fails if the list has more than [`crate::MAX_VERTICES`] vertices, an id out
    /// of range, weights of the wrong length, or a negative or non-finite real weight.
    pub fn build(&self, edges: EdgeList) -> Result<Graph> {
        validate(&edges)?;
        let EdgeList { num_vertices: n, src, dst, weights } = edges;
        let plan = ArcPlan { n, src: &src, dst: &dst, keep_self_loops: self.self_loops == SelfLoops::Keep };
        let dedup = self.duplicates == Duplicates::Remove;
        let (out, incoming) = match &weights {
            None => {
                let out = if self.directed {
                    csr_unweighted(&plan, Orientation::Forward, dedup)
                } else {
                    csr_unweighted(&plan, Orientation::Both, dedup)
                };
                let incoming = self.directed.then(|| csr_unweighted(&plan, Orientation::Reverse, dedup));
                (out, incoming)
            }
            Some(w) => {
                let bits = weight_bits(w);
                let kind_f32 = matches!(w, EdgeWeights::F32(_));
                let build = |o| csr_weighted(&plan, o, &bits, kind_f32, dedup);
                if self.directed {
                    (build(Orientation::Forward), Some(build(Orientation::Reverse)))
                } else {
                    (build(Orientation::Both), None)
                }
            }
        };
        let num_edges = if self.directed { out.num_arcs() } else { count_undirected_edges(&out) };
        Graph::from_csr(self.directed, num_edges, out, incoming).map_err(GraphError::Build)
    }
}

fn validate(edges: &EdgeList) -> Result<()> {
    let n = edges.num_vertices;
    if n > crate::MAX_VERTICES {
        return Err(GraphError::Build(format!(
            "{n} vertices exceed the limit of {} (vertex ids are u32)",
            crate::MAX_VERTICES
        )));
    }
    if edges.src.len() != edges.dst.len() {
        return Err(GraphError::Build(format!("{} sources but {} destinations", edges.src.len(), edges.dst.len())));
    }
    if let Some(w) = &edges.weights {
        if w.len() != edges.src.len() {
            return Err(GraphError::Build(format!("{} weights for {} edges", w.len(), edges.src.len())));
        }
        if let EdgeWeights::F32(w) = w {
            if let Some(i) = w.par_iter().position_first(|x| !x.is_finite() || *x < 0.0) {
                return Err(GraphError::Build(format!(
                    "edge {i} has weight {}; weights must be finite and >= 0",
                    w[i]
                )));
            }
        }
    }
    let bad = edges.src.par_iter().zip(&edges.dst).position_first(|(&s, &d)| s as usize >= n || d as usize >= n);
    if let Some(i) = bad {
        return Err(GraphError::Build(format!(
            "edge {i} ({} -> {}) names a vertex outside 0..{n}",
            edges.src[i], edges.dst[i]
        )));
    }
    Ok(())
}

/// Weights as sortable `u32` bits: integers as they are; non-negative floats by their IEEE bits,
/// which order like the floats (with -0.0 made +0.0).
fn weight_bits(w: &EdgeWeights) -> Vec<u32> {
    match w {
        EdgeWeights::U32(w) => w.clone(),
        EdgeWeights::F32(w) => w.par_iter().map(|&x| if x == 0.0 { 0 } else { x.to_bits() }).collect(),
    }
}

#[derive(Clone, Copy)]
enum Orientation {
    /// `src -> dst`.
    Forward,
    /// `dst -> src` (in-edges of a directed graph).
    Reverse,
    /// Both, for a symmetrised undirected graph (a kept self-loop once).
    Both,
}

struct ArcPlan<'a> {
    n: usize,
    src: &'a [VertexId],
    dst: &'a [VertexId],
    keep_self_loops: bool,
}

impl ArcPlan<'_> {
    /// Calls `f(from, to, edge_index)` for every arc the orientation produces, in parallel.
    fn for_each_arc(&self, orientation: Orientation, f: impl Fn(VertexId, VertexId, usize) + Sync) {
        self.src.par_iter().zip(self.dst).enumerate().with_min_len(1 << 14).for_each(|(i, (&s, &d))| {
            if s == d {
                if self.keep_self_loops {
                    f(s, s, i);
                }
                return;
            }
            match orientation {
                Orientation::Forward => f(s, d, i),
                Orientation::Reverse => f(d, s, i),
                Orientation::Both => {
                    f(s, d, i);
                    f(d, s, i);
                }
            }
        });
    }

    /// Offsets of the arcs grouped by `from`.
    fn offsets(&self, orientation: Orientation) -> Vec<u64> {
        let counts: Vec<AtomicU64> = (0..self.n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
        self.for_each_arc(orientation, |from, _, _| {
            counts[from as usize].fetch_add(1, Ordering::Relaxed);
        });
        offsets_from_counts(counts.into_iter().map(AtomicU64::into_inner))
    }

    /// Scatters `key(to, edge)` of every arc into its source's slot range, then sorts each range.
    fn grouped_keys<K: Ord + Copy + Default + Send + Sync>(
        &self,
        orientation: Orientation,
        offsets: &[u64],
        key: impl Fn(VertexId, usize) -> K + Sync,
    ) -> Vec<K> {
        let cursors: Vec<AtomicU64> = offsets[..self.n].par_iter().map(|&o| AtomicU64::new(o)).collect();
        let mut keys = vec![K::default(); offsets[self.n] as usize];
        let shared = SharedSlice::new(&mut keys);
        self.for_each_arc(orientation, |from, to, i| {
            let slot = cursors[from as usize].fetch_add(1, Ordering::Relaxed);
            // SAFETY: fetch_add hands every arc a distinct slot inside its source's range.
            unsafe { shared.write(slot as usize, key(to, i)) };
        });
        for_each_range(offsets, &shared, |_, list| list.sort_unstable());
        keys
    }
}

/// Runs `f(v, list)` on every vertex's disjoint range of `shared`, in parallel.
fn for_each_range<K: Send>(offsets: &[u64], shared: &SharedSlice<'_, K>, f: impl Fn(usize, &mut [K]) + Sync) {
    (0..offsets.len() - 1).into_par_iter().with_min_len(256).for_each(|v| {
        // SAFETY: offsets never decrease, so vertex ranges are disjoint; each is visited by one task.
        let list = unsafe { shared.slice_mut(offsets[v] as usize..offsets[v + 1] as usize) };
        f(v, list);
    });
}

/// Offsets after deduplication: per vertex, the number of entries of its sorted range whose
/// `target` differs from the previous one (all of them when `dedup` is false).
fn surviving_offsets<K: Copy + Send + Sync>(
    offsets: &[u64],
    keys: &[K],
    target: impl Fn(K) -> VertexId + Sync,
    dedup: bool,
) -> Vec<u64> {
    let n = offsets.len() - 1;
    let kept: Vec<u64> = (0..n)
        .into_par_iter()
        .with_min_len(256)
        .map(|v| {
            let list = &keys[offsets[v] as usize..offsets[v + 1] as usize];
            if !dedup || list.is_empty() {
                return list.len() as u64;
            }
            1 + list.windows(2).filter(|w| target(w[0]) != target(w[1])).count() as u64
        })
        .collect();
    offsets_from_counts(kept.into_iter())
}

/// Copies, for every vertex, the entries of its sorted range that survive deduplication into
/// `out[new_offsets[v]..]`, converting each with `convert`.
fn copy_surviving<K: Copy + Send + Sync, T: Copy + Default + Send>(
    offsets: &[u64],
    new_offsets: &[u64],
    keys: &[K],
    target: impl Fn(K) -> VertexId + Sync,
    dedup: bool,
    convert: impl Fn(K) -> T + Sync,
) -> Vec<T> {
    let mut out = vec![T::default(); *new_offsets.last().unwrap_or(&0) as usize];
    let shared = SharedSlice::new(&mut out);
    for_each_range(new_offsets, &shared, |v, dest| {
        let list = &keys[offsets[v] as usize..offsets[v + 1] as usize];
        let mut j = 0;
        for (i, &k) in list.iter().enumerate() {
            if dedup && i > 0 && target(list[i - 1]) == target(k) {
                continue;
            }
            dest[j] = convert(k);
            j += 1;
        }
    });
    out
}

fn csr_unweighted(plan: &ArcPlan<'_>, orientation: Orientation, dedup: bool) -> Csr {
    let offsets = plan.offsets(orientation);
    let keys = plan.grouped_keys(orientation, &offsets, |to, _| to);
    let new_offsets = surviving_offsets(&offsets, &keys, |k| k, dedup);
    let targets =
        if new_offsets == offsets { keys } else { copy_surviving(&offsets, &new_offsets, &keys, |k| k, dedup, |k| k) };
    Csr::new(new_offsets.into(), targets.into(), None)
}

fn csr_weighted(plan: &ArcPlan<'_>, orientation: Orientation, bits: &[u32], is_f32: bool, dedup: bool) -> Csr {
    let offsets = plan.offsets(orientation);
    let keys = plan.grouped_keys(orientation, &offsets, |to, i| (u64::from(to) << 32) | u64::from(bits[i]));
    let target = |k: u64| (k >> 32) as VertexId;
    let new_offsets = surviving_offsets(&offsets, &keys, target, dedup);
    let targets = copy_surviving(&offsets, &new_offsets, &keys, target, dedup, target);
    let weight_bits = copy_surviving(&offsets, &new_offsets, &keys, target, dedup, |k| k as u32);
    let weights = if is_f32 {
        Weights::F32(weight_bits.into_par_iter().map(f32::from_bits).collect::<Vec<_>>().into())
    } else {
        Weights::U32(weight_bits.into())
    };
    Csr::new(new_offsets.into(), targets.into(), Some(weights))
}

/// Unordered pairs of a symmetrised CSR: arcs `u -> v` with `u <= v`.
fn count_undirected_edges(csr: &Csr) -> u64 {
    (0..csr.num_vertices())
        .into_par_iter()
        .with_min_len(1024)
        .map(|v| csr.neighbors(v as VertexId).iter().filter(|&&t| t as usize >= v).count() as u64)
        .sum()
}
