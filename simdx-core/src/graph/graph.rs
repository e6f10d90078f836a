//! [`Graph`]: what every algorithm runs on — an undirected graph stored once, symmetrised, or a
//! directed graph with both out-edges and in-edges, so that push and pull both work.

use super::csr::Csr;
use super::weights::{WeightKind, Weights};
use crate::VertexId;

/// A graph in CSR form. Build one with [`crate::GraphBuilder`], a reader in [`crate::io`] or a
/// generator in [`crate::gen`].
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub(crate) directed: bool,
    pub(crate) num_edges: u64,
    pub(crate) out: Csr,
    /// In-edges; `None` for undirected graphs, whose in-edges are their out-edges.
    pub(crate) incoming: Option<Csr>,
}

impl Graph {
    /// Assembles a graph from CSRs already checked by [`Csr::from_parts`]. A directed graph needs
    /// `incoming`, an undirected one must not have it; `num_edges` counts arcs (directed) or unordered
    /// pairs (undirected). Both CSRs must have the same vertex count, arc count and weight kind.
    pub fn from_csr(directed: bool, num_edges: u64, out: Csr, incoming: Option<Csr>) -> Result<Self, String> {
        match (&incoming, directed) {
            (Some(inc), true) => {
                if inc.num_vertices() != out.num_vertices() || inc.num_arcs() != out.num_arcs() {
                    return Err("the in-edge CSR does not match the out-edge CSR in vertices or arcs".into());
                }
                if inc.weights().map(Weights::kind) != out.weights().map(Weights::kind) {
                    return Err("the in-edge and out-edge CSRs have different weight kinds".into());
                }
                if num_edges != out.num_arcs() {
                    return Err(format!("a directed graph with {} arcs cannot have {num_edges} edges", out.num_arcs()));
                }
            }
            (None, false) => {
                if num_edges > out.num_arcs() || num_edges * 2 < out.num_arcs() {
                    return Err(format!(
                        "an undirected graph with {} arcs cannot have {num_edges} edges",
                        out.num_arcs()
                    ));
                }
            }
            (Some(_), false) => return Err("an undirected graph has no separate in-edge CSR".into()),
            (None, true) => return Err("a directed graph needs its in-edge CSR".into()),
        }
        Ok(Graph { directed, num_edges, out, incoming })
    }

    /// Number of vertices; ids are `0..num_vertices()`.
    #[inline]
    pub fn num_vertices(&self) -> usize {
        self.out.num_vertices()
    }

    /// Number of edges: arcs for a directed graph, unordered pairs for an undirected one
    /// (a self-loop, when kept, counts once).
    #[inline]
    pub fn num_edges(&self) -> u64 {
        self.num_edges
    }

    /// Number of stored out-arcs (for an undirected graph, about twice the edges).
    #[inline]
    pub fn num_arcs(&self) -> u64 {
        self.out.num_arcs()
    }

    /// Whether the graph is directed.
    #[inline]
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// The kind of edge weights, or `None` for an unweighted graph.
    pub fn weight_kind(&self) -> Option<WeightKind> {
        self.out.weights().map(Weights::kind)
    }

    /// Whether edges carry weights.
    pub fn is_weighted(&self) -> bool {
        self.out.weights().is_some()
    }

    /// Out-edges (all edges, for an undirected graph).
    #[inline]
    pub fn out_csr(&self) -> &Csr {
        &self.out
    }

    /// In-edges (the same as [`Graph::out_csr`] for an undirected graph).
    #[inline]
    pub fn in_csr(&self) -> &Csr {
        self.incoming.as_ref().unwrap_or(&self.out)
    }

    /// Out-degree of `v`.
    #[inline]
    pub fn out_degree(&self, v: VertexId) -> u64 {
        self.out.degree(v)
    }

    /// In-degree of `v`.
    #[inline]
    pub fn in_degree(&self, v: VertexId) -> u64 {
        self.in_csr().degree(v)
    }

    /// Sorted out-neighbours of `v`.
    #[inline]
    pub fn out_neighbors(&self, v: VertexId) -> &[VertexId] {
        self.out.neighbors(v)
    }

    /// Sorted in-neighbours of `v`.
    #[inline]
    pub fn in_neighbors(&self, v: VertexId) -> &[VertexId] {
        self.in_csr().neighbors(v)
    }

    /// Every edge once, with its weight widened to `f64` (`None` if unweighted): arcs in source order
    /// for a directed graph, pairs `(u, v)` with `u <= v` for an undirected one.
    pub fn edges(&self) -> impl Iterator<Item = (VertexId, VertexId, Option<f64>)> + '_ {
        let directed = self.directed;
        let out = &self.out;
        (0..self.num_vertices() as VertexId).flat_map(move |u| {
            out.range(u)
                .filter(move |&i| directed || u <= out.targets()[i])
                .map(move |i| (u, out.targets()[i], out.weights().map(|w| w.get_f64(i))))
        })
    }

    /// Smallest, largest and mean out-degree (zeros for a graph without vertices).
    pub fn degree_summary(&self) -> (u64, u64, f64) {
        use rayon::prelude::*;
        let n = self.num_vertices();
        if n == 0 {
            return (0, 0, 0.0);
        }
        let (min, max) = (0..n as VertexId)
            .into_par_iter()
            .map(|v| {
                let d = self.out_degree(v);
                (d, d)
            })
            .reduce(|| (u64::MAX, 0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        (min, max, self.num_arcs() as f64 / n as f64)
    }

    /// Out-degree histogram in powers of two: entry `0` counts degree 0, entry `k >= 1` counts
    /// degrees in `[2^(k-1), 2^k)`.
    pub fn degree_histogram(&self) -> Vec<u64> {
        use rayon::prelude::*;
        (0..self.num_vertices() as VertexId)
            .into_par_iter()
            .fold(
                || vec![0u64; 66],
                |mut h, v| {
                    let d = self.out_degree(v);
                    h[(64 - d.leading_zeros()) as usize] += 1;
                    h
                },
            )
            .reduce(|| vec![0u64; 66], |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect())
            .into_iter()
            .rev()
            .skip_while(|&c| c == 0)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect()
    }

    /// Heap bytes held (arrays mapped from a file count 0; see [`Graph::data_bytes`]).
    pub fn heap_bytes(&self) -> usize {
        self.out.heap_bytes() + self.incoming.as_ref().map_or(0, Csr::heap_bytes)
    }

    /// Bytes of all CSR arrays, on the heap or mapped.
    pub fn data_bytes(&self) -> usize {
        self.out.data_bytes() + self.incoming.as_ref().map_or(0, Csr::data_bytes)
    }
}
