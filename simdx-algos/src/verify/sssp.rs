//! SSSP oracle: Dijkstra with a binary heap over 64-bit distances, and an exact comparison with the
//! distances of [`crate::Sssp`] (`u32`) or [`crate::WideSssp`] (`u64`). An unreachable vertex is
//! `None` here, never a number, so a distance that saturated to the "unreached" sentinel is caught.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use simdx_core::acc::weights_of;
use simdx_core::{Graph, VertexId};

/// A distance as an SSSP program returns it: its type's largest value means unreachable.
pub trait Distance: Copy + std::fmt::Debug {
    /// The distance, or `None` for unreachable.
    fn reached(self) -> Option<u64>;
}

impl Distance for u32 {
    fn reached(self) -> Option<u64> {
        (self != u32::MAX).then_some(u64::from(self))
    }
}

impl Distance for u64 {
    fn reached(self) -> Option<u64> {
        (self != u64::MAX).then_some(self)
    }
}

/// Distances from `source` by Dijkstra's algorithm (integer weights; 1 per edge if unweighted),
/// `None` where unreachable.
pub fn dijkstra(graph: &Graph, source: VertexId) -> Result<Vec<Option<u64>>, String> {
    dijkstra_from(graph, &[source])
}

/// Distances from the nearest of `sources` (each at distance 0) by Dijkstra's algorithm.
pub fn dijkstra_from(graph: &Graph, sources: &[VertexId]) -> Result<Vec<Option<u64>>, String> {
    let csr = graph.out_csr();
    let weights = weights_of::<u32>(csr)?;
    let mut dist: Vec<Option<u64>> = vec![None; graph.num_vertices()];
    let mut heap = BinaryHeap::new();
    for &s in sources {
        dist[s as usize] = Some(0);
        heap.push(Reverse((0u64, s)));
    }
    while let Some(Reverse((d, u))) = heap.pop() {
        if dist[u as usize].is_some_and(|best| d > best) {
            continue;
        }
        for i in csr.range(u) {
            let v = csr.targets()[i] as usize;
            let nd = d + u64::from(weights.get(i));
            if dist[v].map_or(true, |best| nd < best) {
                dist[v] = Some(nd);
                heap.push(Reverse((nd, v as VertexId)));
            }
        }
    }
    Ok(dist)
}

/// Checks `distances` against [`dijkstra`] exactly.
pub fn sssp<D: Distance>(graph: &Graph, source: VertexId, distances: &[D]) -> Result<(), String> {
    sssp_from(graph, &[source], distances)
}

/// Checks distances from the nearest of `sources` against [`dijkstra_from`] exactly.
pub fn sssp_from<D: Distance>(graph: &Graph, sources: &[VertexId], distances: &[D]) -> Result<(), String> {
    let expected = dijkstra_from(graph, sources)?;
    if distances.len() != expected.len() {
        return Err(format!("{} distances for {} vertices", distances.len(), expected.len()));
    }
    let shown = |d: Option<u64>| d.map_or("unreachable".to_string(), |d| d.to_string());
    match (0..expected.len()).find(|&v| expected[v] != distances[v].reached()) {
        Some(v) => Err(format!(
            "vertex {v} has distance {}, Dijkstra says {}",
            shown(distances[v].reached()),
            shown(expected[v])
        )),
        None => Ok(()),
    }
}
