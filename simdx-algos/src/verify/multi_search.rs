//! Oracles of the multi-search applications (msbfs, closeness, harmonic, eccentricity, betweenness): one serial
//! breadth-first search per source, the sources spread over the host's cores.

use rayon::prelude::*;
use simdx_core::{Graph, VertexId};

use super::bfs::{serial_bfs, serial_bfs_to};

const UNREACHED: u32 = u32::MAX;

/// Checks row-major levels (`levels[v * k + i]`: from `sources[i]`) exactly.
pub fn levels_from_each(graph: &Graph, sources: &[VertexId], levels: &[u32]) -> Result<(), String> {
    let (n, k) = (graph.num_vertices(), sources.len());
    if levels.len() != n * k {
        return Err(format!("{} levels for {n} vertices and {k} sources", levels.len()));
    }
    first_error(sources.par_iter().enumerate().map(|(i, &s)| {
        let expected = serial_bfs(graph, s);
        match (0..n).find(|&v| levels[v * k + i] != expected[v]) {
            Some(v) => {
                Err(format!("vertex {v} is at level {} from source {s}, not {}", levels[v * k + i], expected[v]))
            }
            None => Ok(()),
        }
    }))
}

/// The first error of checks made in parallel (in their order), or `Ok`.
fn first_error(checks: impl IndexedParallelIterator<Item = Result<(), String>>) -> Result<(), String> {
    checks.find_map_first(Result::err).map_or(Ok(()), Err)
}

/// Checks the closeness of each of `vertices` within `tolerance` (relative) of networkx's formula.
pub fn closeness(graph: &Graph, vertices: &[VertexId], values: &[f64], tolerance: f64) -> Result<(), String> {
    if values.len() != vertices.len() {
        return Err(format!("{} values for {} vertices", values.len(), vertices.len()));
    }
    let n = graph.num_vertices();
    first_error(vertices.par_iter().zip(values).map(|(&u, &got)| {
        let reach: Vec<u64> = serial_bfs_to(graph, u).into_iter().filter(|&l| l != UNREACHED).map(u64::from).collect();
        let total: u64 = reach.iter().sum();
        let expected = if total == 0 || n < 2 {
            0.0
        } else {
            let others = (reach.len() - 1) as f64;
            others / total as f64 * (others / (n - 1) as f64)
        };
        if got != expected && (got - expected).abs() > tolerance * expected.abs() {
            return Err(format!("the closeness of vertex {u} is {got}, not {expected}"));
        }
        Ok(())
    }))
}

/// Checks the harmonic centrality of each of `vertices` within `tolerance` (relative) of networkx's:
/// the sum of `1 / d(v, u)` over the vertices `v != u` that reach `u`.
pub fn harmonic(graph: &Graph, vertices: &[VertexId], values: &[f64], tolerance: f64) -> Result<(), String> {
    if values.len() != vertices.len() {
        return Err(format!("{} values for {} vertices", values.len(), vertices.len()));
    }
    first_error(vertices.par_iter().zip(values).map(|(&u, &got)| {
        let levels = serial_bfs_to(graph, u);
        let expected: f64 = levels.iter().filter(|&&l| l != UNREACHED && l > 0).map(|&l| 1.0 / f64::from(l)).sum();
        if got != expected && (got - expected).abs() > tolerance * expected.abs() {
            return Err(format!("the harmonic centrality of vertex {u} is {got}, not {expected}"));
        }
        Ok(())
    }))
}

/// Checks each of `vertices`' eccentricity within what it reaches, exactly.
pub fn eccentricity(graph: &Graph, vertices: &[VertexId], values: &[u32]) -> Result<(), String> {
    if values.len() != vertices.len() {
        return Err(format!("{} values for {} vertices", values.len(), vertices.len()));
    }
    first_error(vertices.par_iter().zip(values).map(|(&u, &got)| {
        let expected = serial_bfs(graph, u).into_iter().filter(|&l| l != UNREACHED).max().unwrap_or(0);
        if got != expected {
            return Err(format!("the eccentricity of vertex {u} is {got}, not {expected}"));
        }
        Ok(())
    }))
}

/// Checks betweenness centrality from `sources` (scaled by [`crate::bc::networkx_scale`]) within
/// `tolerance` (relative), from the definition: the sum over sources `s` and targets `t` of the share
/// of shortest `s`-`t` paths through `v`, `sigma(s, v) * sigma(v, t) / sigma(s, t)` where `v` lies on
/// one (`d(s, v) + d(v, t) = d(s, t)`), with distances and path counts from every vertex. Quadratic in
/// the vertices: for small graphs.
pub fn betweenness(
    graph: &Graph,
    sources: &[VertexId],
    normalized: bool,
    values: &[f64],
    tolerance: f64,
) -> Result<(), String> {
    let n = graph.num_vertices();
    if values.len() != n {
        return Err(format!("{} values for {n} vertices", values.len()));
    }
    let from: Vec<(Vec<u32>, Vec<f64>)> = (0..n as VertexId).into_par_iter().map(|u| paths_from(graph, u)).collect();
    let mut sums = vec![0.0; n];
    for &s in sources {
        let (ds, ps) = &from[s as usize];
        for (v, sum) in sums.iter_mut().enumerate() {
            if v == s as usize || ds[v] == UNREACHED {
                continue;
            }
            let (dv, pv) = &from[v];
            for t in (0..n).filter(|&t| t != v && t != s as usize && ds[t] != UNREACHED && dv[t] != UNREACHED) {
                if u64::from(ds[v]) + u64::from(dv[t]) == u64::from(ds[t]) {
                    *sum += ps[v] * pv[t] / ps[t];
                }
            }
        }
    }
    for (v, (&got, sum)) in values.iter().zip(sums).enumerate() {
        let expected = sum
            * crate::bc::networkx_scale(
                graph.num_vertices(),
                graph.is_directed(),
                sources.len(),
                sources.contains(&(v as VertexId)),
                normalized,
            );
        if !(got == expected
            || got.is_nan() && expected.is_nan()
            || (got - expected).abs() <= tolerance * expected.abs().max(1e-12))
        {
            return Err(format!("the betweenness of vertex {v} is {got}, not {expected}"));
        }
    }
    Ok(())
}

/// Distances (levels) and shortest-path counts from `s` along out-arcs.
fn paths_from(graph: &Graph, s: VertexId) -> (Vec<u32>, Vec<f64>) {
    let distance = serial_bfs(graph, s);
    let mut by_level: Vec<VertexId> =
        (0..graph.num_vertices() as VertexId).filter(|&v| distance[v as usize] != UNREACHED).collect();
    by_level.sort_by_key(|&v| distance[v as usize]);
    let mut count = vec![0.0; graph.num_vertices()];
    count[s as usize] = 1.0;
    for v in by_level {
        for &w in graph.out_neighbors(v) {
            if distance[w as usize] == distance[v as usize] + 1 {
                count[w as usize] += count[v as usize];
            }
        }
    }
    (distance, count)
}
