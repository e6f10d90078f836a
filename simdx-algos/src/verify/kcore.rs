//! k-core oracle: a serial peeling (Matula–Beck: repeatedly remove a vertex of smallest remaining
//! degree) for the core number of every vertex, and exact checks of a k-core and of core numbers.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use simdx_core::{Graph, VertexId};

/// Each vertex's neighbours as k-core counts them: for an undirected graph its arcs as stored (a kept
/// self-loop once, kept duplicates each); for a directed graph its neighbours in the underlying
/// simple undirected graph (out- and in-neighbours, once each, itself excluded).
fn neighbours(graph: &Graph) -> Vec<Vec<VertexId>> {
    (0..graph.num_vertices() as VertexId)
        .map(|v| {
            if !graph.is_directed() {
                return graph.out_neighbors(v).to_vec();
            }
            let mut all: Vec<VertexId> =
                graph.out_neighbors(v).iter().chain(graph.in_neighbors(v)).copied().filter(|&u| u != v).collect();
            all.sort_unstable();
            all.dedup();
            all
        })
        .collect()
}

/// The core number of every vertex: remove a vertex of smallest remaining degree until none is left;
/// a vertex's core number is the largest such smallest degree seen up to its removal.
pub fn serial_core_numbers(graph: &Graph) -> Vec<u32> {
    let adjacency = neighbours(graph);
    let n = adjacency.len();
    let mut degree: Vec<u32> = adjacency.iter().map(|a| a.len() as u32).collect();
    let mut removed = vec![false; n];
    let mut core = vec![0u32; n];
    let mut heap: BinaryHeap<Reverse<(u32, VertexId)>> = (0..n).map(|v| Reverse((degree[v], v as VertexId))).collect();
    let mut level = 0;
    while let Some(Reverse((d, v))) = heap.pop() {
        if removed[v as usize] || d != degree[v as usize] {
            continue; // an outdated entry
        }
        level = level.max(d);
        core[v as usize] = level;
        removed[v as usize] = true;
        for &u in &adjacency[v as usize] {
            if !removed[u as usize] {
                degree[u as usize] -= 1;
                heap.push(Reverse((degree[u as usize], u)));
            }
        }
    }
    core
}

/// Checks a [`crate::KCore`] result exactly: a vertex is in the k-core (value `>= k`) exactly when
/// its core number from [`serial_core_numbers`] is at least `k`, and then its value is its degree
/// within the k-core; the value of a vertex outside is below `k`.
pub fn kcore(graph: &Graph, k: u32, values: &[u32]) -> Result<(), String> {
    let n = graph.num_vertices();
    if values.len() != n {
        return Err(format!("{} values for {n} vertices", values.len()));
    }
    let core = serial_core_numbers(graph);
    let inside: Vec<bool> = core.iter().map(|&c| c >= k).collect();
    for (v, adjacent) in neighbours(graph).iter().enumerate() {
        let value = values[v];
        if inside[v] {
            let degree = adjacent.iter().filter(|&&u| inside[u as usize]).count() as u32;
            if value != degree {
                return Err(format!(
                    "vertex {v} (core number {}) is in the {k}-core with degree {degree} there, but has value {value}",
                    core[v]
                ));
            }
        } else if value >= k {
            return Err(format!(
                "vertex {v} has value {value} >= {k}, but its core number is {}: it is not in the {k}-core",
                core[v]
            ));
        }
    }
    Ok(())
}

/// Checks core numbers exactly against [`serial_core_numbers`].
pub fn core_decomposition(graph: &Graph, cores: &[u32]) -> Result<(), String> {
    let n = graph.num_vertices();
    if cores.len() != n {
        return Err(format!("{} core numbers for {n} vertices", cores.len()));
    }
    let expected = serial_core_numbers(graph);
    match (0..n).find(|&v| expected[v] != cores[v]) {
        Some(v) => Err(format!("vertex {v} has core number {}, the serial peeling says {}", cores[v], expected[v])),
        None => Ok(()),
    }
}
