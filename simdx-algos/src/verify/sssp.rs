//! SSSP oracle: Dijkstra with a binary heap over 64-bit distances, and an exact comparison.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use simdx_core::acc::weights_of;
use simdx_core::{Graph, VertexId};

use crate::sssp::UNREACHED;

/// Distances from `source` by Dijkstra's algorithm (integer weights; 1 per edge if unweighted),
/// saturated to `u32` the way [`crate::Sssp`] saturates them.
pub fn dijkstra(graph: &Graph, source: VertexId) -> Result<Vec<u32>, String> {
    dijkstra_from(graph, &[source])
}

/// Distances from the nearest of `sources` (each at distance 0) by Dijkstra's algorithm.
pub fn dijkstra_from(graph: &Graph, sources: &[VertexId]) -> Result<Vec<u32>, String> {
    let csr = graph.out_csr();
    let weights = weights_of::<u32>(csr)?;
    let mut dist = vec![u64::MAX; graph.num_vertices()];
    let mut heap = BinaryHeap::new();
    for &s in sources {
        dist[s as usize] = 0;
        heap.push(Reverse((0u64, s)));
    }
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for i in csr.range(u) {
            let v = csr.targets()[i];
            let nd = d + u64::from(weights.get(i));
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    Ok(dist.into_iter().map(|d| d.min(u64::from(UNREACHED)) as u32).collect())
}

/// Checks `distances` against [`dijkstra`] exactly.
pub fn sssp(graph: &Graph, source: VertexId, distances: &[u32]) -> Result<(), String> {
    sssp_from(graph, &[source], distances)
}

/// Checks distances from the nearest of `sources` against [`dijkstra_from`] exactly.
pub fn sssp_from(graph: &Graph, sources: &[VertexId], distances: &[u32]) -> Result<(), String> {
    let expected = dijkstra_from(graph, sources)?;
    if distances.len() != expected.len() {
        return Err(format!("{} distances for {} vertices", distances.len(), expected.len()));
    }
    match (0..expected.len()).find(|&v| expected[v] != distances[v]) {
        Some(v) => Err(format!("vertex {v} has distance {}, Dijkstra says {}", distances[v], expected[v])),
        None => Ok(()),
    }
}
