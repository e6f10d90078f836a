//! WCC oracle: a parallel union-find over every arc, ignoring direction, and an exact comparison.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;
use simdx_core::{Graph, VertexId};

/// The component id (smallest vertex id in the component) of every vertex, by a parallel union-find
/// over every arc, direction ignored: weakly connected components. Every vertex's parent has a smaller
/// id or is itself, so each root is its set's smallest id and no cycle can form: a union links the
/// larger of two roots under the smaller one by compare-and-swap (and tries again when another union
/// got there first); finds halve their paths as they go.
pub fn union_find_components(graph: &Graph) -> Vec<u32> {
    let n = graph.num_vertices();
    let parent: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    // An undirected graph holds each edge both ways: one of them is enough.
    let directed = graph.is_directed();
    (0..n as VertexId).into_par_iter().for_each(|u| {
        for &v in graph.out_neighbors(u).iter().filter(|&&v| directed || v < u) {
            union(&parent, u, v);
        }
    });
    (0..n as VertexId).into_par_iter().map(|v| find(&parent, v)).collect()
}

/// The root of `v`'s set, halving the path on the way (a failed halving only means another thread
/// moved the pointer first, to a vertex no larger).
fn find(parent: &[AtomicU32], mut v: u32) -> u32 {
    loop {
        let p = parent[v as usize].load(Ordering::Relaxed);
        if p == v {
            return v;
        }
        let grand = parent[p as usize].load(Ordering::Relaxed);
        let _ = parent[v as usize].compare_exchange(p, grand, Ordering::Relaxed, Ordering::Relaxed);
        v = grand;
    }
}

/// Joins the sets of `a` and `b`: the larger root goes under the smaller.
fn union(parent: &[AtomicU32], a: u32, b: u32) {
    let (mut a, mut b) = (a, b);
    loop {
        (a, b) = (find(parent, a), find(parent, b));
        if a == b {
            return;
        }
        let (low, high) = (a.min(b), a.max(b));
        if parent[high as usize].compare_exchange(high, low, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            return;
        }
    }
}

/// Checks `labels` exactly against [`union_find_components`]: each vertex must hold the smallest
/// vertex id of its weakly connected component.
pub fn wcc(graph: &Graph, labels: &[u32]) -> Result<(), String> {
    let n = graph.num_vertices();
    if labels.len() != n {
        return Err(format!("{} labels for {n} vertices", labels.len()));
    }
    let expected = union_find_components(graph);
    match (0..n).find(|&v| expected[v] != labels[v]) {
        Some(v) => Err(format!(
            "vertex {v} has component {}, but the smallest vertex of its weakly connected component is {}",
            labels[v], expected[v]
        )),
        None => Ok(()),
    }
}
