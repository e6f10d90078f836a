//! WCC oracle: union-find over every edge, ignoring direction, and an exact comparison.

use simdx_core::{Graph, VertexId};

/// The component id (smallest vertex id in the component) of every vertex, by union-find with
/// path halving over every edge taken in both directions: weakly connected components.
pub fn union_find_components(graph: &Graph) -> Vec<u32> {
    let n = graph.num_vertices();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            let grand = parent[parent[v as usize] as usize];
            parent[v as usize] = grand;
            v = grand;
        }
        v
    }
    for (u, v, _) in graph.edges() {
        let (a, b) = (find(&mut parent, u), find(&mut parent, v));
        // The root with the smaller id wins, so every root is its set's smallest id.
        if a < b {
            parent[b as usize] = a;
        } else if b < a {
            parent[a as usize] = b;
        }
    }
    (0..n as VertexId).map(|v| find(&mut parent, v)).collect()
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
