//! SSSP oracle: Dijkstra with a binary heap over 64-bit distances, and an exact parallel check of the
//! distances of [`crate::Sssp`] (`u32`) or [`crate::WideSssp`] (`u64`) by the rules only shortest
//! distances satisfy (or against Dijkstra, when some weight is 0). An unreachable vertex is
//! `None` here, never a number, so a distance that saturated to the "unreached" sentinel is caught.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use simdx_core::acc::{weights_of, WeightView};
use simdx_core::{Graph, VertexId};

/// A distance as an SSSP program returns it: its type's largest value means unreachable.
pub trait Distance: Copy + std::fmt::Debug + Send + Sync {
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

/// Checks `distances` from `source` exactly: see [`sssp_from`].
pub fn sssp<D: Distance>(graph: &Graph, source: VertexId, distances: &[D]) -> Result<(), String> {
    sssp_from(graph, &[source], distances)
}

/// Checks distances from the nearest of `sources` exactly. When every weight is at least 1, by rules
/// checked in parallel that only the true distances satisfy: every source is at 0; along every arc
/// `u -> v` (weight `w`) with `u` reached, `v` is reached and `dist[v] <= dist[u] + w`; every reached
/// vertex other than a source has an in-arc from a reached vertex that gives it its distance exactly.
/// The arc rule bounds every distance from above by the shortest path's length and reaches every
/// reachable vertex; the in-arc rule walks back from each reached vertex along arcs whose distances
/// fall by their weights (at least 1), so down to a source, along a path as long as its distance.
/// With zero weights that walk could go round a cycle, so the distances are compared with
/// [`dijkstra_from`] instead.
pub fn sssp_from<D: Distance>(graph: &Graph, sources: &[VertexId], distances: &[D]) -> Result<(), String> {
    let n = graph.num_vertices();
    if distances.len() != n {
        return Err(format!("{} distances for {n} vertices", distances.len()));
    }
    super::bfs::no_stranger(sources, n)?;
    let csr = graph.out_csr();
    let weights = weights_of::<u32>(csr)?;
    if let WeightView::PerArc(w) = &weights {
        if w.par_iter().any(|&w| w == 0) {
            return against_dijkstra(graph, sources, distances);
        }
    }
    if let Some(&s) = sources.iter().find(|&&s| distances[s as usize].reached() != Some(0)) {
        return Err(format!("the source {s} has distance {}, not 0", shown(distances[s as usize].reached())));
    }
    let given: Vec<AtomicBool> = (0..n).into_par_iter().map(|_| AtomicBool::new(false)).collect();
    sources.iter().for_each(|&s| given[s as usize].store(true, Ordering::Relaxed));
    let arc_rule = (0..n as VertexId).into_par_iter().find_map_first(|u| {
        let du = distances[u as usize].reached()?;
        for i in csr.range(u) {
            let (v, w) = (csr.targets()[i], u64::from(weights.get(i)));
            // Saturated, the sum is above every distance a vertex can hold (`u64::MAX` is unreached).
            let through_u = du.saturating_add(w);
            match distances[v as usize].reached() {
                Some(dv) if dv == through_u => given[v as usize].store(true, Ordering::Relaxed),
                Some(dv) if dv < through_u => {}
                dv => return Some(format!("arc {u} -> {v} (weight {w}) leads from distance {du} to {}", shown(dv))),
            }
        }
        None
    });
    if let Some(why) = arc_rule {
        return Err(why);
    }
    let ungiven =
        (0..n).into_par_iter().find_first(|&v| distances[v].reached().is_some() && !given[v].load(Ordering::Relaxed));
    match ungiven {
        Some(v) => Err(format!(
            "vertex {v} has distance {}, but no in-arc from a reached vertex gives it that distance",
            shown(distances[v].reached())
        )),
        None => Ok(()),
    }
}

/// Checks distances from the nearest of `sources` against [`dijkstra_from`] exactly.
fn against_dijkstra<D: Distance>(graph: &Graph, sources: &[VertexId], distances: &[D]) -> Result<(), String> {
    let expected = dijkstra_from(graph, sources)?;
    match (0..expected.len()).find(|&v| expected[v] != distances[v].reached()) {
        Some(v) => Err(format!(
            "vertex {v} has distance {}, Dijkstra says {}",
            shown(distances[v].reached()),
            shown(expected[v])
        )),
        None => Ok(()),
    }
}

/// A distance in a message.
fn shown(d: Option<u64>) -> String {
    d.map_or("unreachable".to_string(), |d| d.to_string())
}
