//! Oracles for triangle counting and Jaccard similarity: neighbour sets in hash sets and look-ups, in
//! id order (no sorted-list intersections, no degree orientation); triangles serially, Jaccard's pairs
//! in parallel.

use std::collections::HashSet;

use simdx_core::{Graph, VertexId};

/// Each vertex's neighbour set, self-loops left out.
fn neighbour_sets(graph: &Graph) -> Vec<HashSet<VertexId>> {
    let n = graph.num_vertices() as VertexId;
    (0..n).map(|u| graph.out_neighbors(u).iter().copied().filter(|&v| v != u).collect()).collect()
}

/// The triangles each vertex is in, counted serially: each triangle `u < v < w` (by id) once, from
/// its edge `{u, v}`, by looking the smaller end's neighbours up in the larger end's set.
pub fn serial_triangles(graph: &Graph) -> Vec<u64> {
    let sets = neighbour_sets(graph);
    let mut counts = vec![0; sets.len()];
    for u in 0..sets.len() as VertexId {
        for &v in sets[u as usize].iter().filter(|&&v| v > u) {
            let (a, b) = (&sets[u as usize], &sets[v as usize]);
            let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            for &w in small.iter().filter(|&&w| w > v && large.contains(&w)) {
                for x in [u, v, w] {
                    counts[x as usize] += 1;
                }
            }
        }
    }
    counts
}

/// Checks per-vertex triangle counts against [`serial_triangles`].
pub fn triangles(graph: &Graph, counts: &[u64]) -> Result<(), String> {
    let want = serial_triangles(graph);
    if counts.len() != want.len() {
        return Err(format!("{} counts for {} vertices", counts.len(), want.len()));
    }
    match (0..want.len()).find(|&v| counts[v] != want[v]) {
        Some(v) => Err(format!("vertex {v} is in {} triangles, not {}", want[v], counts[v])),
        None => Ok(()),
    }
}

/// Checks a total triangle count against a third of the sum of [`serial_triangles`].
pub fn triangle_count(graph: &Graph, total: u64) -> Result<(), String> {
    let want = serial_triangles(graph).iter().sum::<u64>() / 3;
    if total == want {
        Ok(())
    } else {
        Err(format!("the graph has {want} triangles, not {total}"))
    }
}

/// Checks Jaccard coefficients of `pairs` within `tolerance` of hash-set intersections and unions.
pub fn jaccard(graph: &Graph, pairs: &[(VertexId, VertexId)], values: &[f64], tolerance: f64) -> Result<(), String> {
    use rayon::prelude::*;
    let n = graph.num_vertices() as VertexId;
    let sets: Vec<HashSet<VertexId>> =
        (0..n).into_par_iter().map(|u| graph.out_neighbors(u).iter().copied().collect()).collect();
    // The first pair that disagrees, in order: the smaller set's members looked up in the larger
    // (`HashSet::intersection` walks the smaller), the union counted from the sizes, so that a pair
    // with a hub costs its other end's degree, not the hub's.
    let wrong = pairs.par_iter().zip(values).enumerate().find_first(|&(_, (&(u, v), &got))| {
        let (a, b) = (&sets[u as usize], &sets[v as usize]);
        let common = a.intersection(b).count();
        let union = a.len() + b.len() - common;
        let want = if union == 0 { 0.0 } else { common as f64 / union as f64 };
        (got - want).abs() > tolerance
    });
    if let Some((_, (&(u, v), &got))) = wrong {
        let (a, b) = (&sets[u as usize], &sets[v as usize]);
        let common = a.intersection(b).count();
        let want = common as f64 / (a.len() + b.len() - common).max(1) as f64;
        return Err(format!("pair ({u}, {v}): Jaccard {got}, expected {want}"));
    }
    match values.len() == pairs.len() {
        true => Ok(()),
        false => Err(format!("{} values for {} pairs", values.len(), pairs.len())),
    }
}
